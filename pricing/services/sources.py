"""Scheduled imports: sources kept in the database, run by Celery beat or `manage.py run_scheduled_imports`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from pricing import fetch
from pricing.models import ImportSource, PriceSnapshot, SnapshotOrigin
from pricing.services.catalogs import price_catalog_import
from pricing.services.snapshots import price_snapshot_create, price_snapshot_fail, price_snapshot_import


def import_source_run(*, source: ImportSource) -> list[PriceSnapshot]:
    """Fetch and import one scheduled source (a file, or a catalog tree: one snapshot per provider).
    A fetch that fails is recorded as a failed snapshot."""
    base = Path(settings.PRICE_IMPORT_DIR)
    if fetch.is_catalog_tree(source.location, relative_to=base):
        try:
            snapshots = price_catalog_import(
                location=source.location,
                origin=SnapshotOrigin.SCHEDULE,
                source=f"schedule: {source.name}",
                relative_to=base,
                within=base,
            )
        except fetch.FetchError as exc:
            snapshots = [_failed(source, str(exc))]
        if snapshots:
            ImportSource.objects.filter(pk=source.pk).update(last_snapshot=snapshots[-1])
        return snapshots
    options = {
        "origin": SnapshotOrigin.SCHEDULE,
        "source": f"schedule: {source.name}",
        "format": source.format,
        "provider_name": source.provider.name if source.provider_id else "",
    }
    try:
        fetched = fetch.read_location(source.location, relative_to=base, within=base)
    except fetch.FetchError as exc:
        snapshot = _failed(source, str(exc), **options)
    else:
        snapshot = price_snapshot_import(
            content=fetched.content, file_name=fetched.file_name, url=fetched.url, **options
        )
    ImportSource.objects.filter(pk=source.pk).update(last_snapshot=snapshot)
    return [snapshot]


def _failed(import_source: ImportSource, reason: str, **options) -> PriceSnapshot:
    options.setdefault("origin", SnapshotOrigin.SCHEDULE)
    options.setdefault("source", f"schedule: {import_source.name}")
    snapshot = price_snapshot_create(content=b"", file_name=import_source.location, **options)
    price_snapshot_fail(snapshot_id=snapshot.pk, reason=reason)
    snapshot.refresh_from_db()
    return snapshot


def import_sources_run_due(*, force: bool = False) -> list[PriceSnapshot]:
    """Run every enabled source whose cadence has elapsed. Each source is claimed with a conditional
    update of `last_run_at`, so two schedulers running at once never import the same source twice."""
    now = timezone.now()
    snapshots = []
    for source in ImportSource.objects.filter(enabled=True).select_related("provider"):
        due = source.last_run_at is None or source.last_run_at + timedelta(hours=source.cadence_hours) <= now
        if not (due or force):
            continue
        claimed = ImportSource.objects.filter(pk=source.pk, last_run_at=source.last_run_at)
        if source.last_run_at is None:
            claimed = ImportSource.objects.filter(pk=source.pk, last_run_at__isnull=True)
        if claimed.update(last_run_at=now):
            snapshots.extend(import_source_run(source=source))
    return snapshots
