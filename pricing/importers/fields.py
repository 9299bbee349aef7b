"""Cell parsers. Each returns the value or raises `CellError` with a reason a user can act on."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from lib.currencies import DEFAULT_CURRENCY, is_currency
from lib.errors import AppError
from lib.kinds import API_KINDS, RENTAL_KINDS
from lib.terms import PRICING_TERMS
from pricing.importers.base import MAX_PRICE

PROVIDER_KINDS = RENTAL_KINDS + API_KINDS
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", re.ASCII)
FIRST_YEAR = 2000  # no GPU-hour was rented before
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_TERM_SEPARATORS = re.compile(r"[\s\-]+")


class CellError(AppError, ValueError):
    """Why one cell of a price file cannot be read (the importer adds its line and column)."""


# What Decimal() would also read but a price file must not hold: "1_0" (10), Arabic-Indic digits, "Infinity".
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?", re.ASCII)
# The smallest price the observation columns keep (6 decimal places); anything smaller would be stored as 0.
MIN_PRICE = Decimal("0.000001")


def _plain_decimal(raw: str, reason: str) -> Decimal:
    if not _PLAIN_NUMBER.fullmatch(raw):
        raise CellError(reason)
    try:
        return Decimal(raw)
    except InvalidOperation:  # pragma: no cover - the pattern admits only what Decimal reads
        raise CellError(reason) from None


def money(raw: str) -> Decimal:
    """A price in the file's currency per hour: a plain positive decimal number (digits 0-9), never a float."""
    value = _plain_decimal(raw, "not a number; write a plain decimal such as 2.99 (digits 0-9, no currency sign)")
    if value < 0:
        raise CellError("negative price")
    if value == 0:
        raise CellError("zero price; leave the cell blank if the price is unknown")
    if value >= MAX_PRICE:
        raise CellError(f"too large (the limit is {MAX_PRICE:,} per hour)")
    if value < MIN_PRICE:
        raise CellError(f"too small to store (prices are kept to {MIN_PRICE} per hour); it would be stored as 0")
    return value


def token_price(raw: str) -> Decimal:
    """A model API's price in $ per million tokens: a plain decimal, 0 or more (a free model costs 0)."""
    value = _plain_decimal(raw, "not a number; write a plain decimal such as 0.15 (digits 0-9, no currency sign)")
    if value < 0:
        raise CellError("negative price")
    if value >= MAX_PRICE:
        raise CellError(f"too large (the limit is {MAX_PRICE:,} per million tokens)")
    if 0 < value < MIN_PRICE:
        raise CellError(f"too small to store (prices are kept to {MIN_PRICE} per million tokens)")
    return value.quantize(MIN_PRICE)


def gpu_count(raw: str) -> int:
    """GPUs per instance: a whole number from 1 to 1000 (`8` and `8.0` are accepted; not `1_0`, digits 0-9 only)."""
    value = _plain_decimal(raw, "not a whole number of GPUs")
    if not value.is_finite() or value != value.to_integral_value():
        raise CellError("not a whole number of GPUs")
    if not 1 <= value <= 1000:
        raise CellError("GPUs per instance must be between 1 and 1000")
    return int(value)


def iso_date(raw: str, *, today: date) -> date:
    """YYYY-MM-DD in digits 0-9, from FIRST_YEAR up to today (year 0001 is a typo, not an old price)."""
    if not _ISO_DATE.match(raw):
        raise CellError("not a date; use YYYY-MM-DD")
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        raise CellError("not a valid calendar date") from None
    if value > today:
        raise CellError(f"in the future (today is {today.isoformat()})")
    if value.year < FIRST_YEAR:
        raise CellError(f"before {FIRST_YEAR}; check the year")
    return value


def pricing_term(raw: str) -> str:
    value = _TERM_SEPARATORS.sub("_", raw.strip().lower())
    if value not in PRICING_TERMS:
        raise CellError(f"unknown pricing term; expected one of {', '.join(PRICING_TERMS)}")
    return value


def provider_kind(raw: str) -> str:
    value = raw.strip().lower()
    if value not in PROVIDER_KINDS:
        raise CellError(f"unknown provider kind; expected one of {', '.join(PROVIDER_KINDS)}")
    return value


def currency(raw: str) -> str:
    value = raw.strip().upper() or DEFAULT_CURRENCY
    if not _CURRENCY.match(value):
        raise CellError("not a currency code; use three letters such as USD")
    if not is_currency(value):
        raise CellError("not an ISO 4217 currency code; use one such as USD, EUR or GBP")
    return value


def url(raw: str) -> str:
    if raw and not raw.lower().startswith(("https://", "http://")):
        raise CellError("not a web address; it must start with https:// or http://")
    if len(raw) > 1000:
        raise CellError("longer than 1000 characters")
    return raw


def text(raw: str, *, limit: int, required: bool) -> str:
    if required and not raw:
        raise CellError("required")
    if len(raw) > limit:
        raise CellError(f"longer than {limit} characters")
    return raw
