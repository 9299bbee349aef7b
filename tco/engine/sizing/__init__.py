"""Start from the workload (docs/money-math.md, "Sizing"): ``size(document)`` turns a ``tco-sizing/1`` document
(model, precision, traffic buckets, latency target, GPUs with measured throughput) into memory fit, operating
points, replicas per GPU type and the cheapest mix of GPU types, a ``tco-sizing-result/1``."""

from __future__ import annotations

from .document import SIZING_RESULT_SCHEMA, SIZING_SCHEMA, read_sizing
from .size import size

__all__ = ["SIZING_RESULT_SCHEMA", "SIZING_SCHEMA", "read_sizing", "size"]
