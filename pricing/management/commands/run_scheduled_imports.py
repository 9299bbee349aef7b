"""Run the scheduled price and throughput imports that are due (embedded mode: call it from cron; scale-out uses
Celery beat)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from pricing import services
from pricing.models import SnapshotStatus, ThroughputImportStatus


class Command(BaseCommand):
    help = (
        "Import every enabled ImportSource and ThroughputSource whose cadence has elapsed "
        "(--all: every enabled source now)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", dest="force", help="Ignore the cadence.")

    def handle(self, *args, force: bool, **options) -> None:
        snapshots = services.import_sources_run_due(force=force)
        for snapshot in snapshots:
            stream = self.stderr if snapshot.status in (SnapshotStatus.REJECTED, SnapshotStatus.FAILED) else self.stdout
            stream.write(f"{snapshot.source}: snapshot #{snapshot.pk} {snapshot.status}: {snapshot.summary}")
        imports = services.throughput_sources_run_due(force=force)
        for record in imports:
            failed = record.status in (ThroughputImportStatus.REJECTED, ThroughputImportStatus.FAILED)
            stream = self.stderr if failed else self.stdout
            stream.write(f"{record.file_name}: throughput import #{record.pk} {record.status}: {record.summary}")
        if not snapshots and not imports:
            self.stdout.write("No scheduled import is due.")
