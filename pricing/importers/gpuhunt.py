"""dstack's gpuhunt catalog CSV (github.com/dstackai/gpuhunt, `CATALOG_V2_FIELDS` in `_internal/storage.py`).

One file per provider (the file name carries it, so the caller names the provider) and no dates (the caller gives
the day). Decisions, so a price shown can be traced back to its row:
- Columns are read by name; the ones read are instance_name, location, price, gpu_count, gpu_name, gpu_memory and
  spot; the others (cpu, memory, disk_size, gpu_vendor, flags, cpu_arch, provider_data) describe the machine.
- `price` is the instance's price per hour in USD; `spot` (`True`/`False`) makes it a spot or an on-demand price;
  `gpu_memory` is one GPU's memory in GB. $/GPU-hour = price ÷ gpu_count.
- Someone else's catalog: a row naming an unknown GPU is held back, a row without GPUs, with a TPU or with a zero
  price is skipped with its reason; a malformed number or flag rejects the file (a broken file).
- One observation per instance, GPU model, GPU count, location and term: a repeat at the same price is merged, one
  at a higher price skipped (the lowest is the offer).
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal, InvalidOperation

from pricing.importers.base import UNKNOWN_REGION, ParseContext, ParseResult, PriceRow, RowError, Skip, per_gpu
from pricing.importers.gpu_names import resolve_gpu
from pricing.importers.skypilot_rules import form_factor

REQUIRED_COLUMNS = ("instance_name", "location", "price", "gpu_count", "gpu_name", "gpu_memory", "spot")
_SPOT = {"true": "spot", "false": "on_demand"}


def sniff(text: str) -> str | None:
    first_line = text.lstrip().split("\n", 1)[0]
    columns = {column.strip() for column in first_line.split(",")}
    return "gpuhunt" if {"instance_name", "location", "gpu_count", "gpu_name"} <= columns else None


class _BadCell(Exception):
    def __init__(self, column: str, value: str, reason: str) -> None:
        super().__init__(reason)
        self.column, self.value, self.reason = column, value, reason


def _number(cell: dict[str, str], column: str) -> Decimal | None:
    raw = cell.get(column) or ""
    if not raw:
        return None
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise _BadCell(column, raw, "not a number") from None
    if not value.is_finite() or value < 0:
        raise _BadCell(column, raw, "negative or not a finite number")
    return value


def parse(text: str, context: ParseContext) -> ParseResult:
    assert context.provider is not None and context.observed_on is not None  # the registry says both are needed
    result = ParseResult(format="gpuhunt")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [(name or "").strip() for name in reader.fieldnames or []]
    reader.fieldnames = header
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        result.errors += [RowError(1, column, "", "missing column (is this a gpuhunt catalog?)") for column in missing]
        return result
    best: dict[tuple, PriceRow] = {}
    line = reader.line_num
    for record in reader:
        start, line = line + 1, reader.line_num
        if not result.count_row(start, context.max_rows):
            return result
        if None in record or None in record.values():
            result.errors.append(RowError(start, "", "", f"the row does not have {len(header)} cells"))
            continue
        try:
            row = _row(start, {k: v.strip() for k, v in record.items()}, context, result)
        except _BadCell as bad:
            result.errors.append(RowError(start, bad.column, bad.value, bad.reason))
            continue
        if row is None:
            continue
        kept = best.setdefault(row.key(), row)
        if kept is row:
            continue
        low, high = sorted((kept, row), key=lambda r: (r.price_per_instance_hour, r.line))
        best[row.key()] = low
        if low.price_per_instance_hour == high.price_per_instance_hour:
            result.merged.append(Skip(high.line, f"same offering, location, term and price as line {low.line}"))
        else:
            reason = f"same offering, location and term as line {low.line}, at a higher price"
            result.skipped.append(Skip(high.line, reason, high.offering))
    if result.rows_total == 0 and not result.errors:
        result.errors.append(RowError(2, "", "", "no data rows after the header"))
    result.rows = sorted(best.values(), key=lambda r: r.line)
    return result


def _row(line: int, cell: dict[str, str], context: ParseContext, result: ParseResult) -> PriceRow | None:
    instance, name = cell["instance_name"], cell["gpu_name"]
    count = _number(cell, "gpu_count") or Decimal(0)
    if count != count.to_integral_value():
        raise _BadCell("gpu_count", cell["gpu_count"], "not a whole number of GPUs")
    price = _number(cell, "price")
    term = _SPOT.get(cell["spot"].lower())
    if term is None:
        raise _BadCell("spot", cell["spot"], "not True or False")
    memory = _number(cell, "gpu_memory")
    if count == 0 or not name:
        result.skipped.append(Skip(line, "no GPU (CPU-only instance)", instance))
        return None
    if (cell.get("gpu_vendor") or "").lower() == "google" or name.lower().startswith("tpu-"):
        result.skipped.append(Skip(line, "a TPU, not a GPU", instance))
        return None
    if not price:
        result.skipped.append(Skip(line, "zero price" if price == 0 else "no price", instance))
        return None
    gpus = int(count)
    memory_gb = round(memory) if memory else None
    gpu_model_id = resolve_gpu(context.catalog, [name], memory_gb, form_factor(instance, name))
    if gpu_model_id is None:
        reason = context.catalog.gpu_error(name) + " Its rows are held back until then."
        result.held_back.append(Skip(line, reason, instance, name=name, kind="gpu"))
        return None
    return PriceRow(
        line,
        context.provider.id,
        instance,
        gpu_model_id,
        gpus,
        cell["location"] or UNKNOWN_REGION,
        term,
        context.observed_on,
        price,
        per_gpu(price, gpus),
        "USD",
        context.source_url,
    )
