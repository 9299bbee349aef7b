"""Who changed which input from what to what, when: django-simple-history rows turned into lines."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from lib.caching import kept
from tco.models import InputRange, Scenario, ScenarioOption, SecondaryDiligenceItem
from tco.presentation.currency import conversion_text

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


def _show(value: Any) -> str:
    if value is None or value == "":
        return "blank"
    if isinstance(value, Decimal):
        text = format(value.normalize(), "f")
        return text
    if isinstance(value, list):
        return f"{len(value)} values"
    if isinstance(value, dict):
        return " · ".join(str(v) for k, v in value.items() if v and k in ("provider", "offering", "observed_on"))
    return str(value)


def _tracked_fields(model: type) -> list[tuple[str, str]]:
    return [
        (f.attname, str(f.verbose_name)[:1].upper() + str(f.verbose_name)[1:])
        for f in model._meta.concrete_fields
        if f.name not in SKIPPED_FIELDS and f.attname not in SKIPPED_FIELDS
    ]


def _lines(records: list, fields: list[tuple[str, str]], subject_of, *, show_created: bool = True) -> list[HistoryLine]:
    by_object: dict[int, list] = {}
    for record in sorted(records, key=lambda r: r.history_id):
        by_object.setdefault(record.id, []).append(record)
    lines: list[HistoryLine] = []
    for versions in by_object.values():
        previous = None
        for record in versions:
            who = record.history_user.get_username() if record.history_user_id else "system"
            subject = subject_of(record)
            if record.history_type == "+":
                if show_created:
                    lines.append(HistoryLine(record.history_date, who, subject, "created"))
            elif record.history_type == "-" and show_created:
                lines.append(HistoryLine(record.history_date, who, subject, "deleted"))
            elif previous is not None:
                for attname, label in fields:
                    old, new = getattr(previous, attname), getattr(record, attname)
                    if old != new:
                        lines.append(
                            HistoryLine(record.history_date, who, subject, "changed", label, _show(old), _show(new))
                        )
            previous = record
    return lines


def _conversion_lines(records: list) -> list[HistoryLine]:
    """A currency conversion's rate, date and source: one line beside its "Currency" line (a relabel has none)."""
    lines = []
    previous: list | None = None  # the first record read is the baseline (creation, or older than the window)
    for record in sorted(records, key=lambda r: r.history_id):
        entries = record.currency_conversions or []
        if previous is not None and len(entries) > len(previous) and entries[-1].get("mode") == "convert":
            who = record.history_user.get_username() if record.history_user_id else "system"
            text = conversion_text(entries[-1])
            lines.append(
                HistoryLine(record.history_date, who, "scenario", "changed", "Currency conversion", "blank", text)
            )
        previous = entries
    return lines


def _scenario_lines(records: list) -> list[HistoryLine]:
    return _lines(records, _tracked_fields(Scenario), lambda r: "scenario") + _conversion_lines(records)


RANGE_FIELDS = [("low", "Low"), ("likely", "Likely"), ("high", "High")]


def _range_subject(record: Any, option_names: dict[int, str]) -> str:
    where = f" of “{option_names.get(record.option_id, '?')}”" if record.option_id else ""
    return f"the range of {record.field.replace('_', ' ')}{where}"


HISTORY_TIMEOUT = 7 * 24 * 3600  # seconds; a version's history never changes, this only bounds what the cache keeps


def scenario_history(scenario: Scenario, *, limit: int = 25) -> list[HistoryLine]:
    """The latest changes to the scenario, its options, checklists and input ranges, newest first (four queries,
    none once any process has read the same version: every write that adds history bumps the scenario's version in
    the same transaction, so a version's history never changes and is kept in Django's cache under its version)."""
    created = scenario.created_at.isoformat() if scenario.created_at else ""
    key = f"scenario-history:{scenario.pk}:{created}:{scenario.version}:{limit}"
    return list(kept(key, lambda: _read_history(scenario, limit), timeout=HISTORY_TIMEOUT))


def _read_history(scenario: Scenario, limit: int) -> list[HistoryLine]:
    window = limit * 2  # enough rows per table to diff the newest `limit` changes against their predecessors
    scenario_rows = list(
        Scenario.history.filter(id=scenario.pk).select_related("history_user").order_by("-history_id")[:window]
    )
    option_rows = list(
        ScenarioOption.history.filter(scenario_id=scenario.pk)
        .select_related("history_user")
        .order_by("-history_id")[:window]
    )
    option_names = {row.id: row.name for row in sorted(option_rows, key=lambda r: r.history_id)}
    item_rows = list(
        SecondaryDiligenceItem.history.filter(option_id__in=list(option_names))
        .select_related("history_user")
        .order_by("-history_id")[:window]
        if option_names
        else []
    )
    lines = _scenario_lines(scenario_rows)
    lines += _lines(option_rows, _tracked_fields(ScenarioOption), lambda r: f"option “{r.name}”")
    item_fields = [(a, label) for a, label in _tracked_fields(SecondaryDiligenceItem) if a != "key"]
    lines += _lines(
        item_rows,
        item_fields,
        lambda r: f"checklist “{r.get_key_display()}” of “{option_names.get(r.option_id, '?')}”",
        show_created=False,
    )
    range_rows = list(
        InputRange.history.filter(scenario_id=scenario.pk)
        .select_related("history_user")
        .order_by("-history_id")[:window]
    )
    lines += _lines(range_rows, RANGE_FIELDS, lambda r: _range_subject(r, option_names))
    lines.sort(key=lambda line: line.when, reverse=True)
    return lines[:limit]
