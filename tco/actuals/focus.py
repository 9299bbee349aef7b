"""FOCUS billing exports (FOCUS 1.0 to 1.2; CSV, gzipped CSV or Parquet), read streaming into monthly groups.

Pure: a file in, the billed cost grouped by month, provider, service, SKU, resource, tags, charge category,
currency and GPU out, with the problems found. Nothing is written anywhere.

- Columns are read by name, in any order; other columns (``Id``, ``x_*`` extensions) are ignored. A file without
  the required columns is refused with the missing ones named.
- The literal ``NULL`` is empty (the FOCUS sample writes its nulls so); so is an empty field.
- The month is ``ChargePeriodStart``'s, in UTC: a timestamp without a zone is UTC, one with an offset is converted.
- Every ``ChargeCategory`` counts (usage, purchases, taxes, credits, adjustments): nothing is filtered.
- A GPU row is one whose instance type, VM size or machine type (in ``ChargeDescription``, ``SkuId``,
  ``SkuMeter`` or ``SkuPriceDetails``) names a GPU instance
  (tco/actuals/gpus.py); its GPU-hours are instance hours x GPUs per instance, the instance hours being the usage
  quantity in hours (``ConsumedQuantity``/``ConsumedUnit``, else ``PricingQuantity``/``PricingUnit``).
- A cost that is not a number is a problem naming its line and column; the import stops at the first batch with
  problems after listing every bad row of it (an import is all or nothing).
Memory stays bounded: the file is read in blocks of rows (pyarrow; its read-ahead holds a few 4 MB blocks),
each block grouped with pyarrow's compute functions, and only the groups kept. The money and quantity columns are
read as numbers; when one cell is not a number the file is read again as text to name every bad cell.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from tco.actuals.gpus import instance_gpus

REQUIRED = (
    "BilledCost",
    "BillingCurrency",
    "ChargeCategory",
    "ChargePeriodStart",
    "EffectiveCost",
    "ProviderName",
    "ServiceName",
)
OPTIONAL = (
    "ListCost",
    "SkuId",
    "SkuMeter",
    "SkuPriceDetails",
    "ResourceId",
    "ChargeDescription",
    "ConsumedQuantity",
    "ConsumedUnit",
    "PricingQuantity",
    "PricingUnit",
    "Tags",
)
MONEY = ("BilledCost", "EffectiveCost", "ListCost")
QUANTITIES = ("ConsumedQuantity", "PricingQuantity")
DESCRIBING = ("ChargeDescription", "SkuId", "SkuMeter", "SkuPriceDetails")
KEYS = ("month", "provider", "service", "sku", "resource", "tags", "category", "currency", "gpu_model", "gpus")
NULLS = ["NULL", "", "null"]
BLOCK_BYTES = 4 << 20  # bounds memory: the reader holds a few blocks ahead (a bigger block, more memory)
MAX_PROBLEMS = 100
_UTC_OR_NO_ZONE = r"^\d{4}-(0[1-9]|1[0-2])-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?)?$"
_HOURS = re.compile(r"^\s*(\d+(?:\.\d+)?)?\s*(?:hours?|hrs?|h)\s*$", re.IGNORECASE)


class FocusError(ValueError):
    """The file cannot be read as FOCUS at all (not CSV/Parquet, required columns missing)."""


@dataclass
class BillingGroup:
    """The rows of one month, provider, service, SKU, resource, tags, charge category, currency and GPU."""

    month: str
    provider: str
    service: str
    sku: str
    resource: str
    tags: str
    category: str
    currency: str
    gpu_model: str
    gpus: int
    billed_cost: float = 0.0
    effective_cost: float = 0.0
    list_cost: float = 0.0
    gpu_hours: float = 0.0
    rows: int = 0


@dataclass
class FocusResult:
    groups: list[BillingGroup] = field(default_factory=list)
    rows: int = 0
    problems: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def hours_multiplier(unit: str | None) -> float | None:
    """How many hours one unit is ("Hours" 1, "1 Hour" 1, "10 Hours" 10), None when the unit is not time."""
    if not unit:
        return None
    match = _HOURS.match(unit)
    if not match:
        return None
    return float(match.group(1)) if match.group(1) else 1.0


def _open_batches(
    stream: BinaryIO, name: str, bad_rows: list, *, typed: bool = True
) -> tuple[list[str], Iterator[pa.RecordBatch]]:
    """The header and the batches of a CSV (gzipped or not) or Parquet file. CSV columns are read as text, the money
    and quantity columns as numbers when ``typed`` (a value that is not one stops the reader: the caller reads the
    file again untyped to name every bad cell). A CSV row with the wrong number of fields is skipped by the reader
    and described in ``bad_rows``."""
    head = stream.read(4)
    stream.seek(0)
    if head == b"PAR1":
        parquet = pq.ParquetFile(stream)
        names = parquet.schema_arrow.names
        wanted = [c for c in (*REQUIRED, *OPTIONAL) if c in names]
        _check_columns(names)
        return names, (_nulls(batch) for batch in parquet.iter_batches(batch_size=65536, columns=wanted))
    gzipped = head[:2] == b"\x1f\x8b"
    first = (gzip.GzipFile(fileobj=stream) if gzipped else stream).readline()
    stream.seek(0)
    try:
        header = next(csv.reader([first.decode("utf-8-sig")]))
    except (UnicodeDecodeError, StopIteration, csv.Error):
        raise FocusError(
            f"{name} is neither a FOCUS CSV nor a Parquet file: its first line is not a CSV header."
        ) from None
    _check_columns(header)
    wanted = [c for c in (*REQUIRED, *OPTIONAL) if c in header]
    source: BinaryIO = gzip.GzipFile(fileobj=stream) if gzipped else stream
    reader = pacsv.open_csv(
        source,
        read_options=pacsv.ReadOptions(block_size=BLOCK_BYTES, use_threads=True),
        parse_options=pacsv.ParseOptions(
            newlines_in_values=True, invalid_row_handler=lambda row: _bad_row(row, len(header), bad_rows)
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={
                **dict.fromkeys(header, pa.string()),
                **(dict.fromkeys((c for c in (*MONEY, *QUANTITIES) if c in header), pa.float64()) if typed else {}),
            },
            include_columns=wanted,
            null_values=NULLS,
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        ),
    )
    return header, iter(reader)


def _bad_row(row: pacsv.InvalidRow, expected: int, bad_rows: list) -> str:
    if len(bad_rows) < MAX_PROBLEMS:
        bad_rows.append((row.number, row.text, row.actual_columns, expected))
    return "skip"


def _describe_bad_rows(stream: BinaryIO, bad_rows: list) -> list[str]:
    """Each bad row in words with its line: the reader reads in parallel and does not know it, so the refused
    file is read once more, line by line, to find it."""
    wanted = {text.rstrip("\r\n"): number for number, text, _, _ in bad_rows if number is None}
    found: dict[str, int] = {}
    if wanted:
        stream.seek(0)
        gzipped = stream.read(2) == b"\x1f\x8b"
        stream.seek(0)
        source = gzip.GzipFile(fileobj=stream) if gzipped else stream
        for line, raw in enumerate(source, start=1):
            text = raw.decode("utf-8-sig", errors="replace").rstrip("\r\n")
            if text in wanted and text not in found:
                found[text] = line
                if len(found) == len(wanted):
                    break
    messages = []
    for number, text, actual, expected in bad_rows:
        line = number if number is not None else found.get(text.rstrip("\r\n"))
        where = f"Line {line}" if line is not None else f"The row {text[:60]!r}"
        messages.append(f"{where}: {actual} fields where the header has {expected}.")
    return messages


def _check_columns(names: list[str]) -> None:
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise FocusError(
            "This is not a FOCUS billing export: the required column(s) "
            + ", ".join(missing)
            + " are missing (FOCUS 1.0 to 1.2 names them so; columns are matched by name)."
        )


def _text(batch: pa.RecordBatch, name: str) -> pa.Array:
    """A column as text (NULL and empty are null already: the CSV reader's null values, ``_nulls`` for Parquet); an
    absent column is all null."""
    if name not in batch.schema.names:
        return pa.nulls(batch.num_rows, pa.string())
    column = batch.column(name)
    if not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
        column = column.cast(pa.string())
    return column


def _nulls(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A Parquet batch's text columns with the literal NULL (and empty text) as null, as the CSV reader reads them."""
    columns = []
    for column in batch.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            column = pc.if_else(pc.is_in(column, pa.array(NULLS, column.type)), pa.scalar(None, column.type), column)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _numbers(batch: pa.RecordBatch, name: str, first_line: int, problems: list[str]) -> pa.Array:
    """A money or quantity column as float64 (null = 0); bad values are reported with their line and column."""
    if name not in batch.schema.names:
        return pa.array([0.0] * batch.num_rows, pa.float64())
    column = batch.column(name)
    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type) or pa.types.is_decimal(column.type):
        return pc.coalesce(column.cast(pa.float64()), 0.0)
    text = _text(batch, name)
    try:
        return pc.coalesce(pc.utf8_trim_whitespace(text).cast(pa.float64()), 0.0)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    values = []
    for offset, value in enumerate(text.to_pylist()):
        try:
            number = float(value) if value is not None else 0.0
        except ValueError:
            if len(problems) < MAX_PROBLEMS:
                problems.append(f"Line {first_line + offset}, column {name}: {value!r} is not a number.")
            number = 0.0
        values.append(number)
    return pa.array(values, pa.float64())


def _months(batch: pa.RecordBatch, first_line: int, problems: list[str]) -> pa.Array:
    """``ChargePeriodStart`` as "YYYY-MM" in UTC (a timestamp without a zone is UTC)."""
    column = batch.column("ChargePeriodStart")
    if pa.types.is_timestamp(column.type):
        if column.type.tz is not None:
            column = pc.cast(column, pa.timestamp(column.type.unit, tz="UTC"))
        return pc.strftime(column, format="%Y-%m")
    if pa.types.is_date(column.type):
        return pc.strftime(column, format="%Y-%m")
    text = pc.utf8_trim_whitespace(_text(batch, "ChargePeriodStart"))
    # The usual case, read without parsing: every value starts YYYY-MM- and carries no offset (no zone, or Z: UTC).
    if text.null_count == 0 and pc.all(pc.match_substring_regex(text, _UTC_OR_NO_ZONE)).as_py():
        return pc.utf8_slice_codeunits(text, 0, 7)
    for target in (pa.timestamp("s", tz="UTC"), pa.timestamp("s")):
        try:
            return pc.strftime(text.cast(target), format="%Y-%m")
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    months = []
    for offset, value in enumerate(text.to_pylist()):
        months.append(_month_of(value, first_line + offset, problems))
    return pa.array(months, pa.string())


def _month_of(value: str | None, line: int, problems: list[str]) -> str | None:
    if value is None:
        if len(problems) < MAX_PROBLEMS:
            problems.append(f"Line {line}, column ChargePeriodStart: empty; every charge needs its period.")
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        if len(problems) < MAX_PROBLEMS:
            problems.append(f"Line {line}, column ChargePeriodStart: {value!r} is not a date and time.")
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return f"{moment.year:04d}-{moment.month:02d}"


def _gpus(batch: pa.RecordBatch) -> tuple[pa.Array, pa.Array]:
    """Each row's GPU model ("" = none) and GPUs per instance (0), from the texts that name the instance."""
    models = pa.array([""] * batch.num_rows, pa.string())
    counts = pa.array([0] * batch.num_rows, pa.int64())
    # The first column that names a GPU instance wins: later columns fill only the rows still without one.
    for name in reversed([name for name in DESCRIBING if name in batch.schema.names]):
        texts = _text(batch, name)
        distinct = pc.unique(texts).drop_null()
        found = [instance_gpus(text) or ("", 0) for text in distinct.to_pylist()]
        if not any(count for _, count in found):
            continue
        where = pc.index_in(texts, value_set=distinct)
        column_models = pc.take(pa.array([model for model, _ in found], pa.string()), where)
        column_counts = pc.take(pa.array([count for _, count in found], pa.int64()), where)
        named = pc.coalesce(pc.greater(column_counts, 0), False)
        models = pc.if_else(named, column_models, models)
        counts = pc.if_else(named, column_counts, counts)
    return models, counts


def _instance_hours(batch: pa.RecordBatch, quantities: dict[str, pa.Array]) -> pa.Array:
    """Usage quantity in hours: the consumed quantity when its unit is time, else the pricing quantity's; 0 if
    neither is in hours."""
    result = pa.array([0.0] * batch.num_rows, pa.float64())
    for quantity, unit in (("PricingQuantity", "PricingUnit"), ("ConsumedQuantity", "ConsumedUnit")):
        units = pc.coalesce(_text(batch, unit), "")
        distinct = pc.unique(units)
        factors = pa.array([hours_multiplier(u) or 0.0 for u in distinct.to_pylist()], pa.float64())
        factor = pc.take(factors, pc.index_in(units, value_set=distinct))
        hours = pc.multiply(quantities[quantity], factor)
        result = pc.if_else(pc.greater(factor, 0.0), hours, result)
    return result


def parse_focus(stream: BinaryIO, *, name: str = "the file", max_rows: int | None = None) -> FocusResult:
    """Read a FOCUS export streaming into monthly groups; a file that is not FOCUS raises FocusError."""
    try:
        return _parse(stream, name=name, max_rows=max_rows, typed=True)
    except _NotANumber:
        stream.seek(0)
        return _parse(stream, name=name, max_rows=max_rows, typed=False)


class _NotANumber(Exception):
    """A money or quantity cell the fast typed read could not convert: read again as text to name every one."""


def _parse(stream: BinaryIO, *, name: str, max_rows: int | None, typed: bool) -> FocusResult:
    try:
        bad_rows: list[tuple] = []
        header, batches = _open_batches(stream, name, bad_rows, typed=typed)
    except (pa.ArrowInvalid, OSError) as error:
        if typed and "conversion error" in str(error):
            raise _NotANumber from None
        raise FocusError(f"{name} cannot be read as CSV or Parquet: {error}") from None
    result = FocusResult(columns=list(header))
    merged: dict[tuple, BillingGroup] = {}
    line = 2  # the first row under the header
    try:
        for batch in batches:
            problems: list[str] = []
            if bad_rows:  # rows the reader could not split into the header's fields: the file is refused
                result.problems.extend(_describe_bad_rows(stream, bad_rows))
                break
            money = {column: _numbers(batch, column, line, problems) for column in MONEY}
            quantities = {column: _numbers(batch, column, line, problems) for column in QUANTITIES}
            months = _months(batch, line, problems)
            if problems:
                result.problems.extend(problems)
                if len(result.problems) >= MAX_PROBLEMS:
                    break
                line += batch.num_rows
                continue
            models, counts = _gpus(batch)
            category = pc.coalesce(_text(batch, "ChargeCategory"), "")
            usage = pc.equal(pc.utf8_lower(category), "usage")
            gpu_hours = pc.if_else(
                usage, pc.multiply(_instance_hours(batch, quantities), counts.cast(pa.float64())), 0.0
            )
            table = pa.table(
                {
                    "month": months,
                    "provider": pc.coalesce(_text(batch, "ProviderName"), ""),
                    "service": pc.coalesce(_text(batch, "ServiceName"), ""),
                    "sku": pc.coalesce(_text(batch, "SkuId"), ""),
                    "resource": pc.coalesce(_text(batch, "ResourceId"), ""),
                    "tags": pc.coalesce(_text(batch, "Tags"), ""),
                    "category": category,
                    "currency": pc.coalesce(_text(batch, "BillingCurrency"), ""),
                    "gpu_model": models,
                    "gpus": counts,
                    "billed": money["BilledCost"],
                    "effective": money["EffectiveCost"],
                    "listed": money["ListCost"],
                    "gpu_hours": gpu_hours,
                }
            )
            grouped = table.group_by(list(KEYS), use_threads=False).aggregate(
                [
                    ("billed", "sum"),
                    ("effective", "sum"),
                    ("listed", "sum"),
                    ("gpu_hours", "sum"),
                    ([], "count_all"),
                ]
            )
            for row in grouped.to_pylist():
                key = tuple(row[k] for k in KEYS)
                group = merged.get(key)
                if group is None:
                    group = merged[key] = BillingGroup(**{k: row[k] for k in KEYS})
                group.billed_cost += row["billed_sum"]
                group.effective_cost += row["effective_sum"]
                group.list_cost += row["listed_sum"]
                group.gpu_hours += row["gpu_hours_sum"]
                group.rows += row["count_all"]
            result.rows += batch.num_rows
            line += batch.num_rows
            if max_rows is not None and result.rows > max_rows:
                result.problems.append(f"{name} has more than {max_rows:,} rows: split it into smaller files.")
                break
    except pa.ArrowInvalid as error:
        if typed and "conversion error" in str(error):
            raise _NotANumber from None
        result.problems.append(f"{name} is not a well-formed CSV file near line {line}: {error}")
    if not result.problems:
        missing_currency = [g for g in merged.values() if not g.currency]
        if missing_currency:
            result.problems.append("Some rows have no BillingCurrency: every cost needs its currency.")
    result.groups = [] if result.problems else list(merged.values())
    return result
