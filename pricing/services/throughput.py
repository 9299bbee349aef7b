"""Throughput imports: measured serving results (InferenceX, vllm bench serve, MLPerf) into the throughput library.

Every entry point (command, upload job, schedule) ends in `throughput_import_run`. An import is atomic (it stores
all its new measurements or none), idempotent (a measurement already stored is counted as known, never stored
again: `ThroughputMeasurement.row_key`) and keeps history (a newer run is a new row beside the older one). Rows
it cannot place are refused one by one with their reason (an unknown GPU, a precision sizing cannot use); the
rest are imported. GPU names resolve through the GPU aliases as prices' do; model names through the model
catalogue's names and aliases, with quantisation and benchmark suffixes taken off (`-FP8`, `-99.9`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from pricing import fetch
from pricing.importers.base import RowError
from pricing.importers.throughput import AUTO, ThroughputRow, detect_format, parse_throughput
from pricing.models import (
    LanguageModel,
    SnapshotOrigin,
    ThroughputImport,
    ThroughputImportStatus,
    ThroughputMeasurement,
    ThroughputSource,
)
from pricing.names import normalise_name
from pricing.selectors import import_catalog
from pricing.services.snapshots import storable

BULK_BATCH_SIZE = 2000
MAX_STORED_REFUSALS = 5000  # an MLPerf summary refuses ~1,100 records that are not LLM results

# The weights' precision as result files write it, to the bits sizing reads (16, 8 or 4).
_BITS = (
    (16, ("bf16", "fp16", "float16", "bfloat16", "half", "w16a16")),
    (8, ("fp8", "int8", "w8a8", "w8a16", "fp8e4m3", "e4m3", "float8", "mxfp8", "uint8")),
    (4, ("fp4", "nvfp4", "mxfp4", "int4", "uint4", "w4a16", "w4a8", "awq", "gptq", "nf4")),
)
BITS_OF = {name: bits for bits, names in _BITS for name in names}

# Suffixes result files add to a model's name: the checkpoint's quantisation, an MLPerf accuracy target or
# scenario, an instruct tune; taken off one at a time until a catalogue name matches.
_NAME_SUFFIX = re.compile(
    r"[-_.](fp8|fp4|nvfp4|mxfp4|int4|int8|w4a16|w8a8|awq|gptq|dynamic|v\d+|99(\.9)?|instruct|chat|hf|"
    r"interactive|server|offline|edge)$",
    re.IGNORECASE,
)
_GPU_PREFIX = re.compile(r"^(virtuali[sz]ed\s+)?(nvidia|amd instinct|amd|intel)\s+", re.IGNORECASE)


def weight_bits_of(precision: str) -> int | None:
    """16, 8 or 4 for a precision as result files write it (`fp8`, `BF16`, `mxfp4`); None when sizing knows none."""
    return BITS_OF.get(normalise_name(precision).replace(".", ""))


def model_name_candidates(raw: str) -> list[str]:
    """The names to look a result file's model name up by, most specific first: as written, its last path part,
    then with one suffix after another taken off (`nvidia/Llama-3.3-70B-Instruct-FP8` → `Llama-3.3-70B`)."""
    names = [raw.strip()]
    tail = names[0].rsplit("/", 1)[-1]
    while tail:
        if tail not in names:
            names.append(tail)
        shorter = _NAME_SUFFIX.sub("", tail)
        tail = shorter if shorter != tail else ""
    return [name for name in names if name]


class ModelNames:
    """Every name of every language model (its own, Hugging Face id, aliases), matched like GPU names."""

    def __init__(self, models: Iterable[LanguageModel]) -> None:
        self._ids: dict[str, int] = {}
        for model in models:
            for name in model.names():
                self._ids.setdefault(normalise_name(name), model.pk)

    def find(self, raw: str) -> int | None:
        for name in model_name_candidates(raw):
            if (found := self._ids.get(normalise_name(name))) is not None:
                return found
        return None


def _gpu_candidates(raw: str) -> list[str]:
    """A GPU name as written, then without a vendor's prefix (`NVIDIA H100-SXM-80GB` → `H100-SXM-80GB`)."""
    names = [raw.strip()]
    if (bare := _GPU_PREFIX.sub("", names[0])) != names[0]:
        names.append(bare)
    return names


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def throughput_import_create(
    *,
    content: bytes,
    file_name: str = "",
    format: str = AUTO,
    given: dict[str, Any] | None = None,
    origin: str = SnapshotOrigin.COMMAND,
    created_by: AbstractBaseUser | None = None,
) -> ThroughputImport:
    """A pending import of one file. `given` fills what the file lacks: `gpu`, `model`, `tp`, `precision`,
    `input_tokens` (as the parsers take them) and `measured_on` (an ISO date for rows the file does not date)."""
    return ThroughputImport.objects.create(
        format=format,
        file_name=file_name[:500],
        sha256=_sha256(content),
        origin=origin,
        given={key: value for key, value in (given or {}).items() if value not in (None, "")},
        created_by=created_by if created_by and created_by.is_authenticated else None,
    )


def throughput_import_queue(*, content: bytes, **options: Any) -> ThroughputImport:
    """Store an uploaded file and send its import to the workers once the transaction commits (an unsent upload
    stays pending, its page says so, and the sweeper sends it later). Options as `throughput_import_create`."""
    with transaction.atomic():
        record = throughput_import_create(content=content, origin=SnapshotOrigin.UPLOAD, **options)
        ThroughputImport.objects.filter(pk=record.pk).update(content=content)
        record.send_on_commit()
    return record


def throughput_import(*, content: bytes, **options: Any) -> ThroughputImport:
    """Import a throughput file now, in this process (command, schedule). Options as `throughput_import_create`."""
    record = ThroughputImport.objects.claim(throughput_import_create(content=content, **options).pk)
    return throughput_import_run(record=record, content=content)


def throughput_import_run(*, record: ThroughputImport, content: bytes) -> ThroughputImport:
    """Parse one throughput file and store its new measurements as `record`'s, atomically. A file that cannot be
    read at all (not UTF-8 JSON, no format recognised) is rejected with the reason; otherwise each record is
    imported, already known or refused with its reason."""
    given = dict(record.given)
    measured_on = date.fromisoformat(given.pop("measured_on")) if given.get("measured_on") else None
    if len(content) > settings.PRICE_IMPORT_MAX_BYTES:
        reason = (
            f"the file has {len(content):,} bytes; the limit is {settings.PRICE_IMPORT_MAX_BYTES:,} bytes "
            "(PRICE_IMPORT_MAX_BYTES): split it into smaller files"
        )
        return _finish(record, ThroughputImportStatus.REJECTED, refused=[_file_error(reason)])
    try:
        text = content.decode("utf-8-sig")
        if record.format == AUTO and (found := detect_format(text)) is not None:
            record.format = found.name
        parsed = parse_throughput(text, record.format, **given)
    except UnicodeDecodeError:
        return _finish(record, ThroughputImportStatus.REJECTED, refused=[_file_error("the file is not UTF-8 text")])
    except ValueError as error:
        return _finish(record, ThroughputImportStatus.REJECTED, refused=[_file_error(str(error))])
    measurements, refused = _place(record, parsed.rows, measured_on)
    refused = sorted([*(error.as_dict() for error in parsed.refused), *refused], key=lambda entry: entry["line"])
    try:
        with transaction.atomic():
            known = _known_keys([measurement.row_key for measurement in measurements])
            fresh = {m.row_key: m for m in measurements if m.row_key not in known}  # a file may repeat a row
            ThroughputMeasurement.objects.bulk_create(fresh.values(), batch_size=BULK_BATCH_SIZE)
            return _finish(
                record,
                ThroughputImportStatus.IMPORTED if measurements else ThroughputImportStatus.REJECTED,
                rows_total=len({row.line for row in parsed.rows} | {entry["line"] for entry in refused}),
                rows_new=len(fresh),
                rows_known=len(measurements) - len(fresh),
                refused=refused,
            )
    except IntegrityError:
        reason = "another import stored some of the same measurements at the same moment; import the file again"
        return _finish(record, ThroughputImportStatus.FAILED, error=reason)


def _file_error(reason: str) -> dict:
    return RowError(0, "", "", reason).as_dict()


def _known_keys(keys: list[str]) -> set[str]:
    """The row keys among `keys` already stored, in bounded IN lists (server-side binding caps parameters)."""
    known: set[str] = set()
    for start in range(0, len(keys), BULK_BATCH_SIZE):
        chunk = keys[start : start + BULK_BATCH_SIZE]
        known.update(ThroughputMeasurement.objects.filter(row_key__in=chunk).values_list("row_key", flat=True))
    return known


def _place(
    record: ThroughputImport, rows: list[ThroughputRow], measured_on: date | None
) -> tuple[list[ThroughputMeasurement], list[dict]]:
    """Measurements for the rows whose GPU is known and whose precision sizing can use; the others refused."""
    catalog = import_catalog()
    models = ModelNames(LanguageModel.objects.all())
    gpus: dict[str, tuple[int, str] | None] = {}
    measurements, refused = [], []
    for row in rows:
        if row.gpu not in gpus:
            gpus[row.gpu] = next((found for name in _gpu_candidates(row.gpu) if (found := catalog.gpu(name))), None)
        gpu = gpus[row.gpu]
        if gpu is None:
            refused.append(RowError(row.line, "gpu", row.gpu[:80], catalog.gpu_error(row.gpu)).as_dict())
            continue
        bits = weight_bits_of(row.precision)
        if bits is None:
            reason = "sizing reads 16-, 8- or 4-bit weights (bf16, fp8, fp4): give the precision"
            refused.append(RowError(row.line, "precision", row.precision[:80], reason).as_dict())
            continue
        measurement = ThroughputMeasurement(
            gpu_model_id=gpu[0],
            language_model_id=models.find(row.model),
            model_name=row.model[:200],
            precision=row.precision[:20],
            weight_bits=bits,
            tp=row.tp,
            concurrency=row.concurrency,
            input_tokens=row.input_tokens,
            output_tokens=row.output_tokens,
            output_tokens_per_second_per_gpu=row.output_tokens_per_second_per_gpu,
            ttft_ms=row.ttft_ms,
            tpot_ms=row.tpot_ms,
            statistic=row.statistic,
            source=_source(row, record)[:1000],
            measured_on=row.measured_on or measured_on,
            hardware=row.hardware[:300],
            software=row.software[:300],
            throughput_import=record,
            created_by_id=record.created_by_id,
        )
        measurement.row_key = measurement.compute_row_key()
        measurements.append(measurement)
    return measurements, refused


def _source(row: ThroughputRow, record: ThroughputImport) -> str:
    """The row's source, with the file it came from when the parser names only the format."""
    if record.file_name and record.file_name not in row.source and "://" not in row.source:
        return f"{row.source}: {record.file_name}, record {row.line}"
    return row.source


def _finish(
    record: ThroughputImport, status: str, *, refused: list[dict] | None = None, **fields: Any
) -> ThroughputImport:
    refused = refused or []
    record.rows_refused = len({entry["line"] for entry in refused if entry["line"]})
    kept = refused[:MAX_STORED_REFUSALS]
    if len(refused) > MAX_STORED_REFUSALS:
        more = len(refused) - MAX_STORED_REFUSALS
        kept.append(_file_error(f"… and {more:,} more refused rows not listed"))
    record.refused = storable(kept)
    for name, value in fields.items():
        setattr(record, name, value)
    record.status, record.finished_at = status, timezone.now()
    record.content = None  # an upload's bytes are not needed once imported
    record.save()
    return record


def throughput_models_link() -> int:
    """Point measurements with no language model at the catalogue's model their name matches (a model added after
    the import); how many were linked."""
    models = ModelNames(LanguageModel.objects.all())
    linked = 0
    unlinked = ThroughputMeasurement.objects.filter(language_model__isnull=True)
    for name in unlinked.values_list("model_name", flat=True).distinct():
        if (found := models.find(name)) is not None:
            linked += unlinked.filter(model_name=name).update(language_model_id=found)
    return linked


def throughput_source_run(*, source: ThroughputSource) -> ThroughputImport:
    """Fetch and import one scheduled throughput source; a fetch that fails is recorded as a failed import."""
    base = Path(settings.PRICE_IMPORT_DIR)
    options = {"format": source.format, "given": source.given, "origin": SnapshotOrigin.SCHEDULE}
    try:
        fetched = fetch.read_location(source.location, relative_to=base, within=base)
    except fetch.FetchError as error:
        record = throughput_import_create(content=b"", file_name=source.location, **options)
        ThroughputImport.objects.filter(pk=record.pk).fail(f"schedule {source.name}: {error}")
        record.refresh_from_db()
    else:
        record = throughput_import(content=fetched.content, file_name=fetched.file_name or fetched.url, **options)
    ThroughputSource.objects.filter(pk=source.pk).update(last_import=record)
    return record


def throughput_sources_run_due(*, force: bool = False) -> list[ThroughputImport]:
    """Run every enabled throughput source whose cadence has elapsed (`force`: every enabled one). Each is claimed
    with a conditional update of `last_run_at`, so two schedulers running at once never import it twice."""
    now = timezone.now()
    imports = []
    for source in ThroughputSource.objects.filter(enabled=True):
        due = source.last_run_at is None or source.last_run_at + timedelta(hours=source.cadence_hours) <= now
        if not (due or force):
            continue
        if ThroughputSource.objects.filter(pk=source.pk, last_run_at=source.last_run_at).update(last_run_at=now):
            imports.append(throughput_source_run(source=source))
    return imports


def throughput_import_fail(*, import_id: int, reason: str) -> None:
    """Mark an import failed when its job crashed, so the page polling it stops waiting."""
    ThroughputImport.objects.filter(pk=import_id).fail(reason)
