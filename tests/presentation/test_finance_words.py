"""Loans, leases, replacements, commitments and tax in words, each figure worked out here independently (the loan
and MACRS figures of docs/money-math.md, numpy-financial, the textbook lease), never taken from the code under test."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf

from lib.formatting import format_money, format_money_compact, format_pct, format_unit_money
from tco.engine import evaluate
from tco.presentation.finance import finance_answers
from tests.engine.docs import DROP, owned, rental, scenario

from .finance_docs import finance_document

MACRS_5 = [0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576]


def _texts(document, topic):
    return [line["text"] for line in finance_answers(document, evaluate(document)) if line["topic"] == topic]


def test_a_loan_of_256000_at_7_percent_over_48_months_pays_6130_24_a_month():
    loan = owned(name="Loan", capex=320_000.0, financing="loan", loan_apr=0.07, loan_term_months=48)
    document = scenario({**loan, "down_payment_share": 0.2}, rental(name="Lambda"), horizon_months=48)
    assert round(npf.pmt(0.07 / 12, 48, -256_000), 2) == 6130.24
    assert _texts(document, "loan") == [
        "Loan: a loan of $256,000 at 7.0% a year over 48 months pays $6,130.24 a month."
    ]


def test_the_bus_lease_costs_about_700_more_than_borrowing_and_says_below_which_payment_it_pays():
    bus = owned(
        name="Bus",
        capex=100_000.0,
        residual_value=0.0,
        useful_life_years=8,
        power_kw=0.0,
        electricity_per_kwh=0.0,
        idle_power_kw=DROP,
        facility_per_year=DROP,
        network_per_year=DROP,
        software_per_year=DROP,
        support_per_year=DROP,
        operations_per_year=DROP,
        pue=DROP,
        tax_depreciation="macrs_5",
        financing="lease",
        lease_payment=16_900.0,
        lease_payment_interval_months=12,
        lease_term_months=96,
    )
    document = scenario(bus, rental(), tax_rate=0.35, cost_of_debt=0.10, horizon_months=96, workload=DROP)
    # Brealey-Myers at k = 10 % x (1 - 35 %): eight payments in advance, the MACRS shield given up, nothing at the end.
    k = 0.065
    annuity_due = sum((1 + k) ** -year for year in range(8))
    shield = sum(0.35 * 100_000 * share * (1 + k) ** -(year + 1) for year, share in enumerate(MACRS_5))
    nal = 100_000 - 0.65 * 16_900 * annuity_due - shield
    break_even = (100_000 - shield) / (0.65 * annuity_due)
    assert -800 < nal < -600
    assert _texts(document, "lease") == [
        f"Bus: leasing costs {format_money_compact(-nal)} more than borrowing to buy at 6.5% after tax; leasing would "
        f"beat borrowing to buy at any lease payment below {format_money(break_even)} a year (the payment at which the "
        "two cost the same)."
    ]


def test_a_lease_without_a_cost_of_debt_asks_for_one():
    leased = owned(name="Leased", financing="lease", lease_payment=9_000.0, lease_term_months=36)
    document = scenario(leased, rental(), tax_rate=0.2)
    assert _texts(document, "lease") == [
        "Leased: leased at $9,000 a month; give the scenario a cost of debt to compare leasing with borrowing to buy."
    ]


def _committed(**fields):
    base = {
        "name": "Committed",
        "billing": "committed",
        "committed_gpus": 4,
        "price_per_gpu_hour": 2.0,
        "commitment_term_months": 12,
        "upfront_share": 0.5,
        "on_demand_price_per_gpu_hour": 4.0,
    }
    return rental(**{**base, **fields})


def test_each_commitment_says_how_busy_its_gpus_must_be():
    document = scenario(owned(), rental(), _committed(), workload=DROP, horizon_months=24, utilization=[0.75])
    months = np.arange(1, 13)
    effective = 2.0 * (0.5 * 12 / np.sum(1.08 ** (-months / 12)) + 0.5)
    needed = effective / 4.0
    assert 0.5 < needed < 0.52
    assert _texts(document, "commitment") == [
        f"Committed: the committed GPUs must be busy at least {format_pct(needed)} of the time (an effective "
        f"{format_unit_money(effective)} per GPU-hour against $4.00 on demand); at the forecast they are busy 100.0% "
        "and serve 66.7% of the demand."  # 4 committed of 8 x 75 % busy GPUs
        # Two 12-month terms in 24 months, each locking the price of its first month (no price change: $2.00).
        " Each term locks its price when it starts: $2.00 from month 1 (year 1), $2.00 from month 13 (year 2) per "
        "GPU-hour."
    ]


def test_a_commitment_dearer_than_on_demand_never_pays_at_this_price():
    document = scenario(owned(), rental(), _committed(price_per_gpu_hour=3.9, upfront_share=1.0), workload=DROP)
    [text] = _texts(document, "commitment")
    assert text.startswith("Committed: the commitment never pays at this price: at an effective $")
    assert "%" not in text


def test_replacements_are_listed_with_their_months_and_prices_and_a_returned_lease_starts_a_new_one():
    document = finance_document()
    assert _texts(document, "replacement") == [
        "Own 8x H100: replaced in month 24 (year 2) for $204,800.",  # 320,000 x 0.8^2
        "Lease 8x H100: returned, and a new lease starts, in month 36 (year 3).",
    ]


def test_tax_in_words_names_the_depreciation_shield_of_a_bought_unit_only_when_taxed():
    hardware = owned(name="Own", capex=100_000.0, residual_value=0.0, useful_life_years=6, tax_depreciation="macrs_5")
    taxed = scenario(hardware, rental(), tax_rate=0.21, discount_rate=0.10, horizon_months=72)
    shield = sum(0.21 * 100_000 * share * 1.1 ** -(year + 1) for year, share in enumerate(MACRS_5))
    [text] = _texts(taxed, "tax")
    assert text.startswith(f"Own after tax (present values): depreciation shields {format_money(shield)}")
    assert format_money(shield) == "$16,238"
    assert _texts({**taxed, "tax_rate": 0.0}, "tax") == []


def test_a_scenario_without_the_finance_depth_has_no_finance_answers():
    document = scenario(owned(), rental())
    assert finance_answers(document, evaluate(document)) == []
