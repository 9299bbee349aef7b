"""Small readers shared by the scenario page's views: a posted id or version, and one typed number.

The page's inputs are read by Django forms (``tco.web.forms``); ``parse_decimal`` and ``parse_integer`` are the same
form field (``NumberText``, wrapping ``lib.numbers``) for a view that reads one loose number (a range's bound, a
simulation's trial count).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError

from lib.errors import AppError
from tco.engine.catalogue import input_fields_of_type
from tco.web.forms import NumberText


class InputError(AppError, ValueError):
    """Text that cannot be read as its input's type: `field` names the input, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


# Fields entered as an annual fraction or share: "8%" is accepted and means 0.08 (the catalogue's rates).
PERCENT_FIELDS = input_fields_of_type("rate")


def _read(field: str, text: str, **options: Any) -> Any:
    try:
        return NumberText(**options).clean(text)
    except ValidationError as error:
        raise InputError(field, " ".join(error.messages)) from None


def parse_decimal(field: str, text: str, *, percent: bool = False, required: bool = False) -> Decimal | None:
    """'320,000' → 320000; '$324,000.50' → 324000.5; '8%' → 0.08 (percent fields); blank → None, or InputError."""
    return _read(field, text, percent=percent, required=required)


def parse_integer(field: str, text: str, *, required: bool = False) -> int | None:
    """'1,000' → 1000; blank → None, or InputError. Ranges are the engine's."""
    return _read(field, text, integer=True, required=required)


def parse_id(text: str) -> int | None:
    """A row id or version posted by a form; None when it cannot be one (the caller says what is missing).

    str.isdigit() alone lets superscripts such as '²' and numbers longer than int() accepts through.
    """
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def expected_version(request: Any) -> int:
    """The scenario version a form was made from; -1 when it carries none (a form without a version is treated
    as stale, never trusted)."""
    version = parse_id(request.POST.get("version", ""))
    return -1 if version is None else version
