"""ISO 4217 codes only: the static list, and the words a user reads for anything else."""

from __future__ import annotations

import pytest

from lib.currencies import ISO_4217_ACTIVE, currency_problem, is_currency


@pytest.mark.parametrize("code", ["USD", "EUR", "GBP", "JPY", "CHF", "CNY", "INR", "XOF"])
def test_it_knows_the_common_currencies(code):
    assert is_currency(code)
    assert currency_problem(code.lower()) is None


@pytest.mark.parametrize("code", ["XYZ", "ABC", "XAU", "XTS", "XXX", "DEM", "usd"])
def test_it_refuses_codes_that_are_not_active_money(code):
    assert not is_currency(code)


def test_a_made_up_code_is_named_in_the_message():
    assert currency_problem("xyz") == "XYZ is not an ISO 4217 currency code; use one such as USD, EUR, GBP or JPY"
    assert "3-letter" in currency_problem("US")


def test_the_list_holds_only_three_capital_letters_and_about_every_active_code():
    assert all(len(code) == 3 and code.isalpha() and code.isupper() for code in ISO_4217_ACTIVE)
    assert 150 <= len(ISO_4217_ACTIVE) <= 170
