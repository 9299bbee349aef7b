"""SkyPilot catalog `vms.csv` files (github.com/skypilot-org/skypilot-catalog, catalogs/v8/<cloud>/vms.csv).

Decisions, so a price shown can be traced back to its row:
- Columns are read by name; extra columns are ignored. The provider and the date come from the caller.
- Someone else's catalog, so it is lenient where the upstream data is: a row naming an unknown GPU (or, in
  an aggregator's file, an unknown provider behind the offer) is held back with the name to map, never
  rejecting the rest of the file. Malformed numbers still reject the file: that is a broken file.
- `Price` is the on-demand price, `SpotPrice` the spot price; a row with either is imported (spot-only rows
  too). Empty, zero and the 700.0 placeholder mean "no price". Accelerators that are not GPUs (TPU,
  Inferentia, Trainium) and fractional GPUs are skipped with their reason.
- One observation per offering, GPU model, GPU count, region and term. When every zone where the offering
  is seen in a region has the same price, the zones fold into one regional observation (the other rows are
  "merged"); otherwise each zone keeps its own, with the region written `region (zone)`. A price seen in
  only some zones of a region is stored for those zones. A blank region is stored as "unknown region".
- GCP prices a GPU machine in two rows per zone: the host (machine type, no accelerator) and its
  accelerators (no machine type). The machine type names its GPUs (`skypilot_rules`); the offering
  price is host + accelerators in the same zone (the accelerator row is merged into it). An unknown
  machine family is said to be unknown, not guessed CPU-only.
- GPU identity: the accelerator name, refined by the per-GPU memory in `GpuInfo` and the form factor
  named by the instance type, the accelerator name or GpuInfo's own name (SXM, PCIe/PCI, NVL). Memory
  values no GPU can have (RunPod's "80 MiB", Seeweb's 0) are ignored; a total given as per-GPU memory is
  divided by the GPU count. Bare `H100` is the SXM part, bare `A100` the 40 GB SXM part.
- Aggregators (Prime Intellect, Shadeform, Spheron) resell other providers' offers: the provider behind
  each row (a `Provider` column, else the instance type's prefix) is stored as the provider and the
  aggregator as the channel.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from pricing.importers.base import (
    UNKNOWN_REGION,
    ParseContext,
    ParseResult,
    PriceRow,
    ProviderRef,
    RowError,
    Skip,
    per_gpu,
)
from pricing.importers.gpu_names import resolve_gpu
from pricing.importers.skypilot_rules import (
    GCP_CPU_FAMILIES,
    GCP_GPU_FAMILIES,
    INFO_NAME,
    MEMORY_WRITTEN_AS,
    form_factor,
    gcp_machine_gpus,
    gpu_memory_gb,
    not_a_gpu,
    upstream_form_factor,
    vast_instance_gpu,
)
from pricing.names import normalise_name

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
PLACEHOLDER_PRICE = Decimal("700")

# Aggregators: the provider behind each row is in a column, else the instance type's prefix before a separator.
AGGREGATOR_PREFIXES = {"primeintellect": "__", "shadeform": "_"}
PROVIDER_COLUMN = "Provider"
UPSTREAM_ID_COLUMN = "UpstreamCloudId"  # the upstream provider's own instance type (Prime Intellect, Verda)


def sniff(text: str) -> str | None:
    first_line = text.lstrip().split("\n", 1)[0]
    return "skypilot" if "InstanceType" in first_line and "AcceleratorName" in first_line else None


def parse(text: str, context: ParseContext) -> ParseResult:
    assert context.provider is not None and context.observed_on is not None  # the registry says both are needed
    return SkyPilotParser(context).parse(text)


@dataclass(slots=True)
class _Priced:
    line: int
    provider_id: int
    channel_id: int | None
    offering: str
    gpu_model_id: int
    gpus: int
    region: str
    zone: str
    term: str
    price_per_instance_hour: Decimal


class _BadCell(Exception):
    def __init__(self, column: str, value: str, reason: str) -> None:
        super().__init__(reason)
        self.column, self.value, self.reason = column, value, reason


def _price(cell: dict[str, str], column: str) -> Decimal | str:
    """A usable price, or the reason there is none (a string). Malformed text raises `_BadCell`."""
    raw = cell.get(column) or ""
    if not raw:
        return "no price"
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise _BadCell(column, raw, "not a number") from None
    if not value.is_finite() or value < 0:
        raise _BadCell(column, raw, "negative or not a finite number")
    if value == 0:
        return "zero price"
    if value == PLACEHOLDER_PRICE:
        return "placeholder price 700.0"
    return value


def _prices(cell: dict[str, str], host: dict[str, str] | None = None) -> tuple[dict[str, Decimal], str]:
    """The on-demand and spot prices of a row (a GCP accelerator row plus its host), and why a term has none.

    A GCP host priced 0.0 is a machine whose whole price is on its accelerator row (a4-highgpu-8g: 0.0 for the
    host, 64.44 for its 8 B200): the host adds nothing. The accelerator row must have a price of its own."""
    prices: dict[str, Decimal] = {}
    reasons = []
    for term, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
        parts = [_price(cell, column)]
        if host is not None:
            part = _price(host, column)
            parts.append(Decimal(0) if part == "zero price" else part)
        missing = next((part for part in parts if isinstance(part, str)), None)
        if missing is None:
            prices[term] = sum(parts, Decimal(0))
        else:
            reasons.append(f"{missing} ({'on demand' if term == 'on_demand' else 'spot'})")
    return prices, ", ".join(reasons)


def _count(cell: dict[str, str]) -> int | str:
    raw = cell.get("AcceleratorCount") or ""
    try:
        value = Decimal(raw) if raw else Decimal(0)
    except InvalidOperation:
        raise _BadCell("AcceleratorCount", raw, "not a number") from None
    if not value.is_finite() or value <= 0:
        return "no GPU (CPU-only instance)"
    if value != value.to_integral_value():
        return "fractional GPU share; no whole GPU to price"
    return int(value)


class SkyPilotParser:
    def __init__(self, context: ParseContext) -> None:
        self.context, self.catalog = context, context.catalog
        self.provider: ProviderRef = context.provider
        self.result = ParseResult(format="skypilot")
        self.priced: list[_Priced] = []
        self.hosts: list[tuple[int, dict[str, str], str, int]] = []
        self.gpuless: list[tuple[int, str]] = []
        self.accelerators: dict[tuple[str, str, int], tuple[int, dict[str, str]]] = {}
        self.prefix = AGGREGATOR_PREFIXES.get(normalise_name(self.provider.name), "")
        self.memory_written_as = MEMORY_WRITTEN_AS.get(normalise_name(self.provider.name), "")
        self.is_vast = normalise_name(self.provider.name) == normalise_name("Vast.ai")
        self.has_provider_column = False

    def parse(self, text: str) -> ParseResult:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [(name or "").strip() for name in reader.fieldnames or []]
        if not header:
            self.result.errors.append(RowError(0, "", "", "the file is empty"))
            return self.result
        reader.fieldnames = header
        missing = [column for column in REQUIRED_COLUMNS if column not in header]
        if missing:
            self.result.errors += [
                RowError(1, column, "", "missing column (is this a SkyPilot vms.csv?)") for column in missing
            ]
            return self.result
        self.has_provider_column = PROVIDER_COLUMN in header
        max_rows = self.context.max_rows
        line = reader.line_num
        for record in reader:
            start, line = line + 1, reader.line_num
            if not self.result.count_row(start, max_rows):
                return self.result
            if None in record or None in record.values():
                self.result.errors.append(RowError(start, "", "", f"the row does not have {len(header)} cells"))
                continue
            try:
                self._row(start, {k: v.strip() for k, v in record.items()})
            except _BadCell as bad:
                self.result.errors.append(RowError(start, bad.column, bad.value, bad.reason))
        if self.result.rows_total == 0 and not self.result.errors:
            self.result.errors.append(RowError(2, "", "", "no data rows after the header"))
        self._pair_gcp_hosts()
        self._classify_gpuless()
        self._emit()
        self._account()
        return self.result

    def _skip(self, line: int, reason: str, value: str = "") -> None:
        self.result.skipped.append(Skip(line, reason, value))

    def _hold(self, line: int, kind: str, name: str, reason: str, value: str) -> None:
        self.result.held_back.append(Skip(line, reason, value, name=name, kind=kind))

    def _gpu(
        self, line: int, name: str, instance: str, cell: dict[str, str], gpus: int, upstream: str = ""
    ) -> int | None:
        gpu_info = cell.get("GpuInfo") or ""
        info_name = match.group(1) if (match := INFO_NAME.search(gpu_info)) else ""
        if gpu_info and "{" not in gpu_info:
            info_name = gpu_info  # RunPod's own catalog writes GpuInfo as the GPU's name: `H100_80GB_SXM5`
        upstream_id = cell.get(UPSTREAM_ID_COLUMN) or ""
        form = form_factor(instance, upstream_id, name, info_name) or upstream_form_factor(upstream, upstream_id)
        memory_gb = gpu_memory_gb(gpu_info, gpus, self.memory_written_as)
        names = [name, info_name]
        if self.is_vast and (variant := vast_instance_gpu(instance, name)):
            names = [variant]  # `RTX3060` of a `1x-RTX_3060_Ti` instance is a 3060 Ti, never the 3060
        if (found := resolve_gpu(self.catalog, names, memory_gb, form)) is not None:
            return found
        reason = self.catalog.gpu_error(name) + " Its rows are held back until then."
        self._hold(line, "gpu", name, reason, instance or name)
        return None

    def _upstream(self, instance: str, cell: dict[str, str]) -> str:
        """The name of the provider behind an aggregator's row ("" for a provider's own row)."""
        if self.has_provider_column:
            return cell.get(PROVIDER_COLUMN) or ""
        if self.prefix and self.prefix in instance:
            return instance.split(self.prefix, 1)[0]
        return ""

    def _seller(self, line: int, instance: str, cell: dict[str, str]) -> tuple[int, int | None] | None:
        """(provider id, channel id): the provider behind an aggregator's row, with the aggregator as channel."""
        upstream = self._upstream(instance, cell)
        if not upstream:
            return self.provider.id, None
        found = self.catalog.provider(upstream)
        if found is None:
            reason = (
                f"offered through {self.provider.name} by {upstream!r}, an unknown provider: add it (or an alias "
                "for it) in the admin under Providers, then import again."
            )
            self._hold(line, "provider", upstream, reason, instance)
            return None
        if found.id == self.provider.id:
            return found.id, None
        return found.id, self.provider.id

    def _row(self, line: int, cell: dict[str, str]) -> None:
        instance, accelerator = cell["InstanceType"], cell["AcceleratorName"]
        zone = cell.get("AvailabilityZone") or ""
        if not instance:  # a GCP accelerator row: priced alone, paired with its host later
            count = _count(cell)
            if isinstance(count, str) or not accelerator:
                self._skip(line, "accelerator row without a name or count", accelerator)
                return
            self.accelerators[(zone or cell["Region"], accelerator, count)] = (line, cell)
            return
        if not accelerator:
            gcp = gcp_machine_gpus(instance)
            if gcp is None:
                self.gpuless.append((line, instance))
            else:
                self.hosts.append((line, cell, *gcp))
            return
        count = _count(cell)
        if isinstance(count, str):
            self._skip(line, count, instance)
            return
        if label := not_a_gpu(accelerator):
            self._skip(line, f"{label}, not a GPU", instance)
            return
        prices, reason = _prices(cell)
        if not prices:
            self._skip(line, reason, instance)
            return
        seller = self._seller(line, instance, cell)
        if seller is None:
            return
        gpu_model_id = self._gpu(line, accelerator, instance, cell, count, self._upstream(instance, cell))
        if gpu_model_id is None:
            return
        self._check_spot(line, instance, prices)
        for term, price in prices.items():
            self._add(line, seller, instance, gpu_model_id, count, cell, term, price)

    def _check_spot(self, line: int, instance: str, prices: dict[str, Decimal]) -> None:
        """A spot price above the on-demand one is imported as the catalog says, with a warning to check it."""
        on_demand, spot = prices.get("on_demand"), prices.get("spot")
        if on_demand is not None and spot is not None and spot > on_demand:
            reason = f"spot price {spot} is above the on-demand price {on_demand}: both imported; check the source"
            self.result.warnings.append(Skip(line, reason, instance))

    def _add(self, line, seller, offering, gpu_model_id, gpus, cell, term, price) -> None:
        region = cell["Region"] or UNKNOWN_REGION
        zone = cell.get("AvailabilityZone") or ""
        self.priced.append(_Priced(line, *seller, offering, gpu_model_id, gpus, region, zone, term, price))

    def _pair_gcp_hosts(self) -> None:
        claimed: dict[tuple[str, str, int], int] = {}
        held: set[tuple[str, str, int]] = set()
        for line, host, accelerator, count in self.hosts:
            key = (host.get("AvailabilityZone") or host["Region"], accelerator, count)
            paired = self.accelerators.get(key)
            instance = host["InstanceType"]
            if paired is None:
                self._skip(line, f"no {accelerator} x{count} accelerator row in the same zone", instance)
                continue
            accelerator_cell = paired[1]
            prices, reason = _prices(accelerator_cell, host)
            if not prices:
                self._skip(line, reason, instance)
                continue
            gpu_model_id = self._gpu(line, accelerator, instance, accelerator_cell, count)
            if gpu_model_id is None:
                held.add(key)
                continue
            claimed.setdefault(key, line)
            self._check_spot(line, instance, prices)
            for term, price in prices.items():
                self._add(line, (self.provider.id, None), instance, gpu_model_id, count, host, term, price)
        for key, (line, cell) in self.accelerators.items():
            if key in claimed:
                self.result.merged.append(Skip(line, f"priced with its host machine, line {claimed[key]}", key[1]))
                continue
            if key in held:
                self._hold(line, "gpu", key[1], f"the accelerator of a held-back host machine ({key[1]})", key[1])
                continue
            label = not_a_gpu(key[1])
            price = _price(cell, "Price")
            if label:
                reason = f"{label}, not a GPU"
            elif isinstance(price, str):
                reason = price
            else:
                reason = "accelerator priced alone: no host machine in this zone"
            self._skip(line, reason, f"{key[1]} x{key[2]}")

    def _classify_gpuless(self) -> None:
        """Rows without an accelerator: CPU-only, unless this is a GCP-style file and the family is unknown."""
        gcp_style = bool(self.accelerators) or bool(self.hosts)
        for line, instance in self.gpuless:
            family = instance.split("-", 1)[0].lower()
            if not gcp_style or family in GCP_CPU_FAMILIES:
                self._skip(line, "no GPU (CPU-only instance)", instance)
            elif family in GCP_GPU_FAMILIES:
                self._skip(line, f"unknown machine type in the GPU family {family}", instance)
            else:
                self._skip(line, f"unknown machine family {family!r}; not imported", instance)

    def _emit(self) -> None:
        """One observation per group when every zone of its region agrees, else one per zone."""
        zones_of: dict[tuple, set[str]] = {}
        groups: dict[tuple, list[_Priced]] = {}
        for item in self.priced:
            offering = (item.provider_id, item.channel_id, item.offering, item.gpu_model_id, item.gpus, item.region)
            zones_of.setdefault(offering, set()).add(item.zone)
            groups.setdefault((*offering, item.term), []).append(item)
        for key, items in groups.items():
            prices = {item.price_per_instance_hour for item in items}
            if len(prices) == 1 and {item.zone for item in items} == zones_of[key[:-1]]:
                first = items[0]
                self._observation(first, first.region)
                for item in items[1:]:
                    self.result.merged.append(
                        Skip(item.line, f"same price as line {first.line} in every zone of the region", item.offering)
                    )
                continue
            by_zone: dict[str, _Priced] = {}
            for item in sorted(items, key=lambda i: (i.price_per_instance_hour, i.line)):
                kept = by_zone.setdefault(item.zone, item)
                if kept is item:
                    continue
                if kept.price_per_instance_hour == item.price_per_instance_hour:
                    self.result.merged.append(Skip(item.line, f"same offering, zone and price as line {kept.line}"))
                else:
                    reason = f"same offering and zone as line {kept.line}, at a higher price"
                    self._skip(item.line, reason, item.offering)
            for zone, item in by_zone.items():
                self._observation(item, f"{item.region} ({zone})" if zone else item.region)

    def _observation(self, item: _Priced, region: str) -> None:
        self.result.rows.append(
            PriceRow(
                item.line,
                item.provider_id,
                item.offering,
                item.gpu_model_id,
                item.gpus,
                region,
                item.term,
                self.context.observed_on,
                item.price_per_instance_hour,
                per_gpu(item.price_per_instance_hour, item.gpus),
                "USD",
                self.context.source_url,
                item.channel_id,
            )
        )

    def _account(self) -> None:
        """Each row once: it gave a price, else it was merged, else held back, else skipped (with its reasons)."""
        seen = {row.line for row in self.result.rows}
        for name in ("merged", "held_back", "skipped"):
            kept = []
            for entry in getattr(self.result, name):
                if entry.line not in seen:
                    seen.add(entry.line)
                    kept.append(entry)
            setattr(self.result, name, kept)
