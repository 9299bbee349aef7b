"""Numbers as finance people type them: "324,000", "$324,000.50", "8 %", "0.08", "1.5e3".

One reader for every numeric input of both apps, so the same text means the same number everywhere. The rules:

- ASCII digits only (no Arabic-Indic or other script digits, no superscripts), no ``_`` separators ("1_0" is
  refused, not read as 10);
- commas (or spaces) only between groups of three digits before the point: "324,000" and "1,234.5" are read,
  "1,2,3" is refused, not read as 123;
- a trailing "%" makes a percentage ("8 %" → 0.08) where percentages are allowed; a bare number is taken as
  written (0.08 is 0.08, and 8 in a rate field is 8 = 800 %, which the engine's bounds then refuse with a hint);
- exponents are read ("1e3"), but a number whose magnitude is beyond 10^±30 is refused before any arithmetic, so
  "1E999999999" or "1e-999999999%" get a clear message instead of an overflow (or a silent 0).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from lib.errors import AppError

# Farther from 1 than this (in powers of ten) no input of the app makes sense; refusing it first keeps
# Decimal arithmetic (and the database) away from exponents such as 10^999999999.
MAX_MAGNITUDE = 30

_PLAIN = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_GROUPED = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", re.ASCII)
_INTEGER = re.compile(r"\+?[0-9]+", re.ASCII)
_GROUPED_INTEGER = re.compile(r"\+?[0-9]{1,3}(?:,[0-9]{3})+", re.ASCII)
# Spaces a spreadsheet or a French locale puts between thousands; read like commas.
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " "})
_CURRENCY_SIGNS = "$"
# At most this many digits are handed to int()/Decimal(): no input needs more, and int() refuses over 4,300.
MAX_DIGITS = 40


class NumberTextError(AppError, ValueError):
    """The text is not a number this app reads; the message says what was expected."""


def _echo(text: str, limit: int = 40) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)")


def _ungroup(raw: str, grouped: re.Pattern[str]) -> str:
    """'324 000' / '324,000' → '324000' when the separators sit between groups of three; else unchanged."""
    spaced = raw.replace(" ", ",")
    return spaced.replace(",", "") if grouped.fullmatch(spaced) else raw


def _script_digit(text: str) -> bool:
    return any(ch.isdigit() and not ch.isascii() for ch in text)


def read_decimal(text: str, *, percent: bool = False) -> Decimal | None:
    """The number typed in ``text`` as a Decimal (a percentage divided by 100); None for blank text.

    Raises NumberTextError with a message naming the text and what was expected.
    """
    raw = text.translate(_SPACES).strip()
    if not raw:
        return None
    if len(raw) > 200:
        raise NumberTextError(f"{_echo(raw)} is not a number")
    if _script_digit(raw):
        raise NumberTextError(f"{_echo(raw)}: write the number with the digits 0-9")
    is_percent = raw.endswith("%")
    if is_percent:
        if not percent:
            raise NumberTextError(f"{_echo(raw)}: a percentage is not expected here; enter a plain number")
        raw = raw[:-1].rstrip()
    sign = ""
    if raw.startswith(("+", "-")):
        sign, raw = raw[0], raw[1:].lstrip()
    if raw.startswith(tuple(_CURRENCY_SIGNS)):
        raw = raw[1:].lstrip()
    if is_percent and not any(ch.isdigit() for ch in raw):
        raise NumberTextError(f"{_echo(text)} is not a number: write the number before the %, e.g. 8%")
    raw = sign + _ungroup(raw, _GROUPED)
    if not _PLAIN.fullmatch(raw):
        hint = ""
        if "," in raw or " " in raw:
            hint = " (use . for decimals; commas only between groups of three digits, e.g. 324,000.50)"
        elif "_" in raw:
            hint = " (no _ between digits)"
        raise NumberTextError(f"{_echo(text)} is not a number{hint}")
    mantissa = raw.split("e")[0].split("E")[0]
    if sum(ch.isdigit() for ch in mantissa) > MAX_DIGITS:
        raise NumberTextError(f"{_echo(text)} has too many digits")
    try:
        value = Decimal(raw)
    except InvalidOperation:  # pragma: no cover - the pattern admits only what Decimal reads
        raise NumberTextError(f"{_echo(text)} is not a number") from None
    if value and value.adjusted() > MAX_MAGNITUDE:
        raise NumberTextError(f"{_echo(text)} is too large")
    if not value:
        return Decimal(0)
    if value.adjusted() < -MAX_MAGNITUDE:
        raise NumberTextError(f"{_echo(text)} is too small to be told apart from 0; enter 0 or a larger number")
    return value / 100 if is_percent else value


def read_integer(text: str) -> int | None:
    """A whole number of 0 or more ("1,000" → 1000; "1,2,3", "1_0", Arabic-Indic digits, "1.5" refused); None if blank.

    Raises NumberTextError. The range is the caller's (the engine's bounds), only the digit count is capped here.
    """
    raw = text.translate(_SPACES).strip()
    if not raw:
        return None
    if _script_digit(raw):
        raise NumberTextError(f"{_echo(raw)}: write the number with the digits 0-9")
    raw = _ungroup(raw, _GROUPED_INTEGER)
    if raw.startswith("-") and _INTEGER.fullmatch(raw[1:]):
        raise NumberTextError(f"{_echo(text)} is negative; enter a whole number")
    if not _INTEGER.fullmatch(raw):
        hint = " (commas only between groups of three digits, e.g. 1,000)" if "," in raw else ""
        raise NumberTextError(f"{_echo(text)} is not a whole number{hint}")
    if len(raw.lstrip("+").lstrip("0")) > 12:
        raise NumberTextError(f"{_echo(text)} is too large")
    return int(raw)
