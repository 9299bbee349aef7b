"""Loans and leases of owned hardware, and lease versus buy (docs/money-math.md "Financing").

Loan: principal ``P = C·(1 - down)``, nominal APR compounded monthly (i = apr/12), level payments
``pmt = P·i/(1 - (1+i)^-n)`` (numpy-financial ``pmt(i, n, -P)``) at the end of months t+1..t+n; the balance after j
payments is ``P·(1+i)^j - pmt·((1+i)^j - 1)/i`` and month j's interest ``i·balance_{j-1}`` (deductible when paid).
A unit sold before the loan ends repays the balance at the sale. Example: 256,000 at 7 % over 48 months pays
6,130.24 a month.

Lease (a true tax lease): payments every q months over n months, in advance (months t, t+q, ..) or in arrears
(t+q, .., t+n), deductible when paid; the lessee never depreciates a leased unit; a buyout is paid at t+n.

Net advantage of leasing (Brealey-Myers) over the lease term n at ``k = cost_of_debt·(1 - T)``:
``NAL = C - PV_k[(1 - T)·payments] - PV_k[T·D_k landing <= n] - PV_k[end]``, ``end = V_n - T·(V_n - R_n)`` on return,
``(1 - T)·buyout + T·R_n`` on buyout. NAL > 0 favours leasing; the break-even payment makes NAL = 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .catalogue import option_value
from .constants import MONTHS_PER_YEAR
from .model import Num
from .resale import unit_value
from .tax import depreciation_shares


def loan_schedule(principal: Num, apr: Num, months: int) -> tuple[Num, np.ndarray, np.ndarray]:
    """``(payment, interest, balance)``: the level monthly payment, and per payment j = 1..n (last axis) the interest
    paid and the balance left after it."""
    if np.ndim(principal) == 0 and np.ndim(apr) == 0:
        return _scalar_loan(float(principal), float(apr) / MONTHS_PER_YEAR, months)
    rate = np.asarray(apr, dtype=float) / MONTHS_PER_YEAR
    safe = np.where(rate == 0, 1.0, rate)
    j = np.arange(1, months + 1)
    growth = (1.0 + safe[..., None]) ** j
    payment = np.where(rate == 0, principal / months, principal * safe / -np.expm1(-months * np.log1p(safe)))
    balance = np.where(
        rate[..., None] == 0,
        np.asarray(principal)[..., None] - np.asarray(payment)[..., None] * j,
        np.asarray(principal)[..., None] * growth - np.asarray(payment)[..., None] * (growth - 1.0) / safe[..., None],
    )
    before = np.concatenate(
        [np.broadcast_to(np.asarray(principal, dtype=float)[..., None], balance[..., :1].shape), balance[..., :-1]],
        axis=-1,
    )
    interest = rate[..., None] * before
    payment = float(payment) if np.ndim(payment) == 0 else payment
    return payment, interest, balance


def _scalar_loan(principal: float, rate: float, months: int) -> tuple[float, np.ndarray, np.ndarray]:
    """:func:`loan_schedule` for one scenario (the same formulas on plain floats and one axis of payments)."""
    j = np.arange(1, months + 1)
    if rate == 0:
        payment = principal / months
        balance = principal - payment * j
    else:
        payment = principal * rate / -np.expm1(-months * np.log1p(rate))
        growth = (1.0 + rate) ** j
        balance = principal * growth - payment * (growth - 1.0) / rate
    interest = rate * np.concatenate(([principal], balance[:-1]))
    return float(payment), interest, balance


def lease_payment_months(option: Mapping[str, Any], start: int) -> range:
    """The months a lease starting at ``start`` pays in: every q months over its term, in advance or in arrears."""
    interval = int(option_value(option, "lease_payment_interval_months"))
    term = int(option["lease_term_months"])
    first = start if option_value(option, "lease_payment_timing") == "advance" else start + interval
    return range(first, first + term, interval)


def nal(option: Mapping[str, Any], tax_rate: Num, cost_of_debt: Num) -> tuple[Num, Num]:
    """``(NAL, break-even lease payment)`` of leasing the option's first unit instead of buying it (module docstring).

    The comparison is the unit bought for cash at month 0 with the option's tax depreciation, sold at the lease's
    end for ``V_n = C·f(n)`` (resale by age) against the lease, all at the after-tax cost of debt."""
    term = int(option["lease_term_months"])
    if np.ndim(cost_of_debt) == 0 and np.ndim(tax_rate) == 0:  # one scenario: plain floats, the same arithmetic
        tax_rate = float(tax_rate)
        rate: Num = float(cost_of_debt) * (1.0 - tax_rate)
    else:
        rate = np.asarray(cost_of_debt, dtype=float) * (1.0 - np.asarray(tax_rate, dtype=float))

    growth = 1.0 + rate

    def pv(month: float) -> Num:
        return growth ** (-month / MONTHS_PER_YEAR)

    capex = option["capex"]
    shares = depreciation_shares(option)
    deducted = 0.0
    shield = 0.0
    for k in range(1, np.shape(shares)[-1] + 1):
        if MONTHS_PER_YEAR * k > term:
            break
        deduction = capex * shares[..., k - 1]
        deducted = deducted + deduction
        shield = shield + tax_rate * deduction * pv(MONTHS_PER_YEAR * k)
    left = capex - deducted
    if option_value(option, "lease_end") == "buyout":
        end = (1.0 - tax_rate) * option["lease_buyout_price"] + tax_rate * left
    else:
        value = unit_value(option, 1.0, float(term))
        end = value - tax_rate * (value - left)
    annuity = sum(growth ** (-float(m) / MONTHS_PER_YEAR) for m in lease_payment_months(option, 0))
    before_payments = capex - shield - end * pv(float(term))
    advantage = before_payments - (1.0 - tax_rate) * option["lease_payment"] * annuity
    return advantage, before_payments / ((1.0 - tax_rate) * annuity)
