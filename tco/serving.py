"""A scenario's serving configuration (the catalogue's "serving" inputs): the traffic buckets as typed and stored,
and one bucket from today's workload when none is typed.

No database: used by the serving form, the ``serving_update`` service and the sizing document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lib.errors import AppError
from lib.numbers import NumberTextError, read_decimal
from tco.engine.catalogue import (
    BUCKET_INPUT_TOKENS,
    BUCKET_OUTPUT_TOKENS,
    BUCKET_REQUESTS,
    MAX_BUCKETS,
    SCENARIO_FIELD,
)
from tco.engine.fields import check_number

TRAFFIC = SCENARIO_FIELD["serving_traffic"]
_CELLS = re.compile(r"\s*[\t;]\s*|,\s+|\s+")
BUCKET_CHECKS = (BUCKET_REQUESTS, BUCKET_INPUT_TOKENS, BUCKET_OUTPUT_TOKENS)

Bucket = tuple[float, int, int]  # requests per second, input tokens, output tokens


class ServingError(AppError, ValueError):
    """A serving input that cannot be used: ``field`` names its form field, the message says why in its words."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


def _cells(line: str) -> list[str]:
    cells = [cell for cell in _CELLS.split(line.strip()) if cell]
    return line.strip().split(",") if len(cells) == 1 and "," in line else cells


def parse_traffic(text: str) -> list[list[float | int]]:
    """One bucket a line, "requests per second, input tokens, output tokens" (commas with a space, tabs, semicolons
    or spaces between them), as the scenario stores it: ``[[2.5, 1200, 350], ...]``; [] for blank text (one bucket
    from the workload). Raises ServingError naming the line and the value."""
    lines = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    buckets: list[list[float | int]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cells = _cells(line)
        if len(cells) != 3:
            raise ServingError(
                TRAFFIC.field,
                f"{TRAFFIC.label}, line {number}: give 3 numbers, requests per second, input tokens and output "
                f"tokens (2.5, 1200, 350); got {len(cells)}",
            )
        bucket: list[float | int] = []
        for cell, spec in zip(cells, BUCKET_CHECKS, strict=True):
            try:
                value = read_decimal(cell)
            except NumberTextError as error:
                raise ServingError(TRAFFIC.field, f"{TRAFFIC.label}, line {number}, {spec.label}: {error}") from None
            checked, message = check_number(value, spec)
            if message:
                raise ServingError(TRAFFIC.field, f"{TRAFFIC.label}, line {number}: {message}")
            bucket.append(checked)
        buckets.append(bucket)
        if len(buckets) > MAX_BUCKETS:
            raise ServingError(TRAFFIC.field, f"{TRAFFIC.label}: at most {MAX_BUCKETS} buckets; merge similar sizes")
    return buckets


def traffic_text(buckets: Sequence[Sequence[Any]] | None) -> str:
    """The stored buckets as the form shows them, one a line: "2.5, 1200, 350"."""
    return "\n".join(", ".join(format(value, "g") for value in bucket) for bucket in buckets or ())


def workload_bucket(document: dict[str, Any]) -> tuple[Bucket | None, str]:
    """The one bucket today's workload implies, and how it was worked out (or why there is none): the traffic the
    fleet is built to serve, each GPU at the workload's throughput, ``fleet x throughput ÷ output tokens per
    response`` requests a second of the workload's input and output tokens. Utilization is left out: it stays the
    share of that capacity busy on average, before and after sizing."""
    workload = document.get("workload") or {}
    throughput = workload.get("tokens_per_second_per_gpu")
    output_tokens = workload.get("output_tokens_per_response")
    fleet = document.get("fleet_gpus")
    if not (throughput and output_tokens and fleet):
        return None, (
            "Type the traffic, or complete the workload's throughput and output tokens per response and the fleet "
            "size: one bucket is worked out from them."
        )
    rate = fleet * throughput / output_tokens
    input_tokens = max(1, round(workload.get("input_tokens_per_response") or 1))
    bucket = (rate, input_tokens, max(1, round(output_tokens)))
    how = (
        f"{fleet:g} GPUs x {throughput:g} output tokens/s per GPU ÷ {output_tokens:g} output tokens per response: "
        "the traffic today's fleet is built for"
    )
    return bucket, how
