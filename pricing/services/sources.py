"""Scheduled imports: sources kept in the database, run by Celery beat or `manage.py run_scheduled_imports`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from pricing import fetch
from pricing.importers import registry
from pricing.importers.dispatch import HEAD_BYTES
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
        with price_file_open(source.location, format=source.format, relative_to=base, within=base) as fetched:
            snapshot = price_snapshot_import(
                content=fetched.content, file_name=fetched.file_name, url=fetched.url, **options
            )
    except fetch.FetchError as exc:
        snapshot = _failed(source, str(exc), **options)
    ImportSource.objects.filter(pk=source.pk).update(last_snapshot=snapshot)
    return [snapshot]


@contextmanager
def price_file_open(
    location: str, *, format: str = registry.AUTO, relative_to: Path | None = None, within: Path | None = None
) -> Iterator[fetch.Fetched]:
    """The price file at a path or URL, closed on leaving. A path is opened, not read (a feed streams from it; the
    format's size limit applies on import). A URL of a streaming feed (named as the format) is spooled to a
    temporary file; a URL of a paged API (named, or recognised from its first page) is followed page by page."""
    chosen = registry.BY_NAME.get(format)
    if not fetch.is_url(location):
        fetched = fetch.open_path(location, relative_to=relative_to, within=within)
    elif chosen is not None and chosen.streams:
        fetched = fetch.download(location, max_bytes=chosen.max_bytes or settings.PRICE_IMPORT_MAX_BYTES)
    else:
        fetched = _fetch_pages(location, chosen)
    try:
        yield fetched
    finally:
        if not isinstance(fetched.content, bytes):
            fetched.content.close()


def _fetch_pages(url: str, chosen: registry.ImportFormat | None) -> fetch.Fetched:
    first = None
    if chosen is None:  # detected: the first page says which format this is
        page = fetch.fetch_url(url)
        chosen, _ = registry.detect(page.content[:HEAD_BYTES].decode("utf-8", errors="ignore"))
        if chosen.next_page is None:
            return page
        first = page.content
    if chosen.next_page is None:
        return fetch.fetch_url(url)
    return fetch.fetch_pages(
        url,
        next_page=chosen.next_page,
        max_pages=chosen.max_pages,
        max_bytes=chosen.max_bytes or settings.PRICE_IMPORT_MAX_BYTES,
        first=first,
    )


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
