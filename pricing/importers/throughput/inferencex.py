"""InferenceX / InferenceMAX (SemiAnalysis) ``agg_bmk.json``: a list of benchmark records, one per GPU, model,
precision, tensor-parallel degree, concurrency and sequence lengths.

Fields: ``hw, conc, model, framework, precision, isl, osl, tp, output_tput_per_gpu`` and
``{median,p99}_{ttft,tpot}`` in **seconds** (converted to ms). Each record yields a median and a p99 row.
Disaggregated or multi-node records are refused: their throughput is not one replica's of ``tp`` GPUs.
"""

from __future__ import annotations

from typing import Any

from .rows import (
    STATISTICS,
    RowRefused,
    ThroughputParse,
    ThroughputRow,
    concurrency,
    load_json,
    milliseconds,
    positive_number,
    refusal,
    refused,
    tensor_parallel,
    text,
    throughput_per_gpu,
    whole,
)

KEYS = {"hw", "conc", "isl", "osl", "tp", "output_tput_per_gpu"}
SOURCE = "InferenceX agg_bmk.json"


def sniff(text_: str) -> str | None:
    head = text_.lstrip()[:4000]
    return "agg_bmk" if head.startswith("[") and all(f'"{key}"' in head for key in KEYS) else None


def parse(text_: str, *, source: str = SOURCE, **_: Any) -> ThroughputParse:
    data = load_json(text_)
    if not isinstance(data, list):
        raise ValueError("An InferenceX agg_bmk.json file is a list of records")
    result = ThroughputParse()
    for line, record in enumerate(data, start=1):
        try:
            result.rows += _rows(record, line, source)
        except RowRefused as error:
            result.refused.append(refusal(line, error))
    return result


def _rows(record: Any, line: int, source: str) -> list[ThroughputRow]:
    if not isinstance(record, dict):
        raise refused("", record, "a record must be a JSON object")
    if record.get("disagg") or record.get("is_multinode"):
        raise refused("disagg", record.get("disagg"), "disaggregated or multi-node serving is not one replica")
    common = {
        "gpu": text(record, "hw", label="hardware (hw)"),
        "model": text(record, "model"),
        "precision": text(record, "precision"),
        "tp": tensor_parallel(record, "tp"),
        "concurrency": concurrency(record, "conc", label="concurrency (conc)"),
        "input_tokens": whole(record, "isl", label="input tokens (isl)"),
        "output_tokens": whole(record, "osl", label="output tokens (osl)"),
        "output_tokens_per_second_per_gpu": throughput_per_gpu(
            positive_number(record, "output_tput_per_gpu"), "output_tput_per_gpu"
        ),
        "source": source,
        "line": line,
        "hardware": str(record.get("hw", "")),
        "software": " ".join(str(record[k]) for k in ("framework", "image") if record.get(k)),
    }
    rows = []
    for statistic in STATISTICS:
        ttft = milliseconds(record, f"{statistic}_ttft", 1000.0)
        tpot = milliseconds(record, f"{statistic}_tpot", 1000.0)
        if ttft is None and tpot is None:
            continue
        rows.append(ThroughputRow(**common, ttft_ms=ttft, tpot_ms=tpot, statistic=statistic))
    if not rows:
        raise refused("median_tpot", None, "no median or p99 latency (median_ttft, median_tpot, p99_...)")
    return rows
