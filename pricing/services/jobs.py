"""Sending uploaded files' import jobs to the workers, and unsticking imports whose job was lost."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from config.jobs import SweepResult, hard_time_limit, resend_before, send_job, stuck_before
from pricing.models import PriceSnapshot, SnapshotOrigin, SnapshotStatus

IMPORT_TASK = "pricing.tasks.import_snapshot"


def price_snapshot_send(*, snapshot_id: int) -> bool:
    """Hand an upload's import to the workers; when the broker is unreachable, mark it unsent (False)."""
    from pricing.tasks import import_snapshot

    if send_job(import_snapshot, snapshot_id):
        return True
    PriceSnapshot.objects.filter(pk=snapshot_id, status=SnapshotStatus.PENDING).update(sent_at=None)
    return False


def interrupted_reason() -> str:
    return (
        f"the import was interrupted: its worker stopped, or it ran past its {hard_time_limit(IMPORT_TASK)} s "
        "limit. Nothing from this file was imported; upload it again."
    )


def price_snapshots_sweep(*, snapshot: PriceSnapshot | None = None) -> SweepResult:
    """Unstick imports (all, or one snapshot's: what its page does while it polls).

    An import still running past its hard time limit has lost its worker (a file is stored all or nothing,
    so nothing of it was kept): it fails with a reason the user sees. An upload whose job could not be sent,
    or was sent long ago (lost with a Redis restart), is sent again; the task's conditional claim makes a
    duplicate harmless. Pending snapshots of other origins were never sent (their import runs in-process),
    so one pending past its limit lost its process and fails too.
    """
    now = timezone.now()
    snapshots = PriceSnapshot.objects.all() if snapshot is None else PriceSnapshot.objects.filter(pk=snapshot.pk)
    error = [{"line": 0, "column": "", "value": "", "reason": interrupted_reason()}]
    stuck = stuck_before(IMPORT_TASK, now)
    failed = snapshots.filter(
        Q(status=SnapshotStatus.RUNNING, started_at__lt=stuck)
        | Q(status=SnapshotStatus.RUNNING, started_at__isnull=True, created_at__lt=stuck)
        | (Q(status=SnapshotStatus.PENDING, created_at__lt=stuck) & ~Q(origin=SnapshotOrigin.UPLOAD))
    ).update(status=SnapshotStatus.FAILED, errors=error, finished_at=now)
    due = Q(sent_at__isnull=True) | Q(sent_at__lt=resend_before(now))
    pending = snapshots.filter(due, status=SnapshotStatus.PENDING, origin=SnapshotOrigin.UPLOAD)
    result = SweepResult(failed=failed)
    for snapshot_id in list(pending.order_by("id").values_list("id", flat=True)):
        if not PriceSnapshot.objects.filter(due, pk=snapshot_id, status=SnapshotStatus.PENDING).update(sent_at=now):
            continue  # another sweeper took it
        if price_snapshot_send(snapshot_id=snapshot_id):
            result.resent += 1
        else:
            result.unsent += 1
    return result
