"""Cell parsers. Each returns the value or raises `CellError` with a reason a user can act on."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from lib.currencies import is_currency
from pricing.importers.base import MAX_PRICE

PRICING_TERMS = ("on_demand", "spot", "reserved_1y", "reserved_3y", "committed")
PROVIDER_KINDS = ("hyperscaler", "neocloud", "marketplace", "api")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
_TERM_SEPARATORS = re.compile(r"[\s\-]+")


class CellError(ValueError):
    pass


def money(raw: str) -> Decimal:
    """A price in the file's currency per hour: a plain positive decimal number, never a float."""
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise CellError("not a number; write a plain decimal such as 2.99 (no currency sign)") from None
    if not value.is_finite():
        raise CellError("not a finite number")
    if value < 0:
        raise CellError("negative price")
    if value == 0:
        raise CellError("zero price; leave the cell blank if the price is unknown")
    if value >= MAX_PRICE:
        raise CellError(f"too large (the limit is {MAX_PRICE:,} per hour)")
    return value


def gpu_count(raw: str) -> int:
    """GPUs per instance: a whole number from 1 to 1000 (`8` and `8.0` are accepted)."""
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise CellError("not a whole number of GPUs") from None
    if not value.is_finite() or value != value.to_integral_value():
        raise CellError("not a whole number of GPUs")
    if not 1 <= value <= 1000:
        raise CellError("GPUs per instance must be between 1 and 1000")
    return int(value)


def iso_date(raw: str, *, today: date) -> date:
    if not _ISO_DATE.match(raw):
        raise CellError("not a date; use YYYY-MM-DD")
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        raise CellError("not a valid calendar date") from None
    if value > today:
        raise CellError(f"in the future (today is {today.isoformat()})")
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
    value = raw.strip().upper() or "USD"
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
