"""The after-tax ledger of one option (docs/money-math.md "Finance depth"): every cash flow of months 0..H by what
it is, so that pre-tax NPV, the tax savings and the after-tax NPV come from one place.

Per month m = 0..H (the last axis; month 0 is today, undiscounted): ``cash`` (pre-tax cash cost, sales left out),
``proceeds`` (sales), ``opex`` (operating costs, deductible when paid), ``depreciation`` (tax depreciation landing),
``financing`` (loan interest and lease payments, deductible when paid) and ``disposal_tax`` (``T·(V - R)`` at each
sale). Then ``npv = PV(cash) - PV(proceeds)`` and
``npv_after_tax = npv - T·PV(opex) - T·PV(depreciation) - T·PV(financing) + PV(disposal_tax)``.

Owned hardware is a sequence of units: one bought at month 0 and, with ``refresh_policy = replace``, a new one every
cycle (12L months, a returned lease's term) at ``C·(1 + capex_change_per_year)^(t/12)``, the old one sold the same
month at its resale value by age. Each unit is paid for in cash, by a loan or by a lease (financing.py); a bought
unit is depreciated for tax (tax.py) and written off when sold. Lease payments a replacement lease still owes at the
horizon are paid there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS

from .catalogue import option_value
from .constants import MONTHS_PER_YEAR
from .errors import Problem, ScenarioError
from .financing import lease_payment_months, loan_schedule
from .model import Context, Flows, Num, sum_months
from .resale import book_value, residual, unit_value
from .tax import depreciation_shares


@dataclass
class Ledger:
    cash: Any
    proceeds: Any
    opex: Any
    depreciation: Any
    financing: Any
    disposal_tax: Any
    details: dict[str, Any] = field(default_factory=dict)
    # A ledger belongs to the one context its flows were built in, so its present values are worked out once.
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def pv(self, values: Any, ctx: Context) -> Num:
        """Month 0 undiscounted, month m at (1 + discount_rate)^(-m/12)."""
        values = np.asarray(values, dtype=float)
        return values[..., :1] + sum_months(values[..., 1:] * ctx.discount)

    def npv(self, ctx: Context) -> Num:
        """``PV(cash) - PV(proceeds)``; a sale at the horizon is discounted by the context's own horizon factor, as
        5.6's resale is, so an option without a finance input has the same NPV to the last bit."""
        if "npv" not in self._memo:
            self._memo["npv"] = self._npv(ctx)
        return self._memo["npv"]

    def _npv(self, ctx: Context) -> Num:
        proceeds = np.asarray(self.proceeds, dtype=float)
        earlier = proceeds[..., :1] + sum_months(proceeds[..., 1:-1] * np.asarray(ctx.discount)[..., :-1])
        return self.pv(self.cash, ctx) - (earlier + proceeds[..., -1:] * ctx.discount_at_horizon)

    def savings(self, ctx: Context) -> dict[str, Num]:
        if "savings" not in self._memo:
            self._memo["savings"] = self._savings(ctx)
        return self._memo["savings"]

    def _savings(self, ctx: Context) -> dict[str, Num]:
        tax = ctx.tax_rate
        rows = (self.opex, self.depreciation, self.financing, self.disposal_tax)
        if all(np.ndim(row) == 1 for row in rows) and np.ndim(ctx.discount) == 1:  # one scenario: one product
            values = np.array(rows)
            opex, depreciation, financing, disposal = (values[:, 0] + values[:, 1:] @ ctx.discount).tolist()
        else:
            opex, depreciation, financing, disposal = (self.pv(row, ctx) for row in rows)
        return {
            "pv_opex_tax_saving": tax * opex,
            "pv_depreciation_tax_shield": tax * depreciation,
            "pv_financing_tax_saving": tax * financing,
            "pv_tax_on_disposals": disposal,
        }

    def npv_after_tax(self, ctx: Context) -> Num:
        parts = self.savings(ctx)
        return (
            self.npv(ctx)
            - parts["pv_opex_tax_saving"]
            - parts["pv_depreciation_tax_shield"]
            - parts["pv_financing_tax_saving"]
            + parts["pv_tax_on_disposals"]
        )

    def total_after_tax(self, ctx: Context) -> Num:
        """The undiscounted after-tax cash cost over the horizon (sales credited)."""
        tax = ctx.tax_rate
        total = self.cash - self.proceeds - tax * (self.opex + self.depreciation + self.financing) + self.disposal_tax
        return sum_months(np.asarray(total, dtype=float))


@dataclass
class OperatingLedger:
    """The ledger of an option whose every cost is operating and paid when deducted (a rental, the API): its
    savings are T·NPV and nothing else, so nothing month by month needs to be kept beyond the flows themselves."""

    flows: Flows
    details: dict[str, Any] = field(default_factory=dict)
    _npv: Any = field(default=None, repr=False)  # worked out once, like Ledger's present values

    @property
    def cash(self) -> np.ndarray:
        return _with_month_zero(self.flows.capex, self.flows.usage)

    @property
    def proceeds(self) -> float:
        return 0.0

    def npv(self, ctx: Context) -> Num:
        if self._npv is None:
            flows = self.flows
            self._npv = flows.capex + sum_months(flows.usage * ctx.discount) - flows.resale * ctx.discount_at_horizon
        return self._npv

    def savings(self, ctx: Context) -> dict[str, Num]:
        return {
            "pv_opex_tax_saving": ctx.tax_rate * self.npv(ctx),
            "pv_depreciation_tax_shield": 0.0,
            "pv_financing_tax_saving": 0.0,
            "pv_tax_on_disposals": 0.0,
        }

    def npv_after_tax(self, ctx: Context) -> Num:
        npv = self.npv(ctx)
        return npv - ctx.tax_rate * npv

    def total_after_tax(self, ctx: Context) -> Num:
        total = self.flows.capex + sum_months(np.asarray(self.flows.usage, dtype=float))
        return total - ctx.tax_rate * total


def flows_ledger(flows: Flows, ctx: Context, deductible: Any = None) -> Ledger | OperatingLedger:
    """The ledger of an option whose only flows are ``Flows`` (rentals, the API): every cost is operating, deducted
    when paid unless ``deductible`` (months 0..H) says otherwise (a commitment's upfront spread over its term)."""
    if deductible is None:
        return OperatingLedger(flows)
    zero = np.zeros(ctx.horizon_months + 1)
    cash = _with_month_zero(flows.capex, flows.usage)
    return Ledger(cash, zero, cash if deductible is None else deductible, zero, zero, zero)


def _with_month_zero(first: Any, months: Any) -> np.ndarray:
    months = np.asarray(months, dtype=float)
    first = (
        np.broadcast_to(np.asarray(first, dtype=float), (*months.shape[:-1], 1))
        if months.ndim > 1
        else np.array([float(np.asarray(first).reshape(-1)[0])])
    )
    return np.concatenate([first, months], axis=-1)


def cycle_months(option: Mapping[str, Any]) -> int:
    """Months one unit serves before a replacement: a returned lease's term, else the useful life 12L (rounded)."""
    if option.get("financing") == "lease" and option_value(option, "lease_end") == "return":
        return int(option["lease_term_months"])
    life = option["useful_life_years"]
    if not isinstance(life, float | int) and np.ndim(life):
        raise ScenarioError([Problem("useful_life_years", "The useful life cannot vary when it decides the refresh")])
    return max(1, round(MONTHS_PER_YEAR * float(life)))


def owned_ledger(option: Mapping[str, Any], ctx: Context, flows: Flows) -> Ledger:
    """Units, their financing, tax depreciation and sales (module docstring), with the operating costs of ``flows``."""
    horizon = ctx.horizon_months
    book = _Book(horizon)
    book.add_months("opex", flows.usage)
    book.add_months("cash", flows.usage)
    tax = ctx.tax_rate
    financing = option_value(option, "financing")
    leased = financing == "lease"
    buyout = leased and option_value(option, "lease_end") == "buyout"
    cycle = cycle_months(option) if ctx.refresh_policy == "replace" else horizon
    starts = list(range(0, horizon, cycle)) if ctx.refresh_policy == "replace" else [0]
    shares = depreciation_shares(option)
    change = option_value(option, "capex_change_per_year")
    details: dict[str, Any] = {"replacement_capex": [], "loan_balance_repaid_at_sale": 0.0}
    last = {}
    for start in starts:
        end = min(start + cycle, horizon)
        factor = (1.0 + change) ** (start / MONTHS_PER_YEAR) if start else 1.0
        price = option["capex"] * factor
        if start:
            details["replacement_capex"].append([start, first_figure(price)])
        owns = True
        basis_start = start
        if leased:
            payment = option["lease_payment"] * factor
            months = lease_payment_months(option, start)
            within = range(months.start, min(months.stop, horizon + 1), months.step)
            owed = (len(months) - len(within)) * payment  # paid at the horizon
            for row in ("cash", "financing"):
                book.add_many(row, within, payment)
                if len(within) < len(months):
                    book.add(row, horizon, owed)
            owns = buyout and start + option["lease_term_months"] <= end
            if owns:
                basis_start = start + int(option["lease_term_months"])
                price = option["lease_buyout_price"] * factor
                book.add("cash", basis_start, price)
        elif financing == "loan":
            down = price * option_value(option, "down_payment_share")
            book.add("cash", start, down)
            term = int(option["loan_term_months"])
            payment, interest, balance = loan_schedule(price - down, option["loan_apr"], term)
            paid = min(term, end - start)
            months = range(start + 1, start + paid + 1)
            book.add_many("cash", months, payment)
            book.add_many("financing", months, interest[..., :paid], per_month=True)
            if start == 0:
                details["loan_payment_per_month"] = first_figure(payment)
            if paid < term:
                left = balance[..., paid - 1] if paid else price - down
                book.add("cash", end, left)
                details["loan_balance_repaid_at_sale"] += first_figure(left)
        else:
            book.add("cash", start, price)
        if not owns:
            last = {"book": 0.0, "basis": 0.0}
            continue
        deducted = 0.0
        for k in range(1, np.shape(shares)[-1] + 1):
            month = basis_start + int(MONTHS_PER_YEAR) * k
            if month > end:
                break
            deduction = price * shares[..., k - 1]
            book.add("depreciation", month, deduction)
            deducted = deducted + deduction
        left = price - deducted
        value = unit_value(option, factor, float(end - start))
        book.add("proceeds", end, value)
        book.add("disposal_tax", end, tax * (value - left))
        last = {"book": book_value(option, factor, float(end - start)), "basis": left}
    details["replacements"] = len(starts) - 1
    details["book_value_at_horizon"] = first_figure(last["book"])
    details["tax_basis_at_horizon"] = first_figure(last["basis"])
    details["deferred_tax_liability_at_horizon"] = first_figure(tax * (last["book"] - last["basis"]))
    book_per_year = (option["capex"] - residual(option)) / option["useful_life_years"]
    details["book_depreciation_per_year"] = None if leased and not buyout else first_figure(book_per_year)
    if leased:
        details["lease_payment"] = first_figure(option["lease_payment"])
    if financing != "loan":
        del details["loan_balance_repaid_at_sale"]
    return book.ledger(details)


def tax_depreciation_by_year(ledger: Ledger, horizon: int) -> list[float]:
    """Tax depreciation landing in each year of the horizon (months 12(y-1)+1 .. 12y), write-offs left out."""
    months = np.asarray(ledger.depreciation, dtype=float).reshape(-1, horizon + 1)[0]
    years = -(-horizon // int(MONTHS_PER_YEAR))
    return [float(np.add.reduce(months[1 + 12 * y : 13 + 12 * y])) for y in range(years)]


def uses_ledger(option: Mapping[str, Any]) -> bool:
    return option["kind"] in OWNED_KINDS


def first_figure(value: Any) -> float:
    """The first scenario's figure of a per-scenario quantity (a float, or an array of one or more scenarios)."""
    if isinstance(value, float | int):
        return float(value)
    if isinstance(value, np.ndarray):  # item() reads it without making an array of one element
        return float(value.item(0))
    return float(np.asarray(value, dtype=float).reshape(-1)[0])


class _Book:
    """Accumulates amounts into the ledger's rows, month by month, broadcasting over the scenario's axes."""

    ROWS = ("cash", "proceeds", "opex", "depreciation", "financing", "disposal_tax")

    def __init__(self, horizon: int) -> None:
        self.months = horizon + 1
        self.rows: dict[str, Any] = {row: np.zeros(self.months) for row in self.ROWS}

    def add(self, row: str, month: int, amount: Any) -> None:
        values = self.rows[row]
        if values.ndim == 1 and (isinstance(amount, float | int) or np.ndim(amount) == 0):  # one scenario: in place
            values[month] += amount
        else:
            self.rows[row] = values + np.asarray(amount, dtype=float) * self._unit(month)

    def _unit(self, month: int) -> np.ndarray:
        """1 in ``month``, 0 elsewhere (a row of the identity, built only when a sweep or simulation needs it)."""
        unit = np.zeros(self.months)
        unit[month] = 1.0
        return unit

    def add_many(self, row: str, months: range, amounts: Any, per_month: bool = False) -> None:
        """Add ``amounts`` in each of ``months`` (a range, so a slice picks them): one amount (per scenario), or with
        ``per_month`` one per month on the last axis."""
        if not months:
            return
        months = slice(months.start, months.stop, months.step)
        values = self.rows[row]
        if values.ndim == 1 and np.ndim(amounts) <= int(per_month):
            values[months] += amounts
            return
        amounts = np.asarray(amounts, dtype=float)
        if per_month and amounts.ndim > 1:  # the scenario's trailing axis of 1 gives way to the months
            amounts = amounts[..., 0, :]
        lead = amounts.shape[:-1] if amounts.ndim else ()
        extra = np.zeros((*np.broadcast_shapes(values.shape[:-1], lead), values.shape[-1]))
        extra[..., months] = amounts
        self.rows[row] = values + extra

    def add_months(self, row: str, monthly: Any) -> None:
        values = self.rows[row]
        if values.ndim == 1 and np.ndim(monthly) == 1:  # one scenario: add in place
            values[1:] += monthly
        else:
            self.rows[row] = values + _with_month_zero(0.0, monthly)

    def ledger(self, details: dict[str, Any]) -> Ledger:
        return Ledger(**self.rows, details=details)
