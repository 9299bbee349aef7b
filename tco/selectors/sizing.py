"""Reads for sizing: what a ``tco-sizing/1`` document is built from (the scenario's serving configuration, the model
catalogue, the GPU catalogue with a price for each GPU, the throughput library) and the latest sizing run.

A fixed number of queries however many measured rows there are, and one more per priced GPU (the throughput
library's selector reads one GPU at a time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch

from lib.kinds import RENTAL_KINDS
from pricing.models import CurrentPrice, GpuModel, LanguageModel, PricingTerm
from pricing.selectors import throughput_rows
from tco.models import Scenario, ScenarioOption, SizingRun


@dataclass(frozen=True)
class GpuPrice:
    """The price a GPU is sized at, per GPU-hour in the scenario's currency, and where it comes from: one of the
    scenario's rental options, else the Market's cheapest on-demand offering."""

    price_per_gpu_hour: float
    source: dict[str, Any]


@dataclass
class SizingInputs:
    """Everything a sizing reads, read once."""

    language_model: LanguageModel | None
    gpus: list[GpuModel]
    prices: dict[int, GpuPrice]
    rows: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def measured_rows(
    *, gpus: list[GpuModel], language_model: LanguageModel, weight_bits: int, statistic: str
) -> dict[int, list[dict]]:
    """The throughput library's rows (the newest run of each operating point) for a model at a weight precision and
    a latency statistic, per GPU model id, in the sizing document's shape (``tco-sizing/1`` ``gpus[].throughput``)
    with the measurement's id; the date it was measured is part of the source the page and the provenance show."""
    rows: dict[int, list[dict]] = {}
    for gpu in gpus:
        found = throughput_rows(
            gpu_model=gpu, language_model=language_model, weight_bits=weight_bits, statistic=statistic
        )
        if found:
            rows[gpu.pk] = found
    for found in rows.values():
        for row in found:  # the date goes into the source: a document's row has no date of its own
            day = row.pop("measured_on", None)
            row["source"] = f"{row['source']}{f' ({day.isoformat()})' if day else ''}"[:1000]
    return rows


def gpu_prices(scenario: Scenario, options: list[ScenarioOption], gpus: list[GpuModel]) -> dict[int, GpuPrice]:
    """Per GPU model id, its price: the cheapest of the scenario's rental options on that GPU, else the Market's
    cheapest on-demand price in the scenario's currency (one query for all GPUs); GPUs with neither are left out."""
    prices: dict[int, GpuPrice] = {}
    for option in options:
        if option.kind not in RENTAL_KINDS or option.gpu_model_id is None or option.price_per_gpu_hour is None:
            continue
        price = float(option.price_per_gpu_hour)
        known = prices.get(option.gpu_model_id)
        if price > 0 and (known is None or price < known.price_per_gpu_hour):
            prices[option.gpu_model_id] = GpuPrice(price, {"from": "option", "option": option.name})
    wanted = [gpu.pk for gpu in gpus if gpu.pk not in prices]
    market = (
        CurrentPrice.objects.filter(
            gpu_model_id__in=wanted,
            pricing_term=PricingTerm.ON_DEMAND,
            currency=scenario.currency_code,
            price_per_gpu_hour__gt=0,
        )
        .select_related("provider")
        .order_by("gpu_model_id", "price_per_gpu_hour", "provider__name", "offering", "id")
    )
    for row in market:
        if row.gpu_model_id in prices:
            continue
        prices[row.gpu_model_id] = GpuPrice(
            float(row.price_per_gpu_hour),
            {
                "from": "market",
                "provider": row.provider.name,
                "offering": row.offering,
                "region": row.region,
                "observed_on": row.observed_on.isoformat(),
                "price_observation_id": row.observation_id,
            },
        )
    return prices


def sizing_inputs(scenario: Scenario, options: list[ScenarioOption]) -> SizingInputs:
    """The model, the GPU catalogue (GPUs whose memory is known), their prices and measured rows."""
    name = (scenario.serving_language_model or "").strip()
    language_model = LanguageModel.objects.filter(name=name).first() if name else None
    gpus = list(GpuModel.objects.filter(memory_gib__isnull=False).order_by("name"))
    inputs = SizingInputs(language_model=language_model, gpus=gpus, prices=gpu_prices(scenario, options, gpus))
    if language_model is not None:
        inputs.rows = measured_rows(
            gpus=[gpu for gpu in gpus if gpu.pk in inputs.prices],
            language_model=language_model,
            weight_bits=int(scenario.serving_weight_bits),
            statistic=scenario.serving_statistic,
        )
    return inputs


def latest_sizing(scenario: Scenario) -> SizingRun | None:
    return SizingRun.objects.filter(scenario=scenario).order_by("-id").first()


def options_with_gpus(scenario: Scenario) -> list[ScenarioOption]:
    """The scenario's options with their GPU models, in document order."""
    shown = ScenarioOption.objects.select_related("gpu_model")
    return list(
        Scenario.objects.prefetch_related(Prefetch("options", queryset=shown)).get(pk=scenario.pk).options.all()
    )
