"""The numbers of a scenario's current inputs, for sharing and exporting: a finished run's, or the engine's now.

A service rather than a selector because it may run the engine (it still writes nothing).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from django.utils import timezone

from lib.errors import AppError
from tco.documents import scenario_document
from tco.engine import ENGINE_VERSION, Problem, ScenarioError, evaluate, validate
from tco.engine.errors import problem_text
from tco.models import RunStatus, Scenario, ScenarioRun


class NotEvaluable(AppError):
    """The scenario's inputs cannot be evaluated right now; the message lists every problem."""

    def __init__(self, problems: list[Problem], document: dict | None = None):
        self.problems = problems
        listed = "; ".join(dict.fromkeys(problem_text(problem, document) for problem in problems))
        super().__init__(f"The scenario cannot be evaluated until its inputs are fixed ({listed}).")


class NotReady(AppError):
    """The version asked for has no results to export (yet); the message says what to do."""


@dataclass(frozen=True)
class Evaluation:
    """A document with its result (and figures), from a finished run or computed on the spot."""

    document: dict
    result: dict
    figures: dict | None
    engine_version: str
    run_id: int | None
    scenario_version: int | None = None
    computed_at: datetime | None = None
    note: str = ""  # why these numbers are not the current inputs' (an export of an earlier version)

    def about(self, scenario_name: str) -> list[tuple[str, str]]:
        """What every export states about its numbers: scenario, version, computed-at time, engine version."""
        rows = [
            ("scenario", scenario_name),
            ("scenario version", "" if self.scenario_version is None else str(self.scenario_version)),
            ("computed at (UTC)", self.computed_at.strftime("%Y-%m-%d %H:%M:%S") if self.computed_at else ""),
            ("engine version", self.engine_version),
        ]
        return [*rows, ("note", self.note)] if self.note else rows


def current_evaluation(
    scenario: Scenario, *, figures_of: Callable[[dict, dict, dict | None], dict] | None = None
) -> Evaluation:
    """The numbers for the scenario's current inputs.

    The latest finished run is reused when it was computed from exactly today's document; otherwise (edits not
    yet evaluated, a job still queued) the engine runs here, synchronously, so nobody shares or exports numbers
    that belong to other inputs. Raises NotEvaluable when the engine refuses the inputs. Writes nothing.
    With ``figures_of(document, result, stored)`` (the caller's charts; ``stored`` the run's figures, None when
    computed here) the evaluation carries figures; without it, those of the run reused, or None.
    """
    document = scenario_document(scenario)
    run = ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE).order_by("-id").first()
    if run is not None and run.document == document and run.result and (run.figures or figures_of is None):
        figures = figures_of(document, run.result, run.figures) if figures_of else run.figures
        return _from_run(run, figures)
    try:
        result = evaluate(document)
    except ScenarioError as error:
        raise NotEvaluable(list(error.problems), document) from None
    figures = None
    if figures_of is not None:
        figures = figures_of(document, result, None)
    return Evaluation(document, result, figures, ENGINE_VERSION, None, scenario.version, timezone.now())


def _from_run(run: ScenarioRun, figures: dict | None = None) -> Evaluation:
    engine = run.engine_version or ENGINE_VERSION
    return Evaluation(
        run.document, run.result, figures, engine, run.pk, run.scenario_version, run.finished_at or run.created_at
    )


# How long an export waits for the run of the version asked for (a worker computing it right now).
EXPORT_WAIT_SECONDS = 5.0


def export_evaluation(scenario: Scenario, *, version: int | None) -> Evaluation:
    """The numbers an export holds: those of ``version`` (the one the user is looking at; None: the current).

    The current version is evaluated now when no run has it yet; when it cannot be (an option added a moment ago,
    its price still blank), nothing is exported: the page offers the last computed version instead, behind a
    confirmation (``ExportState``). An earlier version is exported from its run (waiting up to EXPORT_WAIT_SECONDS
    while it is being computed), saying in the file that inputs changed since. Raises NotReady (or NotEvaluable)
    when there is nothing to export.
    """
    if version is None or version == scenario.version:
        try:
            return current_evaluation(scenario)
        except NotEvaluable as error:
            last = _done_runs(scenario).first()
            if last is None:
                raise
            raise NotReady(
                f"Version {scenario.version} cannot be evaluated {_reason(error)}; nothing was exported. The page "
                f"offers version {last.scenario_version}'s numbers instead, saying they are older than the inputs."
            ) from None
    if version > scenario.version:
        raise NotReady(f"Version {version} does not exist; the scenario is at version {scenario.version}.")
    deadline = time.monotonic() + EXPORT_WAIT_SECONDS
    while True:
        run = _done_runs(scenario).filter(scenario_version=version).first()
        if run is not None:
            return replace(
                _from_run(run),
                note=f"The scenario has changed since version {version} (now version {scenario.version}).",
            )
        waiting = ScenarioRun.objects.filter(
            scenario=scenario, scenario_version=version, status__in=(RunStatus.PENDING, RunStatus.RUNNING)
        ).exists()
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    state = "is still being computed" if waiting else "has no computed results"
    raise NotReady(
        f"Version {version} {state}; nothing was exported. Reload the page to export the current version "
        f"({scenario.version}), or try again in a moment."
    )


def _done_runs(scenario: Scenario):
    return ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE).exclude(result=None).order_by("-id")


def _reason(error: NotEvaluable) -> str:
    """The parenthesised list of a NotEvaluable's problems."""
    return str(error).removeprefix("The scenario cannot be evaluated until its inputs are fixed ").removesuffix(".")


@dataclass(frozen=True)
class ExportState:
    """What the page's export box offers: the current version's numbers, an older version's (the current inputs
    cannot be evaluated; the box says so and asks to confirm), or nothing (``refusal`` says why)."""

    refusal: str = ""
    older_version: int | None = None  # the version whose numbers the files would hold instead of the current
    reason: str = ""  # why the current version cannot be evaluated (with older_version)


def export_state(
    *,
    document: dict,
    problems: list[Problem] | None,
    done: ScenarioRun | None,
) -> ExportState:
    """What the export box of ``scenario`` offers, from its ``document``, the engine's ``problems`` with it (read
    when None) and its latest done run (``done``, None when there is none)."""
    if problems is None:
        try:
            validate(document)
        except ScenarioError as error:
            problems = list(error.problems)
        else:
            problems = []
    if not problems:
        return ExportState()
    error = NotEvaluable(problems, document)
    if done is None:
        return ExportState(refusal=f"Nothing to export yet. {error}")
    return ExportState(older_version=done.scenario_version, reason=_reason(error))
