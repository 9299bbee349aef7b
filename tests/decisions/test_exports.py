from __future__ import annotations

import copy
import csv
import io
import json
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from tco.engine import evaluate
from tco.models import DecisionSnapshot
from tco.services import option_update, scenario_create_from_document, scenario_update_field
from tests.decisions.conftest import DOCUMENT

OPTION_HEADERS = [
    "option",
    "kind",
    "annual cost (USD)",
    "cost per busy GPU-hour (USD)",
    "cost per accepted response (USD)",
    "cost per million accepted tokens (USD)",
    "total cost over 12 months (USD)",
    "present value of cost (USD)",
    "resale value at horizon (USD)",
    "capital charge per year (USD)",
    "mean own utilization (fraction)",
    "overflow over horizon (GPU-hours)",
    "cheapest by present value of cost",
]
RESULT_KEYS = [
    "annual_cost",
    "cost_per_gpu_hour",
    "cost_per_accepted_response",
    "cost_per_million_accepted_tokens",
    "total_cost",
    "npv",
    "resale_value",
    "capital_charge_per_year",
    "mean_own_utilization",
    "overflow_gpu_hours",
]


def _export(client, scenario, what: str):
    return client.get(reverse("tco:scenario_export_results", args=[scenario.pk, what]))


def _rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode("utf-8"))))


def _number(text: str) -> float | None:
    return None if text == "" else float(text)


def test_the_csv_per_option_has_one_row_per_option_with_the_results_values(viewer_client, scenario):
    result = evaluate(scenario.to_document())

    response = _export(viewer_client, scenario, "options.csv")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="Decision-test-own-vs-rent-options.csv"' in response["Content-Disposition"]
    header, *rows = _rows(response)
    assert header == OPTION_HEADERS
    assert [row[:2] for row in rows] == [["Own 8x H100", "owned"], ["Lambda rental", "neocloud"]]
    for row, option in zip(rows, result["options"], strict=True):
        assert [_number(cell) for cell in row[2:12]] == [option[key] for key in RESULT_KEYS]
    assert [row[12] for row in rows] == ["no", "yes"]


def test_the_csv_per_month_has_the_forecast_and_each_options_monthly_and_cumulative_cost(viewer_client, scenario):
    result = evaluate(scenario.to_document())

    header, *rows = _rows(_export(viewer_client, scenario, "monthly.csv"))

    assert header == [
        "month",
        "utilization (fraction)",
        "Own 8x H100: cost in month (USD)",
        "Lambda rental: cost in month (USD)",
        "Own 8x H100: cumulative cost (USD)",
        "Lambda rental: cumulative cost (USD)",
    ]
    assert [int(row[0]) for row in rows] == list(range(1, 13))
    assert {row[1] for row in rows} == {"0.6"}
    owned, rental = result["options"]
    assert [float(row[2]) for row in rows] == owned["monthly_cost"]
    assert [float(row[3]) for row in rows] == rental["monthly_cost"]
    assert [float(row[5]) for row in rows] == rental["cumulative_cost"]
    # cash, not the model: month 1 of owning carries the capex
    assert float(rows[0][2]) > 300_000


def test_the_workbook_has_inputs_monthly_cost_and_results_sheets_with_units_in_headers(viewer_client, scenario):
    result = evaluate(scenario.to_document())

    response = _export(viewer_client, scenario, "results.xlsx")

    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    book = load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == ["Results", "Break-even", "Monthly cost", "Inputs"]
    results = book["Results"]
    assert [cell.value for cell in results[1]] == OPTION_HEADERS
    assert results["C2"].value == pytest.approx(result["options"][0]["annual_cost"], rel=1e-15)  # 16 digits kept
    assert results["C2"].data_type == "n"
    assert [cell.value for cell in book["Monthly cost"][1]][:3] == [
        "month",
        "utilization (fraction)",
        "Own 8x H100: cost in month (USD)",
    ]
    assert book["Monthly cost"].max_row == 13
    inputs = {(row[0], row[2]): (row[3], row[4]) for row in book["Inputs"].iter_rows(min_row=2, values_only=True)}
    assert inputs[("Own 8x H100", "capex")] == (300000, "USD")
    assert inputs[("Lambda rental", "price")] == (3.99, "USD per GPU-hour")
    assert inputs[("scenario", "discount rate")] == (0.08, "fraction per year")
    be = book["Break-even"]
    assert [cell.value for cell in be[2]] == [
        "Own 8x H100",
        "Lambda rental",
        result["break_even"][0]["utilization"],
        result["break_even"][0]["crossover_month"],
    ]


@pytest.fixture
def formula_scenario(editor, lambda_price):
    document = copy.deepcopy(DOCUMENT)
    document["name"] = "=cmd|' /C calc'!A0"
    document["options"][0]["name"] = '=HYPERLINK("http://evil.example","click")'
    document["options"][1]["name"] = "@SUM(A1:A9)"
    document["options"][1]["price_change_per_year"] = -0.1
    document["options"].append(
        {"name": "-2+3", "kind": "marketplace", "price_per_gpu_hour": 2.5, "billing": "on_demand"}
    )
    document["options"].append(
        {"name": "+1 api", "kind": "api", "price_per_million_input_tokens": 0.5, "price_per_million_output_tokens": 1.5}
    )
    return scenario_create_from_document(document=document, user=editor)


def test_csv_text_that_looks_like_a_formula_is_neutralised_and_numbers_stay_numbers(viewer_client, formula_scenario):
    result = evaluate(formula_scenario.to_document())

    _, *rows = _rows(_export(viewer_client, formula_scenario, "options.csv"))
    monthly_header, *_ = _rows(_export(viewer_client, formula_scenario, "monthly.csv"))

    assert [row[0] for row in rows] == [
        '\'=HYPERLINK("http://evil.example","click")',
        "'@SUM(A1:A9)",
        "'-2+3",
        "'+1 api",
    ]
    assert monthly_header[2].startswith("'=HYPERLINK")
    for row, option in zip(rows, result["options"], strict=True):
        assert [_number(cell) for cell in row[2:12]] == [option[key] for key in RESULT_KEYS]


def test_excel_text_that_looks_like_a_formula_is_stored_as_text_not_as_a_formula(viewer_client, formula_scenario):
    book = load_workbook(io.BytesIO(_export(viewer_client, formula_scenario, "results.xlsx").content))

    names = [row[0].value for row in book["Results"].iter_rows(min_row=2)]
    assert names == ['\'=HYPERLINK("http://evil.example","click")', "'@SUM(A1:A9)", "'-2+3", "'+1 api"]
    assert all(
        cell.data_type == "s"
        for sheet in book
        for row in sheet.iter_rows()
        for cell in row
        if isinstance(cell.value, str)
    )
    inputs = {(row[0], row[2]): row[3] for row in book["Inputs"].iter_rows(min_row=2, values_only=True)}
    assert inputs[("'@SUM(A1:A9)", "price change")] == -0.1


def test_the_export_file_name_is_safe_whatever_the_scenario_is_called(viewer_client, formula_scenario):
    response = _export(viewer_client, formula_scenario, "options.csv")

    assert response["Content-Disposition"] == 'attachment; filename="cmd-C-calc-A0-options.csv"'


def test_anonymous_users_cannot_export_a_scenario(anon, scenario):
    response = _export(anon, scenario, "options.csv")

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_exporting_a_scenario_the_engine_refuses_says_why(editor, editor_client, scenario):
    owned = scenario.options.get(kind="owned")
    option_update(option=owned, user=editor, expected_version=None, field="useful_life_years", value=Decimal("0"))

    response = editor_client.get(reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"]), follow=True)

    assert "Nothing to export yet" in response.content.decode()
    assert "options[0].useful_life_years" in response.content.decode()


def test_the_decision_page_exports_the_frozen_numbers_not_todays(editor, link_path, anon, scenario):
    frozen = json.loads(DecisionSnapshot.objects.get().content)
    scenario_update_field(
        scenario=scenario, user=editor, field="discount_rate", value=Decimal("0.2"), expected_version=None
    )

    header, *rows = _rows(anon.get(f"{link_path}/options.csv"))
    book = load_workbook(io.BytesIO(anon.get(f"{link_path}/results.xlsx").content))

    assert header == OPTION_HEADERS
    assert [_number(row[7]) for row in rows] == [option["npv"] for option in frozen["result"]["options"]]
    assert book.sheetnames == ["Decision brief", "Results", "Break-even", "Monthly cost", "Inputs", "Prices"]
    brief = dict(book["Decision brief"].iter_rows(min_row=2, values_only=True))
    assert brief["content hash (SHA-256)"] == DecisionSnapshot.objects.get().content_hash
    assert brief["Expected utilization"] == "open"
    prices = [row for row in book["Prices"].iter_rows(min_row=2, values_only=True)]
    assert prices[0][:3] == ("Lambda rental", "neocloud", 3.99)
    assert "2026-09-01" in prices[0] and "https://lambda.ai/pricing" in prices[0]
