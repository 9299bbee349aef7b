"""OpenRouter's model list and a model's endpoints, on real saved responses (tests/pricing/samples/SOURCE.md and
shared/data/price-feeds/SOURCE.md). Golden numbers: the file's $ per token times a million."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.importers import Catalog, ProviderRef, parse_prices
from pricing.models import CurrentPrice, PriceObservation, Provider, SnapshotStatus
from tests.pricing.conftest import OBSERVED, run_import

MODELS = Path(__file__).parent / "samples" / "openrouter-models-excerpt.json"
ENDPOINTS = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "data"
    / "price-feeds"
    / "openrouter"
    / "openrouter-model-endpoints.decoded.json"
)
TODAY = date(2026, 11, 30)


def parse(content: bytes, catalog: Catalog | None = None):
    catalog = catalog or Catalog(gpu_names={}, providers=[])
    return parse_prices(content, catalog=catalog, today=TODAY, max_rows=1000, observed_on=OBSERVED)


def test_the_model_list_gives_openrouters_price_of_each_model_per_million_tokens():
    result = parse(MODELS.read_bytes())
    assert (result.format, result.errors, result.rows_total) == ("openrouter", [], 4)
    rows = {row.offering: row for row in result.rows}
    mythomax = rows["gryphe/mythomax-l2-13b"]
    assert (mythomax.price_per_million_input_tokens, mythomax.price_per_million_output_tokens) == (
        Decimal("0.18"),
        Decimal("0.18"),
    )
    assert rows["jebcarter/psyfighter-13b"].price_per_million_output_tokens == Decimal("1")
    assert [ref.name for ref in result.new_providers] == ["OpenRouter"]
    assert {row.provider_id for row in rows.values()} == {result.new_providers[0].id}


def test_a_free_model_is_kept_at_zero():
    rows = {row.offering: row for row in parse(MODELS.read_bytes()).rows}
    free = rows["lynn/soliloquy-l3"]
    assert (free.price_per_million_input_tokens, free.price_per_million_output_tokens) == (0, 0)


def test_a_variable_price_is_refused_with_its_reason():
    result = parse(MODELS.read_bytes())
    (skip,) = result.skipped
    assert (skip.value, skip.reason) == (
        "openrouter/auto",
        "a variable price (-1: the model is chosen per request), not a price to compare",
    )
    assert "openrouter/auto" not in {row.offering for row in result.rows}


def test_endpoints_are_the_providers_behind_one_model_with_openrouter_as_the_channel():
    result = parse(ENDPOINTS.read_bytes())
    assert (result.format, result.errors) == ("openrouter-endpoints", [])
    names = {ref.id: ref.name for ref in result.new_providers}
    rows = {names[row.provider_id]: row for row in result.rows}
    assert sorted(rows) == ["Google AI Studio", "Google Vertex AI"]
    vertex = rows["Google Vertex AI"]
    assert vertex.offering == "google/gemini-2.5-pro-preview"
    assert names[vertex.channel_id] == "OpenRouter"
    assert (
        vertex.price_per_million_input_tokens,
        vertex.price_per_million_output_tokens,
        vertex.price_per_million_cached_input_tokens,
    ) == (Decimal("1.25"), Decimal("10"), Decimal("0.31"))


def test_a_price_that_is_no_decimal_rejects_the_file():
    text = MODELS.read_text().replace('"prompt": "0.00000018"', '"prompt": "cheap"', 1)
    result = parse(text.encode())
    assert [(e.column, e.value) for e in result.errors] == [("pricing.prompt", "gryphe/mythomax-l2-13b")]


def test_a_known_provider_of_another_kind_is_held_back():
    catalog = Catalog(gpu_names={}, providers=[ProviderRef(7, "OpenRouter", "marketplace")])
    result = parse(MODELS.read_bytes(), catalog)
    assert result.rows == [] and len(result.held_back) == 3


@pytest.mark.usefixtures("reference")
def test_importing_endpoints_stores_each_provider_with_openrouter_as_its_channel():
    snapshot = run_import(ENDPOINTS.read_bytes(), observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors
    assert sorted(snapshot.providers_created) == ["Google AI Studio", "Google Vertex AI", "OpenRouter"]
    openrouter = Provider.objects.get(name="OpenRouter")
    assert set(PriceObservation.objects.values_list("channel_id", flat=True)) == {openrouter.pk}
    assert CurrentPrice.objects.filter(gpu_model__isnull=True).count() == 2
    models = run_import(MODELS.read_bytes(), observed_on=OBSERVED)
    assert (models.status, models.prices_new, models.providers_created) == (SnapshotStatus.IMPORTED, 3, [])
