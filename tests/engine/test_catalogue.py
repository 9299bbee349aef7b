"""The option-field catalogue: one entry per input, and every per-kind table derived from it in document order."""

from __future__ import annotations

import pytest

from tco.engine.catalogue import (
    OPTION_FIELDS,
    OVERRIDES,
    OptionField,
    allowed_option_fields,
    fields_for_kind,
    fields_of_type,
    numbers_for_kind,
)
from tco.engine.fields import NumberField

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
    [("owned", OWNED), ("secondary", OWNED), ("hyperscaler", RENTAL), ("neocloud", RENTAL), ("api", API)],
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


def test_every_number_has_a_check_and_only_billing_is_a_choice():
    assert fields_of_type("choice") == {"billing"}
    assert "billing" not in numbers_for_kind("neocloud")
    assert all(isinstance(spec, NumberField) for spec in numbers_for_kind("owned").values())


def test_the_money_inputs_are_the_ones_a_currency_change_scales():
    assert fields_of_type("money") == MONEY_FIELDS - {"burst_price_per_gpu_hour"}


def test_counts_are_whole_numbers_of_gpus():
    assert fields_of_type("count") == {"gpu_count", "committed_gpus"}
    assert numbers_for_kind("owned")["gpu_count"].integer and numbers_for_kind("neocloud")["committed_gpus"].integer


def test_the_overrides_of_the_workload_are_throughput_and_acceptance():
    assert OVERRIDES == ("tokens_per_second_per_gpu", "acceptance_rate")


def test_defaults_in_words_match_the_engine_defaults():
    spoken = {entry.name: entry.default_text for entry in OPTION_FIELDS if entry.default == 0.0}
    assert set(spoken.values()) == {"0"}
    assert {entry.name for entry in OPTION_FIELDS if entry.default == 1.0} == {"pue"}


def test_names_are_unique():
    names = [entry.name for entry in OPTION_FIELDS]
    assert len(names) == len(set(names))


def test_an_entry_refuses_an_unknown_value_type_or_a_number_without_a_check():
    with pytest.raises(ValueError, match="value type 'percent'"):
        OptionField("x", ("owned",), "percent", "x", "x", check=NumberField("X"))
    with pytest.raises(ValueError, match="a number needs a check"):
        OptionField("x", ("owned",), "money", "x", "x")
