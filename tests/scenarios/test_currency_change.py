"""Changing the scenario's currency: the page asks; conversion at a named rate or a relabel, one versioned change."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from pricing.models import ExchangeRate
from pricing.selectors import exchange_rate
from tco.models import Scenario, ScenarioOption
from tco.selectors.history import scenario_history
from tco.services import option_pick_price, scenario_change_currency, scenario_create
from tests.scenarios import factories

HTMX = {"HTTP_HX_REQUEST": "true"}
DAY = datetime.date(2026, 11, 2)


@pytest.fixture
def ecb_rate(db) -> ExchangeRate:
    """1 EUR = 1.08 USD, so 1 USD = 1/1.08 = 0.925925925926 EUR (12 significant digits)."""
    return ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=DAY, source="ECB euro reference rates"
    )


def _ask(client, scenario, code="EUR"):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    return client.post(url, {"field": "currency", "value": code, "version": scenario.version}, **HTMX)


def _answer(client, scenario, **data):
    url = reverse("tco:scenario_currency", args=[scenario.pk])
    return client.post(url, {"currency": "EUR", "version": scenario.version, **data}, **HTMX)


def test_changing_the_currency_asks_and_saves_nothing_yet(editor_client, scenario, ecb_rate):
    html = _ask(editor_client, scenario).content.decode()
    assert "Change the currency from USD to EUR?" in html
    assert "13 money inputs are in USD." in html  # burst, 8 owned, the rental's price and extras, 2 API prices
    assert "Convert at 1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)" in html
    assert "They are already in EUR: change the label only" in html
    assert Scenario.objects.values_list("currency", "version").get(pk=scenario.pk) == ("USD", 1)


def test_without_a_rate_only_the_relabel_is_offered_and_the_page_says_which_rate_to_import(editor_client, scenario):
    html = _ask(editor_client, scenario).content.decode()
    assert 'id="currency-convert"' not in html
    assert "No USD→EUR exchange rate is known" in html and "import_fx_rates" in html


def test_converting_rewrites_every_money_input_in_one_version_recorded_in_history(
    editor_client, scenario, ecb_rate, run_jobs
):
    with run_jobs():
        response = _answer(
            editor_client,
            scenario,
            mode="convert",
            rate="0.925925925926",
            rate_date="2026-11-02",
            rate_source="ECB euro reference rates",
        )
    assert response["HX-Refresh"] == "true"
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.currency, fresh.version) == ("EUR", 2)
    # By hand: value * 0.925925925926, rounded to ten decimal places.
    assert fresh.burst_price_per_gpu_hour == Decimal("5.7037037037")  # 6.16 * 0.925925925926 = 5.70370370370416
    owned = ScenarioOption.objects.get(scenario=fresh, kind="owned")
    assert owned.capex == Decimal("296296.29629632")  # 320000 * 0.925925925926
    assert owned.electricity_per_kwh == Decimal("0.1018518519")  # 0.11 * 0.925925925926 = 0.10185185185186
    assert owned.useful_life_years == Decimal(4) and owned.pue == Decimal("1.35")  # not money: unchanged
    rental = ScenarioOption.objects.get(scenario=fresh, kind="neocloud")
    assert rental.price_per_gpu_hour == Decimal("3.6944444444")  # 3.99 * 0.925925925926 = 3.69444444444474
    assert rental.price_change_per_year == Decimal("-0.1")  # a rate, not money
    lines = {(line.subject, line.field, line.old, line.new) for line in scenario_history(fresh)}
    # Each value in the currency it was in: before the conversion dollars, after it euros.
    assert ("option “Own 8x H100 (new)”", "Capex (whole option)", "$320,000", "EUR 296,296.30") in lines
    assert ("scenario", "Burst price", "$6.16 per GPU-hour", "EUR 5.7037 per GPU-hour") in lines
    assert any(line[1:] == ("Currency", "USD", "EUR") for line in lines)
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert "Capex for the whole option (all its GPUs), EUR" in page


def test_relabelling_keeps_every_number(editor_client, scenario):
    _answer(editor_client, scenario, mode="relabel")
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.currency, fresh.version, fresh.burst_price_per_gpu_hour) == ("EUR", 2, Decimal("6.16"))
    assert ScenarioOption.objects.get(scenario=fresh, kind="owned").capex == Decimal(320000)


def test_a_rate_that_is_no_longer_the_latest_is_refused_and_nothing_is_saved(editor_client, scenario, ecb_rate):
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.10"), rate_date=DAY.replace(day=3), source="ECB euro reference rates"
    )
    html = _answer(
        editor_client,
        scenario,
        mode="convert",
        rate="0.925925925926",
        rate_date="2026-11-02",
        rate_source="ECB euro reference rates",
    ).content.decode()
    assert "The latest rate changed" in html
    assert "1 USD = 0.909090909091 EUR" in html
    assert Scenario.objects.values_list("currency", "version").get(pk=scenario.pk) == ("USD", 1)


def test_a_scenario_without_money_inputs_changes_currency_without_asking(editor_client, editor):
    blank = scenario_create(user=editor, name="Blank")
    response = _ask(editor_client, blank)
    assert response["HX-Refresh"] == "true"
    assert Scenario.objects.get(pk=blank.pk).currency == "EUR"


def test_viewers_cannot_change_the_currency(viewer_client, scenario):
    response = _answer(viewer_client, scenario, mode="relabel")
    assert response.status_code in (403, 404)
    assert Scenario.objects.get(pk=scenario.pk).currency == "USD"


def test_a_market_price_keeps_its_original_through_conversions_and_comes_back_exactly(scenario, editor, ecb_rate):
    rental = scenario.options.get(kind="neocloud")
    option_pick_price(option=rental, user=editor, expected_version=1, observation=factories.observation(price="3.99"))
    scenario_change_currency(
        scenario=scenario, user=editor, expected_version=2, currency="EUR", rate=exchange_rate("USD", "EUR")
    )
    rental.refresh_from_db()
    assert rental.price_per_gpu_hour == Decimal("3.6944444444")
    assert {
        key: rental.price_source[key] for key in ("original_price_per_gpu_hour", "original_currency", "fx_rate")
    } == {
        "original_price_per_gpu_hour": "3.99",
        "original_currency": "USD",
        "fx_rate": "0.925925925926",
    }
    scenario_change_currency(
        scenario=scenario, user=editor, expected_version=3, currency="USD", rate=exchange_rate("EUR", "USD")
    )
    rental.refresh_from_db()
    assert rental.price_per_gpu_hour == Decimal("3.99")
    assert "original_currency" not in rental.price_source and rental.price_source["provider"] == "Lambda"


def test_clearing_the_currency_means_usd_and_asks_too(editor_client, scenario):
    _answer(editor_client, scenario, mode="relabel")  # now EUR, version 2
    scenario.refresh_from_db()
    html = _ask(editor_client, scenario, code="").content.decode()
    assert "Change the currency from EUR to USD?" in html
    assert Scenario.objects.values_list("currency", "version").get(pk=scenario.pk) == ("EUR", 2)


def test_a_tampered_currency_is_refused_with_its_reason(editor_client, scenario):
    response = _answer(editor_client, scenario, mode="relabel", currency="XYZ")
    assert response.status_code == 400
    assert "XYZ is not an ISO 4217 currency code" in response.content.decode()
    assert Scenario.objects.get(pk=scenario.pk).currency == "USD"
