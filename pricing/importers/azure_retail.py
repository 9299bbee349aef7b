"""Azure Retail Prices API pages (prices.azure.com/api/retail/prices): `{"Items": [...], "NextPageLink": ...}`.

Decisions (docs/import-formats.md has the whole list):
- Virtual machines only (`serviceName`; an item saved without it is one when its `productName` is a "Virtual
  Machines ... Series" and it has an `armSkuName`), priced per hour, Linux only: Windows items share the meter
  name and differ in `productName` (`... Series Windows`), so they are skipped by it. Dev/Test prices are skipped.
- `Consumption` is on demand; a meter named `... Spot` or `... Low Priority` is spot (Low Priority is its own
  offering, `<size> (Low Priority)`). A `Reservation`'s `retailPrice` is the whole term: it is divided by the
  term's hours (8,760 a year) into `reserved_1y` / `reserved_3y` per hour.
- The VM size names the GPUs (`feed_rules.azure_size_gpus`: ND96isr_H100_v5 = 8 x H100 SXM); the provider is
  Azure, the date the caller's (default today). Pages of a URL source are stored one after another.
"""

from __future__ import annotations

import json
from decimal import Decimal

from pricing.importers.base import UNKNOWN_REGION, ParseContext, ParseResult
from pricing.importers.feed_rules import azure_size_gpus
from pricing.importers.feeds import TERM_HOURS, FeedParser, NotTheFeed, Priced, to_decimal

MAX_BYTES = 64 * 2**20
MAX_PAGES = 100
RESERVATION_TERMS = {"1 Year": "reserved_1y", "3 Years": "reserved_3y"}
VIRTUAL_MACHINES = "Virtual Machines"


def sniff(text: str) -> str | None:
    return "azure-retail" if '"retailPrice"' in text and '"armRegionName"' in text else None


def next_page(body: bytes, url: str) -> str | None:
    try:
        page = json.loads(body)
    except ValueError:
        return None  # the parser says what is wrong with the page
    link = page.get("NextPageLink") if isinstance(page, dict) else None
    return link if isinstance(link, str) and link else None


def parse(text: str, context: ParseContext) -> ParseResult:
    return AzureRetailParser(context).parse(text)


def _items(page: object) -> list:
    if isinstance(page, dict) and isinstance(page.get("Items"), list):
        return page["Items"]
    if isinstance(page, list):  # the items alone, as a script prints them
        return page
    raise NotTheFeed('expected Retail Prices API pages ({"Items": [...]}) or a list of their items')


def _service(text: dict, size: str) -> str:
    """The item's service: its `serviceName`, else (collectors that queried one service leave it out) Virtual
    Machines when its `productName` is a VM series ("Virtual Machines NDsr H100 v5 Series") and it names its VM
    size in `armSkuName`, else what its product name says."""
    if service := str(text.get("serviceName") or ""):
        return service
    product = str(text.get("productName") or "")
    if product.startswith(f"{VIRTUAL_MACHINES} ") and " Series" in product:
        return VIRTUAL_MACHINES if size else f"{product} without an armSkuName"
    return product or "no serviceName"


class AzureRetailParser(FeedParser):
    name = "azure-retail"
    provider_name = "Azure"

    def parse(self, text: str) -> ParseResult:
        if not self.start() or not self.read_pages(text, _items, self.item):
            return self.result
        return self.finish()

    def item(self, line: int, item: object) -> None:
        if not isinstance(item, dict):
            self.skip(line, "not an item object")
            return
        text = {key: value.strip() if isinstance(value, str) else value for key, value in item.items()}
        size = str(text.get("armSkuName") or "")
        meter = str(text.get("meterName") or "")
        value = size or meter
        if (service := _service(text, size)) != VIRTUAL_MACHINES:
            self.skip(line, f"not a virtual machine ({service})", value)
            return
        if "windows" in str(text.get("productName") or "").lower():
            self.skip(line, "Windows (the Linux price of the same meter is imported)", value)
            return
        term = self._term(line, text, meter, value)
        if term is None:
            return
        if text.get("unitOfMeasure") != "1 Hour":
            self.skip(line, f"priced per {text.get('unitOfMeasure') or 'unknown unit'}, not per hour", value)
            return
        gpus = azure_size_gpus(size)
        if isinstance(gpus, str):
            self.skip(line, gpus, value)
            return
        price = to_decimal(text.get("retailPrice"))
        if price is None or price <= 0:
            self.skip(line, f"no price ({text.get('retailPrice')!r})", value)
            return
        if term in TERM_HOURS:
            price = price / TERM_HOURS[term]
        offering = f"{size} (Low Priority)" if meter.lower().endswith("low priority") else size
        currency = str(text.get("currencyCode") or "USD").upper()
        region = str(text.get("armRegionName") or text.get("location") or UNKNOWN_REGION)
        priced = Priced(offering, gpus[1], gpus[0], region, term, Decimal(price), currency)
        self.add(line, [priced], self.context.observed_on, value)

    def _term(self, line: int, text: dict, meter: str, value: str) -> str | None:
        kind = text.get("type")
        if kind == "Consumption":
            lowered = meter.lower()
            return "spot" if lowered.endswith(("spot", "low priority")) else "on_demand"
        if kind == "Reservation":
            term = RESERVATION_TERMS.get(str(text.get("reservationTerm") or ""))
            if term is None:
                self.skip(line, f"a reservation of {text.get('reservationTerm')!r} (1 and 3 years are imported)", value)
            return term
        self.skip(line, f"price type {kind!r} (Consumption and Reservation are imported)", value)
        return None
