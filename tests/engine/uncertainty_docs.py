"""Helpers for the simulate / sensitivity / fleet_plan tests: an independent way to build the variant
``evaluate`` sees for an input path set to a value, straight from docs/money-math.md's rules."""

from __future__ import annotations

import copy
import re
from typing import Any

from tco.engine import evaluate

from .docs import api, owned, rental, scenario

OWNED_KINDS = ("owned", "secondary")


def rich_scenario() -> dict[str, Any]:
    """A rising monthly forecast, every option kind, overrides, a commitment, a defaulted idle power."""
    return scenario(
        owned(name="Own 8x H100"),
        owned(name="Own 4x", gpu_count=4, capex=160000, residual_value=0, idle_power_kw=None,
              power_kw=5.1, tokens_per_second_per_gpu=2600),
        owned(name="Secondary", kind="secondary", capex=176000, residual_value=10000, useful_life_years=3,
              acceptance_rate=0.85),
        rental(name="Lambda", price_change_per_year=-0.1),
        rental(name="Google", kind="hyperscaler", price_per_gpu_hour=11.06, extras_per_year=5000),
        rental(name="Committed", price_per_gpu_hour=4.2, billing="committed", committed_gpus=6),
        rental(name="Market", kind="marketplace", price_per_gpu_hour=2.1, tokens_per_second_per_gpu=1800),
        api(name="API"),
        utilization=[0.3 + 0.65 * m / 35 for m in range(36)],
    )  # fmt: skip


def level(doc: dict[str, Any]) -> float:
    values = doc["utilization"]
    return values[0] if len(values) == 1 else sum(values) / len(values)


def with_value(doc: dict[str, Any], path: str, value: float) -> dict[str, Any]:
    """``doc`` with ``path`` set to ``value``; ``utilization`` scales the forecast to that level
    (each month x value/mean, clipped to [0, 1]; a flat forecast becomes the value)."""
    doc = copy.deepcopy(doc)
    if path == "utilization":
        values = doc["utilization"]
        if len(values) == 1:
            doc["utilization"] = [value]
        else:
            mean = level(doc)
            doc["utilization"] = [min(max(u * (value / mean), 0.0), 1.0) for u in values]
    elif match := re.fullmatch(r"options\[(\d+)\]\.(\w+)", path):
        doc["options"][int(match[1])][match[2]] = value
    elif match := re.fullmatch(r"workload\.(\w+)", path):
        doc["workload"][match[1]] = value
    else:
        doc[path] = value
    return doc


def difference(result: dict[str, Any]) -> float:
    """Lowest owned NPV minus lowest NPV of the other options, from an ``evaluate`` result."""
    owned_npvs = [o["npv"] for o in result["options"] if o["kind"] in OWNED_KINDS]
    others = [o["npv"] for o in result["options"] if o["kind"] not in OWNED_KINDS]
    return min(owned_npvs) - min(others)


def evaluated_difference(doc: dict[str, Any], path: str, value: float) -> float:
    return difference(evaluate(with_value(doc, path, value)))
