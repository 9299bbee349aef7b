from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pricing import services
from pricing.models import PriceObservation, PriceSnapshot, SnapshotOrigin

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / ".." / "shared" / "data" / "skypilot-catalog"
FIXTURES = REPO / "fixtures"
OBSERVED = date(2026, 11, 1)
HEADER = (
    "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
    "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
)


@pytest.fixture
def reference(db) -> None:
    """Providers, GPU models and aliases from fixtures/reference.json."""
    services.reference_data_load(path=FIXTURES / "reference.json")


def run_import(content: bytes | str, **options) -> PriceSnapshot:
    if isinstance(content, str):
        content = content.encode("utf-8")
    options.setdefault("origin", SnapshotOrigin.COMMAND)
    options.setdefault("source", "test")
    return services.price_snapshot_import(content=content, **options)


def import_sample(relative: str, provider: str) -> PriceSnapshot:
    return run_import(
        (SAMPLES / relative).read_bytes(),
        file_name=relative,
        format="skypilot",
        provider_name=provider,
        observed_on=OBSERVED,
    )


def canonical(*rows: str) -> str:
    return HEADER + "".join(row + "\n" for row in rows)


@pytest.fixture
def no_observations():
    """Asserts on exit that the test stored no observation."""
    yield
    assert PriceObservation.objects.count() == 0
