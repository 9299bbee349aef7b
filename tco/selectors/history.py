"""Who changed which input from what to what, when: django-simple-history rows turned into lines."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from lib.caching import kept
from lib.currencies import DEFAULT_CURRENCY
from tco.models import InputRange, Scenario, ScenarioOption, SecondaryDiligenceItem
from tco.presentation.currency import conversion_text
from tco.presentation.inputs import InputFact, option_fact, path_fact, scenario_fact, value_words

SKIPPED_FIELDS = {
    "id",
    "version",
    "updated_at",
    "created_at",
    "position",
    "owner",
    "scenario",
    "option",
    "assumed_fields",
    "prefill_note",
    "price_observation",
    "gpu_model",
    "currency_conversions",  # said by _conversion_lines, with its rate
    # Provenance of figures sizing wrote: the figures themselves are each a line; the page says where they came from.
    "sizing_applied",
    "throughput_source",
}


@dataclass(frozen=True)
class HistoryLine:
    when: datetime
    who: str
    subject: str
    action: str  # "created", "changed", "deleted"
    field: str = ""
    old: str = ""
    new: str = ""


# A model field in words: its label and how its value reads (tco.presentation.inputs), for the currency of the moment.
Shown = Callable[[Any, str], str]


def _choice_words(field: Any) -> Shown:
    labels = {str(value): str(label) for value, label in field.flatchoices}
    return lambda value, currency: labels.get(str(value), str(value)) if value not in (None, "") else "blank"


def _fact_words(fact: InputFact) -> Shown:
    return lambda value, currency: value_words(fact, value, currency)


def _model_fact(model: type, attname: str) -> InputFact | None:
    if model is Scenario:
        return scenario_fact(attname)
    if model is ScenarioOption:
        return option_fact(attname)
    return None


@functools.cache
def _tracked_fields(model: type) -> Fields:
    """(attribute, label, how its value reads) of every field a change is reported for."""
    tracked = []
    for field in model._meta.concrete_fields:
        if field.name in SKIPPED_FIELDS or field.attname in SKIPPED_FIELDS:
            continue
        fact = _model_fact(model, field.attname)
        if fact is not None:
            tracked.append((field.attname, fact.label, _fact_words(fact)))
            continue
        label = str(field.verbose_name)[:1].upper() + str(field.verbose_name)[1:]
        if field.flatchoices:
            tracked.append((field.attname, label, _choice_words(field)))
        else:
            tracked.append(
                (field.attname, label, lambda value, currency: "blank" if value in (None, "") else str(value))
            )
    return tracked


class Currencies:
    """The scenario's currency at any moment of its history, from its history rows (a money input reads in the
    currency it was in then: a conversion shows "$320,000 → EUR 296,296.30"). Before the oldest row read, that
    row's currency."""

    def __init__(self, scenario_rows: list, current: str) -> None:
        rows = sorted(scenario_rows, key=lambda row: row.history_date)
        self._dates = [row.history_date for row in rows]
        self._codes = [row.currency or DEFAULT_CURRENCY for row in rows]
        self._current = current

    def at(self, when: datetime) -> str:
        if not self._codes:
            return self._current
        index = bisect.bisect_right(self._dates, when) - 1
        return self._codes[max(index, 0)]


Fields = list[tuple[str, str, Shown]]


def _lines(
    records: list,
    fields: Fields | Callable[[Any], Fields],
    subject_of,
    currencies: Currencies,
    *,
    show_created: bool = True,
) -> list[HistoryLine]:
    by_object: dict[int, list] = {}
    for record in sorted(records, key=lambda r: r.history_id):
        by_object.setdefault(record.id, []).append(record)
    lines: list[HistoryLine] = []
    for versions in by_object.values():
        previous = None
        for record in versions:
            who = _who(record)
            subject = subject_of(record)
            if record.history_type == "+":
                if show_created:
                    lines.append(HistoryLine(record.history_date, who, subject, "created"))
            elif record.history_type == "-" and show_created:
                lines.append(HistoryLine(record.history_date, who, subject, "deleted"))
            elif previous is not None:
                before, after = currencies.at(previous.history_date), currencies.at(record.history_date)
                for attname, label, shown in fields(record) if callable(fields) else fields:
                    old, new = getattr(previous, attname), getattr(record, attname)
                    if old != new:
                        lines.append(
                            HistoryLine(
                                record.history_date,
                                who,
                                subject,
                                "changed",
                                label,
                                shown(old, before),
                                shown(new, after),
                            )
                        )
            previous = record
    return lines


def _range_fact(record: Any) -> InputFact | None:
    if record.option_id:
        return option_fact(record.field)
    found = path_fact({}, record.field)
    return found[1] if found else None


def _range_fields(record: Any) -> Fields:
    fact = _range_fact(record)
    shown = _fact_words(fact) if fact else (lambda value, currency: str(value))
    return [("low", "Low", shown), ("likely", "Likely", shown), ("high", "High", shown)]


def _conversion_lines(records: list) -> list[HistoryLine]:
    """A currency conversion's rate, date and source: one line beside its "Currency" line (a relabel has none)."""
    lines = []
    previous: list | None = None  # the first record read is the baseline (creation, or older than the window)
    for record in sorted(records, key=lambda r: r.history_id):
        entries = record.currency_conversions or []
        if previous is not None and len(entries) > len(previous) and entries[-1].get("mode") == "convert":
            text = conversion_text(entries[-1])
            lines.append(
                HistoryLine(
                    record.history_date, _who(record), "scenario", "changed", "Currency conversion", "blank", text
                )
            )
        previous = entries
    return lines


def _scenario_lines(records: list, currencies: Currencies) -> list[HistoryLine]:
    return _lines(records, _tracked_fields(Scenario), lambda r: "scenario", currencies) + _conversion_lines(records)


def _range_subject(record: Any, option_names: dict[int, str]) -> str:
    fact = _range_fact(record)
    label = fact.label if fact else record.field.replace("_", " ")
    where = f" of “{option_names.get(record.option_id, '?')}”" if record.option_id else ""
    return f"the range of {label}{where}"


HISTORY_TIMEOUT = 7 * 24 * 3600  # seconds; a version's history never changes, this only bounds what the cache keeps


HISTORY_PAGE = 25  # lines per page of the history (a currency conversion alone writes about as many)


def scenario_history_page(scenario: Scenario, page: int = 1) -> tuple[list[HistoryLine], bool]:
    """Page ``page`` (1: the newest) of the scenario's history, HISTORY_PAGE lines, and whether older lines exist."""
    lines = scenario_history(scenario, limit=page * HISTORY_PAGE + 1)
    return lines[(page - 1) * HISTORY_PAGE : page * HISTORY_PAGE], len(lines) > page * HISTORY_PAGE


def scenario_history(scenario: Scenario, *, limit: int = HISTORY_PAGE) -> list[HistoryLine]:
    """The latest changes to the scenario, its options, checklists and input ranges, newest first (four queries,
    none once any process has read the same version: every write that adds history bumps the scenario's version in
    the same transaction, so a version's history never changes and is kept in Django's cache under its version)."""
    created = scenario.created_at.isoformat() if scenario.created_at else ""
    key = f"scenario-history:{scenario.pk}:{created}:{scenario.version}:{limit}"
    return list(kept(key, lambda: _read_history(scenario, limit), timeout=HISTORY_TIMEOUT))


class _Row:
    """One history row as plain values (``.values()``: no model instance, no user row), read by attribute."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


@functools.cache
def _historical(model: type) -> type:
    """The model's django-simple-history model (``model.history`` builds a new manager class on every access)."""
    return model.history.model


_ROW_FIELDS = ("id", "history_id", "history_date", "history_type", "history_user_id", "history_user__username")


def _who(record: _Row) -> str:
    return record.history_user__username if record.history_user_id else "system"


def _rows(model: type, extra: tuple[str, ...], window: int, **where: Any) -> list[_Row]:
    """The newest ``window`` history rows of ``model`` matching ``where``, with only what the lines read: the
    tracked fields, ``extra`` and who made each row."""
    names = dict.fromkeys((*_ROW_FIELDS, *extra, *(attname for attname, _, _ in _tracked_fields(model))))
    rows = _historical(model).objects.filter(**where).order_by("-history_id").values(*names)[:window]
    return [_Row(values) for values in rows]


_ITEM_KEYS = dict(SecondaryDiligenceItem._meta.get_field("key").flatchoices)


def _read_history(scenario: Scenario, limit: int) -> list[HistoryLine]:
    window = limit * 2  # enough rows per table to diff the newest `limit` changes against their predecessors
    scenario_rows = _rows(Scenario, ("currency", "currency_conversions"), window, id=scenario.pk)
    option_rows = _rows(ScenarioOption, ("name",), window, scenario_id=scenario.pk)
    option_names = {row.id: row.name for row in sorted(option_rows, key=lambda r: r.history_id)}
    item_rows = (
        _rows(SecondaryDiligenceItem, ("key", "option_id"), window, option_id__in=list(option_names))
        if option_names
        else []
    )
    currencies = Currencies(scenario_rows, scenario.currency_code)
    lines = _scenario_lines(scenario_rows, currencies)
    lines += _lines(option_rows, _tracked_fields(ScenarioOption), lambda r: f"option “{r.name}”", currencies)
    item_fields = [field for field in _tracked_fields(SecondaryDiligenceItem) if field[0] != "key"]
    lines += _lines(
        item_rows,
        item_fields,
        lambda r: f"checklist “{_ITEM_KEYS.get(r.key, r.key)}” of “{option_names.get(r.option_id, '?')}”",
        currencies,
        show_created=False,
    )
    range_rows = _rows(InputRange, ("option_id", "field", "low", "likely", "high"), window, scenario_id=scenario.pk)
    lines += _lines(range_rows, _range_fields, lambda r: _range_subject(r, option_names), currencies)
    lines.sort(key=lambda line: line.when, reverse=True)
    return lines[:limit]
