"""Import exchange rates: `manage.py import_fx_rates PATH_OR_URL [--source NAME]` (the ECB reference-rate layout)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing import fetch
from pricing.services.fx import ECB_SOURCE, exchange_rates_import


class Command(BaseCommand):
    help = "Import dated exchange rates from a CSV in the ECB reference-rate layout (Date,USD,JPY,...; X per 1 EUR)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("location", metavar="PATH_OR_URL")
        parser.add_argument("--source", default=ECB_SOURCE, help=f"Who published the rates (default: {ECB_SOURCE}).")

    def handle(self, *args, location: str, source: str, **options) -> None:
        try:
            fetched = fetch.read_location(location)
        except fetch.FetchError as exc:
            raise CommandError(str(exc)) from None
        outcome = exchange_rates_import(
            content=fetched.content, source=source, imported_from=fetched.url or fetched.file_name
        )
        if outcome.errors:
            for error in outcome.errors:
                self.stderr.write(str(error))
            raise CommandError(f"{location}: {outcome.summary}")
        self.stdout.write(f"{location}: {outcome.summary}")
