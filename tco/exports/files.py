"""Export tables as files: CSV text, an Excel workbook, and a safe file name."""

from __future__ import annotations

import csv
import io
import math
from decimal import Decimal
from typing import Any

from tco.exports.finance import has_finance
from tco.exports.model_workbook import add_model_sheets
from tco.exports.tables import (
    Table,
    break_even_table,
    cell,
    finance_results_table,
    finance_schedule_table,
    finance_words_table,
    inputs_table,
    monthly_table,
    option_table,
    prices_table,
)
from tco.exports.uncertainty import simulation_table, tornado_table

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Excel number formats by column style.
FORMATS = {"money": "#,##0.00", "unit_money": "#,##0.00####", "fraction": "0.0%", "number": "#,##0.##", "int": "0"}


def csv_text(table: Table, about: list[tuple[str, str]] | None = None) -> str:
    """The table as CSV; ``about`` (scenario, version, computed-at time, engine version) adds a column each."""
    about = about or []
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([cell(header) for header in table.headers] + [cell(key) for key, _ in about])
    stated = [cell(value) for _, value in about]
    for row in table.rows:
        writer.writerow(["" if (value := cell(item)) is None else _csv_number(value) for item in row] + stated)
    return out.getvalue()


# Significant digits a number keeps in a file: the engine's float 11.059999999999999 is written 11.06, while
# any figure a person typed or the engine meant (at most 15 significant digits) survives unchanged.
FILE_DIGITS = 12


def file_number(value: Any) -> Any:
    """A float without binary noise (12 significant digits); other values unchanged."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{FILE_DIGITS}g}")
    return value


def _csv_number(value: Any) -> Any:
    """Floats as the shortest text of their 12-significant-digit value: 11.06, not 11.059999999999999; written out
    in full, never in e-notation (a cost per response of 0.0000493933885432, not 4.93933885432e-05)."""
    if not isinstance(value, float):
        return value
    text = repr(file_number(value))
    return format(Decimal(text), "f") if "e" in text and math.isfinite(value) else text


def workbook(sheets: list[tuple[str, Table]], *, model: tuple[dict, dict] | None = None, model_after: int = 0) -> bytes:
    """An .xlsx file with one sheet per table: bold frozen header, number formats by column, sensible widths.
    ``model`` (a document and its result) adds the live model's sheets (``tco.exports.model_workbook``) after the
    first ``model_after`` tables."""
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
            sheet.append([file_number(cell(item)) for item in row])
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
    if model is not None:
        tables = book._sheets[:]
        add_model_sheets(book, *model)
        added = book._sheets[len(tables) :]
        book._sheets = [*tables[:model_after], *added, *tables[model_after:]]
        book.active = 0
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def results_workbook(
    document: dict,
    result: dict,
    *,
    prices: list[dict] | None = None,
    brief: Table | None = None,
    uncertainty: dict | None = None,
    about: list[tuple[str, str]] | None = None,
    conversions: list[tuple[str, str]] | None = None,
) -> bytes:
    """The live model (a Summary of every result as a formula beside the app's value, break-even, named inputs,
    the forecast and a ledger per option: ``tco.exports.model_workbook``), then the app's monthly cost and the
    inputs in words, and with the finance depth its results, after-tax break-even, schedules and answers in words;
    a decision adds its brief (first) and prices; a current simulation run
    (``tco.selectors.uncertainty.run_data``) its summary and tornado rows; ``about`` (scenario, version,
    computed-at time, engine version) is the last sheet, "About this file", followed there by the currency
    ``conversions`` the money inputs went through (``tco.presentation.currency.conversion_about``)."""
    sheets = []
    if brief is not None:
        sheets.append(("Decision brief", brief))
    sheets += [
        ("Monthly cost", monthly_table(document, result)),
        ("Inputs in words", inputs_table(document)),
    ]
    if has_finance(result):
        sheets += [
            ("Finance results", finance_results_table(result)),
            ("Break-even after tax", break_even_table(result)),
            ("Finance schedules", finance_schedule_table(result)),
            ("Finance in words", finance_words_table(document, result)),
        ]
    if prices is not None:
        sheets.append(("Prices", prices_table(prices)))
    if uncertainty is not None:
        sheets += [("Simulation", simulation_table(uncertainty)), ("Tornado", tornado_table(uncertainty))]
    about = [*(about or []), *(conversions or [])]
    if about:
        sheets.append(("About this file", Table(headers=["", ""], rows=[list(row) for row in about])))
    return workbook(sheets, model=(document, result), model_after=1 if brief is not None else 0)


def export_filename(name: str, suffix: str) -> str:
    """A file name safe in a Content-Disposition header: letters, digits, - and _ only."""
    stem = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "-" for ch in name)
    stem = "-".join(part for part in stem.split("-") if part)[:60] or "scenario"
    return f"{stem}-{suffix}"


# Every export of a scenario's numbers, by file name (the pages' links and the API's paths name them the same).
EXPORTS = ("options.csv", "monthly.csv", "results.xlsx", "simulation.csv", "tornado.csv")
UNCERTAINTY_EXPORTS = {"simulation.csv": simulation_table, "tornado.csv": tornado_table}


def export_file(
    document: dict,
    result: dict,
    name: str,
    what: str,
    *,
    about: list[tuple[str, str]],
    uncertainty: dict | None = None,
    **extra,
) -> tuple[str | bytes, str, str] | None:
    """One of the EXPORTS of a document and its result (and of its current simulation, ``uncertainty``) as
    (content, file name, content type); None for a simulation table when there is no simulation yet.

    ``about`` (scenario, version, computed-at time, engine version) is stated in every file."""
    if what not in EXPORTS:
        raise ValueError(f"{what!r} is not an export; choose one of {', '.join(EXPORTS)}")
    filename = export_filename(name, what)
    if what in UNCERTAINTY_EXPORTS:
        if uncertainty is None:
            return None
        return csv_text(UNCERTAINTY_EXPORTS[what](uncertainty), about), filename, CSV_CONTENT_TYPE
    if what == "options.csv":
        return csv_text(option_table(result), about), filename, CSV_CONTENT_TYPE
    if what == "monthly.csv":
        return csv_text(monthly_table(document, result), about), filename, CSV_CONTENT_TYPE
    content = results_workbook(document, result, about=about, uncertainty=uncertainty, **extra)
    return content, filename, XLSX_CONTENT_TYPE
