from __future__ import annotations

from decimal import Decimal

from django.template import Context, Template

MINUS = "\u2212"


def _render(source: str, **context) -> str:
    return Template("{% load money %}" + source).render(Context(context))


def test_it_formats_prices_with_the_currency_argument():
    assert _render("{{ v|money_cents:'EUR' }}", v=1234567.404) == "EUR 1,234,567.40"


def test_it_defaults_to_us_dollars():
    assert _render("{{ v|money_cents }}", v=Decimal("1234.5")) == "$1,234.50"


def test_it_formats_prices_in_cents_half_up():
    assert _render("{{ v|money_cents }}", v=2.995) == "$3.00"


def test_it_formats_percentages_like_the_headline():
    assert _render("{{ v|pct }}", v=0.535) == "53.5%"


def test_it_puts_the_minus_sign_before_the_currency():
    assert _render("{{ v|money_cents }} {{ p|pct }}", v=-1234, p=-0.05) == f"{MINUS}$1,234.00 {MINUS}5.0%"


def test_it_signs_differences():
    assert _render("{{ a|signed_money }} {{ b|signed_money:'USD' }}", a=500, b=-1234) == f"+$500 {MINUS}$1,234"


def test_it_formats_unit_costs_and_totals():
    assert _render("{{ a|unit_money }} {{ b|money }}", a=0.000162, b=107432.5) == "$0.00016 $107,433"


def test_it_keeps_only_the_filters_templates_use():
    import re
    from pathlib import Path

    from lib.templatetags.money import register

    templates = Path(__file__).resolve().parents[2] / "templates"
    used = {
        name
        for path in templates.rglob("*.html")
        for name in re.findall(r"\|(\w+)", path.read_text())
        if name in register.filters
    }
    assert sorted(register.filters) == sorted(used) == ["money", "money_cents", "pct", "signed_money", "unit_money"]


def test_it_reads_numeric_strings_from_forms_and_json():
    assert _render("{{ v|money_cents }}", v="3.99") == "$3.99"


def test_it_shows_a_dash_for_missing_or_unreadable_values():
    assert _render("{{ a|money_cents }} {{ b|pct }} {{ c|money_cents }}", a=None, b="", c="n/a") == "— — —"
