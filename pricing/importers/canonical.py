"""The canonical price format (docs/import-formats.md) as CSV or as JSON records with the same fields."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date
from decimal import Decimal

from lib.jsontext import JSONTextError, read_json
from pricing.importers import fields
from pricing.importers.base import (
    API_KIND,
    HALF_CENT,
    MICRO,
    ParseContext,
    ParseResult,
    PriceRow,
    ProviderRef,
    RowError,
    per_gpu,
)
from pricing.names import normalise_name

CANONICAL_COLUMNS = (
    "provider",
    "provider_kind",
    "gpu_model",
    "gpus_per_instance",
    "offering",
    "region",
    "pricing_term",
    "price_per_instance_hour",
    "price_per_gpu_hour",
    "currency",
    "observed_on",
    "source_url",
    "price_per_million_input_tokens",
    "price_per_million_output_tokens",
    "price_per_million_cached_input_tokens",
)
REQUIRED_COLUMNS = ("offering", "pricing_term")
GPU_COLUMNS = ("gpu_model", "gpus_per_instance")  # required unless the file holds only model API prices
PRICE_COLUMNS = ("price_per_instance_hour", "price_per_gpu_hour")
TOKEN_PRICE_COLUMNS = (
    "price_per_million_input_tokens",
    "price_per_million_output_tokens",
    "price_per_million_cached_input_tokens",
)
_NEUTRALISED = ("'=", "'+", "'-", "'@")


def sniff(text: str) -> str:
    """Always accepts (the fallback format): JSON when the text starts with `[` or `{`, else CSV."""
    return "canonical-json" if text.lstrip()[:1] in ("[", "{") else "canonical-csv"


def parse(text: str, context: ParseContext) -> ParseResult:
    parser = parse_canonical_json if context.variant == "canonical-json" else parse_canonical_csv
    return parser(text, context)


def _clean(value: object) -> str:
    """Cell text without surrounding spaces or the apostrophe our own export adds to formula-like text."""
    text = "" if value is None else str(value).strip()
    if text.startswith(_NEUTRALISED):
        return text[1:]
    return text


class _Rows:
    """Validates canonical records one by one, collecting rows and every error."""

    def __init__(self, result: ParseResult, context: ParseContext) -> None:
        self.result, self.catalog, self.defaults = result, context.catalog, context
        self.confirmed = {normalise_name(name) for name in context.new_providers}
        self.first_line_of: dict[tuple, int] = {}
        self._dates: dict[str, date] = {}
        self._terms: dict[str, str] = {}

    def add(self, line: int, cell: dict[str, str]) -> None:
        errors: list[RowError] = []

        def check(column: str, parse, *args, **kwargs):
            raw = cell.get(column, "")
            try:
                return parse(raw, *args, **kwargs)
            except fields.CellError as exc:
                errors.append(RowError(line, column, raw, str(exc)))
                return None

        provider = self._provider(line, cell, errors)
        per_token = provider is not None and provider.kind == API_KIND
        if not per_token:
            gpu = self.catalog.gpu(cell.get("gpu_model", ""))
            if gpu is None:
                raw = cell.get("gpu_model", "")
                reason = self.catalog.gpu_error(raw) if raw else "required"
                errors.append(RowError(line, "gpu_model", raw, reason))
            gpus = check("gpus_per_instance", fields.gpu_count)
        offering = check("offering", fields.text, limit=200, required=True)
        region = check("region", fields.text, limit=100, required=False)
        term = self._term(line, cell, errors)
        observed_on = self._date(line, cell, errors)
        currency = check("currency", fields.currency)
        source_url = check("source_url", fields.url) or self.defaults.source_url
        fixed = (offering, region, term, observed_on, currency)
        if per_token:
            row = self._token_row(line, cell, errors, provider, *fixed)
        else:
            row = self._gpu_row(line, cell, errors, provider, gpu, gpus, *fixed)
        if errors:
            self.result.errors.extend(errors)
            return
        row.source_url = source_url
        key = row.key()
        first = self.first_line_of.setdefault(key, line)
        if first != line:
            self.result.errors.append(
                RowError(
                    line,
                    "",
                    "",
                    f"duplicate of line {first}: same provider, offering, GPU model, GPUs, region, term and date",
                )
            )
            return
        self.result.rows.append(row)

    def _gpu_row(self, line, cell, errors, provider, gpu, gpus, offering, region, term, observed_on, currency):
        """A GPU rental's price per hour (per instance, per GPU or both)."""
        prices = self._prices(line, cell, gpus, errors)
        for column in TOKEN_PRICE_COLUMNS:
            if cell.get(column, ""):
                reason = "a per-token price belongs to a model API provider (provider_kind api); leave it blank"
                errors.append(RowError(line, column, cell[column], reason))
        if errors:
            return None
        return PriceRow(
            line, provider.id, offering, gpu[0], gpus, region, term, observed_on, prices[0], prices[1], currency
        )

    def _token_row(self, line, cell, errors, provider, offering, region, term, observed_on, currency):
        """A model API's price: no GPU, prices in $ per million input, output (both required) and cached-input
        tokens. A free model is priced 0."""
        for column in (*GPU_COLUMNS, *PRICE_COLUMNS):
            if cell.get(column, ""):
                reason = f"{provider.name} is a model API priced per token; leave {column} blank"
                errors.append(RowError(line, column, cell[column], reason))
        prices = {}
        for column in TOKEN_PRICE_COLUMNS:
            raw = cell.get(column, "")
            if raw:
                try:
                    prices[column] = fields.token_price(raw)
                except fields.CellError as exc:
                    errors.append(RowError(line, column, raw, str(exc)))
            elif column != "price_per_million_cached_input_tokens":
                errors.append(RowError(line, column, "", f"required for {provider.name}, a model API"))
        if errors:
            return None
        return PriceRow(
            line,
            provider.id,
            offering,
            None,
            None,
            region,
            term,
            observed_on,
            None,
            None,
            currency,
            price_per_million_input_tokens=prices["price_per_million_input_tokens"],
            price_per_million_output_tokens=prices["price_per_million_output_tokens"],
            price_per_million_cached_input_tokens=prices.get("price_per_million_cached_input_tokens"),
        )

    def _provider(self, line: int, cell: dict[str, str], errors: list[RowError]) -> ProviderRef | None:
        raw = cell.get("provider", "")
        provider = self.catalog.provider(raw) if raw else self.defaults.provider
        kind = cell.get("provider_kind", "")
        if provider is None and raw and kind:
            return self._new_provider(line, raw, kind, errors)
        if provider is None:
            reason = self.catalog.provider_error(raw) + " To add it from this file, give its provider_kind."
            errors.append(RowError(line, "provider", raw, reason if raw else "required"))
            return None
        if kind:
            try:
                if fields.provider_kind(kind) != provider.kind:
                    errors.append(
                        RowError(line, "provider_kind", kind, f"{provider.name} is a {provider.kind} in the catalog")
                    )
            except fields.CellError as exc:
                errors.append(RowError(line, "provider_kind", kind, str(exc)))
        return provider

    def _new_provider(self, line: int, raw: str, kind: str, errors: list[RowError]) -> ProviderRef | None:
        """A provider this file introduces, unless its name looks like a typo of a known one (and is not confirmed)."""
        try:
            name = fields.text(raw, limit=100, required=True)
        except fields.CellError as exc:
            errors.append(RowError(line, "provider", raw, str(exc)))
            return None
        try:
            kind = fields.provider_kind(kind)
        except fields.CellError as exc:
            errors.append(RowError(line, "provider_kind", kind, str(exc)))
            return None
        lookalikes = self.catalog.provider_lookalikes(name)
        if lookalikes and normalise_name(name) not in self.confirmed:
            errors.append(
                RowError(
                    line,
                    "provider",
                    name,
                    f"unknown provider; closest known: {', '.join(lookalikes)}. If {name!r} is a new provider and "
                    f"not a typo, confirm it (import_prices --new-provider {name!r}).",
                )
            )
            return None
        provider = self.catalog.add_provisional_provider(name, kind)
        self.result.new_providers.append(provider)
        return provider

    def _term(self, line: int, cell: dict[str, str], errors: list[RowError]) -> str | None:
        raw = cell.get("pricing_term", "")
        try:
            return self._terms[raw]
        except KeyError:
            pass
        try:
            term = self._terms[raw] = fields.pricing_term(raw)
            return term
        except fields.CellError as exc:
            errors.append(RowError(line, "pricing_term", raw, str(exc)))
            return None

    def _date(self, line: int, cell: dict[str, str], errors: list[RowError]) -> date | None:
        raw = cell.get("observed_on", "")
        if not raw:
            if self.defaults.observed_on is None:
                errors.append(RowError(line, "observed_on", "", "required (or give a default date for the file)"))
            return self.defaults.observed_on
        try:
            return self._dates[raw]
        except KeyError:
            pass
        try:
            value = self._dates[raw] = fields.iso_date(raw, today=self.defaults.today)
            return value
        except fields.CellError as exc:
            errors.append(RowError(line, "observed_on", raw, str(exc)))
            return None

    def _prices(
        self, line: int, cell: dict[str, str], gpus: int | None, errors: list[RowError]
    ) -> tuple[Decimal, Decimal] | None:
        parsed: dict[str, Decimal] = {}
        for column in PRICE_COLUMNS:
            raw = cell.get(column, "")
            if raw:
                try:
                    parsed[column] = fields.money(raw)
                except fields.CellError as exc:
                    errors.append(RowError(line, column, raw, str(exc)))
        if errors or gpus is None:
            return None
        instance, gpu = parsed.get("price_per_instance_hour"), parsed.get("price_per_gpu_hour")
        if instance is None and gpu is None:
            errors.append(
                RowError(line, "price_per_gpu_hour", "", "give price_per_instance_hour or price_per_gpu_hour")
            )
            return None
        if instance is None:
            return (gpu * gpus).quantize(MICRO), gpu.quantize(MICRO)
        derived = per_gpu(instance, gpus)
        if gpu is not None and abs(instance / gpus - gpu) > HALF_CENT:
            errors.append(
                RowError(
                    line,
                    "price_per_gpu_hour",
                    cell["price_per_gpu_hour"],
                    f"disagrees with price_per_instance_hour {instance} ÷ {gpus} GPUs = {derived} "
                    "(by more than half a cent)",
                )
            )
            return None
        return instance.quantize(MICRO), derived


def _header_errors(header: Iterable[str], defaults: ParseContext) -> list[RowError]:
    columns = list(header)
    counts = Counter(columns)  # one pass: a header of a million columns must not take minutes
    if not any(column in counts for column in CANONICAL_COLUMNS):
        # Not a price file at all (a server file, say): say so without echoing its first line.
        reason = (
            f"not a price file: none of its {len(columns):,} header columns is a canonical column "
            f"({', '.join(CANONICAL_COLUMNS)}) and it is no SkyPilot vms.csv"
        )
        return [RowError(1, "", "", reason)]
    errors = [
        RowError(1, column, column, f"unexpected column; the canonical columns are {', '.join(CANONICAL_COLUMNS)}")
        for column in columns
        if column not in CANONICAL_COLUMNS
    ]
    errors += [RowError(1, column, "", "duplicate column") for column in sorted(c for c, n in counts.items() if n > 1)]
    per_token_only = any(column in counts for column in TOKEN_PRICE_COLUMNS) and not any(
        column in counts for column in (*GPU_COLUMNS, *PRICE_COLUMNS)
    )
    required = [
        *REQUIRED_COLUMNS,
        *([] if per_token_only else GPU_COLUMNS),
        *([] if defaults.provider else ["provider"]),
    ]
    errors += [RowError(1, column, "", "missing column") for column in required if column not in counts]
    if not per_token_only and not any(column in counts for column in PRICE_COLUMNS):
        errors.append(RowError(1, "price_per_gpu_hour", "", "missing column: give at least one of the two prices"))
    return errors


def parse_canonical_csv(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(format="canonical-csv")
    max_rows = context.max_rows
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [_clean(name).lower() for name in next(reader)]
    except StopIteration:
        result.errors.append(RowError(0, "", "", "the file is empty"))
        return result
    except csv.Error as exc:
        result.errors.append(RowError(1, "", "", f"not a readable CSV header ({exc})"))
        return result
    result.errors.extend(_header_errors(header, context))
    if result.errors:
        return result
    rows = _Rows(result, context)
    width = len(header)
    line = reader.line_num
    try:
        for record in reader:
            start, line = line + 1, reader.line_num
            if not record or (len(record) == 1 and not record[0].strip()):
                continue  # blank line
            if not result.count_row(start, max_rows):
                return result
            if len(record) != width:
                result.errors.append(
                    RowError(start, "", "", f"has {len(record)} cells; the header has {width} columns")
                )
                continue
            rows.add(start, {name: _clean(value) for name, value in zip(header, record, strict=True)})
    except csv.Error as exc:
        result.errors.append(RowError(line + 1, "", "", f"not readable as CSV ({exc})"))
    if result.rows_total == 0 and not result.errors:
        result.errors.append(RowError(2, "", "", "no data rows after the header"))
    return result


def _records(document: object) -> Iterator[object] | None:
    if isinstance(document, dict) and isinstance(document.get("prices"), list):
        return iter(document["prices"])
    if isinstance(document, list):
        return iter(document)
    return None


def parse_canonical_json(text: str, context: ParseContext) -> ParseResult:
    """A list of records (or {"prices": [...]}); `line` in errors is the record's position, from 1."""
    result = ParseResult(format="canonical-json")
    max_rows = context.max_rows
    try:
        document = read_json(text, parse_float=Decimal)
    except JSONTextError as exc:  # malformed, or nested past lib.jsontext.MAX_DEPTH
        result.errors.append(RowError(exc.line, "", "", f"not valid JSON ({exc})"))
        return result
    records = _records(document)
    if records is None:
        result.errors.append(RowError(0, "", "", 'expected a list of price records or {"prices": [...]}'))
        return result
    rows = _Rows(result, context)
    for number, record in enumerate(records, start=1):
        if not result.count_row(number, max_rows):
            return result
        if not isinstance(record, dict):
            result.errors.append(RowError(number, "", "", "a record must be an object of field: value"))
            continue
        bad = [key for key in record if key not in CANONICAL_COLUMNS]
        nested = [key for key, value in record.items() if isinstance(value, dict | list | bool)]
        result.errors += [RowError(number, key, "", "unexpected field") for key in bad]
        result.errors += [RowError(number, key, str(record[key]), "must be text or a number") for key in nested]
        # A NUL can only come in as a \u0000 escape (raw NUL bytes are refused earlier); no database text holds it.
        nul = [key for key, value in record.items() if isinstance(value, str) and "\x00" in value]
        result.errors += [RowError(number, key, "", "contains a NUL character (\\u0000)") for key in nul]
        if bad or nested or nul:
            continue
        rows.add(number, {key: _clean(value) for key, value in record.items()})
    if result.rows_total == 0 and not result.errors:
        result.errors.append(RowError(0, "", "", "no price records"))
    return result
