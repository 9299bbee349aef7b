"""The finance depth's columns in the exports (docs/money-math.md "Finance depth"): each option's after-tax, financing,
refresh and commitment results, each with its header in words and its unit. Only a result that carries the finance
depth has them, so an export without it is unchanged."""

from __future__ import annotations

from typing import Any

from lib.currencies import currency_of
from lib.formatting import PRESENT_VALUE


def finance_columns(currency: str) -> list[tuple[str, str, str]]:
    """(header with its unit, result key, style) of every per-option finance result, in the order exported."""
    c = currency
    return [
        (f"{PRESENT_VALUE} after tax ({c})", "npv_after_tax", "money"),
        (f"present value of the tax saved on operating costs ({c})", "pv_opex_tax_saving", "money"),
        (f"present value of the depreciation tax shield ({c})", "pv_depreciation_tax_shield", "money"),
        (f"present value of the tax saved on interest and lease payments ({c})", "pv_financing_tax_saving", "money"),
        (f"present value of the tax on disposals ({c})", "pv_tax_on_disposals", "money"),
        (f"total cash cost after tax, undiscounted ({c})", "total_cash_cost", "money"),
        (f"capital charge after tax per year ({c})", "capital_charge_after_tax_per_year", "money"),
        (f"book depreciation per year ({c})", "book_depreciation_per_year", "money"),
        (f"book value at the horizon ({c})", "book_value_at_horizon", "money"),
        (f"tax basis at the horizon ({c})", "tax_basis_at_horizon", "money"),
        (f"deferred tax liability at the horizon ({c})", "deferred_tax_liability_at_horizon", "money"),
        ("replacements (count)", "replacements", "int"),
        (f"loan payment per month ({c})", "loan_payment_per_month", "money"),
        (f"loan balance repaid at a sale ({c})", "loan_balance_repaid_at_sale", "money"),
        (f"lease payment ({c} per payment)", "lease_payment", "money"),
        (f"net advantage of leasing ({c})", "nal", "money"),
        ("after-tax cost of debt (fraction per year)", "after_tax_cost_of_debt", "fraction"),
        (f"break-even lease payment ({c} per payment)", "break_even_lease_payment", "money"),
        ("commitment coverage (fraction of demand GPU-hours)", "commitment_coverage", "fraction"),
        ("commitment utilization (fraction of committed GPU-hours busy)", "commitment_utilization", "fraction"),
        (f"commitment effective price ({c} per GPU-hour)", "commitment_effective_price_per_gpu_hour", "unit_money"),
        ("committed GPUs busy to break even (fraction)", "commitment_break_even_utilization", "fraction"),
        ("fleet utilization to break even vs on demand (fraction)", "break_even_utilization_vs_on_demand", "fraction"),
    ]


def has_finance(result: dict) -> bool:
    """Whether the result carries the finance depth's figures (a document that uses any finance input)."""
    return "effective_horizon_months" in result


def finance_cells(result: dict, option: dict) -> list[Any]:
    """One option's finance results in ``finance_columns`` order, then whether it is the cheapest after tax."""
    values = [option.get(key) for _, key, _ in finance_columns(currency_of(result))]
    return [*values, option["name"] == result.get("cheapest_after_tax")]


def finance_headers(result: dict) -> tuple[list[str], list[str]]:
    """The headers and styles ``finance_cells`` fills."""
    columns = finance_columns(currency_of(result))
    headers = [header for header, _, _ in columns] + [f"cheapest by {PRESENT_VALUE} after tax"]
    return headers, [style for _, _, style in columns] + ["text"]
