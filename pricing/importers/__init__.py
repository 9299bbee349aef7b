"""Pure price-file parsers: text in, `ParseResult` (rows, errors, skipped and held-back rows) out. No database.

`registry` lists the formats; `dispatch.parse_prices` is the one entry point the import service calls.
"""

from pricing.importers.base import Catalog, ParseResult, PriceRow, ProviderRef, RowError, Skip
from pricing.importers.canonical import CANONICAL_COLUMNS
from pricing.importers.dispatch import decode, parse_prices

__all__ = [
    "CANONICAL_COLUMNS",
    "Catalog",
    "ParseResult",
    "PriceRow",
    "ProviderRef",
    "RowError",
    "Skip",
    "decode",
    "parse_prices",
]
