"""The Market price picker: the option's own term first, cheapest first within it; what picking does to the option's
name; a managed model API option picks a per-token price like a rental picks a GPU-hour price."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.urls import reverse

from pricing.models import ExchangeRate
from tco.models import ScenarioOption
from tests.scenarios import factories

HTMX = {"HTTP_HX_REQUEST": "true"}


def _picker(client, scenario, option, **query):
    url = reverse("tco:price_picker", args=[scenario.pk, option.pk])
    return client.get(url, query, **HTMX).content.decode()


def _pick(client, option, observation):
    option.scenario.refresh_from_db()
    url = reverse("tco:option_pick", args=[option.scenario_id, option.pk])
    data = {"observation": observation.pk, "version": option.scenario.version}
    return client.post(url, data, **HTMX).content.decode()


def _type(client, option, field, value):
    option.scenario.refresh_from_db()
    url = reverse("tco:option_field", args=[option.scenario_id, option.pk])
    return client.post(url, {field: value, "version": option.scenario.version}, **HTMX).content.decode()


def _offerings_in_order(html: str, names: list[str]) -> list[str]:
    return sorted(names, key=html.index)


def test_an_on_demand_option_sees_on_demand_prices_first_cheapest_first_then_other_terms_in_words(
    editor_client, scenario
):
    factories.observation(provider="Vast", price="1.20", offering="Spot box", term="spot")
    factories.observation(provider="Lambda", price="3.99", offering="Lambda 8x", term="on_demand")
    factories.observation(provider="CoreWeave", price="2.49", offering="CW 8x", term="on_demand")
    factories.observation(provider="Nebius", price="2.10", offering="Nebius 1y", term="reserved_1y")
    option = scenario.options.get(kind="neocloud")
    html = _picker(editor_client, scenario, option, gpu="h100")
    order = _offerings_in_order(html, ["Spot box", "Lambda 8x", "CW 8x", "Nebius 1y"])
    assert order == ["CW 8x", "Lambda 8x", "Spot box", "Nebius 1y"]
    assert html.index("On demand, as this option is billed") < html.index("CW 8x")
    assert html.index("CW 8x") < html.index("Other terms: Spot, Reserved 1 year") < html.index("Spot box")
    assert "spot" not in html.replace("Spot", "")  # no raw term codes


def test_a_committed_option_sees_reserved_and_committed_prices_first(editor_client, scenario, editor):
    factories.observation(provider="Lambda", price="1.99", offering="Lambda 8x", term="on_demand")
    factories.observation(provider="Nebius", price="2.60", offering="Nebius 3y", term="reserved_3y")
    factories.observation(provider="CoreWeave", price="2.20", offering="CW 1y", term="reserved_1y")
    option = scenario.options.get(kind="neocloud")
    _type(editor_client, option, "billing", "committed")
    assert ScenarioOption.objects.get(pk=option.pk).billing == "committed"
    html = _picker(editor_client, scenario, option, gpu="h100")
    assert _offerings_in_order(html, ["Lambda 8x", "Nebius 3y", "CW 1y"]) == ["CW 1y", "Nebius 3y", "Lambda 8x"]
    assert "Other terms: On demand" in html


def test_the_own_term_comes_first_on_every_page_of_the_picker(editor_client, scenario):
    for n in range(27):
        factories.observation(provider="Vast", price=f"1.{n:02d}", offering=f"Spot {n:02d}", term="spot")
    factories.observation(provider="Lambda", price="3.99", offering="Lambda 8x", term="on_demand")
    option = scenario.options.get(kind="neocloud")
    first = _picker(editor_client, scenario, option, gpu="h100")
    assert first.index("Lambda 8x") < first.index("Spot 00") and "Spot 24" not in first
    second = _picker(editor_client, scenario, option, gpu="h100", offset="25")
    assert "Spot 24" in second and "Spot 26" in second and "Lambda 8x" not in second


def test_picking_keeps_a_name_the_user_typed(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _type(editor_client, option, "name", "Our H100 quote")
    observation = factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    _pick(editor_client, option, observation)
    picked = ScenarioOption.objects.get(pk=option.pk)
    assert picked.name == "Our H100 quote" and picked.price_per_gpu_hour == Decimal("6.16")


def test_picking_names_a_default_named_option_after_the_offering_and_a_second_pick_renames_it(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _type(editor_client, option, "name", "Neocloud rental")
    first = factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    _pick(editor_client, option, first)
    assert ScenarioOption.objects.get(pk=option.pk).name == "CoreWeave HGX H100"
    second = factories.observation(provider="Lambda", price="2.99", offering="gpu_8x_h100_sxm5")
    _pick(editor_client, option, second)
    assert ScenarioOption.objects.get(pk=option.pk).name == "Lambda gpu_8x_h100_sxm5"


def test_a_price_typed_by_hand_after_a_pick_drops_the_name_that_came_from_the_pick(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _type(editor_client, option, "name", "Neocloud rental")
    _pick(editor_client, option, factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100"))
    html = _type(editor_client, option, "price_per_gpu_hour", "4.10")
    typed = ScenarioOption.objects.get(pk=option.pk)
    assert typed.price_source is None and typed.price_per_gpu_hour == Decimal("4.10")
    assert typed.name == "Neocloud rental"
    assert "Typed-in price: no Market source." in html


def test_a_typed_name_stays_when_a_price_is_then_typed_by_hand(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _pick(editor_client, option, factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100"))
    _type(editor_client, option, "name", "CoreWeave, negotiated")
    _type(editor_client, option, "price_per_gpu_hour", "4.10")
    assert ScenarioOption.objects.get(pk=option.pk).name == "CoreWeave, negotiated"


def test_the_picker_says_what_a_pick_does_to_the_name(editor_client, scenario):
    factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    html = _picker(editor_client, scenario, scenario.options.get(kind="neocloud"), gpu="h100")
    assert "names the option after its provider and offering, unless you have named it yourself" in html


def test_an_api_option_picks_a_per_token_market_price_with_its_provenance(editor_client, scenario):
    factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    nova = factories.api_observation()
    factories.api_observation(provider="OpenRouter", model="openai/gpt-4o", input_price="2.50", output_price="10")
    option = scenario.options.get(kind="api")
    html = _picker(editor_client, scenario, option)
    assert "HGX H100" not in html  # GPU-hour prices are not a model API's
    assert html.index("amazon.nova-2-lite-v1:0") < html.index("openai/gpt-4o")  # cheapest first
    assert "Per million input tokens" in html and "$0.30" in html and "$2.50" in html
    page = _pick(editor_client, option, nova)
    picked = ScenarioOption.objects.get(pk=option.pk)
    assert picked.price_per_million_input_tokens == Decimal("0.30")
    assert picked.price_per_million_output_tokens == Decimal("2.50")
    source = picked.price_source
    assert (source["provider"], source["offering"], source["observed_on"]) == (
        "Amazon Bedrock",
        "amazon.nova-2-lite-v1:0",
        "2026-09-01",
    )
    assert source["snapshot_id"] == nova.snapshot_id and source["source_url"] == nova.source_url
    assert picked.price_observation_id == nova.pk
    assert "Price from the Market: <strong>Amazon Bedrock</strong> · amazon.nova-2-lite-v1:0" in page


def test_a_rental_cannot_pick_a_per_token_price_nor_an_api_option_a_gpu_hour_price(editor_client, scenario):
    rental, api = scenario.options.get(kind="neocloud"), scenario.options.get(kind="api")
    html = _pick(editor_client, rental, factories.api_observation())
    assert "priced per million tokens" in html
    assert ScenarioOption.objects.get(pk=rental.pk).price_source is None
    html = _pick(editor_client, api, factories.observation(provider="CoreWeave", price="6.16"))
    assert "priced per GPU-hour" in html
    assert ScenarioOption.objects.get(pk=api.pk).price_source is None


def test_a_per_token_price_in_another_currency_is_converted_at_the_nearest_rate(editor_client, scenario):
    """EUR 2.75 and 11.00 per million tokens at 1 EUR = 1.08 USD: 2.97 and 11.88 (four decimal places, half up)."""
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=datetime.date(2026, 8, 31), source="ECB"
    )
    observation = factories.api_observation(
        provider="Mistral", model="mistral-large", input_price="2.75", output_price="11.00", currency="EUR"
    )
    option = scenario.options.get(kind="api")
    html = _pick(editor_client, option, observation)
    picked = ScenarioOption.objects.get(pk=option.pk)
    assert picked.price_per_million_input_tokens == Decimal("2.97")
    assert picked.price_per_million_output_tokens == Decimal("11.88")
    source = picked.price_source
    assert source["original_price_per_million_input_tokens"] == "2.75"
    assert source["original_price_per_million_output_tokens"] == "11"
    assert (source["original_currency"], source["fx_rate"], source["fx_rate_date"]) == ("EUR", "1.08", "2026-08-31")
    assert "converted from EUR 2.75 and 11 per million input and output tokens at 1 EUR = 1.08 USD" in html
