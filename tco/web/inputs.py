"""Read what a user typed into one input: numbers with thousands separators, percentages, blanks.

Range checks are the engine's job (its messages name the document path); this module only turns
text into the stored type, or says clearly why it cannot.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from lib.currencies import currency_problem
from lib.errors import AppError
from lib.numbers import NumberTextError, read_decimal, read_integer
from tco.documents import FieldProblem, to_decimal
from tco.engine.catalogue import OPTION_FIELD, fields_of_type
from tco.engine.fields import shorten
from tco.models.scenario import (
    REQUIRED_SCENARIO_FIELDS,
    SCENARIO_EDITABLE_FIELDS,
    SCENARIO_INTEGER_FIELDS,
)


class InputError(AppError, ValueError):
    """Text that cannot be read as its input's type: `field` names the input, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


# Fields entered as an annual fraction or share: "8%" is accepted and means 0.08 (the catalogue's rates).
PERCENT_FIELDS = fields_of_type("rate") | {"discount_rate", "workload_acceptance_rate"}
OPTION_INTEGER_FIELDS = fields_of_type("count")
CHOICE_FIELDS = fields_of_type("choice")


def parse_decimal(field: str, text: str, *, percent: bool = False, required: bool = False) -> Decimal | None:
    """'320,000' → 320000; '$324,000.50' → 324000.5; '8%' → 0.08 (percent fields); blank → None (the default).

    The reading rules are lib.numbers'; a value the database cannot hold exactly is refused here too.
    """
    try:
        value = read_decimal(text, percent=percent)
    except NumberTextError as error:
        raise InputError(field, str(error)) from None
    if value is None:
        if required:
            raise InputError(field, "required: enter a number")
        return None
    problems: list[FieldProblem] = []
    stored = to_decimal(value, field, problems)
    if problems:
        raise InputError(field, problems[0].message)
    return stored


def parse_integer(field: str, text: str, *, required: bool = False) -> int | None:
    """'1,000' → 1000; blank → None. Ranges are the engine's (checked before anything is saved)."""
    try:
        value = read_integer(text)
    except NumberTextError as error:
        raise InputError(field, str(error)) from None
    if value is None and required:
        raise InputError(field, "required: enter a whole number")
    return value


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


def _parse_name(text: str, what: str) -> str:
    name = text.strip()
    if not name:
        raise InputError("name", f"required: give the {what} a name")
    if len(name) > 200:
        raise InputError("name", f"at most 200 characters (got {len(name)})")
    return name


def parse_scenario_field(field: str, text: str) -> Any:
    """The stored value of one scenario input, or InputError."""
    if field not in SCENARIO_EDITABLE_FIELDS:
        raise InputError(field, f"{field} cannot be edited here")
    required = field in REQUIRED_SCENARIO_FIELDS
    if field == "name":
        return _parse_name(text, "scenario")
    if field == "currency":
        code = text.strip().upper()
        problem = currency_problem(code) if code else None
        if problem:
            raise InputError(field, problem)
        return code
    if field in SCENARIO_INTEGER_FIELDS:
        return parse_integer(field, text, required=required)
    return parse_decimal(field, text, percent=field in PERCENT_FIELDS, required=required)


def parse_option_field(field: str, text: str, *, allowed: tuple[str, ...]) -> Any:
    """The stored value of one option input, or InputError. `allowed` are the option kind's fields."""
    if field == "name":
        return _parse_name(text, "option")
    if field not in allowed:
        raise InputError(field, f"{field} is not an input of this kind of option")
    if field in CHOICE_FIELDS:
        value = text.strip()
        choices = OPTION_FIELD[field].choices
        if value and value not in dict(choices):
            words = " or ".join(label.lower() for _, label in choices)
            raise InputError(field, f"{shorten(value)!r}: choose {words}")
        return value
    if field in OPTION_INTEGER_FIELDS:
        return parse_integer(field, text)
    return parse_decimal(field, text, percent=field in PERCENT_FIELDS)
