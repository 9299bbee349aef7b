"""Celery jobs of the pricing app. They take ids and run their job (lib.jobs.run_claimed), which calls a service."""

from __future__ import annotations

from celery import shared_task

from lib.jobs import run_claimed
from pricing import services
from pricing.models import PriceImportFile, PriceSnapshot, ThroughputImport


def _import(snapshot: PriceSnapshot) -> None:
    content = PriceImportFile.objects.filter(snapshot_id=snapshot.pk).values_list("content", flat=True).first()
    if content is None:  # not an upload: a command or schedule whose process ended before it claimed the import
        snapshot.fail(f"The import stopped before it read the file: its process ended. {PriceSnapshot.kept}")
        return
    services.price_snapshot_run(snapshot=snapshot, content=bytes(content))


@shared_task(bind=True, name="pricing.tasks.import_snapshot", max_retries=3)
def import_snapshot(self, snapshot_id: int) -> str:
    """Import an uploaded file. Runs on the `imports` queue with the import time limits (settings)."""
    return run_claimed(self, PriceSnapshot, snapshot_id, _import)


@shared_task(name="pricing.tasks.run_due_imports")
def run_due_imports() -> list[int]:
    """Run the scheduled price and throughput sources whose cadence has elapsed (Celery beat calls this); returns
    the price snapshots' ids (the throughput imports are on their sources' rows)."""
    snapshots = services.import_sources_run_due()
    services.throughput_sources_run_due()
    return [snapshot.pk for snapshot in snapshots]


def _import_throughput(record: ThroughputImport) -> None:
    content = ThroughputImport.objects.filter(pk=record.pk).values_list("content", flat=True).first()
    if content is None:  # not an upload: a command whose process ended before it claimed the import
        record.fail(f"The import stopped before it read the file: its process ended. {ThroughputImport.kept}")
        return
    services.throughput_import_run(record=record, content=bytes(content))


@shared_task(bind=True, name="pricing.tasks.import_throughput", max_retries=3)
def import_throughput(self, import_id: int) -> str:
    """Import an uploaded throughput file. Runs on the `imports` queue with the import time limits (settings)."""
    return run_claimed(self, ThroughputImport, import_id, _import_throughput)
