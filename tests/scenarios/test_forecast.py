"""The utilization forecast editor's math and the spreadsheet-column parser."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from tco.forecast import Forecast, ForecastError, parse_pasted_column, parse_share


def test_a_flat_forecast_is_one_value():
    assert Forecast(kind="flat", flat=Decimal("0.55")).expand(36) == [0.55]


def test_a_ramp_runs_linearly_from_the_first_to_the_last_month():
    values = Forecast(kind="ramp", ramp_from=Decimal("0.2"), ramp_to=Decimal("0.6")).expand(5)
    assert values == pytest.approx([0.2, 0.3, 0.4, 0.5, 0.6])


def test_a_seasonal_forecast_peaks_in_its_peak_month_and_troughs_six_months_later():
    forecast = Forecast(
        kind="seasonal", seasonal_base=Decimal("0.5"), seasonal_amplitude=Decimal("0.2"), seasonal_peak_month=3
    )
    values = forecast.expand(24)
    assert len(values) == 24
    assert values[2] == pytest.approx(0.7) and values[14] == pytest.approx(0.7)
    assert values[8] == pytest.approx(0.3)
    assert values[0] == pytest.approx(0.5 + 0.2 * math.cos(2 * math.pi * -2 / 12))


def test_a_seasonal_forecast_must_stay_within_zero_and_one():
    problems = Forecast(
        kind="seasonal", seasonal_base=Decimal("0.8"), seasonal_amplitude=Decimal("0.3"), seasonal_peak_month=1
    ).problems()
    assert [p.field for p in problems] == ["forecast_seasonal_amplitude"]
    assert "0.5 to 1.1" in problems[0].message


def test_a_change_of_kind_writes_only_that_kinds_parameters():
    ramp = Forecast(kind="ramp", flat=Decimal("0.9"), ramp_from=Decimal("0.2"), ramp_to=Decimal("0.6"))
    assert ramp.model_fields() == {
        "forecast_kind": "ramp",
        "forecast_ramp_from_utilization": Decimal("0.2"),
        "forecast_ramp_to_utilization": Decimal("0.6"),
    }
    assert Forecast(kind="pasted", pasted=(0.5, 0.6)).model_fields() == {
        "forecast_kind": "pasted",
        "forecast_pasted_utilization": [0.5, 0.6],
    }


@pytest.mark.parametrize(("text", "expected"), [("55%", "0.55"), ("55 %", "0.55"), ("0.55", "0.55"), ("0,55", "0.55")])
def test_it_reads_percentages_and_fractions(text, expected):
    assert parse_share(text) == Decimal(expected)


def test_a_pasted_column_accepts_mixed_percentages_and_fractions():
    assert parse_pasted_column("50%\n0.6\n 70 % \n") == pytest.approx([0.5, 0.6, 0.7])


def test_a_pasted_number_above_one_without_a_percent_sign_names_its_line():
    with pytest.raises(ForecastError) as caught:
        parse_pasted_column("0.5\n0.6\n55\n")
    assert caught.value.message.startswith("line 3: 55 is above 1")


def test_a_pasted_word_names_its_line_and_value():
    with pytest.raises(ForecastError) as caught:
        parse_pasted_column("0.5\nhigh\n")
    assert caught.value.message == "line 2: 'high' is not a number; write e.g. 55% or 0.55"


def test_a_blank_line_in_the_middle_is_refused():
    with pytest.raises(ForecastError) as caught:
        parse_pasted_column("0.5\n\n0.6")
    assert "line 2 is empty" in caught.value.message


def test_two_columns_are_refused():
    with pytest.raises(ForecastError) as caught:
        parse_pasted_column("0.5\t0.6")
    assert "several columns" in caught.value.message


def test_a_pasted_column_must_match_the_horizon():
    with pytest.raises(ForecastError) as caught:
        parse_pasted_column("0.5\n0.6\n0.7", horizon_months=12)
    assert caught.value.message == "3 values pasted; paste 1 value or exactly 12 (one per month of the horizon)"


def test_each_forecast_kind_is_one_registry_entry_with_one_catalogue_choice():
    from tco.engine.catalogue import SCENARIO_FIELD
    from tco.forecast import FORECAST_KINDS, KIND_PARAMETERS, Forecast, starting_parameters

    assert tuple(FORECAST_KINDS) == tuple(value for value, _ in SCENARIO_FIELD["forecast_kind"].choices)
    assert {name: kind.parameters for name, kind in FORECAST_KINDS.items()} == KIND_PARAMETERS
    # every kind continues a forecast it is switched to, and that start reads back to the same months
    for name in FORECAST_KINDS:
        start = starting_parameters(kind=name, current=[0.5], horizon_months=3)
        assert start and all(field.startswith("forecast_") for field in start)
    assert Forecast(kind="ramp", ramp_from=Decimal("0.2")).expand(3) == []  # a missing parameter: no months
