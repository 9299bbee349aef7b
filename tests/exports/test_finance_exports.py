"""The CSV and Excel exports carry every finance result with its unit, its schedules and the answers in words; an
export without the finance depth is unchanged."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from tco.engine import evaluate
from tco.exports import csv_text, monthly_table, option_table, results_workbook
from tco.presentation.finance import finance_answers
from tests.engine.docs import owned, rental, scenario
from tests.presentation.finance_docs import finance_document

# Every per-option result of the finance depth a table of numbers can hold (the contract's list), with the unit its
# header must name.
FINANCE_RESULTS = {
    "npv_after_tax": "(USD)",
    "pv_opex_tax_saving": "(USD)",
    "pv_depreciation_tax_shield": "(USD)",
    "pv_financing_tax_saving": "(USD)",
    "pv_tax_on_disposals": "(USD)",
    "total_cash_cost": "(USD)",
    "capital_charge_after_tax_per_year": "(USD)",
    "book_depreciation_per_year": "(USD)",
    "book_value_at_horizon": "(USD)",
    "tax_basis_at_horizon": "(USD)",
    "deferred_tax_liability_at_horizon": "(USD)",
    "replacements": "(count)",
    "loan_payment_per_month": "(USD)",
    "loan_balance_repaid_at_sale": "(USD)",
    "lease_payment": "(USD per payment)",
    "nal": "(USD)",
    "after_tax_cost_of_debt": "(fraction per year)",
    "break_even_lease_payment": "(USD per payment)",
    "commitment_coverage": "(fraction of demand GPU-hours)",
    "commitment_utilization": "(fraction of committed GPU-hours busy)",
    "commitment_effective_price_per_gpu_hour": "(USD per GPU-hour)",
    "commitment_break_even_utilization": "(fraction)",
    "break_even_utilization_vs_on_demand": "(fraction)",
}


def _number(text):
    try:
        return float(text) if text else ""
    except ValueError:
        return text


def _csv(table):
    return list(csv.reader(io.StringIO(csv_text(table))))


def test_the_options_csv_has_a_column_with_its_unit_for_every_finance_result():
    document = finance_document()
    result = evaluate(document)
    header, *rows = _csv(option_table(result))
    for key, unit in FINANCE_RESULTS.items():
        # The one column whose values are this result's, option by option.
        expected = ["" if option.get(key) is None else option[key] for option in result["options"]]
        matches = [
            index
            for index, title in enumerate(header)
            if [_number(row[index]) for row in rows] == pytest.approx(expected) and title.endswith(unit)
        ]
        assert matches, key
    assert header[-1] == "cheapest by present value of cost after tax"
    assert [row[-1] for row in rows] == [
        "yes" if o["name"] == result["cheapest_after_tax"] else "no" for o in result["options"]
    ]


def test_an_export_without_the_finance_depth_is_unchanged():
    document = scenario(owned(name="Own"), rental(name="Lambda"))
    header = _csv(option_table(evaluate(document)))[0]
    assert header[-1] == "cheapest by present value of cost" and not any("after tax" in title for title in header)


def test_a_truncated_comparison_exports_the_months_compared():
    document = scenario(owned(useful_life_years=2), rental(), refresh_policy="truncate", horizon_months=48)
    result = evaluate(document)
    assert len(monthly_table(document, result).rows) == 24
    assert "total cost over 24 months (USD)" in option_table(result).headers


def test_the_workbook_has_the_finance_results_schedules_after_tax_break_even_and_words():
    document = finance_document()
    result = evaluate(document)
    book = openpyxl.load_workbook(io.BytesIO(results_workbook(document, result)))
    schedules = [row for row in book["Finance schedules"].iter_rows(min_row=2, values_only=True)]
    depreciation = [row[4] for row in schedules if row[0] == "Own 8x H100" and row[1] == "tax depreciation"]
    # MACRS 5-year: 20 %, then 32 % of 320,000; the unit bought in month 24 at 320,000 x 0.8^2 starts again.
    assert depreciation == pytest.approx([64_000, 102_400, 204_800 * 0.2, 204_800 * 0.32])
    assert [row[3:6] for row in schedules if row[0] == "Own 8x H100" and row[1] == "replacement unit bought"] == [
        (24, pytest.approx(204_800), "USD")
    ]
    terms = [row[3] for row in schedules if row[1] == "commitment term starts, locked price"]
    assert terms == [1, 13, 25, 37]
    words = [row[2] for row in book["Finance in words"].iter_rows(min_row=2, values_only=True)]
    assert words == [line["text"] for line in finance_answers(document, result)]
    pairs = list(book["Break-even after tax"].iter_rows(min_row=2, values_only=True))
    assert [row[3] for row in pairs] == pytest.approx([p["utilization_after_tax"] for p in result["break_even"]])
    finance = book["Finance results"]
    assert [cell.value for cell in finance[1]][:3] == ["option", "kind", "present value of cost after tax (USD)"]


def test_a_workbook_without_the_finance_depth_has_no_finance_sheets():
    document = scenario(owned(name="Own"), rental(name="Lambda"))
    book = openpyxl.load_workbook(io.BytesIO(results_workbook(document, evaluate(document))))
    assert not [name for name in book.sheetnames if "inance" in name or "after tax" in name]
