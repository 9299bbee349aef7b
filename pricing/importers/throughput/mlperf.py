"""MLPerf Inference results summary (MLCommons ``summary_results.json``): one result per system, benchmark and
scenario.

Only the LLM benchmarks measured in ``Tokens/s`` are rows. Tokens per second per GPU = ``Performance_Result`` /
(``a#`` accelerators per node x ``Nodes``); ``tp`` is the accelerators of one node (MLPerf does not publish the
parallelism; a node is the unit a buyer adds). A Server or Interactive result is a row **at the benchmark's
published latency limits** (``mlperf.conf``: TTFT and TPOT at the 99th percentile, so ``statistic`` p99); an
Offline result has no latency (it meets no latency target, only "no limit"). ``Performance_Result`` counts output
tokens. The output length is the result's own measured ``TOKENS_PER_SAMPLE`` (from its accuracy line); MLPerf
publishes no input length per result, so the caller gives ``input_tokens`` (a result without it is refused).
Results on several accelerator kinds or none are refused.
"""

from __future__ import annotations

import re
from typing import Any

from .rows import (
    RowRefused,
    ThroughputParse,
    ThroughputRow,
    load_json,
    positive_number,
    refusal,
    refused,
    tensor_parallel,
    text,
    throughput_per_gpu,
    tokens,
    whole,
)

SOURCE = "MLPerf Inference"
KEYS = ("Performance_Result", "Performance_Units", "Scenario", "a#")
# The LLM benchmarks' Server limits in ms (ttft, tpot), from mlcommons/inference loadgen/mlperf.conf (commit
# b0662794); ``<benchmark>-interactive`` is the Interactive scenario's. ``server_limits(conf_text)`` reads a newer file.
LIMITS_MS: dict[str, tuple[float, float]] = {
    "llama2-70b": (2000.0, 200.0),
    "llama2-70b-interactive": (450.0, 40.0),
    "mixtral-8x7b": (2000.0, 200.0),
    "llama3_1-405b": (6000.0, 175.0),
    "llama3_1-405b-interactive": (4500.0, 80.0),
    "llama3_1-8b": (2000.0, 100.0),
    "llama3_1-8b-interactive": (500.0, 30.0),
    "deepseek-r1": (2000.0, 80.0),
    "deepseek-r1-interactive": (1500.0, 15.0),
    "gpt-oss-120b": (3000.0, 80.0),
    "gpt-oss-120b-interactive": (2000.0, 15.0),
}
SCENARIOS = ("Server", "Interactive", "Offline")
_ACCURACY_SUFFIX = re.compile(r"-99(\.9)?$")
_TOKENS_PER_SAMPLE = re.compile(r"TOKENS_PER_SAMPLE:\s*([0-9.]+)")
_CONF_LINE = re.compile(r"^\s*([\w.-]+)\.Server\.(ttft|tpot)_latency\s*=\s*(\d+)", re.MULTILINE)


def server_limits(conf_text: str) -> dict[str, tuple[float, float]]:
    """Every benchmark's (ttft_ms, tpot_ms) Server limits in an ``mlperf.conf`` (times there are in ms)."""
    found: dict[str, dict[str, float]] = {}
    for name, kind, value in _CONF_LINE.findall(conf_text):
        found.setdefault(name, {})[kind] = float(value)
    return {name: (v["ttft"], v["tpot"]) for name, v in found.items() if {"ttft", "tpot"} <= v.keys()}


def benchmark_key(model: str) -> str:
    """``llama2-70b-99.9`` -> ``llama2-70b``; ``llama3.1-405b`` -> ``llama3_1-405b`` (mlperf.conf's spelling)."""
    return _ACCURACY_SUFFIX.sub("", model).replace("llama3.1", "llama3_1")


def sniff(text_: str) -> str | None:
    head = text_.lstrip()[:6000]
    return "mlperf-summary" if head.startswith("[") and all(f'"{key}"' in head for key in KEYS) else None


def parse(
    text_: str,
    *,
    model: str | None = None,
    input_tokens: int | None = None,
    limits: dict[str, tuple[float, float]] | None = None,
    source: str = SOURCE,
    **_: Any,
) -> ThroughputParse:
    """``model`` keeps one benchmark's results (``llama2-70b``; the others are refused as another benchmark)."""
    data = load_json(text_)
    if not isinstance(data, list):
        raise ValueError("An MLPerf results summary is a list of results")
    result = ThroughputParse()
    for line, record in enumerate(data, start=1):
        try:
            result.rows.append(_row(record, line, model, input_tokens, limits or LIMITS_MS, source))
        except RowRefused as error:
            result.refused.append(refusal(line, error))
    return result


def _row(record: Any, line: int, model, input_tokens, limits, source: str) -> ThroughputRow:
    if not isinstance(record, dict):
        raise refused("", record, "a result must be a JSON object")
    if record.get("Performance_Units") != "Tokens/s":
        raise refused("Performance_Units", record.get("Performance_Units"), "not an LLM result in tokens per second")
    name = text(record, "Model")
    key = benchmark_key(name)
    if model is not None and key != benchmark_key(model):
        raise refused("Model", name, f"another benchmark than {model}")
    scenario = record.get("Scenario")
    if scenario not in SCENARIOS:
        raise refused("Scenario", scenario, f"scenario must be one of {', '.join(SCENARIOS)}")
    accelerator = text(record, "Accelerator", label="accelerator")
    if "(x" in accelerator or "," in accelerator:
        raise refused("Accelerator", accelerator, "the system mixes accelerator kinds")
    per_node = tensor_parallel(record, "a#", label="accelerators per node (a#)")
    nodes = whole(record, "Nodes", label="nodes")
    ttft = tpot = None
    if scenario != "Offline":
        limit_key = f"{key}-interactive" if scenario == "Interactive" else key
        if limit_key not in limits:
            raise refused("Model", name, f"no published latency limits for {limit_key} in mlperf.conf")
        ttft, tpot = limits[limit_key]
    found = _TOKENS_PER_SAMPLE.search(str(record.get("Accuracy", "")))
    if found is None:
        raise refused("Accuracy", record.get("Accuracy"), "no TOKENS_PER_SAMPLE: the output length is unknown")
    if input_tokens is None:
        raise refused("Model", name, "MLPerf publishes no input length per result: give the input tokens")
    throughput = positive_number(record, "Performance_Result") / (per_node * nodes)
    return ThroughputRow(
        gpu=accelerator,
        model=name,
        precision=str(record.get("weight_data_types", "")),
        tp=per_node,
        concurrency=None,
        input_tokens=tokens(float(input_tokens), "input_tokens"),
        output_tokens=tokens(float(found.group(1)), "Accuracy"),
        output_tokens_per_second_per_gpu=throughput_per_gpu(throughput, "Performance_Result"),
        ttft_ms=ttft,
        tpot_ms=tpot,
        statistic="p99",
        source=f"{source} {record.get('version', '')} {record.get('ID', '')} {scenario}".strip(),
        line=line,
        hardware=f"{record.get('System', '')} ({nodes} x {per_node} {accelerator})",
        software=str(record.get("Software", "")),
    )
