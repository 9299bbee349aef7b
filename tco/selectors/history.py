"""Who changed which input from what to what, when: django-simple-history rows turned into changes (raw values
and the facts to word them; tco.presentation.history writes them as lines)."""

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
    "currency_conversions",  # a change of its own, with its rate (``Subject.kind`` "conversion")
    # Provenance of figures sizing wrote: the figures themselves are each a change; the page says where they came from.
    "sizing_applied",
    "throughput_source",
}


@dataclass(frozen=True)
class Tracked:
    """A field whose changes are reported, as plain facts its words are made from (tco.presentation.history): the
    catalogue input it stores (``owner`` "scenario" or "option", looked up by ``attname``; "range" looks up ``path``),
    else the model field's own name and choices."""

    attname: str
    owner: str
    verbose_name: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    path: str = ""  # an input range's input: the option field, or the scenario's input path
    path_of_option: bool = False


@dataclass(frozen=True)
class Subject:
    """What changed: the scenario, an option (``name``), a checklist item (``item`` of option ``name``), the range
    of an input (``range``) or the scenario's currency conversion."""

    kind: str  # "scenario", "option", "checklist", "range", "conversion"
    name: str = ""
    item: str = ""
    range: Tracked | None = None


@dataclass(frozen=True)
class HistoryChange:
    """One change as it was stored: raw values, and the scenario's currency before and after it (a money input reads
    in the currency it was in then). ``conversion`` is the conversion's own record (``Subject.kind`` "conversion")."""

    when: datetime
    who: str
    subject: Subject
    action: str  # "created", "changed", "deleted"
    field: Tracked | None = None
    old: Any = None
    new: Any = None
    currency_before: str = DEFAULT_CURRENCY
    currency_after: str = DEFAULT_CURRENCY
    conversion: dict | None = None


_OWNERS = {Scenario: "scenario", ScenarioOption: "option"}


@functools.cache
def tracked_fields(model: type) -> list[Tracked]:
    """Every field of ``model`` a change is reported for."""
    owner = _OWNERS.get(model, "")
    return [
        Tracked(
            field.attname,
            owner,
            str(field.verbose_name),
            tuple((str(value), str(label)) for value, label in field.flatchoices),
        )
        for field in model._meta.concrete_fields
        if field.name not in SKIPPED_FIELDS and field.attname not in SKIPPED_FIELDS
    ]


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


def _changes(
    records: list,
    fields: list[Tracked] | Callable[[Any], list[Tracked]],
    subject_of: Callable[[Any], Subject],
    currencies: Currencies,
    *,
    show_created: bool = True,
) -> list[HistoryChange]:
    by_object: dict[int, list] = {}
    for record in sorted(records, key=lambda r: r.history_id):
        by_object.setdefault(record.id, []).append(record)
    changes: list[HistoryChange] = []
    for versions in by_object.values():
        previous = None
        for record in versions:
            who = _who(record)
            subject = subject_of(record)
            if record.history_type == "+":
                if show_created:
                    changes.append(HistoryChange(record.history_date, who, subject, "created"))
            elif record.history_type == "-" and show_created:
                changes.append(HistoryChange(record.history_date, who, subject, "deleted"))
            elif previous is not None:
                before, after = currencies.at(previous.history_date), currencies.at(record.history_date)
                for field in fields(record) if callable(fields) else fields:
                    old, new = getattr(previous, field.attname), getattr(record, field.attname)
                    if old != new:
                        changes.append(
                            HistoryChange(record.history_date, who, subject, "changed", field, old, new, before, after)
                        )
            previous = record
    return changes


def _range_input(record: Any) -> Tracked:
    return Tracked(record.field, "range", path=record.field, path_of_option=bool(record.option_id))


def _range_fields(record: Any) -> list[Tracked]:
    value = _range_input(record)
    return [
        Tracked(bound, "range", bound.title(), path=value.path, path_of_option=value.path_of_option)
        for bound in ("low", "likely", "high")
    ]


def _conversion_changes(records: list) -> list[HistoryChange]:
    """A currency conversion's rate, date and source: a change beside the "Currency" one (a relabel has none)."""
    changes = []
    previous: list | None = None  # the first record read is the baseline (creation, or older than the window)
    for record in sorted(records, key=lambda r: r.history_id):
        entries = record.currency_conversions or []
        if previous is not None and len(entries) > len(previous) and entries[-1].get("mode") == "convert":
            changes.append(
                HistoryChange(
                    record.history_date, _who(record), Subject("conversion"), "changed", conversion=entries[-1]
                )
            )
        previous = entries
    return changes


HISTORY_TIMEOUT = 7 * 24 * 3600  # seconds; a version's history never changes, this only bounds what the cache keeps


HISTORY_PAGE = 25  # lines per page of the history (a currency conversion alone writes about as many)


def scenario_changes_page(scenario: Scenario, page: int = 1) -> tuple[list[HistoryChange], bool]:
    """Page ``page`` (1: the newest) of the scenario's changes, HISTORY_PAGE of them, and whether older ones exist."""
    changes = scenario_changes(scenario, limit=page * HISTORY_PAGE + 1)
    return changes[(page - 1) * HISTORY_PAGE : page * HISTORY_PAGE], len(changes) > page * HISTORY_PAGE


def scenario_changes(scenario: Scenario, *, limit: int = HISTORY_PAGE) -> list[HistoryChange]:
    """The latest changes to the scenario, its options, checklists and input ranges, newest first (four queries,
    none once any process has read the same version: every write that adds history bumps the scenario's version in
    the same transaction, so a version's history never changes and is kept in Django's cache under its version).
    tco.presentation.history words them."""
    created = scenario.created_at.isoformat() if scenario.created_at else ""
    key = f"scenario-changes:{scenario.pk}:{created}:{scenario.version}:{limit}"
    return list(kept(key, lambda: _read_changes(scenario, limit), timeout=HISTORY_TIMEOUT))


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
    names = dict.fromkeys((*_ROW_FIELDS, *extra, *(field.attname for field in tracked_fields(model))))
    rows = _historical(model).objects.filter(**where).order_by("-history_id").values(*names)[:window]
    return [_Row(values) for values in rows]


_ITEM_KEYS = dict(SecondaryDiligenceItem._meta.get_field("key").flatchoices)


def _read_changes(scenario: Scenario, limit: int) -> list[HistoryChange]:
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
    changes = _changes(scenario_rows, tracked_fields(Scenario), lambda r: Subject("scenario"), currencies)
    changes += _conversion_changes(scenario_rows)
    changes += _changes(option_rows, tracked_fields(ScenarioOption), lambda r: Subject("option", r.name), currencies)
    item_fields = [field for field in tracked_fields(SecondaryDiligenceItem) if field.attname != "key"]
    changes += _changes(
        item_rows,
        item_fields,
        lambda r: Subject("checklist", option_names.get(r.option_id, "?"), _ITEM_KEYS.get(r.key, r.key)),
        currencies,
        show_created=False,
    )
    range_rows = _rows(InputRange, ("option_id", "field", "low", "likely", "high"), window, scenario_id=scenario.pk)
    changes += _changes(
        range_rows,
        _range_fields,
        lambda r: Subject("range", option_names.get(r.option_id, "?") if r.option_id else "", range=_range_input(r)),
        currencies,
    )
    changes.sort(key=lambda change: change.when, reverse=True)
    return changes[:limit]
