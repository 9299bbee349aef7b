"""A scenario's changes (tco.selectors.history) in words: "option “Lambda”: Price $2.49 per GPU-hour → $2.29 per
GPU-hour", each value as every page writes it, in the currency the scenario had at the time."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tco.presentation.currency import conversion_text
from tco.presentation.inputs import InputFact, option_fact, path_fact, scenario_fact, value_words

# The selector's change and field are read by attribute: this layer imports no selector (they are composed above it).
Change = Any
Tracked = Any
Shown = Callable[[Any, str], str]  # a value in words, in a currency


@dataclass(frozen=True)
class HistoryLine:
    when: datetime
    who: str
    subject: str
    action: str  # "created", "changed", "deleted"
    field: str = ""
    old: str = ""
    new: str = ""


def _fact(field: Tracked) -> InputFact | None:
    if field.owner == "scenario":
        return scenario_fact(field.attname)
    if field.owner == "option":
        return option_fact(field.attname)
    if field.owner == "range":
        if field.path_of_option:
            return option_fact(field.path)
        found = path_fact({}, field.path)
        return found[1] if found else None
    return None


@functools.cache
def field_words(field: Tracked) -> tuple[str, Shown]:
    """A tracked field's label and how its values read: the catalogue's for an input (a range's bounds, "Low",
    read as their input does), else the model field's own name and choices."""
    fact = _fact(field)
    words: Shown | None = (lambda value, currency: value_words(fact, value, currency)) if fact else None
    if field.owner == "range":
        return field.verbose_name, words or (lambda value, currency: str(value))
    if words is not None:
        return fact.label, words
    label = field.verbose_name[:1].upper() + field.verbose_name[1:]
    if field.choices:
        labels = dict(field.choices)
        return label, lambda value, currency: labels.get(str(value), str(value)) if value not in (None, "") else "blank"
    return label, lambda value, currency: "blank" if value in (None, "") else str(value)


def _subject(change: Change) -> str:
    subject = change.subject
    if subject.kind == "option":
        return f"option “{subject.name}”"
    if subject.kind == "checklist":
        return f"checklist “{subject.item}” of “{subject.name}”"
    if subject.kind == "range":
        fact = _fact(subject.range)
        label = fact.label if fact else subject.range.path.replace("_", " ")
        where = f" of “{subject.name}”" if subject.range.path_of_option else ""
        return f"the range of {label}{where}"
    return "scenario"


def history_line(change: Change) -> HistoryLine:
    subject = _subject(change)
    if change.conversion is not None:
        return HistoryLine(
            change.when,
            change.who,
            subject,
            "changed",
            "Currency conversion",
            "blank",
            conversion_text(change.conversion),
        )
    if change.field is None:
        return HistoryLine(change.when, change.who, subject, change.action)
    label, shown = field_words(change.field)
    return HistoryLine(
        change.when,
        change.who,
        subject,
        change.action,
        label,
        shown(change.old, change.currency_before),
        shown(change.new, change.currency_after),
    )


def history_lines(changes: list[Change]) -> list[HistoryLine]:
    return [history_line(change) for change in changes]
