"""Import a whole SkyPilot catalog tree: `manage.py import_catalog DIR_OR_URL [--observed-on YYYY-MM-DD]`."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing import fetch, services
from pricing.management.commands.import_prices import _date, _error_line
from pricing.models import SnapshotStatus

MAX_ERRORS_SHOWN = 5


class Command(BaseCommand):
    help = (
        "Import <cloud>/vms.csv of every cloud in a SkyPilot catalog tree (a folder, or an https URL ending in /), "
        "one snapshot per provider; the cloud names the provider. A failure in one file does not stop the others."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("location", metavar="DIR_OR_URL")
        parser.add_argument("--observed-on", default="", help="Date (YYYY-MM-DD) the prices were seen; default today.")

    def handle(self, *args, location: str, observed_on: str, **options) -> None:
        observed = _date(observed_on) if observed_on else None
        try:
            snapshots = services.price_catalog_import(location=location, observed_on=observed)
        except fetch.FetchError as exc:
            raise CommandError(str(exc)) from None
        if not snapshots:
            raise CommandError(f"{location}: no <cloud>/vms.csv found; is this a SkyPilot catalog tree?")
        failed = 0
        for snapshot in snapshots:
            line = f"{snapshot.provider_name}: snapshot #{snapshot.pk} {snapshot.status}: {snapshot.summary}"
            if snapshot.status in (SnapshotStatus.REJECTED, SnapshotStatus.FAILED):
                failed += 1
                self.stderr.write(line)
                for error in snapshot.errors[:MAX_ERRORS_SHOWN]:
                    self.stderr.write("  " + _error_line(error))
                if len(snapshot.errors) > MAX_ERRORS_SHOWN:
                    self.stderr.write(f"  … and {len(snapshot.errors) - MAX_ERRORS_SHOWN} more on the snapshot page")
            else:
                self.stdout.write(line)
        if failed:
            raise CommandError(f"{failed} of {len(snapshots)} provider files were not imported; the others were.")
