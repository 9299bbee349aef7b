"""What the hyperscalers' own price feeds share (`azure_retail`, `aws_price_list`, `gcp_billing`).

Each feed is someone else's file, read as it is: a record that is no GPU price is skipped with its reason, a
GPU no alias maps and a price no GPU-hour can cost are held back, and only a file that is not the feed at all
(not JSON, no records where the feed keeps them) is rejected. A record is counted once: it gave prices, or it
is skipped, merged (the same price seen again) or held back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from lib.currencies import currency_problem
from lib.jsontext import MAX_DEPTH, nesting_depth
from lib.terms import HOURS_PER_YEAR  # a reservation's price for its whole term is spread over its hours
from pricing.importers.base import MAX_PRICE, MICRO, ParseContext, ParseResult, PriceRow, ProviderRef, RowError, Skip

TERM_HOURS = {"reserved_1y": HOURS_PER_YEAR, "reserved_3y": 3 * HOURS_PER_YEAR}
# A GPU-hour outside this band is a unit error or a placeholder, never a price (the dearest GPU rents for ~$15).
PLAUSIBLE_PER_GPU_HOUR = (Decimal("0.01"), Decimal("100"))


class NotTheFeed(Exception):
    """The file is not this feed at all: the reason rejects it."""


def documents(text: str) -> Iterator[object]:
    """The JSON documents of a file: one page, or the pages of a paged API one after another (as a URL source
    stores them). Numbers are read as decimals."""
    if (depth := nesting_depth(text)) > MAX_DEPTH:
        raise NotTheFeed(f"nested deeper than {MAX_DEPTH} levels of [ and {{ (found {depth:,})")
    decoder = json.JSONDecoder(parse_float=Decimal)
    position, end = 0, len(text)
    while True:
        while position < end and text[position].isspace():
            position += 1
        if position == end:
            return
        try:
            document, position = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError, ValueError) as error:
            raise NotTheFeed(f"not valid JSON ({error})") from None
        yield document


def to_decimal(value: object) -> Decimal | None:
    """A JSON number or numeric text as a Decimal; None when it is neither, or not finite."""
    if isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value)) if isinstance(value, int | float | str | Decimal) else None
    except ArithmeticError:
        return None
    return number if number is not None and number.is_finite() else None


@dataclass(frozen=True, slots=True)
class Priced:
    """One price a record gave, before it becomes a row."""

    offering: str
    gpu_name: str
    gpus: int
    region: str
    term: str
    price_per_instance_hour: Decimal
    currency: str
    upfront_fee: Decimal | None = None


class FeedParser:
    """Turns `Priced` values into rows: names resolved, implausible prices held back, repeats merged."""

    name = ""
    provider_name = ""

    def __init__(self, context: ParseContext) -> None:
        self.context, self.catalog = context, context.catalog
        self.result = ParseResult(format=self.name)
        self.first_line: dict[tuple, tuple[int, Decimal]] = {}
        self.provider: ProviderRef | None = context.provider or self.catalog.provider(self.provider_name)

    def reject(self, reason: str, line: int = 0) -> ParseResult:
        self.result.errors.append(RowError(line, "", "", reason))
        return self.result

    def start(self) -> bool:
        """False (with the error) when the feed's provider is not in the reference data."""
        if self.provider is None:
            self.reject(self.catalog.provider_error(self.provider_name))
            return False
        return True

    def count(self, line: int) -> bool:
        """Counts one record; False (with the error) past the format's limit."""
        self.result.rows_total += 1
        if self.result.rows_total > self.context.max_rows:
            self.reject(f"more than {self.context.max_rows:,} records (the {self.name} limit); split the feed", line)
            return False
        return True

    def read_pages(self, text: str, records: Callable[[object], list], read: Callable[[int, object], None]) -> bool:
        """Each record of each page of a paged feed (``records`` finds a page's), numbered from 1 and counted; False,
        with the error, when the file is not the feed or has more records than the format takes."""
        line = 0
        try:
            for page in documents(text):
                for record in records(page):
                    line += 1
                    if not self.count(line):
                        return False
                    read(line, record)
        except NotTheFeed as exc:
            self.reject(str(exc))
            return False
        return True

    def skip(self, line: int, reason: str, value: str = "") -> None:
        self.result.skipped.append(Skip(line, reason, value))

    def hold(self, line: int, reason: str, value: str, *, name: str = "", kind: str = "") -> None:
        self.result.held_back.append(Skip(line, reason, value, name=name, kind=kind))

    def add(self, line: int, prices: list[Priced], observed_on: date, value: str) -> None:
        """The rows of one record (every price of it lands, or the record is skipped, merged or held back)."""
        rows, repeats = [], []
        for priced in prices:
            if problem := currency_problem(priced.currency):
                self.skip(line, problem, value)
                return
            gpu = self.catalog.gpu(priced.gpu_name)
            if gpu is None:
                reason = self.catalog.gpu_error(priced.gpu_name) + " Its records are held back until then."
                self.hold(line, reason, value, name=priced.gpu_name, kind="gpu")
                return
            per_gpu_hour = priced.price_per_instance_hour / priced.gpus
            low, high = PLAUSIBLE_PER_GPU_HOUR
            if not low <= per_gpu_hour <= high or priced.price_per_instance_hour >= MAX_PRICE:
                reason = (
                    f"{per_gpu_hour.quantize(MICRO)} {priced.currency} per GPU-hour ({priced.term}) is not a plausible "
                    f"price (expected {low} to {high}); held back, not imported"
                )
                self.hold(line, reason, value)
                return
            row = PriceRow(
                line=line,
                provider_id=self.provider.id,
                offering=priced.offering[:200],
                gpu_model_id=gpu[0],
                gpus_per_instance=priced.gpus,
                region=priced.region[:100],
                pricing_term=priced.term,
                observed_on=observed_on,
                price_per_instance_hour=priced.price_per_instance_hour.quantize(MICRO),
                price_per_gpu_hour=per_gpu_hour.quantize(MICRO),
                currency=priced.currency,
                source_url=self.context.source_url,
                upfront_fee=priced.upfront_fee,
            )
            seen = self.first_line.get(row.key())
            if seen is None:
                rows.append(row)
            else:
                repeats.append((seen, row))
        for row in rows:
            self.first_line[row.key()] = (line, row.price_per_gpu_hour)
        self.result.rows.extend(rows)
        if not rows and repeats:
            (first, price), row = repeats[0]
            if price == row.price_per_gpu_hour:
                self.result.merged.append(Skip(line, f"the same price as line {first}", value))
            else:
                reason = f"priced again at {row.price_per_gpu_hour} per GPU-hour; line {first}'s {price} is kept"
                self.skip(line, reason, value)

    def finish(self) -> ParseResult:
        if self.result.rows_total == 0 and not self.result.errors:
            self.reject(f"no records: is this a {self.name} file?")
        return self.result
