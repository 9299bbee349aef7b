"""The editor's "Tax and financing" sections: the scenario's tax rate, cost of debt and refresh policy, and each
option's depreciation, financing, resale curve and commitment, with the inputs a choice needs shown once it is saved;
bad combinations refused at the input, in the page's words, with nothing saved."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create_from_document
from tests.documents import finance_example
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}


def _post(client, url, field, value, scenario):
    version = Scenario.objects.get(pk=scenario.pk).version
    return Workspace(client.post(url, {field: value, "version": version}, **HTMX).content.decode())


def _scenario_field(client, scenario, field, value):
    return _post(client, reverse("tco:scenario_field", args=[scenario.pk]), field, value, scenario)


def _option_field(client, scenario, option, field, value):
    return _post(client, reverse("tco:option_field", args=[scenario.pk, option.pk]), field, value, scenario)


def _page(client, scenario):
    return Workspace(client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode())


def _options(scenario):
    return list(ScenarioOption.objects.filter(scenario=scenario).order_by("position", "id"))


@pytest.fixture
def owned(scenario):
    return _options(scenario)[0]


@pytest.fixture
def rental(scenario):
    return _options(scenario)[1]


# --- The sections and what they show ------------------------------------------------------------------------------


def test_the_scenario_has_a_tax_and_financing_section_with_its_three_inputs(editor_client, scenario):
    page = _page(editor_client, scenario)
    assert page.text("finance-title") == "Tax and financing"
    assert page.text("f-s-tax_rate").startswith("Tax rate")
    assert page.text("f-s-cost_of_debt").startswith("Cost of debt")
    assert "Keep serving past the useful life (default)" in page.text("f-s-refresh_policy")


def test_a_cash_purchase_shows_its_depreciation_and_resale_but_no_loan_or_lease(editor_client, scenario, owned):
    page = _page(editor_client, scenario)
    key = f"o{owned.pk}"
    assert page.text(f"finance-{owned.pk}-title") == "Tax and financing"
    assert "Straight line over the useful life (default)" in page.text(f"f-{key}-tax_depreciation")
    assert "MACRS 5-year" in page.text(f"f-{key}-tax_depreciation")
    assert page.has(f"f-{key}-tax_life_years") and page.has(f"f-{key}-resale_curve")
    assert not any(page.has(f"f-{key}-{name}") for name in ("loan_apr", "lease_payment", "lease_buyout_price"))
    assert not page.has(f"f-{key}-age_at_purchase_months")  # it places a unit along a resale curve


def test_choosing_a_loan_saves_it_and_shows_the_loan_inputs(editor_client, scenario, owned):
    page = _option_field(editor_client, scenario, owned, "financing", "loan")
    key = f"o{owned.pk}"
    assert ScenarioOption.objects.get(pk=owned.pk).financing == "loan"
    assert page.value(f"{key}-financing") == "loan"
    assert page.text(f"f-{key}-loan_apr").startswith("Loan APR (per year)")
    assert page.has(f"f-{key}-loan_term_months") and page.has(f"f-{key}-down_payment_share")
    assert not page.has(f"f-{key}-lease_payment")
    # Still to complete, named in the page's words: the loan's APR and term.
    assert "Loan APR" in page.text("to-complete") and "Loan term" in page.text("to-complete")


def test_each_kind_of_input_saves_from_its_text(editor_client, scenario, owned, rental):
    _option_field(editor_client, scenario, owned, "financing", "lease")
    _option_field(editor_client, scenario, owned, "lease_payment", "$27,000")
    _option_field(editor_client, scenario, owned, "lease_payment_interval_months", "3")
    _option_field(editor_client, scenario, owned, "lease_term_months", "36")
    _option_field(editor_client, scenario, owned, "bonus_depreciation", "40%")
    _option_field(editor_client, scenario, owned, "residual_value", "")
    page = _option_field(editor_client, scenario, owned, "resale_curve", "0: 100%, 12: 70%, 36: 40%")
    _scenario_field(editor_client, scenario, "tax_rate", "21%")
    _option_field(editor_client, scenario, rental, "price_change_per_year", "")
    _option_field(editor_client, scenario, rental, "price_change_by_year", "-25%, -10%, 0%")
    saved, rent = ScenarioOption.objects.get(pk=owned.pk), ScenarioOption.objects.get(pk=rental.pk)
    assert (saved.lease_payment, saved.lease_payment_interval_months, saved.lease_term_months) == (
        Decimal("27000"),
        3,
        36,
    )
    assert saved.bonus_depreciation == Decimal("0.4")
    assert saved.resale_curve == [[0, 1], [12, 0.7], [36, 0.4]]
    assert rent.price_change_by_year == [-0.25, -0.1, 0]
    assert Scenario.objects.get(pk=scenario.pk).tax_rate == Decimal("0.21")
    assert page.value(f"o{owned.pk}-resale_curve") == "0: 100%, 12: 70%, 36: 40%"
    assert page.has(f"preview-o{owned.pk}-resale_curve")
    assert page.value(f"o{owned.pk}-lease_payment_interval_months") == "3"
    page = _page(editor_client, scenario)
    assert page.value(f"o{rental.pk}-price_change_by_year") == "-25%, -10%, 0%"
    assert page.value("s-tax_rate") == "21%"


def test_a_typical_curve_is_offered_to_start_from(editor_client, scenario, owned):
    page = _page(editor_client, scenario)
    assert "GPU servers, fast decline" in page.text(f"f-o{owned.pk}-resale_curve")


def test_commitment_inputs_appear_only_for_committed_billing(editor_client, scenario, rental):
    key = f"o{rental.pk}"
    assert not _page(editor_client, scenario).has(f"f-{key}-commitment_term_months")
    page = _option_field(editor_client, scenario, rental, "billing", "committed")
    assert page.has(f"f-{key}-commitment_term_months") and page.has(f"f-{key}-on_demand_price_per_gpu_hour")
    assert not page.has(f"f-{key}-upfront_share")  # a share of each term: once there is a term
    page = _option_field(editor_client, scenario, rental, "commitment_term_months", "12")
    assert page.has(f"f-{key}-upfront_share") and page.has(f"f-{key}-after_term")


def test_going_back_to_cash_clears_the_loan_so_the_scenario_stays_whole(editor_client, scenario, owned):
    _option_field(editor_client, scenario, owned, "financing", "loan")
    _option_field(editor_client, scenario, owned, "loan_apr", "7%")
    page = _option_field(editor_client, scenario, owned, "financing", "cash")
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.financing, saved.loan_apr) == ("cash", None)
    assert not page.has(f"f-o{owned.pk}-loan_apr")


def test_a_document_with_every_finance_input_shows_each_in_the_editor(editor_client, editor):
    scenario = scenario_create_from_document(document=finance_example(), user=editor)
    page = _page(editor_client, scenario)
    owned, secondary, rental = _options(scenario)[:3]
    assert page.value(f"o{owned.pk}-loan_apr") == "7%" and page.value(f"o{owned.pk}-age_at_purchase_months") == "6"
    assert page.value(f"o{secondary.pk}-lease_end") == "buyout"
    assert page.value(f"o{secondary.pk}-lease_buyout_price") == "30,000"
    assert page.value(f"o{rental.pk}-after_term") == "on_demand" and page.value(f"o{rental.pk}-upfront_share") == "50%"
    assert page.value("s-refresh_policy") == "replace"


# --- Bad input: refused at the input, in the page's words, nothing saved -------------------------------------------


def _refused(page, key, *words):
    assert page.refused(key), key
    message = page.error(key)
    assert "options[" not in message and all(word in message for word in words), message


def test_a_lease_longer_than_the_horizon_is_refused(editor_client, scenario, owned):
    _option_field(editor_client, scenario, owned, "financing", "lease")
    page = _option_field(editor_client, scenario, owned, "lease_term_months", "48")
    _refused(page, f"o{owned.pk}-lease_term_months", "Lease term", "longer than the horizon of 36 months")
    assert ScenarioOption.objects.get(pk=owned.pk).lease_term_months is None


def test_a_loan_without_an_apr_is_listed_to_complete(editor_client, scenario, owned):
    page = _option_field(editor_client, scenario, owned, "financing", "loan")
    assert "Loan APR" in page.text("to-complete")
    assert page.attrs("results").get("data-status") != "done" or "hx-trigger" not in page.attrs("results")


def test_a_buyout_price_with_a_returned_lease_is_refused(editor_client, scenario, owned):
    _option_field(editor_client, scenario, owned, "financing", "lease")
    page = _option_field(editor_client, scenario, owned, "lease_buyout_price", "30000")
    _refused(page, f"o{owned.pk}-lease_buyout_price", "returned lease has no buyout price")
    assert ScenarioOption.objects.get(pk=owned.pk).lease_buyout_price is None


@pytest.mark.parametrize(
    ("text", "words"),
    [("0: 100%, 24: 70%, 12: 40%", "ages must rise"), ("0: 100%, 12: 60%, 36: 70%", "shares must not rise")],
)
def test_a_resale_curve_with_falling_ages_or_rising_shares_is_refused(editor_client, scenario, owned, text, words):
    _option_field(editor_client, scenario, owned, "residual_value", "")
    page = _option_field(editor_client, scenario, owned, "resale_curve", text)
    _refused(page, f"o{owned.pk}-resale_curve", "Resale curve", words)
    assert page.value(f"o{owned.pk}-resale_curve") == text
    assert ScenarioOption.objects.get(pk=owned.pk).resale_curve is None


def test_a_resale_curve_that_cannot_be_read_is_refused_with_an_example(editor_client, scenario, owned):
    page = _option_field(editor_client, scenario, owned, "resale_curve", "0 100%, 12 70%")
    _refused(page, f"o{owned.pk}-resale_curve", "age in months: share of the price")


def test_a_tax_rate_of_100_percent_is_refused(editor_client, scenario):
    page = _scenario_field(editor_client, scenario, "tax_rate", "100%")
    _refused(page, "s-tax_rate", "Tax rate must be", "less than 1")
    assert Scenario.objects.get(pk=scenario.pk).tax_rate is None


def test_a_commitment_term_past_the_horizon_is_refused(editor_client, scenario, rental):
    _option_field(editor_client, scenario, rental, "billing", "committed")
    page = _option_field(editor_client, scenario, rental, "commitment_term_months", "48")
    _refused(page, f"o{rental.pk}-commitment_term_months", "Commitment term", "past the horizon of 36 months")
    assert ScenarioOption.objects.get(pk=rental.pk).commitment_term_months is None


def test_the_history_says_each_finance_change_in_words(editor_client, scenario, owned):
    _option_field(editor_client, scenario, owned, "residual_value", "")
    _option_field(editor_client, scenario, owned, "financing", "loan")
    page = _option_field(editor_client, scenario, owned, "resale_curve", "0: 100%, 12: 70%")
    history = page.text("history-list")
    assert "Resale curve" in history and "100% at 0 months, 70% at 12 months" in history
    assert "Financing" in history and "Loan" in history


# --- Ranges: a finance number that is set takes one -----------------------------------------------------------------


def test_a_finance_number_takes_a_range_once_it_is_set_and_the_simulation_moves_it(editor_client, editor, run_jobs):
    scenario = scenario_create_from_document(document=finance_example(), user=editor)
    owned = _options(scenario)[0]
    page = _page(editor_client, scenario)
    assert page.has("range-s-tax_rate") and page.has(f"range-o{owned.pk}-loan_apr")
    assert not page.has(f"range-o{owned.pk}-loan_term_months")  # a term is a decision, not an uncertainty
    version = Scenario.objects.get(pk=scenario.pk).version
    data = {"target": "s-tax_rate", "low": "15%", "likely": "21%", "high": "30%", "version": version}
    with run_jobs():
        editor_client.post(f"/scenarios/{scenario.pk}/ranges/", data, **HTMX)
        version = Scenario.objects.get(pk=scenario.pk).version
        form = {"trials": "1000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14", "version": version}
        editor_client.post(f"/scenarios/{scenario.pk}/uncertainty/run/", form, **HTMX)
    from tco.models import InputRange, UncertaintyRun

    assert float(InputRange.objects.get(scenario=scenario, field="tax_rate").high) == 0.3
    run = UncertaintyRun.objects.filter(scenario=scenario).latest("id")
    assert run.status == "done", getattr(run, "error", "")


def test_a_blank_finance_number_offers_no_range(editor_client, scenario, owned):
    page = _page(editor_client, scenario)
    assert not page.has("range-s-tax_rate") and not page.has(f"range-o{owned.pk}-bonus_depreciation")


def test_a_resale_curve_replaces_the_residual_value_and_a_path_by_year_the_change_per_year(
    editor_client, scenario, owned, rental
):
    page = _option_field(editor_client, scenario, owned, "resale_curve", "0: 100%, 24: 50%")
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.resale_curve, saved.residual_value) == ([[0, 1], [24, 0.5]], None)
    assert not page.has(f"f-o{owned.pk}-residual_value")
    page = _option_field(editor_client, scenario, rental, "price_change_by_year", "-20%, 0%")
    saved = ScenarioOption.objects.get(pk=rental.pk)
    assert (saved.price_change_by_year, saved.price_change_per_year) == ([-0.2, 0], None)
    assert not page.has(f"f-o{rental.pk}-price_change_per_year")
