"""With a tax rate the headline decides after tax; every verdict, difference and ranking beside it follows the same
basis and says so: the break-even table's "At the forecast" and its explanation row, the option table's "vs
cheapest". Golden values are the engine's own break-evens and present values (independently checked there); the
forecast sits between the before-tax (61.7%) and after-tax (63.1%) break-evens, where the two bases disagree."""

from __future__ import annotations

import copy

import pytest

from tco.engine import evaluate
from tco.presentation import break_even_rows, option_rows
from tests.documents import DESIGN_EXAMPLE


def _taxed(utilization: float = 0.62) -> tuple[dict, dict]:
    document = {**copy.deepcopy(DESIGN_EXAMPLE), "tax_rate": 0.21, "utilization": [utilization]}
    return document, evaluate(document)


def test_the_break_even_verdict_and_its_reason_are_after_tax_when_the_headline_is():
    document, result = _taxed()
    (pair,) = result["break_even"]
    assert pair["utilization"] < 0.62 < pair["utilization_after_tax"]  # before tax: own; after tax: rent
    (row,) = break_even_rows(document, result)
    assert row["at_forecast"] == "rent"
    assert row["basis"] == "after tax"
    assert row["verdict"] == "own above 63.1% after tax"
    assert "below the break-even after tax (63.1%)" in row["reason"]
    assert "61.7%" not in row["reason"]


def test_an_untaxed_break_even_reads_as_before():
    document = {**copy.deepcopy(DESIGN_EXAMPLE), "utilization": [0.62]}
    (row,) = break_even_rows(document, evaluate(document))
    assert (row["at_forecast"], row["basis"], row["verdict"]) == ("own", "", "own above 61.7%")
    assert "after tax" not in row["reason"]


def test_vs_cheapest_is_the_after_tax_difference_when_the_headline_is():
    document, result = _taxed()
    rows = option_rows(document, result)
    best = min(option["npv_after_tax"] for option in result["options"])
    for row, option in zip(rows, result["options"], strict=True):
        assert row["npv_vs_cheapest"] == pytest.approx(option["npv_after_tax"] - best)
        assert row["is_cheapest"] == (option["name"] == result["cheapest_after_tax"])
        assert row["basis"] == "after tax"
