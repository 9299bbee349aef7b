from __future__ import annotations

from decimal import Decimal

import pytest

from lib.formatting import (
    format_money,
    format_money_compact,
    format_month,
    format_pct,
    format_signed_money,
    format_unit_money,
    round_half_up,
)

MINUS = "\u2212"


def test_it_rounds_half_up_on_the_decimal_value_not_the_binary_float():
    # 2.995 is stored as 2.99499999... in binary; a person reads 2.995 and expects 3.00.
    assert round_half_up(2.995, 2) == Decimal("3.00")


def test_it_rounds_halves_away_from_zero_for_negatives():
    assert round_half_up(-2.5, 0) == Decimal("-3")


def test_it_rounds_to_whole_units_with_places_zero():
    assert round_half_up(107432.5, 0) == Decimal("107433")


def test_it_refuses_to_round_nan():
    with pytest.raises(ValueError, match="not a finite number"):
        round_half_up(float("nan"), 2)


def test_it_formats_a_fraction_as_percent_to_a_tenth_half_up():
    assert format_pct(0.535) == "53.5%"
    assert format_pct(0.1235) == "12.4%"


def test_it_rounds_a_twentieth_of_a_percent_up_to_a_tenth():
    assert format_pct(0.0005) == "0.1%"
    assert format_pct(0.00049) == "0.0%"


def test_it_shows_whole_and_full_utilization_with_one_decimal():
    assert format_pct(0) == "0.0%"
    assert format_pct(1) == "100.0%"


def test_it_formats_totals_in_whole_dollars_with_thousands_separators():
    assert format_money(1234567.49) == "$1,234,567"


def test_it_formats_per_unit_money_in_cents():
    assert format_money(2.99, places=2) == "$2.99"
    assert format_money(2.995, places=2) == "$3.00"


def test_it_writes_other_currencies_as_their_code():
    assert format_money(1234.4, "EUR") == "EUR 1,234"


def test_it_puts_a_minus_sign_before_the_currency():
    assert format_money(-1234, "USD") == f"{MINUS}$1,234"


def test_it_does_not_show_a_negative_zero():
    assert format_money(-0.4) == "$0"


def test_it_shows_missing_values_as_a_dash():
    assert format_money(None) == "—"
    assert format_pct(None) == "—"
    assert format_unit_money(None) == "—"


def test_it_signs_differences():
    assert format_signed_money(12345.6) == "+$12,346"
    assert format_signed_money(-12345.6) == f"{MINUS}$12,346"
    assert format_signed_money(0.3) == "$0"


def test_it_shows_unit_costs_of_ten_cents_or_more_in_cents():
    assert format_unit_money(3.994) == "$3.99"
    assert format_unit_money(0.1) == "$0.10"


def test_it_keeps_two_significant_figures_for_sub_dime_unit_costs():
    # $4/GPU-hour at 2,400 tokens/s and 350 tokens per response: 4 / 3600 * 350 / 2400 = $0.000162 a response.
    assert format_unit_money(4 / 3600 * 350 / 2400) == "$0.00016"
    assert format_unit_money(0.0545) == "$0.055"


def test_it_abbreviates_money_for_sentences_to_three_significant_figures():
    assert format_money_compact(107432) == "$107k"
    assert format_money_compact(12345) == "$12.3k"
    assert format_money_compact(1234567) == "$1.23M"
    assert format_money_compact(950) == "$950"


def test_it_carries_an_abbreviation_over_to_the_next_unit():
    assert format_money_compact(999600) == "$1.00M"
    assert format_money_compact(9996) == "$10.0k"


def test_it_names_the_month_and_its_year():
    assert format_month(14) == "month 14 (year 2)"
    assert format_month(12) == "month 12 (year 1)"
    assert format_month(None) == "—"
