"""Write prices in the canonical CSV format, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import TextIO

from pricing.importers import CANONICAL_COLUMNS

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> str:
    """A cell as text; text a spreadsheet would run as a formula gets a leading apostrophe.

    Numbers and dates are written as they are, so they stay numbers (a price is never negative).
    """
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, int | date):
        return str(value)
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def write_canonical_csv(rows: Iterable[tuple], out: TextIO) -> int:
    """Write the header and `rows` (values in CANONICAL_COLUMNS order); returns the number of rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CANONICAL_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow([neutralise(value) for value in row])
        count += 1
    return count
