"""The import formats: one table drives format detection, dispatch, the model's choices and the command's options.

A new format is one module with a `sniff(text) -> variant | None` and a `parse(text, context) -> ParseResult`,
plus one `ImportFormat` entry in `FORMATS`. Detection tries the formats in table order on the file's first
`dispatch.HEAD_BYTES`; the last entry is the fallback and must sniff anything. A feed too big to hold in memory
`streams`: its `parse` reads the open binary file as it goes. A paged API names its `next_page`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pricing.importers import (
    aws_price_list,
    azure_retail,
    canonical,
    gcp_billing,
    gpuhunt,
    litellm,
    openrouter,
    skypilot,
    vast_offers,
)
from pricing.importers.base import ParseContext, ParseResult

AUTO = "auto"


@dataclass(frozen=True)
class ImportFormat:
    name: str
    label: str
    sniff: Callable[[str], str | None]
    parse: Callable[[Any, ParseContext], ParseResult]
    """Gets the file's text, or with `streams` the open binary file."""
    needs_provider: bool = False
    """The file has no provider column: the caller names the provider (a SkyPilot cloud name works)."""
    needs_observed_on: bool = False
    """The file has no dates: the caller gives the day the prices were seen (default: today)."""
    third_party: bool = False
    """Someone else's catalog: rows naming an unknown GPU are held back instead of rejecting the file."""
    streams: bool = False
    """`parse` reads the open binary file as it goes, in bounded memory, instead of the file's text."""
    max_bytes: int | None = None
    """This format's size limit; None: PRICE_IMPORT_MAX_BYTES."""
    max_rows: int | None = None
    """This format's limit on records; None: PRICE_IMPORT_MAX_ROWS."""
    max_pages: int = 1
    """How many pages of a paged API a URL source follows at most."""
    next_page: Callable[[bytes, str], str | None] | None = None
    """A paged API's next page: its URL from one page's body and URL, None after the last page."""
    json: bool = False
    """A JSON document: no CSV header or line-length caps (it may be one long line); its fields are checked."""


FORMATS: tuple[ImportFormat, ...] = (
    # The hyperscalers' own price feeds: each recognises its own JSON, so they come first.
    ImportFormat(
        name="azure-retail",
        label="Azure Retail Prices API (Items pages)",
        sniff=azure_retail.sniff,
        parse=azure_retail.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
        max_bytes=azure_retail.MAX_BYTES,
        max_pages=azure_retail.MAX_PAGES,
        next_page=azure_retail.next_page,
    ),
    ImportFormat(
        name="aws-price-list",
        label="AWS EC2 price list (offer file)",
        sniff=aws_price_list.sniff,
        parse=aws_price_list.parse,
        third_party=True,
        streams=True,
        max_bytes=aws_price_list.MAX_BYTES,
        max_rows=aws_price_list.MAX_PRODUCTS,
    ),
    ImportFormat(
        name="gcp-billing-catalog",
        label="Google Cloud Billing Catalog SKUs (skus pages)",
        sniff=gcp_billing.sniff,
        parse=gcp_billing.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
        max_bytes=gcp_billing.MAX_BYTES,
        max_pages=gcp_billing.MAX_PAGES,
        next_page=gcp_billing.next_page,
    ),
    ImportFormat(
        name="skypilot",
        label="SkyPilot catalog vms.csv",
        sniff=skypilot.sniff,
        parse=skypilot.parse,
        needs_provider=True,
        needs_observed_on=True,
        third_party=True,
    ),
    # Third-party price feeds (docs/import-formats.md), kept together.
    ImportFormat(
        name="gpuhunt",
        label="dstack gpuhunt catalog CSV",
        sniff=gpuhunt.sniff,
        parse=gpuhunt.parse,
        needs_provider=True,
        needs_observed_on=True,
        third_party=True,
    ),
    ImportFormat(
        name="vast-offers",
        label="Vast.ai search offers JSON",
        sniff=vast_offers.sniff,
        parse=vast_offers.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
        max_bytes=vast_offers.MAX_BYTES,
    ),
    ImportFormat(
        name="litellm",
        label="LiteLLM model prices JSON (per-token)",
        sniff=litellm.sniff,
        parse=litellm.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
    ),
    ImportFormat(
        name="openrouter",
        label="OpenRouter models or endpoints JSON (per-token)",
        sniff=openrouter.sniff,
        parse=openrouter.parse,
        needs_observed_on=True,
        third_party=True,
        json=True,
    ),
    ImportFormat(
        name="canonical",
        label="Canonical CSV or JSON",
        sniff=canonical.sniff,
        parse=canonical.parse,
    ),
)
BY_NAME: dict[str, ImportFormat] = {f.name: f for f in FORMATS}


def format_names() -> list[str]:
    """What `--format` and the upload form accept: `auto` first, then every format."""
    return [AUTO, *BY_NAME]


# Who publishes each format's prices, as a price's "from ..." says it: two feeds may price one offering differently
# on one day, and both prices are kept, each said with its feed.
FEED_NAMES = {
    "azure-retail": "Azure Retail Prices",
    "aws-price-list": "the AWS price list",
    "gcp-billing-catalog": "Google Cloud's billing catalog",
    "skypilot": "a SkyPilot catalog",
    "gpuhunt": "a gpuhunt catalog",
    "vast-offers": "Vast.ai's offers",
    "litellm": "LiteLLM",
    "openrouter": "OpenRouter",
    "openrouter-endpoints": "OpenRouter",
    "canonical": "a canonical file",
}


def feed_name(name: str) -> str:
    """The feed a price came from, in words ("LiteLLM"); a price stored before feeds were recorded says so."""
    return FEED_NAMES.get(name) or (BY_NAME[name].label if name in BY_NAME else "an earlier import")


def format_choices() -> list[tuple[str, str]]:
    return [(AUTO, "Detect from the content"), *((f.name, f.label) for f in FORMATS)]


def needs_provider(name: str) -> bool:
    return name in BY_NAME and BY_NAME[name].needs_provider


def detect(text: str, requested: str = AUTO) -> tuple[ImportFormat, str]:
    """The format (the requested one, else the first whose sniff accepts the text: the file's head) and its
    variant."""
    if requested != AUTO:
        chosen = BY_NAME[requested]
        return chosen, chosen.sniff(text) or chosen.name
    for candidate in FORMATS:
        if variant := candidate.sniff(text):
            return candidate, variant
    last = FORMATS[-1]
    return last, last.name
