"""Write prices in the canonical CSV format, and measured throughput as CSV, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import TextIO

from pricing.importers import CANONICAL_COLUMNS
from pricing.importers.throughput import THROUGHPUT_COLUMNS

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

# The downloadable template of the canonical file (Market -> Import prices): one offering priced per GPU-hour, one
# priced per instance-hour (the other price left blank), both ready to import against the reference data.
TEMPLATE_ROWS = (
    (
        "Lambda",
        "neocloud",
        "H100 SXM",
        8,
        "gpu_8x_h100_sxm5",
        "us-east-1",
        "on_demand",
        None,
        Decimal("2.99"),
        "USD",
        date(2026, 11, 1),
        "https://lambda.ai/pricing",
        None,
        None,
        None,
    ),
    (
        "AWS",
        "hyperscaler",
        "H100 SXM",
        8,
        "p5.48xlarge",
        "us-east-1",
        "on_demand",
        Decimal("55.04"),
        None,
        "USD",
        date(2026, 11, 1),
        "https://aws.amazon.com/ec2/pricing/on-demand/",
        None,
        None,
        None,
    ),
)


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


def write_canonical_template(out: TextIO) -> int:
    """The canonical header with two example rows, for a user to fill in."""
    return write_canonical_csv(TEMPLATE_ROWS, out)


def write_throughput_csv(rows: Iterable[tuple], out: TextIO) -> int:
    """Write the header and `rows` (values in THROUGHPUT_COLUMNS order); returns the number of rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(THROUGHPUT_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow([neutralise(value) for value in row])
        count += 1
    return count
