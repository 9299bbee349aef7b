"""Reading a ``tco-sizing/1`` document (docs/money-math.md, "Sizing"): every field, its bounds and its default.

One table per part of the document, like the scenario's catalogue: the label a message uses, the bounds, the
default. ``read_sizing`` collects every problem and raises one :class:`ScenarioError` naming each field path
(``traffic[2].requests_per_second``, ``gpus[0].throughput[3].tpot_ms``).
"""

from __future__ import annotations

from collections.abc import Mapping
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

from ..checker import Checker, has_control_characters
from ..errors import ScenarioError
from ..fields import NumberField, describe, fmt

SIZING_SCHEMA = "tco-sizing/1"
SIZING_RESULT_SCHEMA = "tco-sizing-result/1"

WEIGHT_BITS = (16, 8, 4)
KV_BITS = (16, 8)
STATISTICS = ("median", "p99")
# Runtime memory per GPU (CUDA context, communication buffers): one GPU alone needs less than a tensor-parallel group.
RUNTIME_GIB_SINGLE = 0.15
RUNTIME_GIB_PARALLEL = 0.6

# Sane bounds: anything outside is a typo or a unit slip (10^9 requests a second is no serving fleet); a measured
# row's are lib.throughput_bounds, shared with the throughput library's parsers.
_TOKENS = {"lo": 1, "hi": MAX_TOKENS, "integer": True, "unit": "tokens"}


def _whole(label: str, hi: int, unit: str = "", **kwargs: Any) -> NumberField:
    return NumberField(label, lo=1, hi=hi, integer=True, unit=unit, **kwargs)


MODEL_NUMBERS: dict[str, NumberField] = {
    "params_billion": NumberField("Parameters", lo=0.0, hi=100_000.0, lo_open=True, unit="billion", required=True),
    "layers": _whole("Layers", 10_000, required=True),
    "attention_heads": _whole("Attention heads", 100_000, required=True),
    "kv_heads": _whole("KV heads", 100_000),
    "head_dim": _whole("Head dimension", 100_000),
    "kv_lora_rank": _whole("KV latent rank", 100_000),
    "qk_rope_head_dim": _whole("Rotary head dimension", 100_000),
}
TOP_NUMBERS: dict[str, NumberField] = {
    "context_tokens": NumberField("Context", **_TOKENS),
    "headroom": NumberField("Headroom", lo=0.0, hi=1.0, hint=" (0.2 means 20%)", default=0.0),
    "memory_utilization": NumberField(
        "Memory utilization", lo=0.0, hi=1.0, lo_open=True, hint=" (0.9 means 90%)", default=0.9
    ),
    "activation_gib": NumberField("Activation memory", lo=0.0, hi=10_000.0, unit="GiB", default=5.5),
    "runtime_gib": NumberField("Runtime memory", lo=0.0, hi=10_000.0, unit="GiB per GPU"),
}
BUCKET_NUMBERS: dict[str, NumberField] = {
    "requests_per_second": NumberField(
        "Requests per second", lo=0.0, hi=1_000_000.0, lo_open=True, unit="requests per second", required=True
    ),
    "input_tokens": NumberField("Input tokens", **_TOKENS, required=True),
    "output_tokens": NumberField("Output tokens", **_TOKENS, required=True),
}
SLO_NUMBERS: dict[str, NumberField] = {
    "ttft_ms": NumberField("Time to first token", lo=0.0, hi=10_000_000.0, lo_open=True, unit="ms"),
    "tpot_ms": NumberField("Time per output token", lo=0.0, hi=10_000_000.0, lo_open=True, unit="ms"),
}
GPU_NUMBERS: dict[str, NumberField] = {
    "memory_gib": NumberField("GPU memory", lo=0.0, hi=100_000.0, lo_open=True, unit="GiB", required=True),
    "price_per_gpu_hour": NumberField("Price per GPU-hour", lo=0.0, hi=100_000.0, lo_open=True, required=True),
    "max_tp": _whole("Largest tensor-parallel degree", MAX_TP, default=8),
}
ROW_NUMBERS: dict[str, NumberField] = {
    "tp": _whole("Tensor-parallel degree", MAX_TP, required=True),
    # MLPerf publishes no concurrency: such a row has none (it ranks after the rows that do on equal throughput).
    "concurrency": _whole("Concurrency", MAX_CONCURRENCY, unit="requests"),
    "input_tokens": NumberField("Input tokens", **_TOKENS, required=True),
    "output_tokens": NumberField("Output tokens", **_TOKENS, required=True),
    "output_tokens_per_second_per_gpu": NumberField(
        "Throughput",
        lo=MIN_OUTPUT_TOKENS_PER_SECOND_PER_GPU,
        hi=MAX_OUTPUT_TOKENS_PER_SECOND_PER_GPU,
        unit="output tokens per second per GPU",
        required=True,
    ),
    "ttft_ms": NumberField("Time to first token", lo=0.0, hi=MAX_LATENCY_MS, unit="ms"),
    "tpot_ms": NumberField("Time per output token", lo=0.0, hi=MAX_LATENCY_MS, unit="ms"),
}
TOP_FIELDS = (
    "schema",
    "model",
    "weight_bits",
    "kv_bits",
    "traffic",
    "slo",
    *TOP_NUMBERS,
    "gpus",
)
MODEL_FIELDS = ("name", *MODEL_NUMBERS)
GPU_FIELDS = ("name", *GPU_NUMBERS, "throughput")
# ``id`` lets the app trace an operating point back to its stored measurement.
ROW_FIELDS = (*ROW_NUMBERS, "source", "id")


def read_sizing(document: Mapping[str, Any]) -> dict[str, Any]:
    """The normalised document (defaults filled, numbers as int/float) or :class:`ScenarioError` with every problem."""
    checker = _SizingChecker()
    doc = checker.document(document)
    if checker.problems:
        raise ScenarioError(checker.problems)
    return doc


class _SizingChecker(Checker):
    def document(self, document: Any) -> dict[str, Any]:
        if not isinstance(document, Mapping):
            self.add("", f"A sizing must be a JSON object; got {describe(document)}")
            return {}
        self.unknown_fields(document, TOP_FIELDS, "", "a sizing")
        if document.get("schema") != SIZING_SCHEMA:
            got = "nothing" if document.get("schema") is None else describe(document.get("schema"))
            self.add("schema", f"Schema must be '{SIZING_SCHEMA}'; got {got}")
        doc: dict[str, Any] = {"schema": SIZING_SCHEMA}
        doc["model"] = self.model(document.get("model"))
        doc["weight_bits"] = self.choice(document, "weight_bits", "Weight precision (bits)", WEIGHT_BITS, None)
        doc["kv_bits"] = self.choice(document, "kv_bits", "KV cache precision (bits)", KV_BITS, 16)
        doc["traffic"] = self.traffic(document.get("traffic"))
        doc["slo"] = self.slo(document.get("slo"))
        for key, spec in TOP_NUMBERS.items():
            doc[key] = self.number(document, key, spec, key)
        if doc["context_tokens"] is None and doc["traffic"]:
            doc["context_tokens"] = max(b["input_tokens"] + b["output_tokens"] for b in doc["traffic"])
        doc["gpus"] = self.gpus(document.get("gpus"))
        return doc

    def choice(self, data: Mapping[str, Any], key: str, label: str, allowed: tuple, default: Any) -> Any:
        value = data.get(key)
        if value is None:
            if default is None:
                self.require(key, label, f"one of {', '.join(str(a) for a in allowed)}")
            return default
        if isinstance(value, bool) or value not in allowed:
            self.add(key, f"{label} must be one of {', '.join(str(a) for a in allowed)}; got {describe(value)}")
            return None
        return int(value)

    def section(self, value: Any, path: str, label: str, allowed: tuple[str, ...], what: str) -> Mapping | None:
        if not isinstance(value, Mapping):
            if value is None:
                self.require(path, label)
            else:
                self.add(path, f"{label} must be an object; got {describe(value)}")
            return None
        self.unknown_fields(value, allowed, f"{path}.", what)
        return value

    def items(self, value: Any, path: str, label: str, reason: str) -> list:
        if value is None or (isinstance(value, list | tuple) and not value):
            self.require(path, label, reason, verb="are")
            return []
        if not isinstance(value, list | tuple):
            self.add(path, f"{label} must be a non-empty list; got {describe(value)}")
            return []
        return list(value)

    def model(self, value: Any) -> dict[str, Any] | None:
        data = self.section(value, "model", "Model", MODEL_FIELDS, "a model")
        if data is None:
            return None
        model: dict[str, Any] = {"name": self.text(data, "name", "model.name", "Model name")}
        for key, spec in MODEL_NUMBERS.items():
            model[key] = self.number(data, key, spec, f"model.{key}")
        latent = data.get("kv_lora_rank") is not None or data.get("qk_rope_head_dim") is not None
        model["latent"] = latent
        needed = ("kv_lora_rank", "qk_rope_head_dim") if latent else ("kv_heads", "head_dim")
        for key in needed:
            if data.get(key) is None:
                why = "latent attention needs the KV latent rank and the rotary head dimension" if latent else ""
                self.require(f"model.{key}", MODEL_NUMBERS[key].label, why)
        heads, kv_heads = model["attention_heads"], model["kv_heads"]
        if not latent and heads is not None and kv_heads is not None and heads % kv_heads:
            self.add(
                "model.kv_heads",
                f"Attention heads ({fmt(heads)}) must be a multiple of the KV heads; got {fmt(kv_heads)} KV heads",
                "conflict",
            )
        return model

    def traffic(self, value: Any) -> list[dict[str, Any]]:
        buckets = []
        for i, raw in enumerate(self.items(value, "traffic", "Traffic buckets", "add one request size")):
            path = f"traffic[{i}]"
            data = self.section(raw, path, "A traffic bucket", tuple(BUCKET_NUMBERS), "a traffic bucket")
            if data is not None:
                buckets.append({k: self.number(data, k, s, f"{path}.{k}") for k, s in BUCKET_NUMBERS.items()})
        return [b for b in buckets if None not in b.values()]

    def slo(self, value: Any) -> dict[str, Any]:
        if value is None:
            return {"ttft_ms": None, "tpot_ms": None, "statistic": "median"}
        data = self.section(value, "slo", "Latency target", (*SLO_NUMBERS, "statistic"), "a latency target")
        if data is None:
            return {"ttft_ms": None, "tpot_ms": None, "statistic": "median"}
        slo = {key: self.number(data, key, spec, f"slo.{key}") for key, spec in SLO_NUMBERS.items()}
        statistic = data.get("statistic") or "median"
        if statistic not in STATISTICS:
            self.add("slo.statistic", f"Statistic must be one of {', '.join(STATISTICS)}; got {describe(statistic)}")
        slo["statistic"] = statistic
        return slo

    def gpus(self, value: Any) -> list[dict[str, Any]]:
        gpus: list[dict[str, Any]] = []
        seen: dict[str, int] = {}
        for i, raw in enumerate(self.items(value, "gpus", "GPUs", "add at least one GPU to size on")):
            path = f"gpus[{i}]"
            data = self.section(raw, path, "A GPU", GPU_FIELDS, "a GPU")
            if data is None:
                continue
            gpu: dict[str, Any] = {"name": self.text(data, "name", f"{path}.name", "GPU name")}
            if gpu["name"] in seen:
                self.add(f"{path}.name", f"GPU name '{gpu['name']}' is already used by GPU {seen[gpu['name']] + 1}")
            elif gpu["name"] is not None:
                seen[gpu["name"]] = i
            for key, spec in GPU_NUMBERS.items():
                gpu[key] = self.number(data, key, spec, f"{path}.{key}")
            gpu["throughput"] = self.rows(data.get("throughput"), f"{path}.throughput")
            gpus.append(gpu)
        return gpus

    def source(self, value: Any, path: str) -> str | None:
        """Where a row comes from: text like a name, but as long as a citation may be."""
        if value is None:
            self.require(path, "Source", "where the measurement comes from")
        elif not isinstance(value, str) or not value.strip():
            self.add(path, f"Source must be non-empty text; got {describe(value)}")
        elif len(value) > MAX_SOURCE_LENGTH:
            self.add(path, f"Source must be at most {MAX_SOURCE_LENGTH:,} characters; got {len(value):,}")
        elif has_control_characters(value):
            self.add(path, "Source must not contain control characters such as NUL or line breaks")
        else:
            return value
        return None

    def rows(self, value: Any, path: str) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            self.add(path, f"Measured throughput must be a list of rows; got {describe(value)}")
            return []
        rows = []
        for j, raw in enumerate(value):
            row_path = f"{path}[{j}]"
            data = self.section(raw, row_path, "A measured row", ROW_FIELDS, "a measured row")
            if data is None:
                continue
            row = {key: self.number(data, key, spec, f"{row_path}.{key}") for key, spec in ROW_NUMBERS.items()}
            row["source"] = self.source(data.get("source"), f"{row_path}.source")
            row["id"] = data.get("id")
            if row["id"] is not None and (isinstance(row["id"], bool) or not isinstance(row["id"], int | str)):
                self.add(f"{row_path}.id", f"A row id must be a number or text; got {describe(row['id'])}")
            rows.append(row)
        return rows
