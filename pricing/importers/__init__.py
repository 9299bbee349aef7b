"""Pure price-file parsers: bytes in, `ParseResult` (rows, errors, skipped rows) out. No database access."""

from __future__ import annotations

from datetime import date

from pricing.importers.base import Catalog, ParseResult, PriceRow, ProviderRef, RowError, Skip
from pricing.importers.canonical import CANONICAL_COLUMNS, Defaults, parse_canonical_csv, parse_canonical_json
from pricing.importers.skypilot import parse_skypilot

__all__ = [
    "CANONICAL_COLUMNS",
    "Catalog",
    "ParseResult",
    "PriceRow",
    "ProviderRef",
    "RowError",
    "Skip",
    "decode",
    "detect_format",
    "parse_prices",
]

FORMATS = ("auto", "canonical", "skypilot")


def decode(content: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped); raises ValueError naming the first bad byte."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 text: byte 0x{content[exc.start]:02x} at offset {exc.start}; save the file as UTF-8"
        ) from None


def detect_format(text: str, requested: str = "auto") -> str:
    """`canonical-json`, `canonical-csv` or `skypilot`, from the requested format and the content."""
    stripped = text.lstrip()
    if requested == "skypilot":
        return "skypilot"
    if stripped[:1] in ("[", "{"):
        return "canonical-json"
    if requested == "auto" and "InstanceType" in stripped.split("\n", 1)[0]:
        return "skypilot"
    return "canonical-csv"


def _rejected(fmt: str, reason: str, column: str = "") -> ParseResult:
    return ParseResult(format=fmt, errors=[RowError(0, column, "", reason)])


def parse_prices(
    content: bytes,
    *,
    catalog: Catalog,
    requested_format: str = "auto",
    provider_name: str = "",
    observed_on: date | None = None,
    source_url: str = "",
    today: date,
    max_rows: int,
) -> ParseResult:
    """Parse a price file of any supported format. `provider_name` and `observed_on` fill what the file lacks."""
    if requested_format not in FORMATS:
        return _rejected(requested_format, f"unknown format; use one of {', '.join(FORMATS)}", "format")
    try:
        text = decode(content)
    except ValueError as exc:
        return _rejected(requested_format, str(exc))
    if not text.strip():
        return _rejected(requested_format, "the file is empty")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParseResult(
            format=requested_format,
            errors=[
                RowError(line, "", "0x00", "a NUL byte: this is not a text price file (or it is UTF-16; save as UTF-8)")
            ],
        )
    fmt = detect_format(text, requested_format)
    provider = None
    if provider_name:
        provider = catalog.provider(provider_name)
        if provider is None:
            return _rejected(fmt, catalog.provider_error(provider_name), "provider")
    if observed_on is not None and observed_on > today:
        return _rejected(fmt, f"the date {observed_on.isoformat()} is in the future", "observed_on")
    if fmt == "skypilot":
        if provider is None:
            return _rejected(fmt, "a SkyPilot catalog has no provider column: name the provider", "provider")
        return parse_skypilot(
            text,
            catalog=catalog,
            provider=provider,
            observed_on=observed_on or today,
            source_url=source_url,
            max_rows=max_rows,
        )
    defaults = Defaults(today=today, provider=provider, observed_on=observed_on, source_url=source_url)
    parse = parse_canonical_json if fmt == "canonical-json" else parse_canonical_csv
    return parse(text, catalog=catalog, defaults=defaults, max_rows=max_rows)
