"""Import GPU use: `manage.py import_utilization PATH [--month YYYY-MM] [--currency USD]`."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tco.services.actuals import USE_KINDS, ActualsImportError, actuals_import_path


class Command(BaseCommand):
    help = (
        "Import GPU use: a DCGM exporter scrape, a Prometheus query result (JSON) or an OpenCost allocation response "
        "(docs/import-formats.md). A malformed metric line of a scrape is reported, not fatal."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--month", help="YYYY-MM a DCGM scrape without timestamps stands for.")
        parser.add_argument("--currency", default="USD", help="The currency of OpenCost's costs (default USD).")

    def handle(self, *args, path: Path, month: str | None, currency: str, **options) -> None:
        if not path.is_file():
            raise CommandError(f"{path}: no such file.")
        try:
            outcome = actuals_import_path(path=path, expect=USE_KINDS, month=month, currency=currency.upper())
        except ActualsImportError as error:
            raise CommandError("\n".join(error.messages)) from None
        record = outcome.record
        if not outcome.created:
            self.stdout.write(f"{path.name}: already imported (import {record.pk}); nothing added.")
            return
        self.stdout.write(
            f"{path.name}: {record.get_kind_display()}, {record.rows_read:,} readings into {record.lines_kept:,} "
            f"GPU-months (import {record.pk})."
        )
        for problem in record.problems:
            self.stderr.write(f"skipped: {problem}")
