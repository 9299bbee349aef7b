"""The one entry point of the importers: bytes (or an open binary file) in, `ParseResult` out, the format chosen
by the registry from the file's head."""

from __future__ import annotations

import io
import os
from datetime import date
from typing import BinaryIO

from pricing.importers import registry
from pricing.importers.base import Catalog, ParseContext, ParseResult, RowError

# Checked before any parsing, so a hostile file costs one pass over its text. Real catalogs have about a
# dozen columns and lines of a few hundred characters (AWS's GpuInfo dictionaries are the longest).
MAX_COLUMNS = 200
MAX_LINE_CHARS = 20_000
HEAD_BYTES = 64 * 1024  # what detection reads: every format names itself in its first lines


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


def _size(stream: BinaryIO) -> int:
    try:
        return os.fstat(stream.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):
        position = stream.seek(0, io.SEEK_END)
        stream.seek(0)
        return position


def size_problem(chosen: registry.ImportFormat, size: int, default_max_bytes: int | None) -> str | None:
    """The one size check of a price file, once its format is known (the upload, the command, a URL or a schedule):
    the format's own limit (the hyperscalers' feeds are large) or else ``default_max_bytes``; None when it fits."""
    limit = chosen.max_bytes or default_max_bytes
    if limit is None or size <= limit:
        return None
    where = f"the {chosen.name} limit" if chosen.max_bytes else "PRICE_IMPORT_MAX_BYTES"
    return f"the file has {size:,} bytes; the limit is {limit:,} ({where})"


def _too_big(chosen: registry.ImportFormat, size: int, default_max_bytes: int | None) -> ParseResult | None:
    problem = size_problem(chosen, size, default_max_bytes)
    return None if problem is None else _rejected(chosen.name, problem)


def parse_prices(
    content: bytes | BinaryIO,
    *,
    catalog: Catalog,
    requested_format: str = registry.AUTO,
    provider_name: str = "",
    observed_on: date | None = None,
    source_url: str = "",
    today: date,
    max_rows: int,
    max_bytes: int | None = None,
    new_providers: frozenset[str] = frozenset(),
) -> ParseResult:
    """Parse a price file of any registered format. `provider_name` and `observed_on` fill what the file lacks;
    `new_providers` confirms provider names a canonical file may introduce although they resemble known ones.
    `max_bytes` and `max_rows` are the limits of a format that has none of its own."""
    names = registry.format_names()
    if requested_format not in names:
        return _rejected(requested_format, f"unknown format; use one of {', '.join(names)}", "format")
    stream = None if isinstance(content, bytes | bytearray | memoryview) else content
    if stream is None:
        size, head = len(content), bytes(content[:HEAD_BYTES])
    else:
        size, head = _size(stream), stream.read(HEAD_BYTES)
        stream.seek(0)
    chosen, variant = registry.detect(head.decode("utf-8-sig", errors="ignore"), requested_format)
    if too_big := _too_big(chosen, size, max_bytes):
        return too_big
    text = ""
    if not chosen.streams:
        try:
            text = decode(stream.read() if stream is not None else bytes(content))
        except ValueError as exc:
            return _rejected(requested_format, str(exc))
        if problem := _not_text(text, requested_format):
            return problem
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
        max_rows=chosen.max_rows or max_rows,
        new_providers=frozenset(new_providers),
    )
    if chosen.streams:
        return chosen.parse(stream if stream is not None else io.BytesIO(content), context)
    return chosen.parse(text, context)


def _not_text(text: str, requested_format: str) -> ParseResult | None:
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
    return None
