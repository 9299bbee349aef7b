"""Shared pieces of the write services: the optimistic version check and "save, then recompute"."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F, Prefetch, prefetch_related_objects
from django.utils import timezone

from lib.errors import AppError
from lib.users import signed_in_user
from tco.checks import document_problems, is_gap
from tco.documents import scenario_document
from tco.engine import Problem
from tco.engine.errors import problem_text
from tco.models import Scenario, ScenarioOption, ScenarioRun
from tco.services.runs import run_queue


class VersionConflict(AppError):
    """The scenario changed since the form was rendered: the save is refused, nothing is written."""

    def __init__(self, *, scenario: Scenario, expected_version: int):
        self.scenario = scenario
        self.expected_version = expected_version
        super().__init__(
            f"{scenario.name!r} was changed by someone else (now version {scenario.version}, "
            f"you edited version {expected_version}); your change was not saved."
        )


@dataclass
class Change:
    """What a write service did: the scenario as saved, its validation problems, the queued run."""

    scenario: Scenario
    problems: list[Problem] = field(default_factory=list)
    run: ScenarioRun | None = None
    options: list | None = None  # the scenario's options as saved (with checklists), in document order
    document: dict | None = None
    ranges: list | None = None  # the scenario's input ranges as saved, when the write read them (else None)


class EditRefused(AppError, ValueError):
    """The edit would leave the scenario with a problem it did not have: nothing was saved.

    ``messages`` name the option and the field ("Own 8 H100 (new) → Capex, whole option (USD) must not be
    negative; got -1").
    """

    def __init__(self, problems: list[Problem], document: dict):
        self.problems = problems
        super().__init__(*dict.fromkeys(problem_text(problem, document) for problem in problems))


def refuse_invalid(before: dict, after: dict, *, edited: tuple[str, ...]) -> None:
    """Raise EditRefused if the edited document ``after`` holds a wrong value: at the edited field, or anywhere the
    document ``before`` had none (idle power above a maximum power just lowered).

    A scenario is built like a spreadsheet: what it still lacks (a required value left blank, no option yet, no
    burst price for demand above capacity) is a gap, never a reason to refuse a value that is valid on its own.
    Gaps are listed "to complete" and nothing is evaluated until there are none.
    """
    problems = document_problems(after)
    if not problems:
        return
    known = {problem.path for problem in document_problems(before)}

    def at_edited(path: str) -> bool:
        return any(path == e or path.startswith((f"{e}.", f"{e}[")) for e in edited)

    wrong = [
        problem
        for problem in problems
        if not is_gap(problem, after) and (problem.path not in known or at_edited(problem.path))
    ]
    if wrong:
        raise EditRefused(wrong, after)


def claim_version(*, scenario_id: int, expected_version: int | None) -> Scenario:
    """Bump the version if it is still `expected_version` (else VersionConflict); return the fresh row.

    One conditional UPDATE: correct under concurrent saves on PostgreSQL and SQLite alike. Call it
    inside transaction.atomic(). `expected_version=None` skips the check (commands, imports).
    """
    rows = Scenario.objects.filter(pk=scenario_id)
    if expected_version is not None:
        rows = rows.filter(version=expected_version)
    if not rows.update(version=F("version") + 1, updated_at=timezone.now()):
        raise VersionConflict(scenario=Scenario.objects.get(pk=scenario_id), expected_version=expected_version or 0)
    return Scenario.objects.select_for_update().get(pk=scenario_id)


def set_history_user(instance: object, user: object | None) -> None:
    """Attribute history rows to `user` outside a request (commands, tasks)."""
    if signed_in_user(user) is not None:
        instance._history_user = user  # type: ignore[attr-defined]


def scenario_options(scenario: Scenario) -> list[ScenarioOption]:
    """The scenario's options in document order, with their checklists and picked prices, read once (two queries,
    none when already read) and kept on it (``scenario.options.all()``) for whoever shows it next."""
    shown = ScenarioOption.objects.select_related("price_observation").prefetch_related("diligence_items")
    prefetch_related_objects([scenario], Prefetch("options", queryset=shown))
    return list(scenario.options.all())


def recompute_if_valid(*, scenario: Scenario, user: object | None, ranges: list | None = None) -> Change:
    """After a save: validate the new document; queue an evaluation when the engine accepts it. The scenario's
    options are those the write read with ``scenario_options`` (read now if it did not); ``ranges`` are its input
    ranges when the write read them, passed on to whoever shows the change."""
    options = scenario_options(scenario)
    document = scenario_document(scenario, options)
    problems = document_problems(document)
    run = None if problems else run_queue(scenario=scenario, user=user, document=document)
    return Change(scenario=scenario, problems=problems, run=run, options=options, document=document, ranges=ranges)
