"""Small builders for Market rows the scenario tests pick prices from."""

from __future__ import annotations

import contextlib
import datetime
from decimal import Decimal

from pricing.models import GpuModel, PriceObservation, PriceSnapshot, Provider
from pricing.services.current_prices import current_prices_record
from tco.services.uncertainty import range_set


def gpu_model(name: str = "H100 SXM") -> GpuModel:
    model, _ = GpuModel.objects.get_or_create(
        name=name,
        defaults={"memory_gb": 80, "tdp_watts": 700, "typical_server_capex_per_gpu": Decimal("35625")},
    )
    return model


def observation(
    *,
    provider: str = "Lambda",
    kind: str = "neocloud",
    price: str = "3.99",
    observed_on: datetime.date = datetime.date(2026, 9, 1),
    offering: str = "8-GPU instance",
    term: str = "on_demand",
    region: str = "us-east-1",
    currency: str = "USD",
) -> PriceObservation:
    snapshot = PriceSnapshot.objects.create(source="test", format="csv", sha256=f"{provider}{price}{observed_on}")
    provider_row, _ = Provider.objects.get_or_create(name=provider, defaults={"kind": kind})
    created = PriceObservation.objects.create(
        snapshot=snapshot,
        provider=provider_row,
        offering=offering,
        gpu_model=gpu_model(),
        gpus_per_instance=8,
        region=region,
        pricing_term=term,
        observed_on=observed_on,
        price_per_instance_hour=Decimal(price) * 8,
        price_per_gpu_hour=Decimal(price),
        currency=currency,
        source_url="https://example.com/prices",
    )
    current_prices_record(observations=[created])  # as an import does
    return created


def price_range(scenario, *, user=None, option=None):
    """The range most tests set: a rental's price per GPU-hour from 3 to 6, likely 3.99 (the example's first
    rental unless `option` says which), at the scenario's version; range_set's change."""
    return range_set(
        scenario=scenario,
        user=user,
        expected_version=scenario.version,
        option=option or scenario.options.get(kind="neocloud"),
        field="price_per_gpu_hour",
        low=Decimal(3),
        likely=Decimal("3.99"),
        high=Decimal(6),
    )


def give_ranges(scenario, ranges, *, user=None, each=None):
    """Give ``scenario`` a range for each ``(option or None, field, low, likely, high)`` (numbers as text), each at
    the scenario's current version. ``each``: a context manager factory entered around every change (``run_jobs``
    to compute what each change queues)."""
    for option, field, low, likely, high in ranges:
        scenario.refresh_from_db()
        with each() if each else contextlib.nullcontext():
            range_set(
                scenario=scenario,
                user=user,
                expected_version=scenario.version,
                option=option,
                field=field,
                low=Decimal(low),
                likely=Decimal(likely),
                high=Decimal(high),
            )
    scenario.refresh_from_db()


def api_observation(
    *,
    provider: str = "Amazon Bedrock",
    model: str = "amazon.nova-2-lite-v1:0",
    input_price: str = "0.30",
    output_price: str = "2.50",
    observed_on: datetime.date = datetime.date(2026, 9, 1),
    region: str = "us-east-1",
    currency: str = "USD",
) -> PriceObservation:
    """A managed model API's Market price in $ per million input and output tokens (no GPU, no hourly price)."""
    snapshot = PriceSnapshot.objects.create(source="test", format="litellm", sha256=f"{provider}{model}{observed_on}")
    provider_row, _ = Provider.objects.get_or_create(name=provider, defaults={"kind": "api"})
    created = PriceObservation.objects.create(
        snapshot=snapshot,
        provider=provider_row,
        offering=model,
        region=region,
        pricing_term="on_demand",
        observed_on=observed_on,
        price_per_million_input_tokens=Decimal(input_price),
        price_per_million_output_tokens=Decimal(output_price),
        currency=currency,
        source_url="https://example.com/model_prices.json",
    )
    current_prices_record(observations=[created])
    return created
