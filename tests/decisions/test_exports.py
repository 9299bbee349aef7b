from __future__ import annotations

import copy
import csv
import io
import json
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from tco.documents import scenario_document
from tco.engine import ENGINE_VERSION, evaluate
from tco.models import DecisionSnapshot
from tco.services import option_add, run_queue, scenario_create, scenario_create_from_document, scenario_update_field
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
# Every export states what its numbers are (the scenario's exports; a decision link's add a note with its hash).
ABOUT_HEADERS = ["scenario", "scenario version", "computed at (UTC)", "engine version"]
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


def _close(values: list[float | None]):
    """Files keep 12 significant digits (no float noise such as 11.059999999999999)."""
    return [None if value is None else pytest.approx(value, rel=1e-11) for value in values]


def test_the_csv_per_option_has_one_row_per_option_with_the_results_values(viewer_client, scenario):
    result = evaluate(scenario_document(scenario))

    response = _export(viewer_client, scenario, "options.csv")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="Decision-test-own-vs-rent-options.csv"' in response["Content-Disposition"]
    header, *rows = _rows(response)
    assert header == OPTION_HEADERS + ABOUT_HEADERS
    assert [row[:2] for row in rows] == [["Own 8x H100", "Owned (new)"], ["Lambda rental", "Neocloud"]]  # in words
    for row, option in zip(rows, result["options"], strict=True):
        assert [_number(cell) for cell in row[2:12]] == _close([option[key] for key in RESULT_KEYS])
    assert [row[12] for row in rows] == ["no", "yes"]
    assert {tuple(row[13:15]) for row in rows} == {("Decision test: own vs rent", str(scenario.version))}
    assert {row[16] for row in rows} == {ENGINE_VERSION}


def test_the_csv_per_month_has_the_forecast_and_each_options_monthly_and_cumulative_cost(viewer_client, scenario):
    result = evaluate(scenario_document(scenario))

    header, *rows = _rows(_export(viewer_client, scenario, "monthly.csv"))

    assert header == [
        "month",
        "utilization (fraction)",
        "Own 8x H100: cost in month (USD)",
        "Lambda rental: cost in month (USD)",
        "Own 8x H100: cumulative cost (USD)",
        "Lambda rental: cumulative cost (USD)",
        *ABOUT_HEADERS,
    ]
    assert [int(row[0]) for row in rows] == list(range(1, 13))
    assert {row[1] for row in rows} == {"0.6"}
    owned, rental = result["options"]
    assert [float(row[2]) for row in rows] == _close(owned["monthly_cost"])
    assert [float(row[3]) for row in rows] == _close(rental["monthly_cost"])
    assert [float(row[5]) for row in rows] == _close(rental["cumulative_cost"])
    # cash, not the model: month 1 of owning carries the capex
    assert float(rows[0][2]) > 300_000


def test_the_workbook_has_the_live_model_monthly_cost_and_inputs_in_words_with_units_in_headers(
    viewer_client, scenario
):
    result = evaluate(scenario_document(scenario))

    response = _export(viewer_client, scenario, "results.xlsx")

    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    book = load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == [
        "Summary",
        "Inputs",
        "Forecast",
        "Ledger 1",
        "Ledger 2",
        "Break-even",
        "Crossover",
        "Monthly cost",
        "Inputs in words",
        "About this file",
    ]
    about = dict(book["About this file"].iter_rows(min_row=2, values_only=True))
    assert about["scenario version"] == str(scenario.version) and about["engine version"] == ENGINE_VERSION
    assert about["computed at (UTC)"]
    first_option = next(row for row in book["Summary"].iter_rows(values_only=True) if row[0] == "Annual cost")
    assert first_option[2] == pytest.approx(result["options"][0]["annual_cost"], rel=1e-11)  # 12 digits
    assert [cell.value for cell in book["Monthly cost"][1]][:3] == [
        "month",
        "utilization (fraction)",
        "Own 8x H100: cost in month (USD)",
    ]
    assert book["Monthly cost"].max_row == 13
    inputs = {
        (row[0], row[2]): (row[3], row[4]) for row in book["Inputs in words"].iter_rows(min_row=2, values_only=True)
    }
    assert inputs[("Own 8x H100", "capex, whole option")] == (300000, "USD")
    assert inputs[("Lambda rental", "price")] == (3.99, "USD per GPU-hour")
    assert inputs[("scenario", "discount rate")] == (0.08, "fraction per year")
    be = book["Break-even"]
    assert [cell.value for cell in be[2]][:2] == ["Own 8x H100", "Lambda rental"]
    assert be["D2"].value == pytest.approx(result["break_even"][0]["utilization"], rel=1e-11)
    assert be["G2"].value == result["break_even"][0]["crossover_month"]
    assert be["C2"].value.startswith("=")


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
    result = evaluate(scenario_document(formula_scenario))

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
        assert [_number(cell) for cell in row[2:12]] == _close([option[key] for key in RESULT_KEYS])
    assert {row[13] for row in rows} == {"'=cmd|' /C calc'!A0"}


def test_excel_text_that_looks_like_a_formula_is_stored_as_text_not_as_a_formula(viewer_client, formula_scenario):
    book = load_workbook(io.BytesIO(_export(viewer_client, formula_scenario, "results.xlsx").content))

    names = [row[0].value for row in book["Break-even"].iter_rows(min_row=2)]
    assert set(names) <= {'\'=HYPERLINK("http://evil.example","click")', "'@SUM(A1:A9)", "'-2+3", "'+1 api"}
    cells = [cell for sheet in book for row in sheet.iter_rows() for cell in row if isinstance(cell.value, str)]
    formulas = [cell.value for cell in cells if cell.data_type == "f"]
    assert formulas and all(cell.data_type in ("s", "f") for cell in cells)
    hostile = ('HYPERLINK("http://evil.example"', "@SUM(A1:A9)", "-2+3", "+1 api")
    assert not any(text in formula for formula in formulas for text in hostile)  # names are plain identifiers
    inputs = {(row[0], row[2]): row[3] for row in book["Inputs in words"].iter_rows(min_row=2, values_only=True)}
    assert inputs[("'@SUM(A1:A9)", "price change")] == -0.1


def test_the_export_file_name_is_safe_whatever_the_scenario_is_called(viewer_client, formula_scenario):
    response = _export(viewer_client, formula_scenario, "options.csv")

    assert response["Content-Disposition"] == 'attachment; filename="cmd-C-calc-A0-options.csv"'


def test_anonymous_users_cannot_export_a_scenario(anon, scenario):
    response = _export(anon, scenario, "options.csv")

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_while_the_current_inputs_cannot_be_evaluated_only_a_confirmed_older_version_is_exported(
    editor, editor_client, scenario, django_capture_on_commit_callbacks
):
    evaluate_now = evaluate(scenario_document(scenario))
    with django_capture_on_commit_callbacks(execute=True):  # the version's run, computed as the embedded mode does
        run_queue(scenario=scenario)
    option_add(scenario=scenario, user=editor, expected_version=None, kind="neocloud")  # its price still blank
    scenario.refresh_from_db()
    current, older = scenario.version, scenario.version - 1
    url = reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"])

    for refused in (editor_client.get(url), editor_client.get(f"{url}?version={current}")):
        assert refused.status_code == 409 and "Content-Disposition" not in refused
        text = refused.content.decode()
        assert f"Version {current} cannot be evaluated" in text and "nothing was exported" in text
        assert "Neocloud rental → Price (USD per GPU-hour) is required" in text and "options[" not in text

    panel = editor_client.get(reverse("tco:decision_panel", args=[scenario.pk]), HTTP_HX_REQUEST="true")
    box = panel.content.decode().split('id="exports"', 1)[1].split("</div>", 1)[0]
    assert f"Version {current} cannot be computed" in box and f"numbers of version {older}" in box
    assert f"?version={current}" not in box  # the only links sit behind "Export version N's numbers anyway"
    links = box.split('<details id="exports-confirm">', 1)[1]
    assert f"<summary>Export version {older}'s numbers anyway</summary>" in links
    assert links.count(f"?version={older}") == 3 and f"CSV per option (version {older})" in links

    header, *rows = _rows(editor_client.get(f"{url}?version={older}"))
    assert header[-1] == "note" and f"changed since version {older} (now version {current})" in rows[0][-1]
    assert [_number(row[7]) for row in rows] == _close([option["npv"] for option in evaluate_now["options"]])
    assert {row[14] for row in rows} == {str(older)}


def test_an_export_with_nothing_to_export_is_a_plain_text_refusal_never_a_page(editor, editor_client):
    blank = scenario_create(user=editor, name="Blank")
    option_add(scenario=blank, user=editor, expected_version=None, kind="neocloud")

    for what in ("options.csv", "monthly.csv", "results.xlsx"):
        response = editor_client.get(reverse("tco:scenario_export_results", args=[blank.pk, what]))
        assert response.status_code == 409
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        assert "Content-Disposition" not in response
        text = response.content.decode()
        assert "Nothing was exported" in text and "Neocloud rental → Price (USD per GPU-hour) is required" in text
        assert "<" not in text and "options[" not in text


def test_an_export_names_the_version_on_the_page_and_an_earlier_one_says_inputs_changed(
    editor, editor_client, scenario, django_capture_on_commit_callbacks
):
    url = reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"])
    seen = scenario.version
    with django_capture_on_commit_callbacks(execute=True):
        run_queue(scenario=scenario)
    first = _rows(editor_client.get(f"{url}?version={seen}"))
    scenario_update_field(
        scenario=scenario, user=editor, field="discount_rate", value=Decimal("0.2"), expected_version=None
    )
    scenario.refresh_from_db()

    older = _rows(editor_client.get(f"{url}?version={seen}"))
    current = _rows(editor_client.get(f"{url}?version={scenario.version}"))

    assert [row[7] for row in older[1:]] == [row[7] for row in first[1:]]  # the numbers the user was looking at
    assert older[0][-1] == "note" and f"now version {scenario.version}" in older[1][-1]
    assert {row[14] for row in older[1:]} == {str(seen)}
    assert {row[14] for row in current[1:]} == {str(scenario.version)}
    assert [row[7] for row in current[1:]] != [row[7] for row in first[1:]]
    missing = editor_client.get(f"{url}?version={scenario.version + 5}")
    assert missing.status_code == 409 and "does not exist" in missing.content.decode()


def test_the_decision_page_exports_the_frozen_numbers_not_todays(editor, link_path, anon, scenario):
    frozen = json.loads(DecisionSnapshot.objects.get().content)
    scenario_update_field(
        scenario=scenario, user=editor, field="discount_rate", value=Decimal("0.2"), expected_version=None
    )

    header, *rows = _rows(anon.get(f"{link_path}/options.csv"))
    book = load_workbook(io.BytesIO(anon.get(f"{link_path}/results.xlsx").content))

    assert header == [*OPTION_HEADERS, *ABOUT_HEADERS, "note"]
    assert [_number(row[7]) for row in rows] == _close([option["npv"] for option in frozen["result"]["options"]])
    assert {row[14] for row in rows} == {str(frozen["scenario"]["version"])}
    assert {row[16] for row in rows} == {frozen["engine_version"]}
    assert book.sheetnames[:2] == ["Decision brief", "Summary"]
    assert book.sheetnames[-4:] == ["Monthly cost", "Inputs in words", "Prices", "About this file"]
    brief = dict(book["Decision brief"].iter_rows(min_row=2, values_only=True))
    assert brief["content hash (SHA-256)"] == DecisionSnapshot.objects.get().content_hash
    assert brief["Expected utilization"] == "open"
    prices = [row for row in book["Prices"].iter_rows(min_row=2, values_only=True)]
    assert prices[0][:3] == ("Lambda rental", "Neocloud", 3.99)
    assert "On demand" in prices[0] and "on_demand" not in prices[0]  # as the page writes it
    assert "2026-09-01" in prices[0] and "https://lambda.ai/pricing" in prices[0]


def test_with_nothing_to_export_the_panel_says_why_instead_of_offering_links(editor, editor_client):
    blank = scenario_create(user=editor, name="Blank")
    option_add(scenario=blank, user=editor, expected_version=None, kind="neocloud")

    html = editor_client.get(reverse("tco:decision_panel", args=[blank.pk])).content.decode()

    assert "Nothing to export yet" in html and "Neocloud rental → Price (USD per GPU-hour) is required" in html
    assert "export/options.csv" not in html


def test_the_panel_offers_exports_of_the_version_on_the_page(editor_client, scenario):
    html = editor_client.get(reverse("tco:decision_panel", args=[scenario.pk])).content.decode()
    assert f"export/options.csv?version={scenario.version}" in html
