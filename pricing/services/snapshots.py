"""Price snapshot imports. Every entry point (upload job, command, schedule, demo seed) ends in
`price_snapshot_run`, which is atomic (a file with any invalid row writes no observation) and idempotent
(prices already known are counted, not stored again; a re-observed price on a new date is a new observation).
Either way the snapshot records every observation its file contained, so it can be diffed and exported whole.
"""

from __future__ import annotations

import hashlib
import os
import socket
from datetime import date
from typing import Any, BinaryIO

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from lib.statement_timeout import statement_timeout_lifted
from pricing.importers import Catalog, ParseResult, PriceRow, RowError, parse_prices
from pricing.models import (
    CurrentPrice,
    PriceImportFile,
    PriceObservation,
    PriceSnapshot,
    Provider,
    SnapshotObservation,
    SnapshotOrigin,
    SnapshotStatus,
    UnmappedName,
)
from pricing.selectors import import_catalog
from pricing.services.current_prices import current_prices_record

MAX_STORED_SKIPS = 2000
MAX_STORED_ERRORS = 100
BULK_BATCH_SIZE = 2000
ANALYZE_AFTER_ROWS = 10_000  # new observations that make an import big enough to refresh the planner's statistics


def _worker_label() -> str:
    return f"{socket.gethostname()} pid {os.getpid()}"


def _sha256(content: bytes | BinaryIO) -> str:
    """The digest of the bytes, or of an open file read in chunks (then rewound): a feed file is never held whole."""
    if isinstance(content, bytes | bytearray | memoryview):
        return hashlib.sha256(content).hexdigest()
    digest = hashlib.sha256()
    content.seek(0)
    while chunk := content.read(1 << 20):
        digest.update(chunk)
    content.seek(0)
    return digest.hexdigest()


def price_snapshot_create(
    *,
    content: bytes | BinaryIO,
    origin: str,
    source: str,
    file_name: str = "",
    url: str = "",
    format: str = "auto",
    provider_name: str = "",
    observed_on: date | None = None,
    created_by: AbstractBaseUser | None = None,
    keep_file: bool = False,
) -> PriceSnapshot:
    """A pending snapshot; with `keep_file` the bytes are stored so a worker elsewhere can import them. `content` may
    be an open binary file (a command's or a schedule's file, read as it streams)."""
    snapshot = PriceSnapshot.objects.create(
        source=source[:200],
        origin=origin,
        file_name=file_name[:500],
        url=url[:1000],
        format=format,
        provider_name=provider_name[:100],
        default_observed_on=observed_on,
        sha256=_sha256(content),
        created_by=created_by if created_by and created_by.is_authenticated else None,
    )
    if keep_file:
        PriceImportFile.objects.create(snapshot=snapshot, content=content, size_bytes=len(content))
    return snapshot


def storable(value: Any) -> Any:
    """``value`` with every NUL character shown as U+2400 (␀): a file's cells are echoed in errors and row lists,
    and PostgreSQL's jsonb and text refuse NUL (SQLite takes it), so a hostile file must not fail the import."""
    if isinstance(value, str):
        return value.replace("\x00", "\u2400")
    if isinstance(value, dict):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [storable(item) for item in value]
    return value


def _finish(snapshot: PriceSnapshot, status: str, *, errors: list[dict] | None = None, **counts: int) -> None:
    snapshot.status = status
    snapshot.errors = storable(errors or [])
    snapshot.finished_at = timezone.now()
    for name, value in counts.items():
        setattr(snapshot, name, value)
    snapshot.save()


def _keep_lists(snapshot: PriceSnapshot, result: ParseResult) -> None:
    for name in ("skipped", "merged", "held_back", "warnings"):
        setattr(snapshot, name, storable([entry.as_dict() for entry in getattr(result, name)[:MAX_STORED_SKIPS]]))


def _capped(errors: list[RowError]) -> list[dict]:
    """The first errors, and how many more: a 150,000-row bad file must not make a page of 150,000 rows."""
    errors.sort(key=lambda e: e.line)
    shown = [e.as_dict() for e in errors[:MAX_STORED_ERRORS]]
    if len(errors) > MAX_STORED_ERRORS:
        more = len(errors) - MAX_STORED_ERRORS
        reason = f"… and {more:,} more errors not listed; fix the ones above and import again to see the rest"
        shown.append(RowError(0, "", "", reason).as_dict())
    return shown


def _reject(snapshot: PriceSnapshot, result: ParseResult, errors: list[RowError]) -> PriceSnapshot:
    _keep_lists(snapshot, result)
    snapshot.error_count = len(errors)
    _finish(
        snapshot,
        SnapshotStatus.REJECTED,
        errors=_capped(errors),
        rows_total=result.rows_total,
        rows_skipped=len(result.skipped),
        rows_merged=len(result.merged),
        rows_held_back=len(result.held_back),
        rows_imported=0,
        rows_unchanged=0,
        prices_new=0,
        prices_known=0,
    )
    return snapshot


def _known_prices(rows: list[PriceRow], feed: str) -> dict[tuple, tuple[int, tuple]]:
    """Id and prices (`PriceRow.prices`) of the observations `feed` already stored under the natural keys of
    `rows`: one query. Another feed's price of the same offering on the same day is not this feed's history: both are
    kept (LiteLLM's openrouter/* entries and OpenRouter's own file may disagree)."""
    if not rows:
        return {}
    dates = [row.observed_on for row in rows]
    gpu_ids = {row.gpu_model_id for row in rows if row.gpu_model_id is not None}
    same_kind = Q(gpu_model_id__in=gpu_ids) if gpu_ids else Q(pk__in=[])
    if any(row.is_per_token for row in rows):
        same_kind |= Q(gpu_model__isnull=True)
    stored = PriceObservation.objects.filter(
        same_kind,
        provider_id__in={row.provider_id for row in rows},
        observed_on__range=(min(dates), max(dates)),
        feed=feed,
    ).values_list(
        "provider_id",
        "offering",
        "gpu_model_id",
        "gpus_per_instance",
        "region",
        "pricing_term",
        "observed_on",
        "id",
        "price_per_gpu_hour",
        "price_per_million_input_tokens",
        "price_per_million_output_tokens",
        "price_per_million_cached_input_tokens",
    )
    return {values[:7]: (values[7], values[8:]) for values in stored.iterator(chunk_size=5000)}


def _conflict(row: PriceRow, known: tuple) -> RowError:
    if row.is_per_token:
        stored = ", ".join(f"{price}" if price is not None else "none" for price in known[1:])
        return RowError(
            row.line,
            "price_per_million_input_tokens",
            str(row.price_per_million_input_tokens),
            f"this model is already recorded at {stored} per million input, output and cached-input tokens on "
            f"{row.observed_on}; history is not overwritten, so give the new price its own date",
        )
    return RowError(
        row.line,
        "price_per_gpu_hour",
        str(row.price_per_gpu_hour),
        f"this offering is already recorded at {known[0]} per GPU-hour on {row.observed_on}; "
        "history is not overwritten, so give the new price its own date",
    )


def _observations(snapshot: PriceSnapshot, rows: list[PriceRow]) -> list[PriceObservation]:
    return [
        PriceObservation(
            snapshot_id=snapshot.pk,
            feed=snapshot.format,
            provider_id=row.provider_id,
            offering=row.offering,
            gpu_model_id=row.gpu_model_id,
            gpus_per_instance=row.gpus_per_instance,
            region=row.region,
            pricing_term=row.pricing_term,
            observed_on=row.observed_on,
            channel_id=row.channel_id,
            price_per_instance_hour=row.price_per_instance_hour,
            price_per_gpu_hour=row.price_per_gpu_hour,
            upfront_fee=row.upfront_fee,
            price_per_million_input_tokens=row.price_per_million_input_tokens,
            price_per_million_output_tokens=row.price_per_million_output_tokens,
            price_per_million_cached_input_tokens=row.price_per_million_cached_input_tokens,
            currency=row.currency,
            source_url=row.source_url,
        )
        for row in rows
    ]


def _create_providers(snapshot: PriceSnapshot, result: ParseResult, new_rows: list[PriceRow]) -> None:
    """Create the providers a canonical file introduced and point its rows at them."""
    real_ids = {}
    for ref in result.new_providers:
        real_ids[ref.id] = Provider.objects.create(name=ref.name, kind=ref.kind).pk
    for row in new_rows:
        row.provider_id = real_ids.get(row.provider_id, row.provider_id)
        row.channel_id = real_ids.get(row.channel_id, row.channel_id)
    snapshot.providers_created = [ref.name for ref in result.new_providers]


def _store(snapshot: PriceSnapshot, new_rows: list[PriceRow], *, known_ids: list[int]) -> None:
    """Store the new observations, make them current where they are their offering's latest, then record every row
    of the file (new and known) as the snapshot's contents."""
    created = PriceObservation.objects.bulk_create(_observations(snapshot, new_rows), batch_size=BULK_BATCH_SIZE)
    current_prices_record(observations=created)
    created_ids = [observation.pk for observation in created]  # SQLite and PostgreSQL return the new ids
    SnapshotObservation.objects.bulk_create(
        [SnapshotObservation(snapshot_id=snapshot.pk, observation_id=pk) for pk in known_ids + created_ids],
        batch_size=BULK_BATCH_SIZE,
    )


def _row_counts(result: ParseResult, known: dict[tuple, tuple[int, tuple]]) -> dict[str, int]:
    """Counts that add up: every row of the file is new, already known, skipped, merged or held back."""
    new_lines, priced_lines = set(), set()
    for row in result.rows:
        priced_lines.add(row.line)
        if row.key() not in known:
            new_lines.add(row.line)
    prices_new = sum(1 for row in result.rows if row.key() not in known)
    return {
        "rows_total": result.rows_total,
        "rows_imported": len(new_lines),
        "rows_unchanged": len(priced_lines - new_lines),
        "rows_skipped": len(result.skipped),
        "rows_merged": len(result.merged),
        "rows_held_back": len(result.held_back),
        "prices_new": prices_new,
        "prices_known": len(result.rows) - prices_new,
    }


def _record_unmapped(snapshot: PriceSnapshot, result: ParseResult, catalog: Catalog) -> None:
    """List the names this import held back in the admin; forget names an alias has made known since."""
    counts: dict[tuple[str, str], int] = {}
    for entry in result.held_back:
        if entry.name:
            counts[(entry.kind, entry.name)] = counts.get((entry.kind, entry.name), 0) + 1
    for (kind, name), rows in counts.items():
        UnmappedName.objects.update_or_create(kind=kind, name=name, defaults={"rows": rows, "snapshot": snapshot})
    resolved = [
        entry.pk
        for entry in UnmappedName.objects.all()
        if (entry.kind == UnmappedName.Kind.GPU and catalog.gpu(entry.name))
        or (entry.kind == UnmappedName.Kind.PROVIDER and catalog.provider(entry.name))
    ]
    for start in range(0, len(resolved), BULK_BATCH_SIZE):  # a bounded IN list: server-side binding caps parameters
        UnmappedName.objects.filter(pk__in=resolved[start : start + BULK_BATCH_SIZE]).delete()


@statement_timeout_lifted()  # a 200,000-row file on a big table is not a web request; the job has its own limit
def price_snapshot_run(
    *, snapshot: PriceSnapshot, content: bytes | BinaryIO, new_providers: frozenset[str] = frozenset()
) -> PriceSnapshot:
    """Parse, validate and store one price file (bytes, or an open binary file) as `snapshot`. Returns the finished
    snapshot. The size limit is PRICE_IMPORT_MAX_BYTES unless the file's format has its own.

    `new_providers` confirms provider names a canonical file introduces although they look like a known one."""
    snapshot.processed_by = _worker_label()
    catalog = import_catalog()
    result = parse_prices(
        content,
        catalog=catalog,
        requested_format=snapshot.format,
        provider_name=snapshot.provider_name,
        observed_on=snapshot.default_observed_on,
        source_url=snapshot.url,
        today=timezone.now().date(),
        max_rows=settings.PRICE_IMPORT_MAX_ROWS,
        max_bytes=settings.PRICE_IMPORT_MAX_BYTES,
        new_providers=new_providers,
    )
    snapshot.format = result.format
    if result.errors:
        return _reject(snapshot, result, result.errors)
    try:
        with transaction.atomic():
            _take_turns_to_store()
            # Counted after the turn is taken: the same file imported at the same moment finds the prices the
            # import before it just stored, and is "Already imported" instead of failing on them.
            known = _known_prices(result.rows, snapshot.format)
            if conflicts := _conflicts(result, known):
                return _reject(snapshot, result, conflicts)
            new_rows = [row for row in result.rows if row.key() not in known]
            _keep_lists(snapshot, result)
            status = SnapshotStatus.DUPLICATE if result.rows and not new_rows else SnapshotStatus.IMPORTED
            known_ids = [known[row.key()][0] for row in result.rows if row.key() in known]
            _create_providers(snapshot, result, new_rows)
            _store(snapshot, new_rows, known_ids=known_ids)
            _finish(snapshot, status, **_row_counts(result, known))
            _record_unmapped(snapshot, result, catalog)
    except IntegrityError:
        reason = "another import stored some of the same prices at the same moment; import the file again"
        _finish(snapshot, SnapshotStatus.FAILED, errors=[{"line": 0, "column": "", "value": "", "reason": reason}])
        return snapshot
    if len(new_rows) >= ANALYZE_AFTER_ROWS:
        _analyze_price_tables()
    return snapshot


def _conflicts(result: ParseResult, known: dict[tuple, tuple[int, tuple]]) -> list[RowError]:
    """Rows whose offering is already recorded on their date at another price: history is not overwritten."""
    return [
        _conflict(row, known[row.key()][1])
        for row in result.rows
        if row.key() in known and known[row.key()][1] != row.prices()
    ]


def _take_turns_to_store() -> None:
    """Imports store one after the other (PostgreSQL; SQLite writes one transaction at a time anyway), so that
    observation ids grow in commit order and the Market's revision (MAX(id) among others) moves with every commit.
    Reads are not blocked; two imports still parse and check their files at the same time."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {PriceObservation._meta.db_table} IN SHARE ROW EXCLUSIVE MODE")


def _analyze_price_tables() -> None:
    """Refresh PostgreSQL's statistics of the tables an import grew, now rather than when autovacuum comes by: on
    stale ones, the first Market views after a 190,000-row import were planned as if the tables were small."""
    if connection.vendor == "postgresql":
        tables = (PriceObservation, CurrentPrice, SnapshotObservation)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE " + ", ".join(model._meta.db_table for model in tables))


def price_snapshot_import(
    *, content: bytes | BinaryIO, new_providers: frozenset[str] = frozenset(), **options
) -> PriceSnapshot:
    """Import a file now, in this process (command, schedule, demo data). Options as `price_snapshot_create`."""
    snapshot = PriceSnapshot.objects.claim(price_snapshot_create(content=content, **options).pk)
    return price_snapshot_run(snapshot=snapshot, content=content, new_providers=new_providers)


def price_snapshot_queue(*, content: bytes, **options) -> PriceSnapshot:
    """Store an uploaded file and send its import to the workers once the transaction commits. Never fails
    because of the broker: an unsent upload stays pending, its page says so, and the sweeper sends it later."""
    with transaction.atomic():
        snapshot = price_snapshot_create(content=content, keep_file=True, origin=SnapshotOrigin.UPLOAD, **options)
        snapshot.send_on_commit()
    return snapshot


def price_snapshot_fail(*, snapshot_id: int, reason: str) -> None:
    """Mark a snapshot failed when its job crashed, so the page polling it stops waiting."""
    PriceSnapshot.objects.filter(pk=snapshot_id).fail(reason)
