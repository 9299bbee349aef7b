"""The option-field catalogue: one entry per input, and every per-kind table derived from it in document order."""

from __future__ import annotations

import pytest

from tco.engine.catalogue import (
    OPTION_FIELDS,
    OVERRIDES,
    SCENARIO_FIELD,
    TOP_NUMBERS,
    WORKLOAD_NUMBERS,
    OptionField,
    ScenarioField,
    allowed_option_fields,
    fields_for_kind,
    fields_of_type,
    numbers_for_kind,
    scenario_fields,
    scenario_path_field,
)
from tco.engine.fields import NumberField, money_field, rate_field

from .test_properties import MONEY_FIELDS

# docs/money-math.md's inputs, in document order (written out here, not read from the catalogue).
OWNED = (
    "gpu_count",
    "capex",
    "residual_value",
    "useful_life_years",
    "cost_of_capital",
    "power_kw",
    "idle_power_kw",
    "pue",
    "electricity_per_kwh",
    "facility_per_year",
    "network_per_year",
    "software_per_year",
    "support_per_year",
    "operations_per_year",
    "tokens_per_second_per_gpu",
    "acceptance_rate",
)
# The finance depth's inputs (docs/money-math.md "Finance depth"), after the others.
OWNED_FINANCE = (
    "tax_depreciation",
    "tax_life_years",
    "bonus_depreciation",
    "financing",
    "loan_apr",
    "loan_term_months",
    "down_payment_share",
    "lease_payment",
    "lease_payment_interval_months",
    "lease_term_months",
    "lease_payment_timing",
    "lease_end",
    "lease_buyout_price",
    "capex_change_per_year",
    "resale_curve",
    "age_at_purchase_months",
)
RENTAL_FINANCE = (
    "price_change_by_year",
    "commitment_term_months",
    "upfront_share",
    "after_term",
    "on_demand_price_per_gpu_hour",
)
RENTAL = (
    "price_per_gpu_hour",
    "billing",
    "committed_gpus",
    "extras_per_year",
    "price_change_per_year",
    "tokens_per_second_per_gpu",
    "acceptance_rate",
)
API = ("price_per_million_input_tokens", "price_per_million_output_tokens", "extras_per_year", "acceptance_rate")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("owned", OWNED + OWNED_FINANCE),
        ("secondary", OWNED + OWNED_FINANCE),
        ("hyperscaler", RENTAL + RENTAL_FINANCE),
        ("neocloud", RENTAL + RENTAL_FINANCE),
        ("api", API),
    ],
)
def test_each_kind_gets_its_fields_in_document_order(kind, expected):
    assert fields_for_kind(kind) == expected


def test_the_document_may_carry_the_numbers_then_billing_then_the_price_and_price_path_sources():
    assert allowed_option_fields("marketplace") == (
        "name",
        "kind",
        *(name for name in RENTAL if name != "billing"),
        "billing",
        "price_source",
        "price_path_source",
    )
    assert allowed_option_fields("owned") == ("name", "kind", *OWNED)
    assert allowed_option_fields("api") == ("name", "kind", *API, "price_source")


def test_an_unknown_kind_has_no_fields():
    assert fields_for_kind("timeshare") == ()


def test_every_number_has_a_check_and_the_choices_are_billing_and_the_finance_choices():
    assert fields_of_type("choice") == {
        "billing",
        "tax_depreciation",
        "financing",
        "lease_payment_timing",
        "lease_end",
        "after_term",
    }
    assert fields_of_type("list") == {"resale_curve", "price_change_by_year"}
    assert "billing" not in numbers_for_kind("neocloud")
    assert all(isinstance(spec, NumberField) for spec in numbers_for_kind("owned").values())


def test_the_money_inputs_are_the_ones_a_currency_change_scales():
    finance = {"lease_payment", "lease_buyout_price", "on_demand_price_per_gpu_hour"}
    assert fields_of_type("money") == (MONEY_FIELDS - {"burst_price_per_gpu_hour"}) | finance


def test_counts_are_whole_numbers_of_gpus_or_months():
    months = {"loan_term_months", "lease_payment_interval_months", "lease_term_months", "commitment_term_months"}
    assert fields_of_type("count") == {"gpu_count", "committed_gpus"} | months
    assert numbers_for_kind("owned")["gpu_count"].integer and numbers_for_kind("neocloud")["committed_gpus"].integer


def test_the_overrides_of_the_workload_are_throughput_and_acceptance():
    assert OVERRIDES == ("tokens_per_second_per_gpu", "acceptance_rate")


def test_defaults_in_words_match_the_engine_defaults():
    spoken = {entry.name: entry.default_text for entry in OPTION_FIELDS if entry.default == 0.0}
    assert {text.split(" ")[0] for text in spoken.values()} == {"0"}  # "0", "0 (new)", "0 (no upfront)"
    assert {entry.name for entry in OPTION_FIELDS if entry.default == 1.0} == {"pue", "lease_payment_interval_months"}


def test_names_are_unique():
    names = [entry.name for entry in OPTION_FIELDS]
    assert len(names) == len(set(names))


def test_an_entry_refuses_an_unknown_value_type_or_a_number_without_a_check():
    with pytest.raises(ValueError, match="value type 'percent'"):
        OptionField("x", ("owned",), "percent", "x", "x", check=NumberField("X"))
    with pytest.raises(ValueError, match="a number needs a check"):
        OptionField("x", ("owned",), "money", "x", "x")


# --- The scenario's own inputs ------------------------------------------------------------------------------------


def test_the_engine_checks_the_scenario_and_workload_numbers_the_catalogue_lists():
    assert tuple(TOP_NUMBERS) == ("horizon_months", "discount_rate", "fleet_gpus", "burst_price_per_gpu_hour")
    assert tuple(WORKLOAD_NUMBERS) == (
        "tokens_per_second_per_gpu",
        "output_tokens_per_response",
        "input_tokens_per_response",
        "acceptance_rate",
    )


def test_an_input_is_named_by_its_scope_in_the_model_and_in_the_document():
    acceptance = SCENARIO_FIELD["workload_acceptance_rate"]
    assert (acceptance.field, acceptance.path) == ("workload_acceptance_rate", "workload.acceptance_rate")
    assert (SCENARIO_FIELD["forecast_kind"].field, SCENARIO_FIELD["forecast_kind"].path) == ("forecast_kind", "")
    assert scenario_path_field("workload.acceptance_rate") is acceptance


def test_every_checked_input_is_refused_in_its_own_words():
    for entry in (*scenario_fields("scenario", "workload"), *OPTION_FIELDS):
        if entry.check is not None:
            assert (entry.check.label, entry.check.unit) == (entry.label, entry.unit), entry.name


@pytest.mark.parametrize(
    "check",
    [NumberField("Lease term", lo=1, hi=240, integer=True), NumberField(lo=1, unit="months"), money_field("Capex")],
    ids=["label", "unit", "money label"],
)
def test_an_entry_whose_check_names_its_own_label_or_unit_is_refused_with_the_way_to_write_it(check):
    with pytest.raises(ValueError, match=r"write the check without a label or a unit, e\.g\. check=NumberField"):
        OptionField("lease_term_months", ("owned",), "count", label="Lease term", unit="months", check=check)
    with pytest.raises(ValueError, match="the check names its own label or unit"):
        ScenarioField("x", "scenario", "count", label="X", unit="months", check=check)


def test_a_choice_and_a_share_are_plain_entries():
    policy = ScenarioField(
        "refresh_policy", "scenario", "choice", label="Refresh", choices=(("none", "None"), ("renew", "Renew"))
    )
    share = ScenarioField("tax_rate", "scenario", "rate", label="Tax rate", check=rate_field())
    assert (policy.field, policy.takes_range, share.is_percent, share.takes_range) == (
        "refresh_policy",
        False,
        True,
        True,
    )


@pytest.mark.parametrize(
    "broken",
    [
        {"scope": "elsewhere"},
        {"value_type": "colour"},
        {"value_type": "choice"},  # a choice without its choices
        {"value_type": "text", "check": rate_field("Name")},
    ],
)
def test_an_entry_that_cannot_be_derived_from_is_refused(broken):
    arguments = {"name": "x", "scope": "scenario", "value_type": "number", "label": "X", **broken}
    with pytest.raises(ValueError):
        ScenarioField(**arguments)


# --- The finance inputs ---------------------------------------------------------------------------------------------


def test_a_finance_input_applies_only_when_the_choices_it_depends_on_are_made():
    from tco.engine.catalogue import OPTION_FIELD

    apr, buyout, upfront = OPTION_FIELD["loan_apr"], OPTION_FIELD["lease_buyout_price"], OPTION_FIELD["upfront_share"]
    assert not apr.applies({}) and not apr.applies({"financing": "lease"}) and apr.applies({"financing": "loan"})
    assert not buyout.applies({"financing": "lease"})  # a blank lease end is the default, a return
    assert buyout.applies({"financing": "lease", "lease_end": "buyout"})
    assert not upfront.applies({"billing": "committed"}) and upfront.applies(
        {"billing": "committed", "commitment_term_months": 12}
    )
    assert OPTION_FIELD["tax_life_years"].applies({"tax_depreciation": ""})  # straight line, the default
    assert not OPTION_FIELD["tax_life_years"].applies({"tax_depreciation": "macrs_5"})


def test_the_engine_reads_the_finance_inputs_only_when_given():
    from tco.engine.catalogue import FINANCE_TOP_FIELDS

    assert FINANCE_TOP_FIELDS == ("tax_rate", "cost_of_debt", "refresh_policy")
    assert not set(FINANCE_TOP_FIELDS) & set(TOP_NUMBERS)
    read_with_the_others = set(numbers_for_kind("owned")) | set(numbers_for_kind("neocloud"))
    assert not {"loan_apr", "commitment_term_months"} & read_with_the_others


def test_every_choice_names_its_default_in_words_and_the_default_is_one_of_its_values():
    for entry in OPTION_FIELDS:
        if entry.finance and entry.value_type == "choice":
            assert entry.default in dict(entry.choices) and entry.default_text, entry.name


def test_the_paths_a_sweep_or_a_variant_moves_are_the_catalogues_unfixed_scenario_numbers():
    from tco.engine.catalogue import VARIED_TOP_NUMBERS
    from tco.engine.variants import resolve
    from tests.documents import DESIGN_EXAMPLE

    assert tuple(VARIED_TOP_NUMBERS) == ("discount_rate", "fleet_gpus", "burst_price_per_gpu_hour")
    assert SCENARIO_FIELD["horizon_months"].fixed  # it sets the months: never moved
    for path in VARIED_TOP_NUMBERS:
        found, reason = resolve(DESIGN_EXAMPLE, path)
        assert reason is None and found.label == SCENARIO_FIELD[path].label
    assert resolve(DESIGN_EXAMPLE, "horizon_months")[0] is None
