"""A leased option reads as leased capacity: its kind is "Leased (new)", the headline calls it the best leased
option, no sentence speaks of its capex; its annual figures say they are the hardware's cost whatever the financing
(financing-independent by design: money-math, "Finance depth"), with the lease payments per year beside them; the
brief's method note describes the financing each option uses. A managed API has no busy GPU-hour to be priced per.

The lease: $27,000 a quarter (every 3 months) for 36 months = 27,000 * 12 / 3 = $108,000 a year."""

from __future__ import annotations

import copy

from tco.engine import evaluate
from tco.presentation import break_even_rows, headline, option_rows
from tco.presentation.finance import method_note
from tests.documents import DESIGN_EXAMPLE

LEASE = {"financing": "lease", "lease_payment": 27000, "lease_payment_interval_months": 3, "lease_term_months": 36}


def _leased() -> tuple[dict, dict]:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][0].update(LEASE)
    return document, evaluate(document)


def test_a_leased_option_is_labelled_and_named_as_leased():
    document, result = _leased()
    rows = option_rows(document, result)
    assert rows[0]["kind_label"] == "Leased (new)"
    assert rows[0]["lease_payments_per_year"] == 108_000
    sentence = headline(document, result)["sentence"]
    assert "the best leased option, Own 8x H100 (new)" in sentence
    assert "best owned option" not in sentence
    assert headline(document, result)["runner_up"]["kind_label"] == "Leased (new)"


def test_no_sentence_about_a_lease_speaks_of_its_capex():
    document, result = _leased()
    (row,) = break_even_rows(document, result)
    assert "capex" not in row["reason"]
    assert "on top of the lease payments" in row["reason"]


def test_an_owned_option_bought_outright_keeps_its_words():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    result = evaluate(document)
    assert option_rows(document, result)[0]["kind_label"] == "Owned (new)"
    assert option_rows(document, result)[0]["lease_payments_per_year"] is None
    assert "the best owned option" in headline(document, result)["sentence"]
    assert "on top of the capex" in break_even_rows(document, result)[0]["reason"]


def test_a_managed_api_has_no_cost_per_busy_gpu_hour():
    document, result = _leased()
    api = next(row for row in option_rows(document, result) if row["kind"] == "api")
    assert api["cost_per_gpu_hour"] is None


def test_the_method_note_describes_the_financing_used():
    document, _ = _leased()
    note = method_note(document)
    assert "Own 8x H100 (new) is leased: its lease payments are paid as they fall due" in note
    assert "capex in month 1" not in note
    cash = method_note(copy.deepcopy(DESIGN_EXAMPLE))
    assert "owned options pay capex in month 1 and are credited their resale value at the end" in cash
    loan = copy.deepcopy(DESIGN_EXAMPLE)
    loan["options"][0].update({"financing": "loan", "loan_apr": 0.07, "loan_term_months": 36})
    assert "Own 8x H100 (new) is bought with a loan: its down payment in month 1, then the loan's payments" in (
        method_note(loan)
    )
