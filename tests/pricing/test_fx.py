"""Exchange rates: conversion against a hand-computed table, the ECB layout, the import, the rate look-up, the admin."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from pricing.fx import Rate, cross, identity
from pricing.importers.ecb_rates import parse_ecb_rates
from pricing.models import ExchangeRate
from pricing.selectors import exchange_rate
from pricing.services.fx import ECB_SOURCE, exchange_rates_import

DAY = date(2026, 11, 2)
SRC = "ECB euro reference rates"


def eur(quote: str, rate: str, day: date = DAY) -> Rate:
    return Rate("EUR", quote, Decimal(rate), day, SRC)


# Worked by hand (long division), with EUR rates 1 EUR = 1.08 USD = 162 JPY = 0.85 GBP = 0.94 CHF (and 1.0833 USD in
# the last row); derived rates are rounded to 12 significant digits, results to the ten decimal places money inputs
# keep. 1/1.08 = 0.925925925926; 108/85 = 1.27058823529; 47/8100 = 0.00580246913580.
HAND_TABLE = [
    # (from, to, amount, converted)
    ("EUR", "USD", "100", "108.0000000000"),  # 100 * 1.08
    ("USD", "EUR", "108", "100.0000000000"),  # 108 / 1.08
    ("USD", "JPY", "3.99", "598.5000000000"),  # 162 / 1.08 = 150 JPY per USD; 3.99 * 150
    ("GBP", "USD", "2.00", "2.5411764706"),  # 1.08 / 0.85 = 108/85 = 1.270588235294…; * 2 = 2.54117647058823…
    ("JPY", "CHF", "10000", "58.0246913580"),  # 0.94 / 162 = 47/8100 = 0.0058024691358…; * 10000
    ("USD", "USD", "2.99", "2.9900000000"),
    # 12345678.9123 * 1.0833 = 12345678.9123 + 987654.312984 + 40740.74041059 = 13374073.96569459 (15 digits kept)
    ("EUR", "USD", "12345678.9123", "13374073.9656946"),
]
RATES = {code: eur(code, rate) for code, rate in {"USD": "1.08", "JPY": "162", "GBP": "0.85", "CHF": "0.94"}.items()}


def _rate(base: str, quote: str, amount: str) -> Rate:
    if base == quote:
        return identity(base)
    if (base, amount) == ("EUR", "12345678.9123"):
        return eur("USD", "1.0833")
    if base == "EUR":
        return RATES[quote]
    if quote == "EUR":
        return RATES[base].inverse
    return cross(RATES[base], RATES[quote])


@pytest.mark.parametrize(("base", "quote", "amount", "expected"), HAND_TABLE)
def test_conversion_matches_the_hand_computed_table(base, quote, amount, expected):
    assert _rate(base, quote, amount).convert(Decimal(amount)) == Decimal(expected)


def test_a_cross_rate_says_it_went_through_eur_and_keeps_the_date_and_source():
    rate = cross(RATES["USD"], RATES["JPY"])
    assert (rate.base, rate.quote, rate.rate, rate.rate_date, rate.source, rate.via) == (
        "USD",
        "JPY",
        Decimal(150),
        DAY,
        SRC,
        "EUR",
    )
    assert rate.describe() == "1 USD = 150 JPY (ECB euro reference rates, 2026-11-02, via EUR)"


def test_an_inverse_rate_is_rounded_to_twelve_significant_digits_and_shown_as_used():
    assert RATES["USD"].inverse.rate == Decimal("0.925925925926")
    assert RATES["USD"].inverse.describe() == "1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)"


def test_a_cross_rate_refuses_rates_of_different_dates():
    with pytest.raises(ValueError, match="same date and source"):
        cross(RATES["USD"], eur("JPY", "160", date(2026, 11, 3)))


def test_a_rate_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        Rate("EUR", "USD", Decimal(0), DAY, SRC)


HISTORY = "Date,USD,JPY,BGN,GBP,\n2026-11-03,1.0850,163.10,N/A,0.8510,\n2026-11-02,1.0800,162.00,N/A,0.8500,\n"
DAILY = "Date, USD, JPY, GBP, \n02 November 2026, 1.0800, 162.00, 0.8500, \n"


def test_the_ecb_history_layout_parses_and_skips_na():
    parsed = parse_ecb_rates(HISTORY)
    assert parsed.errors == []
    assert parsed.blank_cells == 2
    assert [(row.quote, row.rate_date, row.rate) for row in parsed.rows[:3]] == [
        ("USD", date(2026, 11, 3), Decimal("1.0850")),
        ("JPY", date(2026, 11, 3), Decimal("163.10")),
        ("GBP", date(2026, 11, 3), Decimal("0.8510")),
    ]


def test_the_ecb_daily_layout_parses():
    parsed = parse_ecb_rates(DAILY)
    assert parsed.errors == []
    assert [(row.quote, row.rate_date, str(row.rate)) for row in parsed.rows] == [
        ("USD", DAY, "1.0800"),
        ("JPY", DAY, "162.00"),
        ("GBP", DAY, "0.8500"),
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("Day,USD\n2026-11-02,1.08\n", (1, "", "Day", "the first column must be Date (the ECB layout)")),
        (
            "Date,XYZ\n2026-11-02,1.08\n",
            (1, "XYZ", "XYZ", "XYZ is not an ISO 4217 currency code; use one such as USD, EUR, GBP or JPY"),
        ),
        ("Date,USD\n2026-13-02,1.08\n", (2, "Date", "2026-13-02", "not a date; use YYYY-MM-DD")),
        ("Date,USD\n2026-11-02,-1\n", (2, "USD", "-1", "not a rate; expected USD per 1 EUR, such as 1.08")),
        ("Date,USD\n2026-11-02,abc\n", (2, "USD", "abc", "not a rate; expected USD per 1 EUR, such as 1.08")),
        (
            "Date,USD\n2026-11-02,1.08\n2026-11-02,1.09\n",
            (3, "Date", "2026-11-02", "this date appears on an earlier line"),
        ),
    ],
)
def test_bad_cells_are_named_by_line_and_column(text, error):
    assert [(e.line, e.column, e.value, e.reason) for e in parse_ecb_rates(text).errors] == [error]


@pytest.mark.django_db
def test_an_import_stores_every_rate_and_a_second_import_adds_nothing():
    first = exchange_rates_import(content=HISTORY.encode(), imported_from="eurofxref-hist.csv")
    assert (first.new, first.known, first.blank, first.errors) == (6, 0, 2, [])
    again = exchange_rates_import(content=DAILY.encode())
    assert (again.new, again.known, again.summary) == (0, 3, "0 new, 3 already known, 0 blank or N/A cells skipped")
    stored = ExchangeRate.objects.get(quote="JPY", rate_date=DAY)
    assert (stored.base, stored.rate, stored.source, stored.imported_from) == (
        "EUR",
        Decimal(162),
        ECB_SOURCE,
        "eurofxref-hist.csv",
    )


@pytest.mark.django_db
def test_one_bad_cell_stores_nothing_and_a_changed_rate_is_refused():
    bad = exchange_rates_import(content=(HISTORY + "2026-11-04,1.09,oops,,0.85,\n").encode())
    assert [(e.line, e.column) for e in bad.errors] == [(4, "JPY")]
    assert ExchangeRate.objects.count() == 0
    exchange_rates_import(content=DAILY.encode())
    changed = exchange_rates_import(content=DAILY.replace("1.0800", "1.0900").encode())
    assert [(e.line, e.column, e.value) for e in changed.errors] == [(2, "USD", "1.0900")]
    assert "already has 1.08 for 2026-11-02" in changed.errors[0].reason
    assert ExchangeRate.objects.get(quote="USD").rate == Decimal("1.08")


@pytest.mark.django_db
def test_the_look_up_finds_direct_inverse_and_cross_rates_nearest_the_date():
    exchange_rates_import(content=HISTORY.encode())
    assert exchange_rate("EUR", "USD", on=DAY).rate == Decimal("1.08")
    assert exchange_rate("EUR", "USD").rate_date == date(2026, 11, 3)  # the latest when no date is given
    inverse = exchange_rate("USD", "EUR", on=DAY)
    assert inverse.convert(Decimal(108)) == Decimal(100)
    crossed = exchange_rate("USD", "JPY", on=date(2026, 11, 2))
    assert (crossed.rate, crossed.via, crossed.rate_date) == (Decimal(150), "EUR", DAY)
    # Before every stored date: the earliest after it; no rate for BGN at all.
    assert exchange_rate("EUR", "GBP", on=date(2026, 1, 1)).rate_date == DAY
    assert exchange_rate("USD", "BGN") is None
    assert exchange_rate("USD", "USD").rate == 1


@pytest.mark.django_db
def test_a_direct_rate_typed_in_beats_an_older_cross_rate():
    exchange_rates_import(content=HISTORY.encode())
    ExchangeRate.objects.create(
        base="USD", quote="JPY", rate=Decimal("151.5"), rate_date=date(2026, 11, 3), source="Treasury"
    )
    rate = exchange_rate("USD", "JPY", on=date(2026, 11, 3))
    assert (rate.rate, rate.source, rate.via) == (Decimal("151.5"), "Treasury", "")


@pytest.mark.django_db
def test_the_command_imports_a_file_and_fails_loudly_on_a_bad_one(tmp_path, capsys):
    good = tmp_path / "eurofxref-hist.csv"
    good.write_text(HISTORY)
    call_command("import_fx_rates", str(good))
    assert "6 new, 0 already known, 2 blank or N/A cells skipped" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("Date,XYZ\n2026-11-02,1\n")
    with pytest.raises(CommandError, match="rejected: 1 error"):
        call_command("import_fx_rates", str(bad))
    assert "XYZ is not an ISO 4217 currency code" in capsys.readouterr().err


@pytest.mark.django_db
def test_staff_editors_type_rates_in_the_admin_and_bad_codes_are_refused(client, editor):
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    form = {"base": "usd", "quote": "XYZ", "rate": "0.92", "rate_date": "2026-11-02", "source": "Bank quote"}
    refused = client.post("/admin/pricing/exchangerate/add/", form)
    assert "XYZ is not an ISO 4217 currency code" in refused.content.decode()
    client.post("/admin/pricing/exchangerate/add/", {**form, "quote": "EUR"})
    stored = ExchangeRate.objects.get()
    assert (stored.base, stored.quote, stored.rate, stored.created_by) == ("USD", "EUR", Decimal("0.92"), editor)
