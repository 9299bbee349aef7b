"""Changing the scenario's currency: the page asks; conversion at a named rate or a relabel, one versioned change."""

from __future__ import annotations

import datetime
import io
import re
from decimal import ROUND_HALF_UP, Decimal

import openpyxl
import pytest
from django.urls import reverse

from pricing.models import ExchangeRate
from pricing.selectors import exchange_rate
from tco.charts import snapshot as snapshot_output
from tco.documents import scenario_document
from tco.engine import ScenarioError
from tco.models import DecisionLink, InputRange, Scenario, ScenarioOption
from tco.presentation.currency import too_large_words
from tco.selectors.uncertainty import scenario_uncertainty
from tco.services import option_pick_price, scenario_change_currency, scenario_create, scenario_create_from_document
from tco.services.decisions import link_create
from tco.services.uncertainty import range_set
from tco.web.viewmodels.history import scenario_history
from tests.documents import DESIGN_EXAMPLE
from tests.scenarios import factories
from tests.scenarios.factories import price_range

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
    return client.post(url, {"currency": code, "version": scenario.version}, **HTMX)


def _answer(client, scenario, **data):
    url = reverse("tco:scenario_currency", args=[scenario.pk])
    return client.post(url, {"currency": "EUR", "version": scenario.version, **data}, **HTMX)


def test_changing_the_currency_asks_and_saves_nothing_yet(editor_client, scenario, ecb_rate):
    html = _ask(editor_client, scenario).content.decode()
    assert "Change the currency from USD to EUR?" in html
    assert "13 money inputs are in USD." in html  # burst, 8 owned, the rental's price and extras, 2 API prices
    assert "Convert at 1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)" in html
    assert "They are already in EUR: change the label only" in html
    # What a conversion does to the numbers, as it does it (unit prices keep four decimals).
    assert "rounds it half up to the cent, or a unit price (per GPU-hour, per kWh, per million tokens) to four" in html
    assert Scenario.objects.values_list("currency", "version").get(pk=scenario.pk) == ("USD", 1)


def test_without_a_rate_only_the_relabel_is_offered_and_the_page_says_which_rate_to_import(editor_client, scenario):
    html = _ask(editor_client, scenario).content.decode()
    assert 'id="currency-convert"' not in html
    assert "No USD→EUR exchange rate is known" in html and "import_fx_rates" in html


RATE = Decimal("0.925925925926")  # 1 USD in EUR: 1 / 1.08 to 12 significant digits


def in_eur(amount: str, step: str = "0.01") -> Decimal:
    """By hand: the amount times the rate, rounded half up to the cent (unit prices: to ``step`` 0.0001)."""
    return (Decimal(amount) * RATE).quantize(Decimal(step), rounding=ROUND_HALF_UP)


UNIT = "0.0001"  # a unit price's step


def _convert(client, scenario, run_jobs):
    with run_jobs():
        return _answer(
            client,
            scenario,
            mode="convert",
            rate="0.925925925926",
            rate_date="2026-11-02",
            rate_source="ECB euro reference rates",
        )


def test_converting_rewrites_every_money_input_to_the_cent_in_one_version_recorded_in_history(
    editor_client, scenario, ecb_rate, run_jobs
):
    response = _convert(editor_client, scenario, run_jobs)
    assert response["HX-Refresh"] == "true"
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.currency, fresh.version) == ("EUR", 2)
    assert fresh.burst_price_per_gpu_hour == in_eur("6.16", UNIT) == Decimal("5.7037")  # 5.70370370370416
    owned = ScenarioOption.objects.get(scenario=fresh, kind="owned")
    assert owned.capex == in_eur("320000") == Decimal("296296.30")  # 296296.29629632
    assert owned.electricity_per_kwh == in_eur("0.11", UNIT) == Decimal("0.1019")  # 0.10185185185186
    assert owned.facility_per_year == in_eur("24000") == Decimal("22222.22")  # 22222.222222224
    assert owned.useful_life_years == Decimal(4) and owned.pue == Decimal("1.35")  # not money: unchanged
    assert owned.cost_of_capital == Decimal("0.07")  # a rate: unchanged
    rental = ScenarioOption.objects.get(scenario=fresh, kind="neocloud")
    assert rental.price_per_gpu_hour == in_eur("3.99", UNIT) == Decimal("3.6944")  # 3.69444444444474
    assert rental.price_change_per_year == Decimal("-0.1")  # a rate, not money
    api = ScenarioOption.objects.get(scenario=fresh, kind="api")
    assert (api.price_per_million_input_tokens, api.price_per_million_output_tokens) == (
        in_eur("0.5", UNIT),
        in_eur("1.5", UNIT),
    )
    lines = {(line.subject, line.field, line.old, line.new) for line in scenario_history(fresh)}
    # Each value in the currency it was in: before the conversion dollars, after it euros.
    assert ("option “Own 8x H100 (new)”", "Capex, whole option", "$320,000", "EUR 296,296.30") in lines
    assert ("scenario", "Burst price", "$6.16 per GPU-hour", "EUR 5.7037 per GPU-hour") in lines
    assert any(line[1:] == ("Currency", "USD", "EUR") for line in lines)
    rate_line = (
        "scenario",
        "Currency conversion",
        "blank",
        "Money inputs converted from USD to EUR at 1 USD = 0.925925925926 EUR "
        "(ECB euro reference rates, 2026-11-02), amounts rounded to the cent, unit prices to four decimal places",
    )
    assert rate_line in lines
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert "Capex, whole option (EUR)" in page
    assert "1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)" in page  # the history entry


def test_a_converted_input_has_no_float_noise(editor_client, scenario, ecb_rate, run_jobs):
    owned = scenario.options.get(kind="owned")
    owned.capex = Decimal("2400000")
    owned.save()
    _convert(editor_client, scenario, run_jobs)
    owned.refresh_from_db()
    assert owned.capex == Decimal("2222222.22")  # not 2,222,222.2222224


def test_ranges_on_money_inputs_convert_with_them_and_others_stay(editor_client, scenario, editor, ecb_rate, run_jobs):
    rental, owned = scenario.options.get(kind="neocloud"), scenario.options.get(kind="owned")
    with run_jobs():
        for option, field, ends in (
            (rental, "price_per_gpu_hour", ("3", "3.99", "6")),
            (owned, "capex", ("280000", "320000", "400000")),
            (None, "burst_price_per_gpu_hour", ("5", "6.16", "9")),
            (None, "discount_rate", ("0.06", "0.08", "0.12")),
            (owned, "cost_of_capital", ("0.05", "0.07", "0.09")),
        ):
            scenario.refresh_from_db()
            range_set(
                scenario=scenario,
                user=editor,
                expected_version=scenario.version,
                option=option,
                field=field,
                **dict(zip(("low", "likely", "high"), map(Decimal, ends), strict=True)),
            )
    scenario.refresh_from_db()
    _convert(editor_client, scenario, run_jobs)

    def ends(field):
        item = InputRange.objects.get(scenario=scenario, field=field)
        return item.low, item.likely, item.high

    assert (
        ends("price_per_gpu_hour")
        == (in_eur("3", UNIT), in_eur("3.99", UNIT), in_eur("6", UNIT))
        == (Decimal("2.7778"), Decimal("3.6944"), Decimal("5.5556"))
    )
    assert ends("capex") == (in_eur("280000"), in_eur("320000"), in_eur("400000"))
    assert ends("burst_price_per_gpu_hour") == (in_eur("5", UNIT), in_eur("6.16", UNIT), in_eur("9", UNIT))
    assert ends("discount_rate") == (Decimal("0.06"), Decimal("0.08"), Decimal("0.12"))  # rates are not money
    assert ends("cost_of_capital") == (Decimal("0.05"), Decimal("0.07"), Decimal("0.09"))
    # The likely value is still the input, so the simulation and the page agree, in one currency.
    fresh = Scenario.objects.get(pk=scenario.pk)
    uncertainty = scenario_uncertainty(fresh)
    assert (
        uncertainty["options[1].price_per_gpu_hour"]["likely"]
        == scenario_document(fresh)["options"][1]["price_per_gpu_hour"]
    )
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert "is not the input" not in html


def test_relabelling_leaves_the_ranges_as_they_are(editor_client, scenario, editor):
    rental = scenario.options.get(kind="neocloud")
    price_range(scenario, user=editor, option=rental)
    scenario.refresh_from_db()
    _answer(editor_client, scenario, mode="relabel")
    item = InputRange.objects.get(scenario=scenario)
    assert (item.low, item.likely, item.high) == (Decimal(3), Decimal("3.99"), Decimal(6))
    lines = {(line.field, line.new) for line in scenario_history(Scenario.objects.get(pk=scenario.pk))}
    assert ("Currency", "EUR") in lines and not any(field == "Currency conversion" for field, _ in lines)


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
    assert rental.price_per_gpu_hour == Decimal("3.6944")
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


RATE_TEXT = "1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)"


def _about(client, url) -> dict:
    book = openpyxl.load_workbook(io.BytesIO(client.get(url).content))
    return dict(book["About this file"].iter_rows(min_row=2, values_only=True))


def test_the_rate_date_and_source_are_on_the_decision_link_and_in_the_workbooks(
    editor_client, client, scenario, editor, ecb_rate, run_jobs
):
    _convert(editor_client, scenario, run_jobs)
    fresh = Scenario.objects.get(pk=scenario.pk)
    _link, token = link_create(scenario=fresh, user=editor, output=snapshot_output)
    said = (
        f"Money inputs converted from USD to EUR at {RATE_TEXT}, amounts rounded to the cent, unit prices to four "
        "decimal places"
    )
    frozen = DecisionLink.objects.get().snapshot.data
    assert [entry["text"] for entry in frozen["currency_conversions"]] == [said]
    assert frozen["currency_conversions"][0]["rate"] == "0.925925925926"
    page = client.get(f"/d/{token}").content.decode()
    assert f'<p class="conversion-note" id="currency-conversions">{said}.</p>' in page
    assert _about(client, f"/d/{token}/results.xlsx")["currency conversion"] == said
    assert _about(editor_client, f"/scenarios/{scenario.pk}/export/results.xlsx")["currency conversion"] == said

    # Frozen: converting back later changes nothing on the link; the scenario's own files name both conversions.
    scenario_change_currency(
        scenario=fresh, user=editor, expected_version=fresh.version, currency="USD", rate=exchange_rate("EUR", "USD")
    )
    assert said in client.get(f"/d/{token}").content.decode()
    about = _about(editor_client, f"/scenarios/{scenario.pk}/export/results.xlsx")
    assert about["currency conversion"] == said
    assert about["currency conversion 2"] == (
        "Money inputs converted from EUR to USD at 1 EUR = 1.08 USD (ECB euro reference rates, 2026-11-02), "
        "amounts rounded to the cent, unit prices to four decimal places"
    )


def test_a_scenario_never_converted_says_nothing_extra(editor_client, client, scenario, editor, ecb_rate):
    _answer(editor_client, scenario, mode="relabel")
    fresh = Scenario.objects.get(pk=scenario.pk)
    _link, token = link_create(scenario=fresh, user=editor, output=snapshot_output)
    assert "currency_conversions" not in DecisionLink.objects.get().snapshot.data
    assert 'id="currency-conversions"' not in client.get(f"/d/{token}").content.decode()
    about = _about(editor_client, f"/scenarios/{scenario.pk}/export/results.xlsx")
    assert not any(key.startswith("currency conversion") for key in about)


def test_a_conversion_that_would_not_fit_is_refused_naming_the_input_and_what_fits(editor_client, scenario, ecb_rate):
    """1 EUR = 1.08 USD: a capex of EUR 99 trillion would be $106.92 trillion, past the 14 digits an input holds."""
    Scenario.objects.filter(pk=scenario.pk).update(currency="EUR")
    owned = scenario.options.get(kind="owned")
    owned.capex = Decimal("99000000000000")
    owned.save()
    before = {option.pk: option.capex for option in ScenarioOption.objects.filter(scenario=scenario)}
    html = _answer(
        editor_client,
        scenario,
        currency="USD",
        mode="convert",
        rate="1.08",
        rate_date="2026-11-02",
        rate_source="ECB euro reference rates",
    ).content.decode()
    # What fits: 99,999,999,999,999 (the largest whole number an input stores) / 1.08 in EUR, to the cent below.
    assert (
        "Own 8x H100 (new) → Capex, whole option: EUR 99,000,000,000,000 would be $106,920,000,000,000; "
        "up to EUR 92,592,592,592,591.66 converts" in html
    )
    assert "Nothing was changed" in html
    assert Scenario.objects.values_list("currency", "version").get(pk=scenario.pk) == ("EUR", 1)
    assert {option.pk: option.capex for option in ScenarioOption.objects.filter(scenario=scenario)} == before


def test_a_range_end_that_would_not_fit_is_refused_too(scenario, editor, ecb_rate):
    Scenario.objects.filter(pk=scenario.pk).update(currency="EUR")
    scenario.refresh_from_db()
    rental = scenario.options.get(kind="neocloud")
    InputRange.objects.create(
        scenario=scenario, option=rental, field="price_per_gpu_hour", low=2, likely=3, high=Decimal("95000000000000")
    )
    from tco.services import CurrencyChangeError

    with pytest.raises(CurrencyChangeError, match="1 input") as refused:
        scenario_change_currency(
            scenario=scenario, user=editor, expected_version=None, currency="USD", rate=exchange_rate("EUR", "USD")
        )
    words = too_large_words(refused.value.rate, refused.value.too_large, refused.value.limit)
    assert re.search(r"range of .*Price.*: its high EUR 95,000,000,000,000\.00", words)
    assert InputRange.objects.get(option=rental).high == Decimal("95000000000000")


def test_the_history_pages_back_past_a_conversion_and_its_line_names_the_rate(
    editor_client, scenario, ecb_rate, run_jobs
):
    _convert(editor_client, scenario, run_jobs)
    fresh = Scenario.objects.get(pk=scenario.pk)
    for rate in ("9%", "10%", "11%", "12%", "13%", "14%", "15%", "16%"):  # edits after the conversion
        fresh.refresh_from_db()
        editor_client.post(
            reverse("tco:scenario_field", args=[fresh.pk]), {"discount_rate": rate, "version": fresh.version}, **HTMX
        )
    page = editor_client.get(reverse("tco:scenario_detail", args=[fresh.pk])).content.decode()
    assert page.count("<li><time") == 25 and f'hx-get="/scenarios/{fresh.pk}/history/?page=2"' in page
    shown = page
    for number in range(2, 5):
        older = editor_client.get(reverse("tco:scenario_history", args=[fresh.pk]), {"page": number}, **HTMX)
        shown += older.content.decode()
        if f"?page={number + 1}" not in older.content.decode():
            break
    assert "Currency conversion" in shown and "1 USD = 0.925925925926 EUR" in shown
    assert shown.count("<li><time") == len(scenario_history(fresh, limit=1_000))  # every line, each once


def test_a_json_export_imported_back_keeps_the_conversion_record(editor_client, scenario, ecb_rate, run_jobs):
    _convert(editor_client, scenario, run_jobs)
    exported = editor_client.get(reverse("tco:scenario_export", args=[scenario.pk])).content
    upload = io.BytesIO(exported)
    upload.name = "plan.json"
    with run_jobs():
        editor_client.post(reverse("tco:scenario_import"), {"file": upload})
    copy = Scenario.objects.exclude(pk=scenario.pk).get()
    assert copy.currency_conversions == Scenario.objects.get(pk=scenario.pk).currency_conversions
    said = f"Money inputs converted from USD to EUR at {RATE_TEXT}"
    assert _about(editor_client, f"/scenarios/{copy.pk}/export/results.xlsx")["currency conversion"].startswith(said)


def test_an_imported_conversion_record_that_is_not_one_is_refused(editor):
    with pytest.raises(ScenarioError, match="currency_conversions"):
        scenario_create_from_document(document={**DESIGN_EXAMPLE, "currency_conversions": [{"rate": 1}]}, user=editor)
    assert not Scenario.objects.exists()


def test_a_converted_options_assumptions_note_names_the_currency_of_its_figures(
    editor_client, scenario, ecb_rate, run_jobs
):
    note = "PUE 1.4, electricity $0.12/kWh, operations 0.25 FTE per server at $216k."
    ScenarioOption.objects.filter(scenario=scenario, kind="owned").update(prefill_note=note)
    _convert(editor_client, scenario, run_jobs)
    converted = ScenarioOption.objects.get(scenario=scenario, kind="owned").prefill_note
    assert converted == f"{note} (Figures in USD; the inputs were converted at {RATE_TEXT}.)"


def test_the_training_plan_s_other_costs_convert_with_the_other_money_inputs(
    editor_client, scenario, ecb_rate, run_jobs
):
    Scenario.objects.filter(pk=scenario.pk).update(
        training_runs_per_year=4, training_gpu_hours=10000, training_cluster_gpus=8, training_other_cost_per_run=2500
    )
    scenario.refresh_from_db()
    _convert(editor_client, scenario, run_jobs)
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert fresh.training_other_cost_per_run == in_eur("2500") == Decimal("2314.81")
    assert fresh.training_gpu_hours == Decimal(10000)  # GPU-hours, not money: unchanged
