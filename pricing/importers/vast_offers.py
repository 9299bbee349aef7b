"""Vast.ai search results (`vastai search offers --raw`, or the `/api/v0/bundles/` response `{"offers": [...]}`).

Each offer is one bundle of GPUs on one host at its asking price. Decisions, so a price shown can be traced back to
its offer (docs/import-formats.md has the whole list):
- `dph_total` is the whole bundle's price per hour in USD (GPUs, the disk the search asked for, any extras);
  $/GPU-hour = `dph_total` ÷ `num_gpus`. `gpu_ram` is one GPU's memory in MiB (`gpu_total_ram` the bundle's), so
  `gpu_ram` picks the memory variant (an A100 SXM4 with 81,920 MiB is the 80 GB part). Prices are on demand; the
  interruptible bid (`min_bid`) is not read: what a bid pays is set by the auction.
- A host offers several bundles (1, 2, 4 of its GPUs): each is its own offering, `machine <machine_id>: <n>x
  <gpu_name>`, in the offer's `geolocation`.
- Offers Vast has not verified (`verification` other than `verified`) and offers not rentable when the search ran
  (`rentable` false: rented out) are kept at their asking price, each named in the snapshot's warnings.
- The provider is Vast.ai (the reference data's); the date is the caller's (a search result has none).
"""

from __future__ import annotations

from decimal import Decimal

from pricing.importers.base import UNKNOWN_REGION, ParseContext, ParseResult, Skip
from pricing.importers.feeds import FeedParser, NotTheFeed, Priced, documents, to_decimal
from pricing.importers.gpu_names import gpu_candidates
from pricing.importers.skypilot_rules import form_factor

MAX_BYTES = 64 * 2**20
MIB_PER_GB = 1024


def sniff(text: str) -> str | None:
    head = text.lstrip()
    looks_like_json = head.startswith(("[", "{"))
    return "vast-offers" if looks_like_json and '"dph_total"' in head and '"num_gpus"' in head else None


def parse(text: str, context: ParseContext) -> ParseResult:
    return VastOffersParser(context).parse(text)


def _offers(document: object) -> list:
    if isinstance(document, dict) and isinstance(document.get("offers"), list):
        return document["offers"]
    if isinstance(document, list):
        return document
    raise NotTheFeed('expected a Vast search result: a list of offers, or {"offers": [...]}')


class VastOffersParser(FeedParser):
    name = "vast-offers"
    provider_name = "Vast.ai"

    def parse(self, text: str) -> ParseResult:
        if not self.start():
            return self.result
        line = 0
        try:
            for document in documents(text):
                for offer in _offers(document):
                    line += 1
                    if not self.count(line):
                        return self.result
                    self.offer(line, offer)
        except NotTheFeed as exc:
            return self.reject(str(exc))
        return self.finish()

    def offer(self, line: int, offer: object) -> None:
        if not isinstance(offer, dict):
            self.skip(line, "not an offer object")
            return
        name = str(offer.get("gpu_name") or "").strip()
        gpus, price = to_decimal(offer.get("num_gpus")), to_decimal(offer.get("dph_total"))
        offering = f"machine {offer.get('machine_id') or offer.get('id') or '?'}: {gpus or 0}x {name or 'no GPU'}"
        if not name or not gpus:
            self.skip(line, "no GPU in the offer", offering)
            return
        if gpus != gpus.to_integral_value() or gpus < 1:
            self.skip(line, f"num_gpus {gpus} is not a whole number of GPUs", offering)
            return
        if price is None or price <= 0:
            self.skip(line, "no price (dph_total missing or not above 0)", offering)
            return
        count = int(gpus)
        offering = f"machine {offer.get('machine_id') or offer.get('id')}: {count}x {name}"
        priced = Priced(
            offering=offering,
            gpu_name=self._gpu_name(name, to_decimal(offer.get("gpu_ram"))),
            gpus=count,
            region=str(offer.get("geolocation") or "").strip() or UNKNOWN_REGION,
            term="on_demand",
            price_per_instance_hour=price,
            currency="USD",
        )
        before = len(self.result.rows)
        self.add(line, [priced], self.context.observed_on, offering)
        if len(self.result.rows) > before:
            self._flag(line, offer, offering)

    def _gpu_name(self, name: str, gpu_ram_mib: Decimal | None) -> str:
        """The reference data's spelling of the offer's GPU (its memory and form factor count), else the name as
        Vast writes it (held back, with the name to map)."""
        memory_gb = round(gpu_ram_mib / MIB_PER_GB) if gpu_ram_mib else None
        for candidate in gpu_candidates([name], memory_gb, form_factor(name)):
            if self.catalog.gpu(candidate):
                return candidate
        return name

    def _flag(self, line: int, offer: dict, offering: str) -> None:
        """Name an imported offer that Vast has not verified, or that was rented out when the search ran."""
        verification = str(offer.get("verification") or ("verified" if offer.get("verified") else "unverified"))
        if verification != "verified":
            reason = f"kept at its asking price, although Vast has not verified the host (verification: {verification})"
            self.result.warnings.append(Skip(line, reason, offering))
        if offer.get("rentable") is False:
            reason = "kept at its asking price, although it was not rentable when the search ran (rented out)"
            self.result.warnings.append(Skip(line, reason, offering))
