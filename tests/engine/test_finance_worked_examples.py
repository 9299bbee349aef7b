"""docs/money-math.md's finance worked examples: each figure the doc prints is recomputed here by hand or with
numpy-financial, and equals the engine's (and, for the answer in words, the page's sentence)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import numpy_financial as npf
import pytest

from tco.engine import evaluate
from tco.presentation.finance import finance_answers

from .docs import DROP, option_result, owned, rental, scenario
from .test_finance import bus, committed, hardware, own, tax_scenario

MONEY_MATH = (Path(__file__).resolve().parents[2] / "docs" / "money-math.md").read_text()
MACRS_3 = [0.3333, 0.4445, 0.1481, 0.0741]
MACRS_5 = [0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576]


def section(title: str) -> str:
    """The text under a ``### title`` heading, up to the next heading."""
    match = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^##)", MONEY_MATH, re.S | re.M)
    assert match, title
    return " ".join(match.group(1).split())


def test_the_tax_section_shield_bonus_and_sale():
    text = section("Tax depreciation, the shield and the tax on a sale")
    shield = sum(0.21 * 100_000 * share * 1.1 ** -(year + 1) for year, share in enumerate(MACRS_5))
    factor = sum(share * 1.1 ** -(year + 1) for year, share in enumerate(MACRS_5))
    assert f"**{shield:,.2f}**" in text and f"= {factor:.5f})" in text
    assert "**19,090.91**" in text and f"{21_000 / 1.1:,.2f}" == "19,090.91"
    engine = own(evaluate(tax_scenario(hardware(tax_depreciation="macrs_5"), tax_rate=0.21)))
    assert engine["pv_depreciation_tax_shield"] == pytest.approx(shield, abs=0.005)
    bonus = own(evaluate(tax_scenario(hardware(tax_depreciation="macrs_5", bonus_depreciation=1.0), tax_rate=0.21)))
    assert bonus["pv_depreciation_tax_shield"] == pytest.approx(21_000 / 1.1, abs=0.005)
    basis = 100_000 * (1 - sum(MACRS_3[:3]))
    sale_tax = 0.25 * (70_000 - basis)
    assert f"= {basis:,.0f}," in text and f"= {sale_tax:,.2f}" in text
    doc = tax_scenario(hardware(residual_value=40_000.0, tax_depreciation="macrs_3"), tax_rate=0.25, horizon_months=36)
    sold = own(evaluate(doc))
    assert sold["pv_tax_on_disposals"] * 1.1**3 == pytest.approx(sale_tax)
    assert sold["deferred_tax_liability_at_horizon"] == pytest.approx(sale_tax)


def test_the_loan_section_payment_interest_and_balance():
    text = section("Loans")
    payment = npf.pmt(0.07 / 12, 48, -256_000)
    interest, principal = npf.ipmt(0.07 / 12, 1, 48, -256_000), npf.ppmt(0.07 / 12, 1, 48, -256_000)
    for figure in (f"**{payment:,.2f}**", f"{interest:,.2f}", f"{principal:,.2f}", f"{256_000 - principal:,.2f}"):
        assert figure in text
    loan = owned(name="Own", capex=320_000.0, financing="loan", loan_apr=0.07, loan_term_months=48)
    result = own(evaluate(scenario({**loan, "down_payment_share": 0.2}, rental(), horizon_months=48)))
    assert result["loan_payment_per_month"] == pytest.approx(payment)


def test_the_lease_section_bus_nal_and_break_even_payment():
    text = section("Leases and lease versus buy")
    k = 0.065
    flows = (
        [100_000 - 0.65 * 16_900] + [-0.65 * 16_900 - 0.35 * 100_000 * share for share in MACRS_5] + [-0.65 * 16_900]
    )
    nal = npf.npv(k, flows)
    annuity_due = sum((1 + k) ** -year for year in range(8))
    shield = sum(0.35 * 100_000 * share * (1 + k) ** -(year + 1) for year, share in enumerate(MACRS_5))
    break_even = (100_000 - shield) / (0.65 * annuity_due)
    assert f"**{nal:,.0f}**" in text and f"{break_even:,.2f} a year" in text
    for flow in flows[1:7]:
        assert f"{flow:,.0f}".lstrip("-") in text
    result = own(evaluate(tax_scenario(bus(), tax_rate=0.35, cost_of_debt=0.10, horizon_months=96)))
    assert f"the engine: {result['nal']:,.2f}" in text
    assert result["nal"] == pytest.approx(nal, abs=0.01)
    assert result["break_even_lease_payment"] == pytest.approx(break_even, abs=0.005)


def test_the_refresh_section_replacements_sales_and_truncation():
    text = section("Refresh: replace or truncate")
    last = 40_960 - (40_960 - 20_000 * 0.8**4) / 2
    for figure in ("**64,000**", "**40,960**", f"**{last:,.0f}**", "**24**"):
        assert figure in text
    doc = tax_scenario(
        hardware(useful_life_years=2, residual_value=20_000.0, capex_change_per_year=-0.2),
        refresh_policy="replace",
        horizon_months=60,
    )
    result = own(evaluate(doc))
    assert result["replacement_capex"] == [[24, pytest.approx(64_000)], [48, pytest.approx(40_960)]]
    assert result["resale_value"] == pytest.approx(20_000 + 12_800 + last)
    cut = evaluate(scenario(owned(useful_life_years=2), rental(), refresh_policy="truncate", horizon_months=48))
    assert cut["effective_horizon_months"] == 24


def test_the_resale_section_curve_used_unit_and_capital_charge():
    text = section("Resale by age")
    charge = npf.pmt(0.07, 3, -100_000, 40_000)
    assert "**0.55**" in text and f"**{0.55 / 0.7:.1%}**".replace("%", " %") in text and f"**{charge:,.2f}**" in text
    curve = [[0, 1], [12, 0.7], [36, 0.4]]
    at_24 = own(evaluate(tax_scenario(hardware(residual_value=DROP, resale_curve=curve), horizon_months=24)))
    assert at_24["resale_value"] == pytest.approx(55_000)
    three_years = hardware(residual_value=DROP, resale_curve=curve, useful_life_years=3)
    assert own(evaluate(tax_scenario(three_years)))["capital_charge_per_year"] == pytest.approx(charge)
    used = hardware(kind="secondary", residual_value=DROP, resale_curve=curve, age_at_purchase_months=12)
    assert own(evaluate(tax_scenario(used, horizon_months=12)))["resale_value"] == pytest.approx(100_000 * 0.55 / 0.7)


def test_the_price_path_section():
    text = section("Price paths")
    assert f"{0.8 * 0.9**0.5:.4f}·p" in text and f"{0.8 * 0.9 * 0.9:.3f}·p" in text
    doc = scenario(rental(price_change_by_year=[-0.2, -0.1]), workload=DROP, horizon_months=48, utilization=[1.0])
    monthly = option_result(evaluate(doc), "Rent")["monthly_cost"]
    full = 8 * 730 * 3.99
    assert [monthly[12] / full, monthly[18] / full, monthly[36] / full] == pytest.approx([0.8, 0.8 * 0.9**0.5, 0.648])


def test_the_commitment_section():
    text = section("Commitments")
    assert "**72 %**" in text and "= 36 %" in text
    annuity = np.sum(1.08 ** (-np.arange(1, 13) / 12))
    assert f"= {annuity:.4f}" in text and f"= {2.0 * 12 / annuity:.4f}" in text
    no_upfront = committed(name="C", price_per_gpu_hour=2.88, upfront_share=0.0)
    result = option_result(evaluate(scenario(owned(), rental(), no_upfront, workload=DROP, horizon_months=24)), "C")
    assert result["commitment_break_even_utilization"] == pytest.approx(0.72)
    assert result["break_even_utilization_vs_on_demand"] == pytest.approx(0.36)
    upfront = committed(name="C", price_per_gpu_hour=2.0, upfront_share=1.0)
    paid = option_result(evaluate(scenario(owned(), rental(), upfront, workload=DROP, horizon_months=24)), "C")
    assert paid["commitment_effective_price_per_gpu_hour"] == pytest.approx(2.0 * 12 / annuity)


def test_the_answer_in_words_quotes_what_the_pages_say():
    text = section("How the answer reads")
    lease_doc = tax_scenario(bus(), tax_rate=0.35, cost_of_debt=0.10, horizon_months=96)
    [lease] = [line["text"] for line in finance_answers(lease_doc, evaluate(lease_doc)) if line["topic"] == "lease"]
    quoted = (
        "leasing costs $702 more than borrowing to buy at 6.5% after tax; leasing would beat borrowing to buy at any "
        "lease payment below $16,734 a year"
    )
    assert quoted in text and quoted in lease
    commitment_doc = scenario(
        owned(), rental(), committed(name="C", price_per_gpu_hour=2.88, upfront_share=0.0), workload=DROP
    )
    [words] = [line["text"] for line in finance_answers(commitment_doc, evaluate(commitment_doc))]
    quoted = (
        "the committed GPUs must be busy at least 72.0% of the time (an effective $2.88 per GPU-hour against $4.00 "
        "on demand)"
    )
    assert quoted in text and quoted in words
    loan = owned(name="Own", capex=320_000.0, financing="loan", loan_apr=0.07, loan_term_months=48)
    loan_doc = scenario({**loan, "down_payment_share": 0.2}, rental(), horizon_months=48)
    [loan_words] = [line["text"] for line in finance_answers(loan_doc, evaluate(loan_doc)) if line["topic"] == "loan"]
    quoted = "a loan of $256,000 at 7.0% a year over 48 months pays $6,130.24 a month"
    assert quoted in text and quoted in loan_words
