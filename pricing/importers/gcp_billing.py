"""Google Cloud Billing Catalog SKU pages (cloudbilling.googleapis.com/v1/services/<id>/skus): `{"skus": [...],
"nextPageToken": ...}`.

Decisions (docs/import-formats.md has the whole list):
- Google prices a GPU apart from the machine it is attached to, per GPU-hour, for the regions a SKU lists in
  `serviceRegions`. So each GPU SKU is stored as a GPU-only offering that says so (`A100 GPU only (the VM's
  cores and memory are priced apart)`), 1 GPU per instance, one observation per listed region.
- The usage type is the term: OnDemand, Preemptible (spot), Commit1Yr and Commit3Yr (reserved). The price is
  the first tier's `units` + `nanos` / 10^9 of the newest pricing info, priced per hour (`usageUnit` "h").
- Core, memory, disk and licence SKUs are skipped; a GPU-hour price outside the plausible band is held back.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pricing.importers.base import ParseContext, ParseResult
from pricing.importers.feeds import FeedParser, NotTheFeed, Priced, documents, to_decimal

MAX_BYTES = 64 * 2**20
MAX_PAGES = 50
USAGE_TERMS = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "reserved_1y", "Commit3Yr": "reserved_3y"}
NANOS = Decimal(10) ** 9
_GPU_NAME = re.compile(r"\b(?:Nvidia|AMD)\s+(?:Tesla\s+)?(.+?)\s+GPU\b", re.IGNORECASE)


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


def _unit_price(sku: dict) -> tuple[Decimal, str] | str:
    """The hourly price of the SKU's newest pricing info and its currency, or why there is none."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not isinstance(infos[-1], dict):
        return "no pricingInfo"
    expression = infos[-1].get("pricingExpression")
    if not isinstance(expression, dict):
        return "no pricingExpression"
    if expression.get("usageUnit") != "h":
        return f"priced per {expression.get('usageUnit') or 'unknown unit'}, not per hour"
    rates = expression.get("tieredRates")
    first = rates[0] if isinstance(rates, list) and rates and isinstance(rates[0], dict) else {}
    price = first.get("unitPrice")
    if not isinstance(price, dict):
        return "no tieredRates unitPrice"
    units, nanos = to_decimal(price.get("units") or 0), to_decimal(price.get("nanos") or 0)
    if units is None or nanos is None:
        return f"not a price (units {price.get('units')!r}, nanos {price.get('nanos')!r})"
    return units + nanos / NANOS, str(price.get("currencyCode") or "USD").upper()


class GcpBillingParser(FeedParser):
    name = "gcp-billing-catalog"
    provider_name = "Google Cloud"

    def parse(self, text: str) -> ParseResult:
        if not self.start():
            return self.result
        line = 0
        try:
            for page in documents(text):
                for sku in _skus(page):
                    line += 1
                    if not self.count(line):
                        return self.result
                    self.sku(line, sku)
        except NotTheFeed as exc:
            return self.reject(str(exc))
        return self.finish()

    def sku(self, line: int, sku: object) -> None:
        if not isinstance(sku, dict):
            self.skip(line, "not a SKU object")
            return
        description = str(sku.get("description") or "")
        category = sku.get("category") if isinstance(sku.get("category"), dict) else {}
        group = category.get("resourceGroup") or category.get("resourceFamily") or "no category"
        if group != "GPU":
            self.skip(line, f"not a GPU SKU ({group})", description)
            return
        if "workstation" in description.lower():
            self.skip(line, "a virtual workstation licence, not the GPU", description)
            return
        term = USAGE_TERMS.get(category.get("usageType"))
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
        regions = [region for region in sku.get("serviceRegions") or [] if isinstance(region, str) and region]
        if not regions:
            self.skip(line, "no serviceRegions", description)
            return
        gpu = self._gpu_name(match.group(1))
        offering = f"{match.group(1)} GPU only (the VM's cores and memory are priced apart)"
        prices = [Priced(offering, gpu, 1, region, term, price[0], price[1]) for region in regions]
        self.add(line, prices, self.context.observed_on, description)

    def _gpu_name(self, name: str) -> str:
        """The name as the alias table knows it: Google's `A100 80GB` is the SXM part (A2 Ultra machines)."""
        for candidate in (name, f"{name} SXM"):
            if self.catalog.gpu(candidate):
                return candidate
        return name
