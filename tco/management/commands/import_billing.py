"""Import a FOCUS billing export (CSV, gzipped CSV, Parquet) or owned costs: `manage.py import_billing PATH`."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tco.services.actuals import BILLING_KINDS, ActualsImportError, actuals_import_path


class Command(BaseCommand):
    help = "Import a FOCUS 1.0-1.2 billing export or an owned-costs CSV (docs/import-formats.md); all or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options) -> None:
        if not path.is_file():
            raise CommandError(f"{path}: no such file.")
        try:
            outcome = actuals_import_path(path=path, expect=BILLING_KINDS)
        except ActualsImportError as error:
            raise CommandError("\n".join(error.messages)) from None
        record = outcome.record
        if not outcome.created:
            self.stdout.write(
                f"{path.name}: already imported on {record.imported_at:%Y-%m-%d} (import {record.pk}); nothing added."
            )
            return
        self.stdout.write(
            f"{path.name}: {record.get_kind_display()}, {record.rows_read:,} rows read into {record.lines_kept:,} "
            f"billing lines (import {record.pk})."
        )
