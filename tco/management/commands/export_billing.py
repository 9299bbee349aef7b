"""Write one month's bills as CSV on stdout: `manage.py export_billing --month YYYY-MM`."""

from __future__ import annotations

import csv
import re

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tco.selectors.actuals import billing_export_rows

COLUMNS = ("provider", "service", "sku", "billed_cost", "effective_cost", "currency", "gpu_hours")


class Command(BaseCommand):
    help = (
        "One row per provider, service and SKU (and currency) of the month, read from ChargePeriodStart: "
        + ", ".join(COLUMNS)
        + ". The CSV alone on stdout."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", required=True, help="YYYY-MM")

    def handle(self, *args, month: str, **options) -> None:
        if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", month):
            raise CommandError(f"--month {month!r}: write the month as YYYY-MM.")
        writer = csv.writer(_Lines(self.stdout), lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in billing_export_rows(month):
            writer.writerow(
                [
                    row["provider"],
                    row["service"],
                    row["sku"],
                    _plain(row["billed"]),
                    _plain(row["effective"]),
                    row["currency"],
                    repr(round(row["hours"] or 0.0, 6)),
                ]
            )


def _plain(value) -> str:
    return format(value.normalize(), "f") if value else "0"


class _Lines:
    def __init__(self, out) -> None:
        self.out = out

    def write(self, text: str) -> None:
        self.out.write(text, ending="")
