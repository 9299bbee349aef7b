"""The operating point a replica type reaches for one traffic bucket, from measured rows (docs/money-math.md).

Rows of the type's tp with the bucket's input and output tokens; none: the nearest shape by
``|log(in/in_b)| + |log(out/out_b)|`` (equidistant shapes pooled). Of those, the rows meeting the latency target;
the highest ``output_tokens_per_second_per_gpu`` wins (ties: the lower concurrency, then the first row).
"""

from __future__ import annotations

import math
from typing import Any

from ..constants import SECONDS_PER_HOUR

# Shapes this close in log distance are equidistant (float noise of log ratios, never a real difference).
SHAPE_TOLERANCE = 1e-9
LIMITS = ("ttft_ms", "tpot_ms")


def shape_distance(row: dict[str, Any], bucket: dict[str, Any]) -> float:
    return abs(math.log(row["input_tokens"] / bucket["input_tokens"])) + abs(
        math.log(row["output_tokens"] / bucket["output_tokens"])
    )


def shape_rows(rows: list[dict[str, Any]], bucket: dict[str, Any]) -> tuple[list[dict[str, Any]], list | None]:
    """The rows of the bucket's shape, and None; or the rows of the nearest shapes and those shapes."""
    exact = [
        r for r in rows if (r["input_tokens"], r["output_tokens"]) == (bucket["input_tokens"], bucket["output_tokens"])
    ]
    if exact:
        return exact, None
    distances = [shape_distance(r, bucket) for r in rows]
    nearest = min(distances)
    pooled = [r for r, d in zip(rows, distances, strict=True) if d <= nearest + SHAPE_TOLERANCE]
    shapes = sorted({(r["input_tokens"], r["output_tokens"]) for r in pooled})
    return pooled, [{"input_tokens": i, "output_tokens": o} for i, o in shapes]


def missed_limits(row: dict[str, Any], slo: dict[str, Any]) -> list[str]:
    """The limits of the target this row misses; a limit the row has no figure for counts as missed."""
    return [key for key in LIMITS if slo[key] is not None and (row[key] is None or row[key] > slo[key])]


def operating_point(
    rows: list[dict[str, Any]], bucket: dict[str, Any], slo: dict[str, Any], price: float
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The operating point (or None) and, when None, each candidate row with the limits it missed."""
    candidates, nearest = shape_rows(rows, bucket)
    meeting = [r for r in candidates if not missed_limits(r, slo)]
    if not meeting:
        misses = [
            {
                "concurrency": r["concurrency"],
                "input_tokens": r["input_tokens"],
                "output_tokens": r["output_tokens"],
                "ttft_ms": r["ttft_ms"],
                "tpot_ms": r["tpot_ms"],
                "missed": missed_limits(r, slo),
                "source": r["source"],
            }
            for r in candidates
        ]
        return None, misses
    best = min(meeting, key=lambda r: (-r["output_tokens_per_second_per_gpu"], r["concurrency"] or math.inf))
    throughput = best["output_tokens_per_second_per_gpu"]
    point = {
        "concurrency": best["concurrency"],
        "output_tokens_per_second_per_gpu": throughput,
        "ttft_ms": best["ttft_ms"],
        "tpot_ms": best["tpot_ms"],
        "cost_per_million_output_tokens": price / (throughput * SECONDS_PER_HOUR / 1e6),
        "source": best["source"],
        "row_id": best["id"],
        "nearest_shape": nearest,
        "above_memory_estimate": False,
    }
    return point, []
