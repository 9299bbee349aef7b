"""``vllm bench serve --save-result`` JSON (also ``benchmark_serving.py``): one run of one server.

Fields: ``date`` (``20250101-120000``), ``backend``, ``model_id``, ``max_concurrency``, ``completed``,
``total_input_tokens``, ``total_output_tokens``, ``output_throughput`` (the server's output tokens/s) and
``{median,p99}_{ttft,tpot}_ms``. The file names no GPU and no parallelism: ``gpu`` and ``tp`` come from the caller
(or from ``--metadata gpu=... tensor_parallel_size=...`` keys saved in the file); tokens per GPU =
``output_throughput / tp``. A list of such results is read too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from .rows import (
    STATISTICS,
    RowRefused,
    ThroughputParse,
    ThroughputRow,
    clean,
    concurrency,
    load_json,
    milliseconds,
    positive_number,
    refusal,
    refused,
    tensor_parallel,
    throughput_per_gpu,
    tokens,
    whole,
)

KEYS = ("output_throughput", "median_ttft_ms", "total_output_tokens")
SOURCE = "vllm bench serve"
GPU_KEYS = ("gpu", "hardware", "hw")
TP_KEYS = ("tensor_parallel_size", "tp")


def sniff(text_: str) -> str | None:
    head = text_.lstrip()[:20000]
    return "vllm-bench" if head[:1] in ("[", "{") and all(f'"{key}"' in head for key in KEYS) else None


def parse(
    text_: str,
    *,
    gpu: str | None = None,
    model: str | None = None,
    tp: int | None = None,
    precision: str | None = None,
    source: str = SOURCE,
    **_: Any,
) -> ThroughputParse:
    data = load_json(text_)
    records = data if isinstance(data, list) else [data]
    result = ThroughputParse()
    for line, record in enumerate(records, start=1):
        try:
            result.rows += _rows(record, line, gpu, model, tp, precision, source)
        except RowRefused as error:
            result.refused.append(refusal(line, error))
    return result


def _given(record: dict[str, Any], keys: tuple[str, ...], given: Any) -> Any:
    if given is not None:
        return given
    return next((record[k] for k in keys if record.get(k) not in (None, "")), None)


def _rows(record: Any, line: int, gpu, model, tp, precision, source: str) -> list[ThroughputRow]:
    if not isinstance(record, dict):
        raise refused("", record, "a result must be a JSON object")
    gpu_name = clean(_given(record, GPU_KEYS, gpu) or "")
    if not gpu_name:
        raise refused("gpu", None, "the file names no GPU: give the GPU the server ran on")
    degree = _given(record, TP_KEYS, tp)
    if degree is None:
        raise refused("tensor_parallel_size", None, "the file gives no tensor-parallel degree: give it")
    degree = tensor_parallel({"tp": _number(degree)}, "tp", label="tensor-parallel degree")
    model_name = clean(_given(record, ("model_id", "model"), model) or "")
    if not model_name:
        raise refused("model_id", None, "the file names no model: give it")
    completed = whole(record, "completed", label="completed requests", hi=10**12)
    common = {
        "gpu": str(gpu_name),
        "model": str(model_name),
        "precision": str(_given(record, ("precision", "dtype", "quantization"), precision) or ""),
        "tp": degree,
        "concurrency": None if record.get("max_concurrency") is None else concurrency(record, "max_concurrency"),
        "input_tokens": tokens(positive_number(record, "total_input_tokens") / completed, "total_input_tokens"),
        "output_tokens": tokens(positive_number(record, "total_output_tokens") / completed, "total_output_tokens"),
        "output_tokens_per_second_per_gpu": throughput_per_gpu(
            positive_number(record, "output_throughput") / degree, "output_throughput"
        ),
        "source": source,
        "line": line,
        "measured_on": _date(record.get("date")),
        "hardware": str(gpu_name),
        "software": " ".join(str(record[k]) for k in ("backend", "vllm_version") if record.get(k)),
    }
    rows = []
    for statistic in STATISTICS:
        ttft = milliseconds(record, f"{statistic}_ttft_ms", 1.0)
        tpot = milliseconds(record, f"{statistic}_tpot_ms", 1.0)
        if ttft is not None or tpot is not None:
            rows.append(ThroughputRow(**common, ttft_ms=ttft, tpot_ms=tpot, statistic=statistic))
    if not rows:
        raise refused("median_tpot_ms", None, "no median or p99 latency")
    return rows


def _number(value: Any) -> Any:
    """``--metadata tensor_parallel_size=2`` saves the text '2'."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


def _date(value: Any) -> dt.date | None:
    if not isinstance(value, str):
        return None
    for pattern in ("%Y%m%d-%H%M%S", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(value[:15] if "%H" in pattern else value[:10], pattern).date()
        except ValueError:
            continue
    return None
