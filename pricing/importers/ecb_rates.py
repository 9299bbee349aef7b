"""Pure parser of exchange-rate files in the ECB reference-rate layout: text in, dated EUR → X rates out.

``Date,USD,JPY,...`` then one row per day; each value is units of that currency per 1 EUR. Both ECB files
parse: the history (``eurofxref-hist.csv``: ISO dates, a trailing empty column, "N/A" where a currency was
not quoted) and the daily file (``eurofxref.csv``: "28 November 2026", spaces after the commas). Blank and
"N/A" cells are skipped; anything else that is not a positive number, an unknown currency column, a bad or
repeated date is an error naming its line and column.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from lib.currencies import currency_problem
from pricing.importers.base import RowError

BASE = "EUR"
MISSING = {"", "N/A", "NA", "-"}


@dataclass(frozen=True)
class RateRow:
    line: int
    quote: str
    rate_date: date
    rate: Decimal


@dataclass
class RatesFile:
    rows: list[RateRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    blank_cells: int = 0


def _date(text: str) -> date:
    for parse in (date.fromisoformat, lambda value: datetime.strptime(value, "%d %B %Y").date()):
        try:
            return parse(text)
        except ValueError:
            continue
    raise ValueError(text)


def parse_ecb_rates(text: str) -> RatesFile:
    result = RatesFile()
    reader = csv.reader(io.StringIO(text))
    header = [cell.strip() for cell in next(reader, [])]
    if not header or header[0].lower() != "date":
        result.errors.append(
            RowError(1, "", header[0] if header else "", "the first column must be Date (the ECB layout)")
        )
        return result
    columns: list[tuple[int, str]] = []
    for index, name in enumerate(header[1:], start=1):
        if not name:
            continue  # the ECB history ends every line with a comma
        problem = currency_problem(name)
        if problem or name.upper() == BASE:
            result.errors.append(RowError(1, name, name, problem or "rates are per 1 EUR; EUR needs no column"))
        else:
            columns.append((index, name.upper()))
    seen: set[date] = set()
    for line, cells in enumerate(reader, start=2):
        cells = [cell.strip() for cell in cells]
        if not any(cells):
            continue
        try:
            day = _date(cells[0])
        except ValueError:
            result.errors.append(RowError(line, "Date", cells[0], "not a date; use YYYY-MM-DD"))
            continue
        if day in seen:
            result.errors.append(RowError(line, "Date", cells[0], "this date appears on an earlier line"))
            continue
        seen.add(day)
        for index, code in columns:
            raw = cells[index] if index < len(cells) else ""
            if raw.upper() in MISSING:
                result.blank_cells += 1
                continue
            try:
                rate = Decimal(raw)
            except InvalidOperation:
                rate = Decimal(-1)
            if not rate.is_finite() or rate <= 0 or rate >= Decimal(10) ** 13:
                result.errors.append(RowError(line, code, raw, f"not a rate; expected {code} per 1 EUR, such as 1.08"))
                continue
            result.rows.append(RateRow(line, code, day, rate))
    if not result.rows and not result.errors:
        result.errors.append(RowError(0, "", "", "no rates: the file has a header but no dated rows"))
    return result
