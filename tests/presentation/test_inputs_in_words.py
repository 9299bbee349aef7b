"""One way to say a document's input in words (tco.presentation.inputs): its label and its value as the pages show them.

The expected strings are written from the house formats (lib.formatting's docstring, README "Numbers are read as
finance people write them"), not taken from the code under test.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from tco.engine.catalogue import OPTION_FIELDS
from tco.presentation.inputs import (
    option_fact,
    path_label,
    path_words,
    scenario_fact,
    value_words,
    workload_fact,
)
from tests.documents import DESIGN_EXAMPLE

RAW_KEY = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
E_NOTATION = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(
    ("fact", "value", "currency", "expected"),
    [
        (scenario_fact("horizon_months"), 60, "USD", "Horizon: 60 months"),
        (scenario_fact("discount_rate"), 0.08, "USD", "Discount rate: 8% per year"),
        (scenario_fact("fleet_gpus"), 1, "USD", "Fleet size: 1 GPU"),
        (scenario_fact("burst_price_per_gpu_hour"), 6.16, "USD", "Burst price: $6.16 per GPU-hour"),
        (scenario_fact("currency"), "EUR", "EUR", "Currency: EUR"),
        (workload_fact("acceptance_rate"), 0.9, "USD", "Acceptance rate: 90%"),
        (workload_fact("input_tokens_per_response"), 1200, "USD", "Input tokens per response: 1,200 tokens"),
        (option_fact("capex"), 2222222.2222224, "USD", "Capex, whole option: $2,222,222.22"),
        (option_fact("capex"), 2_222_222, "EUR", "Capex, whole option: EUR 2,222,222"),
        (option_fact("capex"), Decimal("259200.0000000000"), "USD", "Capex, whole option: $259,200"),
        (option_fact("cost_of_capital"), 0.08, "USD", "Cost of capital: 8% per year"),
        (option_fact("cost_of_capital"), Decimal("0.0825"), "USD", "Cost of capital: 8.25% per year"),
        (option_fact("billing"), "on_demand", "USD", "Billing: On demand"),
        (option_fact("power_kw"), 81.6, "USD", "Power at full load, whole option: 81.6 kW"),
        (option_fact("useful_life_years"), 3, "USD", "Useful life: 3 years"),
        (option_fact("useful_life_years"), 1, "USD", "Useful life: 1 year"),
        (option_fact("pue"), 1.4, "USD", "PUE: 1.4"),
        (option_fact("electricity_per_kwh"), 0.135, "USD", "Electricity: $0.135 per kWh"),
        (option_fact("facility_per_year"), 190944, "USD", "Facility / colocation: $190,944 per year"),
        (option_fact("price_change_per_year"), -0.1, "USD", "Price change: \u221210% per year"),
        (option_fact("price_per_gpu_hour"), 2.49, "EUR", "Price: EUR 2.49 per GPU-hour"),
        (option_fact("price_per_million_input_tokens"), 0.5, "USD", "Price per million input tokens: $0.50"),
        (option_fact("committed_gpus"), 48, "USD", "Committed GPUs: 48 GPUs"),
        (option_fact("residual_value"), None, "USD", "Residual value: 0 (default)"),
        (option_fact("gpu_count"), None, "USD", "GPU count: the fleet size (default)"),
        (option_fact("kind"), "secondary", "USD", "Kind: Owned (secondary)"),
    ],
)
def test_an_input_reads_as_its_label_and_its_value_with_unit(fact, value, currency, expected):
    assert f"{fact.label}: {value_words(fact, value, currency)}" == expected


def test_a_big_number_is_never_written_in_e_notation():
    assert value_words(option_fact("capex"), 1e16, "USD") == "$10,000,000,000,000,000"
    assert value_words(option_fact("power_kw"), 1e-05, "USD") == "0.00001 kW"


@pytest.mark.parametrize("entry", OPTION_FIELDS, ids=lambda entry: entry.name)
def test_every_catalogued_option_field_has_words_without_raw_keys(entry):
    fact = option_fact(entry.name)
    sample = (
        entry.choices[-1][0]
        if entry.choices
        else [[0, 1], [12, 0.5]]
        if entry.value_type == "list"
        else 2222222.2222224
    )
    words = f"{fact.label}: {value_words(fact, sample, 'USD')}"
    assert not RAW_KEY.search(words), words
    assert not E_NOTATION.search(words), words
    assert words.startswith(entry.label)


def test_a_path_of_the_engine_reads_with_the_option_it_belongs_to():
    assert path_label(DESIGN_EXAMPLE, "options[1].price_per_gpu_hour") == "Lambda 8x H100 SXM: Price"
    assert path_label(DESIGN_EXAMPLE, "utilization") == "Utilization (forecast level)"
    assert path_label(DESIGN_EXAMPLE, "workload.acceptance_rate") == "Workload: Acceptance rate"
    assert path_words(DESIGN_EXAMPLE, "options[0].cost_of_capital", 0.064) == "6.4% per year"
    assert path_words(DESIGN_EXAMPLE, "utilization", 0.3) == "30%"
