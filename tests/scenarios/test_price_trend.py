"""A rental follows the Market's price trend as its price path: the fitted change per year, recorded with its
window, date and source, on the page, in the JSON document and on the decision link; typing a change drops it."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from pricing.models import PriceObservation
from tco.documents import scenario_document
from tco.models import ScenarioOption
from tco.services import (
    EditRefused,
    PriceChoiceError,
    option_adopt_price_trend,
    option_pick_price,
    option_update,
    scenario_create_from_document,
)
from tests.scenarios import factories

HTMX = {"HTTP_HX_REQUEST": "true"}
MONDAY = date(2026, 1, 5)


def _weekly_prices(weeks: int, *, change: float, start: float = 4.0) -> None:
    """One H100 SXM on-demand observation a week (a Wednesday), falling by ``change`` a year."""
    for week in range(weeks):
        price = start * (1 + change) ** (week * 7 / 365.25)
        factories.observation(price=f"{price:.6f}", observed_on=MONDAY + timedelta(weeks=week, days=2))


def _picked(scenario, editor):
    """The example's Lambda rental with the latest weekly Market price picked (its GPU model and term)."""
    option = scenario.options.get(kind="neocloud")
    observation = PriceObservation.objects.order_by("-observed_on").first()
    option_pick_price(option=option, user=editor, expected_version=scenario.version, observation=observation)
    return ScenarioOption.objects.get(pk=option.pk)


def test_following_the_trend_sets_the_fitted_change_with_its_provenance(scenario, editor):
    _weekly_prices(10, change=-0.25)
    option = _picked(scenario, editor)
    change = option_adopt_price_trend(option=option, user=editor, expected_version=option.scenario.version)
    saved = ScenarioOption.objects.get(pk=option.pk)
    assert saved.price_change_per_year == Decimal("-0.2500")
    source = saved.price_path_source
    assert {key: source[key] for key in ("gpu_model", "pricing_term", "currency", "months", "weeks", "offerings")} == {
        "gpu_model": "H100 SXM",
        "pricing_term": "on_demand",
        "currency": "USD",
        "months": 12,
        "weeks": 10,
        "offerings": 1,
    }
    assert float(source["change_per_year"]) == pytest.approx(-0.25, abs=1e-5)
    assert source["first_week"] == MONDAY.isoformat()
    assert source["last_day"] == (MONDAY + timedelta(weeks=9, days=2)).isoformat()
    assert change.scenario.version == option.scenario.version + 1


def test_the_document_carries_the_price_path_source_and_an_import_keeps_it(scenario, editor):
    _weekly_prices(10, change=-0.25)
    option = _picked(scenario, editor)
    option_adopt_price_trend(option=option, user=editor, expected_version=option.scenario.version)
    scenario.refresh_from_db()
    document = scenario_document(scenario)
    rental = next(entry for entry in document["options"] if entry["kind"] == "neocloud")
    assert rental["price_path_source"]["weeks"] == 10
    copy = scenario_create_from_document(document=json.loads(json.dumps(document)), user=editor)
    assert copy.options.get(kind="neocloud").price_path_source == rental["price_path_source"]


def test_typing_a_change_per_year_drops_the_trend_it_replaces(scenario, editor):
    _weekly_prices(10, change=-0.25)
    option = _picked(scenario, editor)
    option_adopt_price_trend(option=option, user=editor, expected_version=option.scenario.version)
    fresh = ScenarioOption.objects.select_related("scenario").get(pk=option.pk)
    option_update(
        option=fresh,
        user=editor,
        expected_version=fresh.scenario.version,
        field="price_change_per_year",
        value=Decimal("-0.1"),
    )
    assert ScenarioOption.objects.get(pk=option.pk).price_path_source is None


def test_an_option_without_a_market_price_or_with_too_few_weeks_is_refused_and_nothing_is_saved(scenario, editor):
    option = scenario.options.get(kind="neocloud")
    with pytest.raises(PriceChoiceError, match="Pick a Market price first"):
        option_adopt_price_trend(option=option, user=editor, expected_version=scenario.version)
    _weekly_prices(3, change=-0.25)
    option = _picked(scenario, editor)
    version = option.scenario.version
    with pytest.raises(PriceChoiceError, match="3 weeks of H100 SXM on demand prices in USD in the last 12 months"):
        option_adopt_price_trend(option=option, user=editor, expected_version=version)
    saved = ScenarioOption.objects.get(pk=option.pk)
    assert saved.price_path_source is None and saved.scenario.version == version


def test_a_trend_beyond_what_a_price_path_may_be_is_refused(scenario, editor):
    _weekly_prices(10, change=9.0)  # +900 % a year: past the +200 % a price change may be
    option = _picked(scenario, editor)
    with pytest.raises(EditRefused):
        option_adopt_price_trend(option=option, user=editor, expected_version=option.scenario.version)
    assert ScenarioOption.objects.get(pk=option.pk).price_path_source is None


def test_the_page_offers_the_trend_and_says_which_one_the_option_follows(editor_client, scenario, editor):
    _weekly_prices(10, change=-0.25)
    option = _picked(scenario, editor)
    version = option.scenario.version
    url = reverse("tco:option_price_trend", args=[scenario.pk, option.pk])
    html = editor_client.post(url, {"months": "12", "version": version}, **HTMX).content.decode()
    assert "Price path from the Market's trend: \N{MINUS SIGN}25.0% a year: the trend of H100 SXM on demand" in html
    assert "(10 weekly medians of 1 offering; 95 % interval" in html
    refused = editor_client.post(url, {"months": "7", "version": version + 1}, **HTMX).content.decode()
    assert "Choose a window of 3, 6, 12, 24 or 36 months." in refused


def test_the_decision_link_names_the_price_path_beside_the_price(editor_client, scenario, editor, client):
    from tests.decisions.conftest import create_link

    _weekly_prices(10, change=-0.25)
    option = _picked(scenario, editor)
    option_adopt_price_trend(option=option, user=editor, expected_version=option.scenario.version)
    scenario.refresh_from_db()
    response, path = create_link(editor_client, scenario)
    assert response.status_code == 201, response.content.decode()[:300]
    client.logout()
    html = client.get(path).content.decode()
    assert "Price path: \N{MINUS SIGN}25.0% a year: the trend of H100 SXM on demand prices in USD" in html
