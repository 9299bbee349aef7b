"""The "inputs that differ" of a comparison list only what a reader needs: an input that applies to its option (a
loan's APR only where the option is a loan) and is not at its default somewhere. An input left blank reads as its
default, so a blank and the default typed out are the same; an input that applies nowhere with a value is left out."""

from __future__ import annotations

import copy

from tco.presentation.comparison import input_differences
from tests.documents import DESIGN_EXAMPLE


def _doc(**owned) -> dict:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][0].update(owned)
    return document


def _labels(rows: list[dict]) -> list[str]:
    return [row["input"] for row in rows]


def test_a_blank_and_its_default_typed_out_are_not_a_difference():
    cash = _doc()
    typed = _doc(financing="cash", tax_depreciation="straight_line", capex_change_per_year=0)
    assert input_differences([cash, typed]) == []


def test_a_loan_against_cash_lists_the_financing_and_the_loans_own_terms_only():
    cash = _doc()
    loan = _doc(financing="loan", loan_apr=0.07, loan_term_months=36)
    rows = {row["input"]: row["values"] for row in input_differences([cash, loan])}
    assert rows == {
        "Own 8x H100 (new): Financing": ["Pay cash", "Loan"],
        "Own 8x H100 (new): Loan APR": ["n/a", "7% per year"],
        "Own 8x H100 (new): Loan term": ["n/a", "36 months"],
    }


def test_inputs_that_apply_nowhere_or_only_at_their_default_are_left_out():
    cash = _doc()
    lease = _doc(financing="lease", lease_payment=27000, lease_payment_interval_months=1, lease_term_months=36)
    labels = _labels(input_differences([cash, lease]))
    assert "Own 8x H100 (new): Lease payment" in labels
    assert "Own 8x H100 (new): Lease payment interval" not in labels  # monthly: its default
    assert "Own 8x H100 (new): Lease payment timing" not in labels  # blank: in advance, its default
    assert not any("Loan" in label for label in labels)  # a loan's inputs apply in neither


def test_real_differences_stay():
    short = copy.deepcopy(DESIGN_EXAMPLE)
    short["horizon_months"] = 24
    assert _labels(input_differences([copy.deepcopy(DESIGN_EXAMPLE), short])) == ["Horizon"]
