"""The finance depth in the live workbook (docs/money-math.md, "The workbook"): its inputs as named cells, the tax
depreciation tables, and each option's schedule of units, loans, leases, sales and commitment terms as formulas.

Which months hold an event (a purchase, a loan or lease payment, a sale, a tax-year deduction, a term's start) is
decided by whole-number inputs the workbook keeps fixed, like the number of months: the refresh policy and cycle,
the loan and lease terms, the lease's interval, timing and end, the commitment term and what follows it. The amounts
in those months are formulas over the named inputs, so changing a price, a rate or a share recomputes them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from lib.kinds import OWNED_KINDS, RENTAL_KINDS
from tco.engine.catalogue import OPTION_FIELD, OPTION_FIELDS, SCENARIO_FIELD, option_value
from tco.engine.finance import cycle_months
from tco.engine.financing import lease_payment_months
from tco.engine.tax import MACRS

FIXED = " (fixed in the workbook: it sets the schedule; change it in the app)"


def choice_words(entry: Any, value: str) -> str:
    """A choice's value in the catalogue's words ("MACRS 5-year"), never its code."""
    return dict(entry.choices).get(value, value)


# Whole numbers that decide which months hold an event: shown, not meant to be changed in the workbook.
SCHEDULE_FIELDS = frozenset(entry.name for entry in OPTION_FIELDS if entry.finance and entry.value_type == "count")


def value_of(holder: Mapping[str, Any], key: str, entry: Any) -> Any:
    """The input's value, or its catalogue default when it was left out (the engine's value then)."""
    value = holder.get(key)
    return entry.default if value is None else value


def scenario_rows(doc: Mapping[str, Any]) -> list[tuple[str, Any, str, str, bool]]:
    """``(label, value, unit, name, editable)`` of the scenario's finance inputs (the tax rate always)."""
    tax_rate = SCENARIO_FIELD["tax_rate"]
    rows = [(tax_rate.label, value_of(doc, "tax_rate", tax_rate), tax_rate.unit, "tax_rate", True)]
    if doc.get("cost_of_debt") is not None:
        debt = SCENARIO_FIELD["cost_of_debt"]
        rows.append((f"{debt.label} (pre-tax)", doc["cost_of_debt"], debt.unit, "cost_of_debt", True))
    entry = SCENARIO_FIELD["refresh_policy"]
    policy = doc.get("refresh_policy") or "none"
    rows.append((f"{entry.label}{FIXED}", choice_words(entry, policy), "", "refresh_policy", False))
    return rows


def option_rows(option: Mapping[str, Any], slug: str) -> list[tuple[str, Any, str, str, bool]]:
    """``(label, value, unit, name, editable)`` of one option's finance inputs, defaults written out so a reviewer
    can change them; choices and schedule-setting whole numbers are shown as fixed. Labels, units and defaults are
    the catalogue's."""
    kind = option["kind"]
    rows: list[tuple[str, Any, str, str, bool]] = []

    def value(key: str) -> Any:
        return value_of(option, key, OPTION_FIELD[key])

    def number(key: str) -> None:
        entry, fixed = OPTION_FIELD[key], key in SCHEDULE_FIELDS
        rows.append((entry.label + (FIXED if fixed else ""), value(key), entry.unit, f"{key}_{slug}", not fixed))

    def choice(key: str) -> None:
        entry = OPTION_FIELD[key]
        rows.append((f"{entry.label}{FIXED}", choice_words(entry, value(key)), "", f"{key}_{slug}", False))

    if kind in OWNED_KINDS:
        choice("tax_depreciation")
        if value("tax_depreciation") == "straight_line" and "tax_life_years" in option:
            number("tax_life_years")
        number("bonus_depreciation")
        number("capex_change_per_year")
        choice("financing")
        financing = value("financing")
        if financing == "loan":
            for key in ("loan_apr", "loan_term_months", "down_payment_share"):
                number(key)
        if financing == "lease":
            for key in ("lease_payment", "lease_payment_interval_months", "lease_term_months"):
                number(key)
            choice("lease_payment_timing")
            choice("lease_end")
            if value("lease_end") == "buyout":
                number("lease_buyout_price")
        if option.get("resale_curve") is not None:
            number("age_at_purchase_months")
    elif kind in RENTAL_KINDS and option.get("commitment_term_months") is not None:
        number("commitment_term_months")
        number("upfront_share")
        choice("after_term")
        if option.get("on_demand_price_per_gpu_hour") is not None:
            number("on_demand_price_per_gpu_hour")
    return rows


def tax_years(doc: Mapping[str, Any]) -> int:
    """Rows of the tax depreciation table: every tax year a deduction can land in within the horizon, the longest
    MACRS table and every useful or tax life (the after-tax capital charge sums the years within the life)."""
    years = [math.ceil(doc["horizon_months"] / 12) + 1, max(len(table) for table in MACRS.values())]
    for option in doc["options"]:
        if option["kind"] in OWNED_KINDS:
            years.append(math.ceil(option["useful_life_years"]) + 1)
            years.append(math.ceil(option.get("tax_life_years", 0)) + 1)
    return max(years)


def share_formula(option: Mapping[str, Any], slug: str, year: int, macrs_cell: str) -> str:
    """Tax year ``year``'s share of the basis: the method's share of ``(1 - b)·B``, and the bonus b in year 1."""
    method = option_value(option, "tax_depreciation")
    if method in MACRS:
        base = f"N({macrs_cell})/100"
    elif method == "straight_line":
        life = f"tax_life_years_{slug}"
        base = f"MAX(MIN({life}-{year - 1},1),0)/{life}"
    else:
        base = "0"
    bonus = f"bonus_depreciation_{slug}"
    if year == 1:
        return f"={bonus}+(1-{bonus})*({base})"
    return f"=(1-{bonus})*({base})"


def curve(slug: str, age: str) -> str:
    """The resale curve's share at ``age`` months (a formula): linear between its points, flat past the last, read
    with MATCH and INDEX from the Inputs' point rows (each point's slope to the next is a cell, 0 for the last)."""
    at = f"MATCH({age},resale_curve_age_{slug},1)"
    return (
        f"(INDEX(resale_curve_share_{slug},{at})"
        f"+INDEX(resale_curve_slope_{slug},{at})*({age}-INDEX(resale_curve_age_{slug},{at})))"
    )


class OwnedSchedule:
    """An owned option's units over the horizon as formula terms by ledger column and month (0..H)."""

    def __init__(self, option: Mapping[str, Any], slug: str, horizon: int, refresh: str) -> None:
        self.option, self.slug, self.horizon = option, slug, horizon
        self.terms: dict[tuple[str, int], list[str]] = defaultdict(list)
        self.financing = option_value(option, "financing")
        self.leased = self.financing == "lease"
        self.buyout = self.leased and option_value(option, "lease_end") == "buyout"
        cycle = cycle_months(option) if refresh == "replace" else horizon
        self.starts = list(range(0, horizon, cycle)) if refresh == "replace" else [0]
        self.cycle = cycle
        self.last: dict[str, str] = {"book": "0", "basis": "0"}
        for start in self.starts:
            self.unit(start, min(start + cycle, horizon))

    def add(self, column: str, month: int, term: str) -> None:
        self.terms[(column, month)].append(term)

    def factor(self, start: int) -> str:
        return "1" if start == 0 else f"(1+capex_change_per_year_{self.slug})^({start}/12)"

    def scaled(self, name: str, start: int) -> str:
        return name if start == 0 else f"{name}*{self.factor(start)}"

    def unit(self, start: int, end: int) -> None:
        s, option = self.slug, self.option
        price = self.scaled(f"capex_{s}", start)
        owns, basis_start = True, start
        if self.leased:
            payment = self.scaled(f"lease_payment_{s}", start)
            months = lease_payment_months(option, start)
            within = [month for month in months if month <= self.horizon]
            for month in within:
                self.add("lease", month, payment)
            if len(within) < len(months):
                self.add("lease", self.horizon, f"{len(months) - len(within)}*{payment}")
            owns = self.buyout and start + option["lease_term_months"] <= end
            if owns:
                basis_start = start + int(option["lease_term_months"])
                price = self.scaled(f"lease_buyout_price_{s}", start)
                self.add("hardware", basis_start, price)
        elif self.financing == "loan":
            self.add("hardware", start, f"{price}*down_payment_share_{s}")
            term = int(option["loan_term_months"])
            paid = min(term, end - start)
            factor = "" if start == 0 else f"{self.factor(start)}*"
            rate, principal, payment = f"loan_rate_{s}", f"loan_principal_{s}", f"loan_payment_{s}"
            for j in range(1, paid + 1):
                self.add("loan_payment", start + j, self.scaled(payment, start))
                self.add(
                    "interest", start + j, f"{factor}((1+{rate})^{j - 1}*({principal}*{rate}-{payment})+{payment})"
                )
            if paid < term:
                self.add(
                    "repaid",
                    end,
                    f"{factor}IF({rate}=0,{principal}-{payment}*{paid},"
                    f"{principal}*(1+{rate})^{paid}-{payment}*((1+{rate})^{paid}-1)/{rate})",
                )
        else:
            self.add("hardware", start, price)
        if not owns:
            self.last = {"book": "0", "basis": "0"}
            return
        years = 0
        while basis_start + 12 * (years + 1) <= end:
            years += 1
            self.add("depreciation", basis_start + 12 * years, f"{price}*INDEX(tax_shares_{s},{years})")
        basis = f"{price}*(1-INDEX(tax_shares_cum_{s},{years}))" if years else price
        self.add("proceeds", end, self.value(start, end - start))
        self.add("disposal", end, f"tax_rate*({{proceeds}}{{row}}-{basis})")
        bought = self.scaled(f"capex_{s}", start)
        used = f"MIN({end - start}/(12*useful_life_years_{s}),1)"
        self.last = {"book": f"{bought}-({bought}-{self.scaled(f'residual_{s}', start)})*{used}", "basis": basis}

    def value(self, start: int, age: int) -> str:
        """What the unit bought at ``start`` sells for at ``age`` months: by the resale curve, or in a straight line to
        the residual over the useful life."""
        s = self.slug
        bought = self.scaled(f"capex_{s}", start)
        if self.option.get("resale_curve") is not None:
            return f"{bought}*{curve(s, f'age_at_purchase_months_{s}+{age}')}/resale_curve_at_purchase_{s}"
        used = f"MIN({age}/(12*useful_life_years_{s}),1)"
        return f"{bought}-({bought}-{self.scaled(f'residual_value_{s}', start)})*{used}"

    def formula(self, column: str, month: int, row: int, letters: Mapping[str, str]) -> Any:
        terms = self.terms.get((column, month))
        if not terms:
            return None  # an empty cell counts as 0 in the sums, and keeps the file small
        text = "=" + "+".join(terms)
        return text.replace("{proceeds}", letters.get("proceeds", "")).replace("{row}", str(row))


def price_factor(option: Mapping[str, Any], slug: str, month: int) -> str:
    """``P(m)`` as a formula: one change a year ``(1 + g)^((m-1)/12)``, or the yearly changes in turn, each year's
    share elapsed, the last repeating."""
    elapsed = (month - 1) / 12
    changes = option.get("price_change_by_year")
    if changes is None:
        return f"(1+price_change_per_year_{slug})^(({month}-1)/12)"
    terms = []
    count = len(changes)
    for year in range(count):
        share = max(elapsed - year, 0.0) if year == count - 1 else min(max(elapsed - year, 0.0), 1.0)
        if share > 0:
            power = "" if share == 1.0 else f"^({month - 1 - 12 * year}/12)"
            terms.append(f"(1+INDEX(price_change_by_year_{slug},{year + 1})){power}")
    return "*".join(terms) or "1"


def term_layout(option: Mapping[str, Any], horizon: int) -> tuple[list[int], list[int]]:
    """``(starts, term start of each month or 0)``: the whole terms that fit, and for months 1..H the first month of
    the term it lies in (0 outside every term)."""
    from tco.engine.commitments import term_starts

    starts = term_starts(option, horizon)
    term = int(option["commitment_term_months"])
    first = [0] * (horizon + 1)
    for start in starts:
        for month in range(start, start + term):
            first[month] = start
    return starts, first


def owned_derived(
    option: Mapping[str, Any], slug: str, residual: str, doc: Mapping[str, Any]
) -> list[tuple[str, str, str, str]]:
    """``(label, formula, unit, name)`` of an owned option's derived finance cells: the residual S (a resale curve's
    share at the end of the useful life), the straight-line tax life, the loan's rate, principal and payment, the
    after-tax capital charge and the lease-versus-buy parts."""
    s = slug
    rows = []
    if option.get("resale_curve") is not None:
        start = f"age_at_purchase_months_{s}"
        rows.append(("Resale curve at the age bought", f"={curve(s, start)}", "share", f"resale_curve_at_purchase_{s}"))
        rows.append(
            (
                "Residual value S = C·f(12L)",
                f"=capex_{s}*{curve(s, f'{start}+12*useful_life_years_{s}')}/resale_curve_at_purchase_{s}",
                "{c}",
                f"residual_{s}",
            )
        )
    else:
        rows.append(("Residual value S", f"=residual_value_{s}", "{c}", f"residual_{s}"))
    if option_value(option, "tax_depreciation") == "straight_line" and "tax_life_years" not in option:
        rows.append(("Tax life (the useful life)", f"=useful_life_years_{s}", "years", f"tax_life_years_{s}"))
    if option.get("financing") == "loan":
        n = int(option["loan_term_months"])
        rows += [
            ("Loan rate per month i = APR/12", f"=loan_apr_{s}/12", "per month", f"loan_rate_{s}"),
            ("Loan principal C·(1 - down)", f"=capex_{s}*(1-down_payment_share_{s})", "{c}", f"loan_principal_{s}"),
            (
                "Loan payment (PMT)",
                f"=IF(loan_rate_{s}=0,loan_principal_{s}/{n},PMT(loan_rate_{s},{n},-loan_principal_{s}))",
                "{c} per month",
                f"loan_payment_{s}",
            ),
        ]
    within = f"(tax_years<=useful_life_years_{s})*tax_shares_{s}"
    rate = f"cost_of_capital_{s}"
    end = f"({residual}-tax_rate*({residual}-(capex_{s}-capex_{s}*SUMPRODUCT({within}))))"
    rows.append(
        (
            "After-tax capital charge A_AT",
            f"=IF({rate}=0,(capex_{s}-tax_rate*capex_{s}*SUMPRODUCT({within})-{end})/useful_life_years_{s},"
            f"(capex_{s}-tax_rate*capex_{s}*SUMPRODUCT({within}*(1+{rate})^(-tax_years))"
            f"-{end}*(1+{rate})^(-useful_life_years_{s}))*{rate}/(1-(1+{rate})^(-useful_life_years_{s})))",
            "{c} per year",
            f"capital_charge_after_tax_{s}",
        )
    )
    if option.get("financing") == "lease" and doc.get("cost_of_debt") is not None:
        rows += lease_versus_buy(option, slug)
    return rows


def lease_versus_buy(option: Mapping[str, Any], slug: str) -> list[tuple[str, str, str, str]]:
    """Brealey-Myers at k = cost_of_debt·(1 - T) over the lease term n: the present value of the payments' annuity
    (a geometric series over the payment months) and ``C - PV[T·D_k, k <= n/12] - PV[end]``, what the after-tax
    payments are set against."""
    s = slug
    n = int(option["lease_term_months"])
    interval = int(option_value(option, "lease_payment_interval_months"))
    first = 0 if option_value(option, "lease_payment_timing") == "advance" else interval
    count = n // interval
    k = "after_tax_cost_of_debt_rate_" + s
    years = n // 12
    left = f"capex_{s}*(1-INDEX(tax_shares_cum_{s},{years}))" if years else f"capex_{s}"
    if option_value(option, "lease_end") == "buyout":
        end = f"((1-tax_rate)*lease_buyout_price_{s}+tax_rate*{left})"
    else:
        if option.get("resale_curve") is not None:
            value = f"capex_{s}*{curve(s, f'age_at_purchase_months_{s}+{n}')}/resale_curve_at_purchase_{s}"
        else:
            value = f"(capex_{s}-(capex_{s}-residual_value_{s})*MIN({n}/(12*useful_life_years_{s}),1))"
        end = f"({value}-tax_rate*({value}-{left}))"
    shield = f"tax_rate*capex_{s}*SUMPRODUCT((tax_years<={years})*tax_shares_{s}*(1+{k})^(-tax_years))"
    return [
        ("After-tax cost of debt k", "=cost_of_debt*(1-tax_rate)", "per year", k),
        (
            "Lease payments' present value per unit payment",
            f"=IF({k}=0,{count},(1+{k})^(-{first}/12)*(1-(1+{k})^(-{interval * count}/12))"
            f"/(1-(1+{k})^(-{interval}/12)))",
            "",
            f"lease_annuity_{s}",
        ),
        (
            "Buying's cost over the lease term, after tax",
            f"=capex_{s}-{shield}-{end}*(1+{k})^(-{n}/12)",
            "{c}",
            f"lease_buy_cost_{s}",
        ),
    ]
