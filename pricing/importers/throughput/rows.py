"""What a throughput parser returns: measured rows in the sizing's row shape with their provenance, and refusals.

Pure like the price importers: text in, rows out, no database. A row's ``gpu`` is the hardware name as the file
writes it (``b200``, ``NVIDIA H100-SXM-80GB``); matching it to a GPU of the catalogue is the import service's job.
Latencies are milliseconds at the row's ``statistic`` (``median`` or ``p99``); a file giving both yields a row for
each.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from pricing.importers.base import RowError

STATISTICS = ("median", "p99")


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


class Refused(Exception):
    """One record refused inside a parser's loop: the field and the reason."""

    def __init__(self, column: str, value: Any, reason: str) -> None:
        super().__init__(reason)
        self.column, self.value, self.reason = column, value, reason


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise ValueError(f"The file is not JSON: {error}") from error


def positive_number(record: dict[str, Any], key: str, *, label: str | None = None) -> float:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise Refused(key, value, f"{label or key} must be a number more than 0")
    return float(value)


def whole(record: dict[str, Any], key: str, *, label: str | None = None) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value) or value < 1:
        raise Refused(key, value, f"{label or key} must be a whole number of at least 1")
    return int(value)


def text(record: dict[str, Any], key: str, *, label: str | None = None) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise Refused(key, value, f"{label or key} is missing")
    return value.strip()


def milliseconds(record: dict[str, Any], key: str, factor: float) -> float | None:
    """A latency in the file's unit times ``factor``; None when the file has none; refused when it is nonsense."""
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise Refused(key, value, f"{key} must be a latency of 0 or more")
    return float(value) * factor


def refusal(line: int, error: Refused) -> RowError:
    value = "" if error.value is None else str(error.value)
    return RowError(line=line, column=error.column, value=value[:80], reason=error.reason)
