"""The one entry point of the importers: bytes in, `ParseResult` out, the format chosen by the registry."""

from __future__ import annotations

from datetime import date

from pricing.importers import registry
from pricing.importers.base import Catalog, ParseContext, ParseResult, RowError

# Checked before any parsing, so a hostile file costs one pass over its text. Real catalogs have about a
# dozen columns and lines of a few hundred characters (AWS's GpuInfo dictionaries are the longest).
MAX_COLUMNS = 200
MAX_LINE_CHARS = 20_000


def decode(content: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped); raises ValueError naming the first bad byte."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 text: byte 0x{content[exc.start]:02x} at offset {exc.start}; save the file as UTF-8"
        ) from None


def _rejected(fmt: str, reason: str, column: str = "", line: int = 0) -> ParseResult:
    return ParseResult(format=fmt, errors=[RowError(line, column, "", reason)])


def _too_wide(text: str, variant: str, *, is_json: bool) -> ParseResult | None:
    """A header with too many columns or a line too long, found in linear time; None when within the caps."""
    if is_json or variant == "canonical-json":
        return None  # JSON may be one long line; its records are checked field by field
    header = text.split("\n", 1)[0]
    columns = header.count(",") + 1
    if columns > MAX_COLUMNS:
        reason = f"the header has {columns:,} columns; the limit is {MAX_COLUMNS} (is this a price file?)"
        return _rejected(variant, reason, line=1)
    lines = text.split("\n")
    if max(map(len, lines)) > MAX_LINE_CHARS:
        number, line = next((n, line) for n, line in enumerate(lines, 1) if len(line) > MAX_LINE_CHARS)
        reason = f"the line has {len(line):,} characters; the limit is {MAX_LINE_CHARS:,}"
        return _rejected(variant, reason, line=number)
    return None


def parse_prices(
    content: bytes,
    *,
    catalog: Catalog,
    requested_format: str = registry.AUTO,
    provider_name: str = "",
    observed_on: date | None = None,
    source_url: str = "",
    today: date,
    max_rows: int,
    new_providers: frozenset[str] = frozenset(),
) -> ParseResult:
    """Parse a price file of any registered format. `provider_name` and `observed_on` fill what the file lacks;
    `new_providers` confirms provider names a canonical file may introduce although they resemble known ones."""
    names = registry.format_names()
    if requested_format not in names:
        return _rejected(requested_format, f"unknown format; use one of {', '.join(names)}", "format")
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
    chosen, variant = registry.detect(text, requested_format)
    if too_wide := _too_wide(text, variant, is_json=chosen.json):
        return too_wide
    provider = None
    if provider_name:
        provider = catalog.provider(provider_name)
        if provider is None:
            return _rejected(variant, catalog.provider_error(provider_name), "provider")
    if chosen.needs_provider and provider is None:
        return _rejected(variant, f"a {chosen.label} has no provider column: name the provider", "provider")
    if observed_on is not None and observed_on > today:
        return _rejected(variant, f"the date {observed_on.isoformat()} is in the future", "observed_on")
    context = ParseContext(
        catalog=catalog,
        variant=variant,
        provider=provider,
        observed_on=observed_on or (today if chosen.needs_observed_on else None),
        source_url=source_url,
        today=today,
        max_rows=max_rows,
        new_providers=frozenset(new_providers),
    )
    return chosen.parse(text, context)
