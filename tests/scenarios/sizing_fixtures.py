"""Rows the sizing tests size on: two GPUs of the GPU catalogue with a Market price each, Llama-3.1-70B in the model
catalogue, and a measured row per GPU for one request shape."""

from __future__ import annotations

import datetime
from decimal import Decimal

from pricing.models import GpuModel, LanguageModel, PriceObservation, PriceSnapshot, Provider, ThroughputMeasurement
from pricing.services.current_prices import current_prices_record

# The bucket every measured row here is of: 1,000 input and 100 output tokens.
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 100


def language_model() -> LanguageModel:
    model, _ = LanguageModel.objects.get_or_create(
        name="Llama-3.1-70B",
        defaults={"params_billion": Decimal("70.55"), "layers": 80, "attention_heads": 64, "kv_heads": 8,
                  "head_dim": 128},
    )  # fmt: skip
    return model


def gpu(name: str, memory_gib: str, price: str) -> GpuModel:
    """A GPU of the catalogue with an on-demand Market price per GPU-hour in USD."""
    model, _ = GpuModel.objects.get_or_create(
        name=name, defaults={"memory_gb": 80, "tdp_watts": 700, "memory_gib": Decimal(memory_gib), "gpus_per_node": 8}
    )
    snapshot = PriceSnapshot.objects.create(source="test", format="csv", sha256=f"{name}{price}")
    provider, _ = Provider.objects.get_or_create(name="Lambda", defaults={"kind": "neocloud"})
    observation = PriceObservation.objects.create(
        snapshot=snapshot,
        provider=provider,
        offering=f"8x {name}",
        gpu_model=model,
        gpus_per_instance=8,
        region="us-east-1",
        pricing_term="on_demand",
        observed_on=datetime.date(2026, 9, 1),
        price_per_instance_hour=Decimal(price) * 8,
        price_per_gpu_hour=Decimal(price),
        currency="USD",
        source_url="https://example.com/prices",
    )
    current_prices_record(observations=[observation])
    return model


def measured(gpu_model: GpuModel, *, tp: int, throughput: float, tpot_ms: float = 20.0, concurrency: int = 16,
             source: str = "https://example.com/bench") -> ThroughputMeasurement:  # fmt: skip
    return ThroughputMeasurement.objects.create(
        gpu_model=gpu_model,
        language_model=language_model(),
        model_name="Llama-3.1-70B",
        precision="bf16",
        weight_bits=16,
        tp=tp,
        concurrency=concurrency,
        input_tokens=INPUT_TOKENS,
        output_tokens=OUTPUT_TOKENS,
        output_tokens_per_second_per_gpu=throughput,
        ttft_ms=100.0,
        tpot_ms=tpot_ms,
        statistic="median",
        source=source,
        measured_on=datetime.date(2026, 8, 1),
    )


def two_gpus() -> tuple[GpuModel, GpuModel]:
    """H100 at $3.99 with 1,000 tokens/s per GPU at tp 2 (20 requests/s per replica of 100 output tokens), H200 at
    $5.00 with 1,500 at tp 1 (15 requests/s per replica)."""
    h100 = gpu("H100 SXM", "79.18", "3.99")
    h200 = gpu("H200 SXM", "139.72", "5.00")
    measured(h100, tp=2, throughput=1000.0, source="h100 run")
    measured(h200, tp=1, throughput=1500.0, source="h200 run")
    return h100, h200
