"""How ``tco-scenario/1`` reads values (docs/money-math.md): ``NumberField`` checks and how they are worded.

Every input with all its facts (the check among them) is in ``tco.engine.catalogue``.

Bounds chosen for "sane" inputs (anything outside is almost certainly a typo, e.g. 8 for 8 %):

==============================  =====================================================
discount_rate, cost_of_capital  0 .. 1 (annual fraction; 0.08 = 8 %)
price_change_per_year           -0.9 .. 2 (-90 % .. +200 % a year)
pue                             1 .. 3
utilization                     0 .. 1
acceptance_rate                 more than 0, at most 1
useful_life_years               more than 0, at most 50
horizon_months                  whole number 1 .. 240
fleet_gpus, gpu_count,          whole number 1 .. 1,000,000
committed_gpus
money, power, tokens            not negative; throughput and output tokens more than 0
==============================  =====================================================

Every number must be finite; ``bool`` is not a number; ``Decimal`` and numpy scalars are read as float.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from lib.currencies import DEFAULT_CURRENCY

RATE_HINT = " (0.08 means 8%)"


@dataclass(frozen=True)
class NumberField:
    """How to read and bound one numeric field; ``default`` applies when the field is absent or null.

    A catalogue entry's check names no label and no unit: the entry binds its own (``tco.engine.catalogue``), so
    its messages say the input's words, "Electricity (USD per kWh) must not be negative". ``unit`` is a catalogue
    unit ("{c}" stands for the currency, "fraction" for a share written as a percentage)."""

    label: str = ""
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    unit: str = ""
    hint: str = ""
    required: bool = False
    default: float | None = None


def fmt(number: float) -> str:
    """A number as a finance user would type it: ``320,000``, ``0.07``."""
    return format(number, ",.12g")


def shorten(text: str, limit: int = 60) -> str:
    """Long input echoed back in a message is cut, so the message stays readable."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def describe(value: Any) -> str:
    """What a non-number value looks like to the user, for "got ..." in messages."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool | np.bool_):
        return f"{str(bool(value)).lower()} (a yes/no value)"
    if isinstance(value, str):
        return f"'{shorten(value)}' (text)"
    if isinstance(value, list | tuple):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, numbers.Real | Decimal):
        return fmt(float(value))
    return type(value).__name__


def unit_text(unit: str, currency: str) -> str:
    """A catalogue unit as a label writes it: "{c} per GPU-hour" → "USD per GPU-hour"; a share's "fraction" is
    left out (the value is written as a percentage)."""
    return unit.replace("{c}", currency).removeprefix("fraction").strip()


def input_name(label: str, unit: str, currency: str = DEFAULT_CURRENCY) -> str:
    """An input's label with its unit, as the editor shows it above the box and every message about it starts:
    "Burst price (USD per GPU-hour)", "Useful life (years)"; no unit when there is none to add ("PUE", a ratio;
    "Committed GPUs")."""
    unit = unit_text(unit, currency)
    if not unit or unit == "ratio" or label.endswith(unit):
        return label
    return f"{label} ({unit})"


def _range_text(spec: NumberField) -> str:
    """The bounds in words, without a unit: the input's name that every message starts with carries it."""
    if spec.lo is not None and spec.hi is not None:
        if not spec.lo_open and not spec.hi_open:
            return f"between {fmt(spec.lo)} and {fmt(spec.hi)}"
        low = f"more than {fmt(spec.lo)}" if spec.lo_open else f"at least {fmt(spec.lo)}"
        high = f"less than {fmt(spec.hi)}" if spec.hi_open else f"at most {fmt(spec.hi)}"
        return f"{low} and {high}"
    if spec.lo is not None:
        if spec.lo == 0 and not spec.lo_open:
            return "0 or more"
        return ("more than " if spec.lo_open else "at least ") + fmt(spec.lo)
    if spec.hi is not None:
        return ("less than " if spec.hi_open else "at most ") + fmt(spec.hi)
    return "a number"


def check_number(
    value: Any, spec: NumberField, currency: str = DEFAULT_CURRENCY
) -> tuple[float | int | None, str | None]:
    """Return ``(number, None)`` or ``(None, message)`` for one supplied (non-null) value."""
    number, _, message = read_number(value, spec, currency)
    return number, message


def read_number(
    value: Any, spec: NumberField, currency: str = DEFAULT_CURRENCY
) -> tuple[float | int | None, str | None, str | None]:
    """``(number, None, None)``, or ``(None, code, message)`` with the problem's code (``not_a_number``,
    ``not_whole``, ``out_of_range``; ``tco.engine.errors.PROBLEM_CODES``) for one supplied (non-null) value. The
    message starts with the input's name and unit in ``currency`` (``input_name``)."""
    name = input_name(spec.label, spec.unit, currency)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real | Decimal):
        kind = "a whole number" if spec.integer else "a number"
        return None, "not_a_number", f"{name} must be {kind}; got {describe(value)}"
    if isinstance(value, Decimal) and value.is_snan():  # float() raises on a signalling NaN
        return None, "not_a_number", f"{name} must be a number; got NaN (not a number)"
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range, e.g. a 400-digit JSON integer
        return None, "not_a_number", f"{name} must be a finite number; got a number too large to compute with"
    if math.isnan(number):
        return None, "not_a_number", f"{name} must be a number; got NaN (not a number)"
    if math.isinf(number):
        return None, "not_a_number", f"{name} must be a finite number; got infinity"
    if spec.integer and not number.is_integer():
        return None, "not_whole", f"{name} must be a whole number {_range_text(spec)}; got {fmt(number)}"
    below = spec.lo is not None and (number <= spec.lo if spec.lo_open else number < spec.lo)
    above = spec.hi is not None and (number >= spec.hi if spec.hi_open else number > spec.hi)
    if below or above:
        if spec.lo == 0 and not spec.lo_open and spec.hi is None:
            return None, "out_of_range", f"{name} must not be negative; got {fmt(number)}"
        if spec.lo_open and below:  # name only the side that was crossed: "more than 0"
            message = f"{name} must be more than {fmt(spec.lo)}{spec.hint}; got {fmt(number)}"
            return None, "out_of_range", message
        return None, "out_of_range", f"{name} must be {_range_text(spec)}{spec.hint}; got {fmt(number)}"
    return (int(number) if spec.integer else number), None, None


# The checks a catalogue entry is written with name no label and no unit (the entry binds its own); ``label`` is
# kept for checks outside the catalogue only.
def money_field(label: str = "", *, required: bool = False, default: float | None = 0.0) -> NumberField:
    """Money: not negative; 0 when omitted unless ``required`` (or another ``default``, None: no default)."""
    return NumberField(label, lo=0.0, required=required, default=None if required else default)


def rate_field(label: str = "", **kwargs: Any) -> NumberField:
    """A rate or a share between 0 and 1."""
    return NumberField(label, lo=0.0, hi=1.0, **{"hint": RATE_HINT, **kwargs})


def count_field(label: str = "", **kwargs: Any) -> NumberField:
    """A number of GPUs: a whole number 1 .. 1,000,000."""
    return NumberField(label, lo=1, hi=1_000_000, integer=True, **kwargs)
