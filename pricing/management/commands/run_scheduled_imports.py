"""Run the scheduled price imports that are due (embedded mode: call it from cron; scale-out uses Celery beat)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from pricing import services
from pricing.models import SnapshotStatus


class Command(BaseCommand):
    help = "Import every enabled ImportSource whose cadence has elapsed (--all: every enabled source now)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", dest="force", help="Ignore the cadence.")

    def handle(self, *args, force: bool, **options) -> None:
        snapshots = services.import_sources_run_due(force=force)
        for snapshot in snapshots:
            stream = self.stderr if snapshot.status in (SnapshotStatus.REJECTED, SnapshotStatus.FAILED) else self.stdout
            stream.write(f"{snapshot.source}: snapshot #{snapshot.pk} {snapshot.status}: {snapshot.summary}")
        if not snapshots:
            self.stdout.write("No scheduled import is due.")
