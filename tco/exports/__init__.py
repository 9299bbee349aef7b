"""Results as spreadsheets: CSV per option and per month, and an Excel workbook whose every result is a live formula.

The tables are in ``tco.exports.tables``, the inputs in words in ``tco.presentation.inputs``, the live model in
``tco.exports.model_workbook``, the files in
``tco.exports.files``; this package only names what callers use.

Numbers are written as numbers, unrounded (the engine's values), with their unit in the column header. Text that
a spreadsheet would run as a formula (=, +, -, @ ...) is neutralised with a leading apostrophe, headers included,
because option names are typed by users.
"""

from __future__ import annotations

from tco.exports.files import (
    CSV_CONTENT_TYPE,
    EXPORTS,
    XLSX_CONTENT_TYPE,
    csv_text,
    export_file,
    export_filename,
    results_workbook,
    workbook,
)
from tco.exports.tables import (
    Table,
    brief_table,
    cell,
    inputs_table,
    monthly_table,
    option_table,
    prices_table,
)
from tco.exports.uncertainty import simulation_table, tornado_table

__all__ = [
    "CSV_CONTENT_TYPE",
    "EXPORTS",
    "XLSX_CONTENT_TYPE",
    "Table",
    "brief_table",
    "cell",
    "csv_text",
    "export_file",
    "export_filename",
    "inputs_table",
    "monthly_table",
    "option_table",
    "prices_table",
    "results_workbook",
    "simulation_table",
    "tornado_table",
    "workbook",
]
