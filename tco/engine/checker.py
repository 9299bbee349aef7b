"""Collects problems while reading a scenario document field by field."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from lib.currencies import DEFAULT_CURRENCY

from .errors import Problem
from .fields import NumberField, describe, input_name, read_number, shorten

MAX_NAME_LENGTH = 200


def has_control_characters(value: str) -> bool:
    """NUL, line breaks and other control characters: never meant in a name, and PostgreSQL refuses NUL."""
    return any(unicodedata.category(char) == "Cc" for char in value)


class Checker:
    """Reads fields into a normalised document and records every problem on the way."""

    def __init__(self) -> None:
        self.currency_code = DEFAULT_CURRENCY  # the document's, once read: messages write money units in it
        self.problems: list[Problem] = []
        self.derived: set[str] = set()
        self.workload_given = False

    def add(self, path: str, message: str, code: str = "invalid") -> None:
        self.problems.append(Problem(path, message, code))

    def require(self, path: str, label: str, reason: str = "", *, verb: str = "is") -> None:
        """``label`` is missing: "Horizon is required", or "...: <reason>" when there is more to say."""
        message = f"{label} {verb} required" + (f": {reason}" if reason else "")
        self.problems.append(Problem(path, message, "required", reason))

    def has_problem_under(self, *prefixes: str) -> bool:
        return any(
            p.path == pre or p.path.startswith((pre + ".", pre + "[")) for p in self.problems for pre in prefixes
        )

    def unknown_fields(self, data: Mapping[str, Any], allowed: tuple[str, ...], prefix: str, what: str) -> None:
        for key in data:
            if key not in allowed:
                self.add(
                    f"{prefix}{key}",
                    f"Unknown field '{key}' for {what}; allowed fields are: {', '.join(allowed)}",
                    "unknown_field",
                )

    def number(self, data: Mapping[str, Any], key: str, spec: NumberField, path: str) -> float | int | None:
        value = data.get(key)
        if value is None:
            if spec.required:
                self.require(path, input_name(spec.label, spec.unit, self.currency_code))
            return spec.default
        number, code, message = read_number(value, spec, self.currency_code)
        if message:
            self.add(path, message, code)
        return number

    def text(self, data: Mapping[str, Any], key: str, path: str, label: str) -> str | None:
        value = data.get(key)
        if value is None:
            self.require(path, label)
        elif not isinstance(value, str) or not value.strip():
            self.add(path, f"{label} must be non-empty text; got {describe(value)}")
        elif len(value) > MAX_NAME_LENGTH:
            self.add(path, f"{label} must be at most {MAX_NAME_LENGTH} characters; got {len(value)}")
        elif has_control_characters(value):
            self.add(
                path, f"{label} must not contain control characters such as NUL or line breaks; got {shorten(value)!r}"
            )
        else:
            return value
        return None
