"""SkyPilot catalog `vms.csv` files (github.com/skypilot-org/skypilot-catalog, catalogs/v8/<cloud>/vms.csv).

Decisions, so a price shown can be traced back to its row:
- Columns are read by name; the provider and the date come from the caller (the files have neither).
- One observation per instance type, GPU model, GPU count, region and term. Zones of a region with
  the same price collapse into one regional observation; zones whose prices differ stay separate,
  with the region written as `region (zone)`.
- `Price` is the on-demand price. A row without a usable one (empty, zero, or the 700.0 placeholder)
  is skipped with its reason, spot price included. `SpotPrice` > 0 adds a `spot` observation.
- CPU-only rows are skipped. Fractional GPUs are skipped (no whole GPU to price per GPU-hour).
- GCP prices a GPU machine in two rows per zone: the host (machine type, no accelerator) and its
  accelerators (no machine type). The machine type names its GPUs (`GCP_MACHINE_GPUS`); the offering
  price is host + accelerators in the same zone. Accelerator rows no host claims (TPUs, GPUs
  attachable to N1 machines) are skipped.
- GPU names resolve through the alias table. A bare name is refined by what the instance type says:
  `gpu_1x_h100_pcie` with AcceleratorName `H100` tries `H100 PCIe` before `H100`, and a one-GPU
  instance whose GpuInfo gives 80 GB tries `A100 80GB` before `A100`. Bare `H100` is the SXM part
  (what an 8-GPU H100 box is), bare `A100` the 40 GB SXM part, `A100-80GB` the 80 GB SXM part.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from pricing.importers.base import Catalog, ParseResult, PriceRow, ProviderRef, RowError, Skip, per_gpu

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
PLACEHOLDER_PRICE = Decimal("700")

# GCP machine type -> (accelerator name in the catalog, GPUs per machine or None: read it from the name).
GCP_MACHINE_GPUS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^a3-(?:highgpu|edgegpu)-(\d+)g$"), "H100"),
    (re.compile(r"^a3-megagpu-(\d+)g$"), "H100-MEGA"),
    (re.compile(r"^a3-ultragpu-(\d+)g$"), "H200"),
    (re.compile(r"^a4-highgpu-(\d+)g$"), "B200"),
    (re.compile(r"^a2-ultragpu-(\d+)g$"), "A100-80GB"),
    (re.compile(r"^a2-(?:highgpu|megagpu)-(\d+)g$"), "A100"),
]
GCP_G2_L4 = {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}
_G2 = re.compile(r"^g2-standard-(\d+)$")
_FORM_HINTS = (("pcie", "PCIe"), ("sxm", "SXM"), ("nvl", "NVL"))
_NVL = re.compile(r"nvl(?!ink)")
_GPU_MEMORY = re.compile(r"'SizeInMiB':\s*(\d+)")


def gcp_machine_gpus(machine_type: str) -> tuple[str, int] | None:
    for pattern, accelerator in GCP_MACHINE_GPUS:
        if match := pattern.match(machine_type):
            return accelerator, int(match.group(1))
    if (match := _G2.match(machine_type)) and int(match.group(1)) in GCP_G2_L4:
        return "L4", GCP_G2_L4[int(match.group(1))]
    return None


@dataclass(slots=True)
class _Priced:
    line: int
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
    raw = cell.get(column, "")
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


def _count(cell: dict[str, str]) -> int | str:
    raw = cell.get("AcceleratorCount", "")
    try:
        value = Decimal(raw) if raw else Decimal(0)
    except InvalidOperation:
        raise _BadCell("AcceleratorCount", raw, "not a number") from None
    if value <= 0 or not value.is_finite():
        return "no GPU (CPU-only instance)"
    if value != value.to_integral_value():
        return "fractional GPU share; no whole GPU to price"
    return int(value)


class SkyPilotParser:
    def __init__(self, *, catalog: Catalog, provider: ProviderRef, observed_on: date, source_url: str) -> None:
        self.catalog, self.provider, self.observed_on, self.source_url = catalog, provider, observed_on, source_url
        self.result = ParseResult(format="skypilot")
        self.priced: list[_Priced] = []
        self.hosts: list[tuple[int, dict[str, str], str, int]] = []
        self.accelerators: dict[tuple[str, str, int], tuple[int, dict[str, str]]] = {}

    def parse(self, text: str, *, max_rows: int) -> ParseResult:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [name.strip() for name in reader.fieldnames or []]
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
        line = reader.line_num
        for record in reader:
            start, line = line + 1, reader.line_num
            self.result.rows_total += 1
            if self.result.rows_total > max_rows:
                self.result.errors.append(
                    RowError(start, "", "", f"more than {max_rows:,} data rows (PRICE_IMPORT_MAX_ROWS); split the file")
                )
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
        self._emit()
        return self.result

    def _skip(self, line: int, reason: str, value: str = "") -> None:
        self.result.skipped.append(Skip(line, reason, value))

    def _gpu(self, line: int, name: str, instance: str, cell: dict[str, str], gpus: int) -> int | None:
        lowered = instance.lower()
        form = next((label for hint, label in _FORM_HINTS if hint in lowered and hint != "nvl"), "")
        if not form and _NVL.search(lowered):
            form = "NVL"
        memory = ""
        if gpus == 1 and (match := _GPU_MEMORY.search(cell.get("GpuInfo", ""))):
            memory = f"{round(int(match.group(1)) / 1024)}GB"
        for candidate in dict.fromkeys((f"{name} {memory} {form}", f"{name} {form}", f"{name} {memory}", name)):
            if found := self.catalog.gpu(candidate.strip()):
                return found[0]
        self.result.errors.append(RowError(line, "AcceleratorName", name, self.catalog.gpu_error(name)))
        return None

    def _row(self, line: int, cell: dict[str, str]) -> None:
        instance, accelerator = cell["InstanceType"], cell["AcceleratorName"]
        zone = cell.get("AvailabilityZone", "")
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
                self._skip(line, "no GPU (CPU-only instance)", instance)
            else:
                self.hosts.append((line, cell, *gcp))
            return
        count = _count(cell)
        if isinstance(count, str):
            self._skip(line, count, instance)
            return
        price = _price(cell, "Price")
        if isinstance(price, str):
            self._skip(line, f"{price} (on demand)", instance)
            return
        gpu_model_id = self._gpu(line, accelerator, instance, cell, count)
        if gpu_model_id is None:
            return
        self._add(line, instance, gpu_model_id, count, cell, "on_demand", price)
        spot = _price(cell, "SpotPrice")
        if not isinstance(spot, str):
            self._add(line, instance, gpu_model_id, count, cell, "spot", spot)

    def _add(self, line, offering, gpu_model_id, gpus, cell, term, price) -> None:
        self.priced.append(
            _Priced(line, offering, gpu_model_id, gpus, cell["Region"], cell.get("AvailabilityZone", ""), term, price)
        )

    def _pair_gcp_hosts(self) -> None:
        claimed: set[tuple[str, str, int]] = set()
        for line, host, accelerator, count in self.hosts:
            key = (host.get("AvailabilityZone", "") or host["Region"], accelerator, count)
            paired = self.accelerators.get(key)
            if paired is None:
                self._skip(line, f"no {accelerator} x{count} accelerator row in the same zone", host["InstanceType"])
                continue
            claimed.add(key)
            accelerator_line, accelerator_cell = paired
            host_price, accelerator_price = _price(host, "Price"), _price(accelerator_cell, "Price")
            if isinstance(host_price, str) or isinstance(accelerator_price, str):
                reason = host_price if isinstance(host_price, str) else accelerator_price
                self._skip(line, f"{reason} (on demand)", host["InstanceType"])
                continue
            gpu_model_id = self._gpu(accelerator_line, accelerator, "", accelerator_cell, count)
            if gpu_model_id is None:
                continue
            instance = host["InstanceType"]
            self._add(line, instance, gpu_model_id, count, host, "on_demand", host_price + accelerator_price)
            host_spot, accelerator_spot = _price(host, "SpotPrice"), _price(accelerator_cell, "SpotPrice")
            if not isinstance(host_spot, str) and not isinstance(accelerator_spot, str):
                self._add(line, instance, gpu_model_id, count, host, "spot", host_spot + accelerator_spot)
        for key, (line, cell) in self.accelerators.items():
            if key not in claimed:
                price = _price(cell, "Price")
                reason = price if isinstance(price, str) else "accelerator priced alone: no host machine in this zone"
                self._skip(line, reason, f"{key[1]} x{key[2]}")

    def _emit(self) -> None:
        """Collapse zones of a region with one price into a regional observation."""
        groups: dict[tuple, list[_Priced]] = {}
        for item in self.priced:
            key = (item.offering, item.gpu_model_id, item.gpus, item.region, item.term)
            groups.setdefault(key, []).append(item)
        for items in groups.values():
            prices = {item.price_per_instance_hour for item in items}
            if len(prices) == 1:
                self._observation(items[0], items[0].region)
                for item in items[1:]:
                    if item.zone == items[0].zone:
                        self._skip(item.line, f"same offering and price as line {items[0].line}", item.offering)
                continue
            by_zone: dict[str, _Priced] = {}
            for item in sorted(items, key=lambda i: i.price_per_instance_hour):
                kept = by_zone.setdefault(item.zone, item)
                if kept is not item:
                    self._skip(
                        item.line, f"same offering and zone as line {kept.line}, at a higher price", item.offering
                    )
            for zone, item in by_zone.items():
                self._observation(item, f"{item.region} ({zone})" if zone else item.region)

    def _observation(self, item: _Priced, region: str) -> None:
        self.result.rows.append(
            PriceRow(
                item.line,
                self.provider.id,
                item.offering,
                item.gpu_model_id,
                item.gpus,
                region,
                item.term,
                self.observed_on,
                item.price_per_instance_hour,
                per_gpu(item.price_per_instance_hour, item.gpus),
                "USD",
                self.source_url,
            )
        )


def parse_skypilot(
    text: str, *, catalog: Catalog, provider: ProviderRef, observed_on: date, source_url: str = "", max_rows: int
) -> ParseResult:
    parser = SkyPilotParser(catalog=catalog, provider=provider, observed_on=observed_on, source_url=source_url)
    return parser.parse(text, max_rows=max_rows)
