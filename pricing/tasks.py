"""Celery jobs of the pricing app. They take ids, claim their row, and call a service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import OperationalError
from django.utils import timezone

from config.jobs import soft_time_limit
from pricing import services
from pricing.models import PriceImportFile, PriceSnapshot, SnapshotStatus

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="pricing.tasks.import_snapshot", max_retries=3)
def import_snapshot(self, snapshot_id: int) -> str:
    """Import an uploaded file. Claims the snapshot pending → running; 0 rows claimed = someone else has it.
    Runs on the `imports` queue with the import time limits (settings); the sweeper fails a claimed
    snapshot whose worker died."""
    claimed = PriceSnapshot.objects.filter(pk=snapshot_id, status=SnapshotStatus.PENDING).update(
        status=SnapshotStatus.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "not pending"
    try:
        snapshot = PriceSnapshot.objects.get(pk=snapshot_id)
        content = bytes(PriceImportFile.objects.values_list("content", flat=True).get(snapshot_id=snapshot_id))
        services.price_snapshot_run(snapshot=snapshot, content=content)
    except OperationalError as exc:  # the database went away for a moment: try again later
        if self.request.retries >= self.max_retries:
            services.price_snapshot_fail(snapshot_id=snapshot_id, reason=f"database unavailable: {exc}")
            return "failed"
        PriceSnapshot.objects.filter(pk=snapshot_id, status=SnapshotStatus.RUNNING).update(
            status=SnapshotStatus.PENDING
        )
        raise self.retry(exc=exc, countdown=10) from exc
    except SoftTimeLimitExceeded:
        limit = soft_time_limit(self.name)
        services.price_snapshot_fail(
            snapshot_id=snapshot_id,
            reason=f"the import took longer than its {limit} s limit and was stopped; the file was not imported.",
        )
        return "failed"
    except Exception as exc:
        logger.exception("price import of snapshot %s crashed", snapshot_id)
        services.price_snapshot_fail(
            snapshot_id=snapshot_id,
            reason=f"the import crashed ({type(exc).__name__}); "
            "the file was not imported. Report this with the snapshot number.",
        )
        return "failed"
    return "done"


@shared_task(name="pricing.tasks.run_due_imports")
def run_due_imports() -> list[int]:
    """Run the scheduled import sources whose cadence has elapsed (Celery beat calls this)."""
    return [snapshot.pk for snapshot in services.import_sources_run_due()]
