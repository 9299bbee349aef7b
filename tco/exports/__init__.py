"""Results as spreadsheets: CSV per option and per month, and an Excel workbook (inputs, monthly cost, results).

Numbers are written as numbers, unrounded (the engine's values), with their unit in the column header. Text that
a spreadsheet would run as a formula (=, +, -, @ ...) is neutralised with a leading apostrophe, headers included,
because option names are typed by users.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from pricing.export import neutralise
from tco.exports.inputs import input_rows

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# Excel number formats by column style.
FORMATS = {"money": "#,##0.00", "unit_money": "#,##0.00####", "fraction": "0.0%", "number": "#,##0.##", "int": "0"}


@dataclass
class Table:
    """A header row, data rows and (for Excel) a style per column: money, unit_money, fraction, number, int, text."""

    headers: list[str]
    rows: list[list[Any]]
    styles: list[str] = field(default_factory=list)


def cell(value: Any) -> Any:
    """Numbers stay numbers; text is neutralised; None is an empty cell."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return value
    return neutralise(str(value))


def option_table(result: dict) -> Table:
    """One row per option: the engine's per-option results."""
    c = result.get("currency", "USD")
    months = result["horizon_months"]
    columns = [
        ("option", "name", "text"),
        ("kind", "kind", "text"),
        (f"annual cost ({c})", "annual_cost", "money"),
        (f"cost per busy GPU-hour ({c})", "cost_per_gpu_hour", "unit_money"),
        (f"cost per accepted response ({c})", "cost_per_accepted_response", "unit_money"),
        (f"cost per million accepted tokens ({c})", "cost_per_million_accepted_tokens", "unit_money"),
        (f"total cost over {months} months ({c})", "total_cost", "money"),
        (f"NPV ({c})", "npv", "money"),
        (f"resale value at horizon ({c})", "resale_value", "money"),
        (f"capital charge per year ({c})", "capital_charge_per_year", "money"),
        ("mean own utilization (fraction)", "mean_own_utilization", "fraction"),
        ("overflow over horizon (GPU-hours)", "overflow_gpu_hours", "number"),
    ]
    rows = [
        [option.get(key) for _, key, _ in columns] + [option["name"] == result["cheapest"]]
        for option in result["options"]
    ]
    return Table(
        headers=[header for header, _, _ in columns] + ["cheapest by NPV"],
        rows=rows,
        styles=[style for _, _, style in columns] + ["text"],
    )


def break_even_table(result: dict) -> Table:
    return Table(
        headers=["owned option", "rental option", "break-even utilization (fraction)", "crossover month"],
        rows=[
            [pair["owned"], pair["rental"], pair["utilization"], pair["crossover_month"]]
            for pair in result["break_even"]
        ],
        styles=["text", "text", "fraction", "int"],
    )


def monthly_table(document: dict, result: dict) -> Table:
    """One row per month: the forecast, each option's cash cost that month, then each option's cumulative cost."""
    c = result.get("currency", "USD")
    months = result["horizon_months"]
    utilization = list(document["utilization"])
    if len(utilization) == 1:
        utilization = utilization * months
    options = result["options"]
    headers = ["month", "utilization (fraction)"]
    headers += [f"{option['name']}: cost in month ({c})" for option in options]
    headers += [f"{option['name']}: cumulative cost ({c})" for option in options]
    rows = []
    for index in range(months):
        row: list[Any] = [index + 1, utilization[index]]
        row += [option["monthly_cost"][index] for option in options]
        row += [option["cumulative_cost"][index] for option in options]
        rows.append(row)
    return Table(headers=headers, rows=rows, styles=["int", "fraction"] + ["money"] * (2 * len(options)))


def inputs_table(document: dict) -> Table:
    """Every input of the document, one per row, with the option it belongs to and its unit."""
    rows = [[row["applies_to"], row["kind"], row["label"], row["value"], row["unit"]] for row in input_rows(document)]
    return Table(headers=["applies to", "kind", "input", "value", "unit"], rows=rows, styles=["text"] * 5)


def prices_table(prices: list[dict]) -> Table:
    """The prices a decision rests on, with provider, as-of date and source."""
    currency = prices[0]["currency"] if prices else "USD"
    headers = [
        "option",
        "kind",
        f"price ({currency})",
        "per",
        "origin",
        "provider",
        "offering",
        "GPU model",
        "region",
        "pricing term",
        "as of",
        "source URL",
    ]
    keys = ["option", "kind", "price", "quantity", "origin", "provider", "offering", "gpu_model", "region"]
    rows = [
        [entry.get(key) for key in keys]
        + [entry.get("pricing_term"), entry.get("observed_on"), entry.get("source_url")]
        for entry in prices
    ]
    return Table(headers=headers, rows=rows, styles=["text", "text", "unit_money"] + ["text"] * 9)


def csv_text(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([cell(header) for header in table.headers])
    for row in table.rows:
        writer.writerow(["" if (value := cell(item)) is None else _csv_number(value) for item in row])
    return out.getvalue()


def _csv_number(value: Any) -> Any:
    """Floats as their shortest exact text (repr), so a re-read gives the engine's value back."""
    return repr(value) if isinstance(value, float) else value


def workbook(sheets: list[tuple[str, Table]]) -> bytes:
    """An .xlsx file with one sheet per table: bold frozen header, number formats by column, sensible widths."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    book.remove(book.active)
    for title, table in sheets:
        sheet = book.create_sheet(title=title[:31])
        sheet.append([cell(header) for header in table.headers])
        for header_cell in sheet[1]:
            header_cell.font = Font(bold=True)
            header_cell.alignment = Alignment(wrap_text=True, vertical="top")
        for row in table.rows:
            sheet.append([cell(item) for item in row])
        sheet.freeze_panes = "A2"
        for index, header in enumerate(table.headers, start=1):
            style = table.styles[index - 1] if index - 1 < len(table.styles) else "text"
            letter = get_column_letter(index)
            if style in FORMATS:
                for (data_cell,) in sheet.iter_rows(min_row=2, min_col=index, max_col=index):
                    if isinstance(data_cell.value, int | float):
                        data_cell.number_format = FORMATS[style]
            longest = max(
                [len(str(header))]
                + [len(str(row[index - 1])) for row in table.rows[:200] if row[index - 1] is not None]
            )
            sheet.column_dimensions[letter].width = min(max(10, longest + 2), 48 if style == "text" else 22)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def results_workbook(
    document: dict, result: dict, *, prices: list[dict] | None = None, brief: Table | None = None
) -> bytes:
    """Results, break-even, monthly cost and inputs sheets; a decision adds its prices and brief."""
    sheets = []
    if brief is not None:
        sheets.append(("Decision brief", brief))
    sheets += [
        ("Results", option_table(result)),
        ("Break-even", break_even_table(result)),
        ("Monthly cost", monthly_table(document, result)),
        ("Inputs", inputs_table(document)),
    ]
    if prices is not None:
        sheets.append(("Prices", prices_table(prices)))
    return workbook(sheets)


def export_filename(name: str, suffix: str) -> str:
    """A file name safe in a Content-Disposition header: letters, digits, - and _ only."""
    stem = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "-" for ch in name)
    stem = "-".join(part for part in stem.split("-") if part)[:60] or "scenario"
    return f"{stem}-{suffix}"


def brief_table(data: dict, content_hash: str) -> Table:
    """A frozen decision in words: the question, the decision, the seven answers, and how to verify the numbers."""
    decision = data["decision"]
    brief = data["brief"]
    rows: list[list[Any]] = [
        ["scenario", data["scenario"]["name"]],
        ["question", brief["question"]],
        ["decision status", decision["status"]],
    ]
    if decision["status"] != "open":
        rows += [
            ["decided option" if decision["status"] == "decided" else "previously decided option", decision["option"]],
            ["rationale" if decision["status"] == "decided" else "reason for re-opening", decision["rationale"]],
            ["recorded by", decision["by"]],
            ["recorded at", decision["at"]],
        ]
    rows.append(["workload brief", brief["workload_brief"] or "open"])
    rows += [[question["label"], question["answer"] or "open"] for question in brief["questions"]]
    rows += [
        ["frozen at", data["frozen_at"]],
        ["scenario version", data["scenario"]["version"]],
        ["engine version", data["engine_version"]],
        ["content hash (SHA-256)", content_hash],
    ]
    return Table(headers=["item", "value"], rows=rows, styles=["text", "text"])
