"""LiteLLM's model price list, on whole entries of the real file (tests/pricing/samples/SOURCE.md).

Golden numbers are the file's own per-token prices times a million: 3e-07 $/token is 0.30 $ per million tokens.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.importers import Catalog, ProviderRef, parse_prices
from pricing.models import CurrentPrice, PriceObservation, Provider, SnapshotStatus, UnmappedName
from tests.pricing.conftest import OBSERVED, run_import

SAMPLE = Path(__file__).parent / "samples" / "litellm-model-prices-excerpt.json"
LEGEND = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "price-feeds" / "litellm"
TODAY = date(2026, 11, 30)


def parse(content: bytes, catalog: Catalog | None = None, **options):
    catalog = catalog or Catalog(gpu_names={}, providers=[])
    options.setdefault("observed_on", OBSERVED)
    return parse_prices(content, catalog=catalog, today=TODAY, max_rows=1000, **options)


def prices(row) -> tuple:
    return (
        row.price_per_million_input_tokens,
        row.price_per_million_output_tokens,
        row.price_per_million_cached_input_tokens,
    )


def test_the_file_is_detected_and_every_entry_is_accounted_for():
    result = parse(SAMPLE.read_bytes())
    assert (result.format, result.errors) == ("litellm", [])
    assert result.rows_total == 13
    assert len(result.rows) + len(result.skipped) + len(result.merged) + len(result.held_back) == 13


def test_model_entries_are_priced_per_million_tokens_with_the_cached_input_price():
    rows = {(row.offering, row.region): row for row in parse(SAMPLE.read_bytes()).rows}
    assert prices(rows[("amazon.nova-2-lite-v1:0", "")]) == (Decimal("0.3"), Decimal("2.5"), Decimal("0.075"))
    assert prices(rows[("ai21.j2-mid-v1", "")]) == (Decimal("12.5"), Decimal("12.5"), None)
    # Azure's batch prices (1e-06 and 4e-06) are another product: the on-demand ones are read.
    assert prices(rows[("gpt-4.1", "")]) == (Decimal("2"), Decimal("8"), Decimal("0.5"))
    assert all(row.gpu_model_id is None and row.pricing_term == "on_demand" for row in rows.values())


def test_the_route_prefix_is_dropped_and_a_cross_region_profile_keeps_its_id_with_its_region():
    result = parse(SAMPLE.read_bytes())
    names = {ref.id: ref.name for ref in result.new_providers}
    rows = {(names[row.provider_id], row.offering, row.region) for row in result.rows}
    assert ("Azure OpenAI", "gpt-4o", "") in rows
    assert ("Amazon Bedrock", "jp.amazon.nova-2-lite-v1:0", "jp") in rows
    assert ("Amazon Bedrock", "us.writer.palmyra-x4-v1:0", "us") in rows
    assert ("Amazon Bedrock", "writer.palmyra-x4-v1:0", "") in rows
    assert sorted(names.values()) == ["Amazon Bedrock", "Azure OpenAI"]  # bedrock and bedrock_converse are one


def test_the_legend_and_models_priced_per_image_or_pixel_are_skipped_with_their_reason():
    skipped = {entry.value: entry.reason for entry in parse(SAMPLE.read_bytes()).skipped}
    assert skipped["sample_spec"] == "the field legend of the file, not a model"
    assert skipped["aiml/dall-e-2"] == "no per-token input and output price (priced by output_cost_per_image)"
    assert skipped["1024-x-1024/dall-e-2"] == (
        "no per-token input and output price (priced by input_cost_per_pixel, output_cost_per_pixel)"
    )


def test_the_shared_legend_file_is_read_as_litellm():
    content = (LEGEND / "model_prices_and_context_window.sample_spec.excerpt.json").read_bytes()
    result = parse(content)
    assert (result.format, len(result.rows), len(result.skipped)) == ("litellm", 2, 1)


def test_a_known_provider_that_is_no_model_api_holds_its_entries_back():
    catalog = Catalog(gpu_names={}, providers=[ProviderRef(5, "Azure OpenAI", "hyperscaler")])
    result = parse(SAMPLE.read_bytes(), catalog)
    held = {entry.value for entry in result.held_back}
    assert held == {"azure/gpt-4.1", "azure/gpt-4o"}


def test_a_price_that_is_not_a_number_rejects_the_file():
    text = SAMPLE.read_text().replace('"input_cost_per_token": 2e-06,', '"input_cost_per_token": "2e-06",', 1)
    result = parse(text.encode())
    assert [(e.column, e.value) for e in result.errors] == [("input_cost_per_token", "azure/gpt-4.1")]


@pytest.mark.usefixtures("reference")
def test_importing_the_file_adds_the_providers_and_their_current_prices():
    snapshot = run_import(SAMPLE.read_bytes(), format="auto", observed_on=OBSERVED, file_name=SAMPLE.name)
    assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors
    assert snapshot.format == "litellm"
    assert sorted(snapshot.providers_created) == ["Amazon Bedrock", "Azure OpenAI"]
    assert Provider.objects.get(name="Amazon Bedrock").kind == "api"
    assert PriceObservation.objects.count() == snapshot.prices_new == 9
    nova = CurrentPrice.objects.get(offering="amazon.nova-2-lite-v1:0")
    assert nova.price_per_million_output_tokens == Decimal("2.5")
    assert UnmappedName.objects.count() == 0
    again = run_import(SAMPLE.read_bytes(), observed_on=OBSERVED)
    assert (again.status, again.prices_known, again.providers_created) == (SnapshotStatus.DUPLICATE, 9, [])
