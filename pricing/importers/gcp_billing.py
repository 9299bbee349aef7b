"""Google Cloud Billing Catalog SKU pages (cloudbilling.googleapis.com/v1/services/<id>/skus): `{"skus": [...],
"nextPageToken": ...}`.

Decisions (docs/import-formats.md has the whole list):
- Google prices a GPU apart from the machine it is attached to, per GPU-hour, for the regions a SKU lists in
  `serviceRegions`. So each GPU SKU is stored as a GPU-only offering that says so (`A100 GPU only (the VM's
  cores and memory are priced apart)`), 1 GPU per instance, one observation per listed region.
- The usage type is the term: OnDemand, Preemptible (spot), Commit1Yr and Commit3Yr (reserved). The price is
  the first tier's `units` + `nanos` / 10^9 of the newest pricing info, priced per hour (`usageUnit` "h").
- When the file also gives the machine family's core and memory rates (`A2 Instance Core` / `Ram`) for the same
  region and term, each machine type carrying that GPU (`GCP_MACHINES`) is priced whole too: vCPUs x core rate +
  GiB x memory rate + GPUs x GPU rate, and those core and memory SKUs are merged into it.
- Other core, memory, disk and licence SKUs are skipped; a GPU-hour price outside the plausible band is held back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pricing.importers.base import ParseContext, ParseResult, Skip
from pricing.importers.feeds import FeedParser, NotTheFeed, Priced, to_decimal

MAX_BYTES = 64 * 2**20
MAX_PAGES = 50
USAGE_TERMS = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "reserved_1y", "Commit3Yr": "reserved_3y"}
NANOS = Decimal(10) ** 9
_GPU_NAME = re.compile(r"\b(?:Nvidia|AMD)\s+(?:Tesla\s+)?(.+?)\s+GPU\b", re.IGNORECASE)
_MACHINE_PART = re.compile(r"(?:Spot Preemptible\s+)?(\w+) Instance (?:Core|Ram) running in\b", re.IGNORECASE)
# The GPU name in a SKU's description (lower case) -> machine type -> (family of its core and memory SKUs, vCPUs,
# GiB of memory, GPUs): Compute Engine's accelerator-optimised machine shapes.
GCP_MACHINES = {
    "a100": {
        "a2-highgpu-1g": ("a2", 12, 85, 1),
        "a2-highgpu-2g": ("a2", 24, 170, 2),
        "a2-highgpu-4g": ("a2", 48, 340, 4),
        "a2-highgpu-8g": ("a2", 96, 680, 8),
        "a2-megagpu-16g": ("a2", 96, 1360, 16),
    },
    "a100 80gb": {
        "a2-ultragpu-1g": ("a2", 12, 170, 1),
        "a2-ultragpu-2g": ("a2", 24, 340, 2),
        "a2-ultragpu-4g": ("a2", 48, 680, 4),
        "a2-ultragpu-8g": ("a2", 96, 1360, 8),
    },
}


def sniff(text: str) -> str | None:
    return "gcp-billing-catalog" if '"skus"' in text and ('"skuId"' in text or '"pricingInfo"' in text) else None


def next_page(body: bytes, url: str) -> str | None:
    """The same request with `pageToken` set to the page's `nextPageToken`; None after the last page."""
    try:
        page = json.loads(body)
    except ValueError:
        return None
    token = page.get("nextPageToken") if isinstance(page, dict) else None
    if not isinstance(token, str) or not token:
        return None
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "pageToken"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("pageToken", token)])))


def parse(text: str, context: ParseContext) -> ParseResult:
    return GcpBillingParser(context).parse(text)


def _skus(page: object) -> list:
    if isinstance(page, dict) and isinstance(page.get("skus"), list):
        return page["skus"]
    raise NotTheFeed('expected Cloud Billing Catalog pages ({"skus": [...]})')


def _unit_price(sku: dict, unit: str = "h") -> tuple[Decimal, str] | str:
    """The price per `unit` (an hour; GiBy.h for memory) of the SKU's newest pricing info and its currency, or
    why there is none."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not isinstance(infos[-1], dict):
        return "no pricingInfo"
    expression = infos[-1].get("pricingExpression")
    if not isinstance(expression, dict):
        return "no pricingExpression"
    if expression.get("usageUnit") != unit:
        return f"priced per {expression.get('usageUnit') or 'unknown unit'}, not per {unit}"
    rates = expression.get("tieredRates")
    first = rates[0] if isinstance(rates, list) and rates and isinstance(rates[0], dict) else {}
    price = first.get("unitPrice")
    if not isinstance(price, dict):
        return "no tieredRates unitPrice"
    units, nanos = to_decimal(price.get("units") or 0), to_decimal(price.get("nanos") or 0)
    if units is None or nanos is None:
        return f"not a price (units {price.get('units')!r}, nanos {price.get('nanos')!r})"
    return units + nanos / NANOS, str(price.get("currencyCode") or "USD").upper()


@dataclass(frozen=True, slots=True)
class _GpuSku:
    line: int
    name: str
    term: str
    regions: tuple[str, ...]
    price: Decimal
    currency: str
    description: str


class GcpBillingParser(FeedParser):
    name = "gcp-billing-catalog"
    provider_name = "Google Cloud"

    def __init__(self, context: ParseContext) -> None:
        super().__init__(context)
        self.gpu_skus: list[_GpuSku] = []
        # (family, CPU or RAM, term, region) -> (price per vCPU- or GiB-hour, currency, line)
        self.rates: dict[tuple[str, str, str, str], tuple[Decimal, str, int]] = {}
        self.parts: list[tuple[int, str, str]] = []  # core and memory SKUs: line, resource group, description
        self.used: dict[int, set[str]] = {}  # line of a core or memory SKU -> the machine types it priced

    def parse(self, text: str) -> ParseResult:
        if not self.start() or not self.read_pages(text, _skus, self.sku):
            return self.result
        for gpu_sku in self.gpu_skus:
            self.add(gpu_sku.line, self._prices(gpu_sku), self.context.observed_on, gpu_sku.description)
        for line, group, description in self.parts:
            if machines := self.used.get(line):
                self.result.merged.append(Skip(line, f"priced into {', '.join(sorted(machines))}", description))
            else:
                self.skip(line, f"not a GPU SKU ({group})", description)
        return self.finish()

    def sku(self, line: int, sku: object) -> None:
        if not isinstance(sku, dict):
            self.skip(line, "not a SKU object")
            return
        description = str(sku.get("description") or "")
        category = sku.get("category") if isinstance(sku.get("category"), dict) else {}
        group = category.get("resourceGroup") or category.get("resourceFamily") or "no category"
        term = USAGE_TERMS.get(category.get("usageType"))
        if group in ("CPU", "RAM") and (part := _MACHINE_PART.match(description)) and term:
            self._rate(line, sku, part.group(1).lower(), group, term)
            self.parts.append((line, group, description))
            return
        if group != "GPU":
            self.skip(line, f"not a GPU SKU ({group})", description)
            return
        if "workstation" in description.lower():
            self.skip(line, "a virtual workstation licence, not the GPU", description)
            return
        if term is None:
            self.skip(line, f"usage type {category.get('usageType')!r} is not a price term", description)
            return
        match = _GPU_NAME.search(description)
        if match is None:
            self.skip(line, "the description names no GPU", description)
            return
        price = _unit_price(sku)
        if isinstance(price, str):
            self.skip(line, price, description)
            return
        if price[0] <= 0:
            self.skip(line, "zero price", description)
            return
        regions = _regions(sku)
        if not regions:
            self.skip(line, "no serviceRegions", description)
            return
        self.gpu_skus.append(_GpuSku(line, match.group(1), term, regions, *price, description))

    def _rate(self, line: int, sku: dict, family: str, group: str, term: str) -> None:
        price = _unit_price(sku, unit="GiBy.h" if group == "RAM" else "h")
        if isinstance(price, tuple) and price[0] > 0:
            for region in _regions(sku):
                self.rates[(family, group, term, region)] = (price[0], price[1], line)

    def _prices(self, gpu_sku: _GpuSku) -> list[Priced]:
        """The GPU-only price in every listed region, and each machine type carrying this GPU whose core and memory
        rates the file gives for the same region and term (cores x core rate + GiB x memory rate + GPUs x GPU)."""
        gpu = self._gpu_name(gpu_sku.name)
        offering = f"{gpu_sku.name} GPU only (the VM's cores and memory are priced apart)"
        prices = []
        for region in gpu_sku.regions:
            prices.append(Priced(offering, gpu, 1, region, gpu_sku.term, gpu_sku.price, gpu_sku.currency))
            for machine, (family, vcpus, memory_gib, gpus) in GCP_MACHINES.get(gpu_sku.name.lower(), {}).items():
                core = self.rates.get((family, "CPU", gpu_sku.term, region))
                memory = self.rates.get((family, "RAM", gpu_sku.term, region))
                if core is None or memory is None or {core[1], memory[1]} != {gpu_sku.currency}:
                    continue
                price = vcpus * core[0] + memory_gib * memory[0] + gpus * gpu_sku.price
                prices.append(Priced(machine, gpu, gpus, region, gpu_sku.term, price, gpu_sku.currency))
                for line in (core[2], memory[2]):
                    self.used.setdefault(line, set()).add(machine)
        return prices

    def _gpu_name(self, name: str) -> str:
        """The name as the alias table knows it: Google's `A100 80GB` is the SXM part (A2 Ultra machines)."""
        for candidate in (name, f"{name} SXM"):
            if self.catalog.gpu(candidate):
                return candidate
        return name


def _regions(sku: dict) -> tuple[str, ...]:
    return tuple(region for region in sku.get("serviceRegions") or [] if isinstance(region, str) and region)
