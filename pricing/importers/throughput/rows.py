"""What a throughput parser returns: measured rows in the sizing's row shape with their provenance, and refusals.

Pure like the price importers: text in, rows out, no database. A row's ``gpu`` is the hardware name as the file
writes it (``b200``, ``NVIDIA H100-SXM-80GB``); matching it to a GPU of the catalogue is the import service's job.
Latencies are milliseconds at the row's ``statistic`` (``median`` or ``p99``); a file giving both yields a row for
each.
"""

from __future__ import annotations

import dataclasses
import json
import math
import unicodedata
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from lib.throughput_bounds import (
    MAX_CONCURRENCY,
    MAX_LATENCY_MS,
    MAX_OUTPUT_TOKENS_PER_SECOND_PER_GPU,
    MAX_SOURCE_LENGTH,
    MAX_TOKENS,
    MAX_TP,
    MIN_OUTPUT_TOKENS_PER_SECOND_PER_GPU,
)
from pricing.importers.base import RowError, RowRefused

STATISTICS = ("median", "p99")
# The library's CSV, one measurement a line (`manage.py export_throughput`); ttft_ms and tpot_ms at the row's
# statistic. The export writes these columns and the selector reads them in this order.
THROUGHPUT_COLUMNS = (
    "gpu_model",
    "model",
    "precision",
    "tp",
    "concurrency",
    "input_tokens",
    "output_tokens",
    "output_tokens_per_second_per_gpu",
    "ttft_ms",
    "tpot_ms",
    "statistic",
    "source",
)
MAX_NAME_LENGTH = 200  # a GPU, model, precision, hardware or software as the file writes it


def clean(value: object, limit: int = MAX_NAME_LENGTH) -> str:
    """File text made safe to show and store: control characters (NUL, line breaks) become spaces, runs of spaces
    one, cut to ``limit`` characters."""
    text_ = "".join(" " if unicodedata.category(c) == "Cc" else c for c in str(value))
    return " ".join(text_.split())[:limit]


def clean_source(value: object) -> str:
    return clean(value, MAX_SOURCE_LENGTH)


@dataclass(frozen=True, slots=True)
class ThroughputRow:
    gpu: str
    model: str
    precision: str
    tp: int
    concurrency: int | None
    input_tokens: int
    output_tokens: int
    output_tokens_per_second_per_gpu: float
    ttft_ms: float | None
    tpot_ms: float | None
    statistic: str
    source: str
    line: int
    """The record's position in the file (1 = the first), for messages and provenance."""
    measured_on: date | None = None
    hardware: str = ""
    software: str = ""

    def __post_init__(self) -> None:
        # Whatever a file writes, a row's words are safe to show and store, and its source is one the sizing takes.
        for name in ("gpu", "model", "precision", "hardware", "software"):
            object.__setattr__(self, name, clean(getattr(self, name)))
        object.__setattr__(self, "source", clean_source(self.source))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sizing_row(self) -> dict[str, Any]:
        """The row as a ``tco-sizing/1`` document's measured row."""
        return {
            "tp": self.tp,
            "concurrency": self.concurrency,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "output_tokens_per_second_per_gpu": self.output_tokens_per_second_per_gpu,
            "ttft_ms": self.ttft_ms,
            "tpot_ms": self.tpot_ms,
            "source": self.source,
        }


@dataclass(slots=True)
class ThroughputParse:
    rows: list[ThroughputRow] = field(default_factory=list)
    refused: list[RowError] = field(default_factory=list)


def refused(column: str, value: Any, reason: str) -> RowRefused:
    """One record refused inside a parser's loop, the field and the reason; the loop adds the record's position."""
    shown = "" if value is None else str(value)
    return RowRefused(RowError(line=0, column=column, value=shown[:80], reason=reason))


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise ValueError(f"The file is not JSON: {error}") from error


def positive_number(record: dict[str, Any], key: str, *, label: str | None = None, hi: float = math.inf) -> float:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 < value <= hi:
        limit = "" if hi == math.inf else f" and at most {hi:,.12g}"
        raise refused(key, value, f"{label or key} must be a number more than 0{limit}")
    return float(value)


def whole(record: dict[str, Any], key: str, *, label: str | None = None, hi: int = MAX_TOKENS) -> int:
    value = record.get(key)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value != int(value)
        or not 1 <= value <= hi
    ):
        raise refused(key, value, f"{label or key} must be a whole number from 1 to {hi:,}")
    return int(value)


def throughput_per_gpu(value: float, key: str) -> float:
    """Output tokens per second per GPU, within the bounds the sizing takes."""
    if not MIN_OUTPUT_TOKENS_PER_SECOND_PER_GPU <= value <= MAX_OUTPUT_TOKENS_PER_SECOND_PER_GPU:
        raise refused(
            key,
            value,
            f"output tokens per second per GPU must be from {MIN_OUTPUT_TOKENS_PER_SECOND_PER_GPU:g} to "
            f"{MAX_OUTPUT_TOKENS_PER_SECOND_PER_GPU:,.0f}",
        )
    return value


def tensor_parallel(record: dict[str, Any], key: str, *, label: str | None = None) -> int:
    return whole(record, key, label=label, hi=MAX_TP)


def concurrency(record: dict[str, Any], key: str, *, label: str | None = None) -> int:
    return whole(record, key, label=label, hi=MAX_CONCURRENCY)


def tokens(value: float, key: str) -> int:
    """A mean length in tokens, rounded to a whole token, within the bounds the sizing takes."""
    rounded = max(1, round(value))
    if rounded > MAX_TOKENS:
        raise refused(key, value, f"a request of more than {MAX_TOKENS:,} tokens")
    return rounded


def text(record: dict[str, Any], key: str, *, label: str | None = None) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not clean(value):
        raise refused(key, value, f"{label or key} is missing")
    return clean(value)


def milliseconds(record: dict[str, Any], key: str, factor: float) -> float | None:
    """A latency in the file's unit times ``factor``; None when the file has none; refused when it is nonsense."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise refused(key, value, f"{key} must be a latency of 0 or more")
    if float(value) * factor > MAX_LATENCY_MS:
        raise refused(key, value, f"{key} is more than {MAX_LATENCY_MS:,.0f} ms")
    return float(value) * factor


def refusal(line: int, error: RowRefused) -> RowError:
    return dataclasses.replace(error.error, line=line)
