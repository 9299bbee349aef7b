"""AWS EC2 offer files (pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.json).

A regional offer file is hundreds of MB, so it is read streaming (ijson, its C backend): `products` first, keeping
only the GPU instances that are priced, then `terms.OnDemand` and `terms.Reserved`; memory grows with the number of
products, never with the file's bytes.

Decisions (docs/import-formats.md has the whole list):
- A product is priced when it is a compute instance on Linux, shared tenancy, capacity status `Used` and no
  pre-installed software; every other product is skipped with the attribute that rules it out.
- The instance family names the GPU (`feed_rules.AWS_GPU_FAMILIES`: p4d is A100 40GB, p5 H100, p5e/p5en H200,
  g6e L40S ...), the `gpu` attribute their count. Inferentia, Trainium, FPGAs are skipped: not GPUs.
- OnDemand is on demand. A CapacityBlock product is never stored, whatever its rate: its usage row (0.00 an hour in
  the files AWS publishes) is the hourly operating fee of a block, not the block's price, which is paid upfront
  for N GPUs over D days when the block is bought and is not in the offer file (CAPACITY_BLOCK_REASON).
- A reserved term (whichever section holds it: LeaseContractLength says it is one) is its own offering,
  `<type> (<class> <purchase option>)`, at its effective hourly price: the hourly rate plus the upfront fee
  spread over the term's hours; the fee itself is kept too (`PriceRow.upfront_fee`).
- The provider is AWS; the date is the file's `publicationDate`.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import BinaryIO

import ijson

from pricing.importers.base import ParseContext, ParseResult
from pricing.importers.feed_rules import AWS_GPU_FAMILIES, AWS_NOT_GPUS
from pricing.importers.feeds import TERM_HOURS, FeedParser, Priced, to_decimal

MAX_BYTES = 2 * 2**30
MAX_PRODUCTS = 2_000_000
LEASE_TERMS = {"1yr": "reserved_1y", "3yr": "reserved_3y"}
_OFFER_CODE = re.compile(r'"offerCode"\s*:\s*"AmazonEC2"')
CAPACITY_BLOCK_REASON = (
    "CapacityBlock usage row: its hourly rate is the block's hourly operating fee, not the block's price (a capacity "
    "block is paid upfront for N GPUs over D days and is not in the offer file), so it is not stored as an on-demand "
    "price"
)
# Attribute, the value a priced product has (None: any value, or the attribute missing), and why others are skipped.
FILTERS = (
    ("operatingSystem", "Linux", "not Linux ({})"),
    ("tenancy", "Shared", "{} tenancy (shared tenancy is imported)"),
    ("capacitystatus", "Used", "capacity status {} (a capacity reservation's, not an instance price)"),
    ("preInstalledSw", "NA", "pre-installed software {} (the bare instance is imported)"),
)


def sniff(text: str) -> str | None:
    return "aws-price-list" if _OFFER_CODE.search(text) else None


def parse(stream: BinaryIO, context: ParseContext) -> ParseResult:
    return AwsPriceListParser(context).parse(stream)


class _Kept:
    """A GPU instance product waiting for its terms."""

    __slots__ = ("gpu", "gpus", "instance", "line", "prices", "problems", "region")

    def __init__(self, line: int, instance: str, region: str, gpus: int, gpu: str) -> None:
        self.line, self.instance, self.region, self.gpus, self.gpu = line, instance, region, gpus, gpu
        self.prices: list[Priced] = []
        self.problems: list[str] = []


class AwsPriceListParser(FeedParser):
    name = "aws-price-list"
    provider_name = "AWS"

    def __init__(self, context: ParseContext) -> None:
        super().__init__(context)
        self.kept: dict[str, _Kept] = {}

    def parse(self, stream: BinaryIO) -> ParseResult:
        if not self.start():
            return self.result
        try:
            header = self._header(stream)
            if header.get("offerCode") != "AmazonEC2":
                return self.reject("not an EC2 offer file: its offerCode is not AmazonEC2")
            observed_on = self._date(header.get("publicationDate"))
            if observed_on is None:
                return self.result
            for sku, product in self._items(stream, "products"):
                if not self.count(self.result.rows_total + 1):
                    return self.result
                self.product(self.result.rows_total, sku, product)
            for section in ("terms.OnDemand", "terms.Reserved"):
                for sku, terms in self._items(stream, section):
                    if (kept := self.kept.get(sku)) is not None and isinstance(terms, dict):
                        for term in terms.values():
                            self.term(kept, term)
        except (ijson.JSONError, UnicodeDecodeError) as exc:
            return self.reject(f"not valid JSON ({exc})")
        for kept in self.kept.values():
            if kept.prices:
                self.add(kept.line, kept.prices, observed_on, kept.instance)
            else:
                self.skip(kept.line, "; ".join(dict.fromkeys(kept.problems)) or "no term prices it", kept.instance)
        self.result.skipped.sort(key=lambda entry: entry.line)
        return self.finish()

    @staticmethod
    def _header(stream: BinaryIO) -> dict[str, object]:
        """The file's top-level scalars before `products` (AWS writes them first)."""
        header: dict[str, object] = {}
        stream.seek(0)
        for prefix, event, value in ijson.parse(stream):
            if prefix in ("products", "terms"):
                break
            if event in ("string", "number") and "." not in prefix:
                header[prefix] = value
        return header

    @staticmethod
    def _items(stream: BinaryIO, prefix: str):
        stream.seek(0)
        return ijson.kvitems(stream, prefix)

    def _date(self, published: object) -> date | None:
        if published is None:
            return self.context.observed_on or self.context.today
        try:
            day = date.fromisoformat(str(published)[:10])
        except ValueError:
            self.reject(f"publicationDate {published!r} is not a date")
            return None
        if day > self.context.today:
            self.reject(f"publicationDate {published!r} is in the future")
            return None
        return day

    def product(self, line: int, sku: str, product: object) -> None:
        if not isinstance(product, dict) or not isinstance(product.get("attributes"), dict):
            self.skip(line, "not a product with attributes", sku)
            return
        family = str(product.get("productFamily") or "")
        attributes = product["attributes"]
        instance = str(attributes.get("instanceType") or "")
        if not family.startswith("Compute Instance") or not instance:
            self.skip(line, f"not an instance ({family or 'no productFamily'})", instance or sku)
            return
        for attribute, wanted, reason in FILTERS:
            found = attributes.get(attribute, wanted)
            if found != wanted:
                self.skip(line, reason.format(found), instance)
                return
        kind = instance.split(".", 1)[0]
        if kind in AWS_NOT_GPUS:
            self.skip(line, f"{AWS_NOT_GPUS[kind]}, not a GPU", instance)
            return
        gpus = to_decimal(attributes.get("gpu"))
        if kind not in AWS_GPU_FAMILIES:
            reason = "no GPU (CPU-only instance)" if not gpus else f"unknown GPU instance family {kind!r}: no GPU rule"
            self.skip(line, reason, instance)
            return
        if not gpus or gpus != gpus.to_integral_value():
            self.skip(line, f"GPU count {attributes.get('gpu')!r} is not a whole number", instance)
            return
        if attributes.get("marketoption") == "CapacityBlock":
            self.skip(line, CAPACITY_BLOCK_REASON, instance)
            return
        region = str(attributes.get("regionCode") or attributes.get("location") or "unknown region")
        self.kept[sku] = _Kept(line, instance, region, int(gpus), AWS_GPU_FAMILIES[kind])

    def term(self, kept: _Kept, term: object) -> None:
        if not isinstance(term, dict) or not isinstance(term.get("priceDimensions"), dict):
            return
        attributes = term.get("termAttributes") if isinstance(term.get("termAttributes"), dict) else {}
        hourly = upfront = None
        currency = "USD"
        for dimension in term["priceDimensions"].values():
            if not isinstance(dimension, dict) or not isinstance(dimension.get("pricePerUnit"), dict):
                continue
            (currency, raw), *_ = dimension["pricePerUnit"].items() or [("USD", None)]
            amount = to_decimal(raw)
            if dimension.get("unit") == "Hrs":
                hourly = amount
            elif dimension.get("unit") == "Quantity":
                upfront = amount
        lease = attributes.get("LeaseContractLength")
        if lease:
            self._reserved(kept, attributes, str(lease), hourly, upfront, str(currency))
        elif hourly is None:
            kept.problems.append("no hourly price on demand")
        elif hourly <= 0:
            kept.problems.append("on-demand price 0.00")
        else:
            priced = Priced(kept.instance, kept.gpu, kept.gpus, kept.region, "on_demand", hourly, str(currency))
            kept.prices.append(priced)

    def _reserved(self, kept, attributes, lease, hourly, upfront, currency) -> None:
        term = LEASE_TERMS.get(lease)
        if term is None:
            kept.problems.append(f"a {lease} reservation (1yr and 3yr are imported)")
            return
        effective = (hourly or Decimal(0)) + (upfront or Decimal(0)) / TERM_HOURS[term]
        if effective <= 0:
            kept.problems.append(f"a {lease} reservation priced 0.00")
            return
        option = f"{attributes.get('OfferingClass') or 'standard'} {attributes.get('PurchaseOption') or 'No Upfront'}"
        offering = f"{kept.instance} ({option})"
        fee = upfront.quantize(Decimal("0.01")) if upfront else None
        kept.prices.append(Priced(offering, kept.gpu, kept.gpus, kept.region, term, effective, currency, fee))
