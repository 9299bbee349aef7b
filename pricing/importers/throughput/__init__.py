"""Throughput library formats: one table drives detection, dispatch and the import command's ``--format`` choices.

A format is one module with ``sniff(text) -> variant | None`` and ``parse(text, **given) -> ThroughputParse`` plus
one ``ThroughputFormat`` entry. ``given`` carries what a file may lack: ``gpu``, ``model``, ``tp``, ``precision``,
``input_tokens`` (each format reads those it needs and ignores the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import inferencex, mlperf, vllm_bench
from .rows import THROUGHPUT_COLUMNS, ThroughputParse, ThroughputRow

AUTO = "auto"


@dataclass(frozen=True)
class ThroughputFormat:
    name: str
    label: str
    sniff: Callable[[str], str | None]
    parse: Callable[..., ThroughputParse]
    needs: tuple[str, ...] = ()
    """What the file never says and the caller must give (the command's options)."""


FORMATS: tuple[ThroughputFormat, ...] = (
    ThroughputFormat("inferencex", "InferenceX / InferenceMAX agg_bmk.json", inferencex.sniff, inferencex.parse),
    ThroughputFormat("mlperf", "MLPerf Inference results summary", mlperf.sniff, mlperf.parse, ("input_tokens",)),
    ThroughputFormat("vllm-bench", "vllm bench serve result JSON", vllm_bench.sniff, vllm_bench.parse, ("gpu", "tp")),
)
FORMAT_NAMES = tuple(f.name for f in FORMATS)
BY_NAME = {f.name: f for f in FORMATS}


def detect_format(text: str) -> ThroughputFormat | None:
    return next((f for f in FORMATS if f.sniff(text)), None)


def parse_throughput(text: str, format_name: str = AUTO, **given: Any) -> ThroughputParse:
    """Parse a throughput file; ``ValueError`` (in words) when the format is unknown or the file is not it."""
    if format_name == AUTO:
        found = detect_format(text)
        if found is None:
            raise ValueError(f"Not a known throughput format; known formats: {', '.join(FORMAT_NAMES)}")
    elif format_name in BY_NAME:
        found = BY_NAME[format_name]
    else:
        raise ValueError(f"Unknown throughput format {format_name!r}; known formats: {', '.join(FORMAT_NAMES)}")
    return found.parse(text, **{k: v for k, v in given.items() if v is not None})


__all__ = [
    "AUTO",
    "FORMATS",
    "FORMAT_NAMES",
    "THROUGHPUT_COLUMNS",
    "ThroughputFormat",
    "ThroughputParse",
    "ThroughputRow",
    "detect_format",
    "parse_throughput",
]
