from __future__ import annotations

from decimal import Decimal

from django.template import Context, Template

MINUS = "\u2212"


def _render(source: str, **context) -> str:
    return Template("{% load money %}" + source).render(Context(context))


def test_it_formats_totals_with_the_currency_argument():
    assert _render("{{ v|money:'EUR' }}", v=1234567.4) == "EUR 1,234,567"


def test_it_defaults_to_us_dollars():
    assert _render("{{ v|money }}", v=Decimal("1234.5")) == "$1,235"


def test_it_formats_prices_in_cents_half_up():
    assert _render("{{ v|money_cents }}", v=2.995) == "$3.00"


def test_it_formats_percentages_like_the_headline():
    assert _render("{{ v|pct }}", v=0.535) == "53.5%"


def test_it_signs_differences():
    assert _render("{{ a|signed_money }} {{ b|signed_money:'USD' }}", a=500, b=-1234) == f"+$500 {MINUS}$1,234"


def test_it_formats_unit_costs_and_compact_totals():
    assert _render("{{ a|unit_money }} {{ b|compact_money }}", a=0.000162, b=107432) == "$0.00016 $107k"


def test_it_reads_numeric_strings_from_forms_and_json():
    assert _render("{{ v|money_cents }}", v="3.99") == "$3.99"


def test_it_shows_a_dash_for_missing_or_unreadable_values():
    assert _render("{{ a|money }} {{ b|pct }} {{ c|money_cents }}", a=None, b="", c="n/a") == "— — —"
