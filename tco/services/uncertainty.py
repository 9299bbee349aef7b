"""Write services for decisions under uncertainty: input ranges, and the simulation runs (queue, execute, cancel).

A range is saved like any other edit: the scenario's version is checked and bumped, history is kept, and the
engine's own range validation (``check_uncertainty``) decides what is acceptable, naming the input's path.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from config.jobs import SweepResult, hard_time_limit, resend_before, send_job, stuck_before
from lib.users import signed_in_user
from tco.charts.uncertainty import uncertainty_figures
from tco.documents import FieldProblem, to_decimal
from tco.engine import ENGINE_VERSION, Problem, ScenarioError, check_uncertainty, evaluate, fleet_plan, sensitivity
from tco.engine import simulate as engine_simulate
from tco.engine.kinds import OWNED_KINDS
from tco.models import InputRange, Scenario, ScenarioOption, UncertaintyRun, UncertaintyStatus
from tco.selectors.uncertainty import (
    SCENARIO_RANGE_PATHS,
    option_range_fields,
    scenario_ranges,
    uncertainty_map,
)
from tco.services.common import Change, claim_version, recompute_if_valid, set_history_user

logger = logging.getLogger(__name__)

MIN_TRIALS, MAX_TRIALS, DEFAULT_TRIALS = 1_000, 200_000, 20_000
# Shares of the progress bar: the simulation, then the tornado, then the fleet plan.
SIMULATION_SHARE, TORNADO_SHARE = 0.8, 0.1


class RangeError(ValueError):
    """A range the engine refuses (or an input that takes none); nothing was saved."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class RunCancelled(Exception):
    """The run's cancel flag was set: stop between batches."""


def _target_path(scenario: Scenario, options: list[ScenarioOption], option: ScenarioOption | None, field: str) -> str:
    if option is None:
        if field not in SCENARIO_RANGE_PATHS:
            raise RangeError(f"{field} does not take a range")
        return SCENARIO_RANGE_PATHS[field]
    if option.scenario_id != scenario.pk or field not in option_range_fields(option):
        raise RangeError(f"{field} of {option.name} does not take a range")
    index = next(i for i, o in enumerate(options) if o.pk == option.pk)
    return f"options[{index}].{field}"


def range_set(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    option: ScenarioOption | None,
    field: str,
    low: Decimal,
    likely: Decimal,
    high: Decimal,
) -> Change:
    """Give one catalogued input a range (low ≤ likely ≤ high), replacing any it had.

    Raises RangeError with the engine's message (nothing saved) when the range is refused, or when the scenario's
    own inputs must be fixed first (a range is checked against them); VersionConflict when the scenario changed.
    """
    options = list(scenario.options.all())
    path = _target_path(scenario, options, option, field)
    ranges = uncertainty_map(scenario_ranges(scenario), options)
    ranges[path] = {"low": float(low), "likely": float(likely), "high": float(high)}
    try:
        check_uncertainty(scenario.to_document(options), {path: ranges[path]})
    except ScenarioError as error:
        own = [problem.message for problem in error.problems if problem.path == path]
        if own:
            raise RangeError(" ".join(own)) from None
        listed = "; ".join(f"{p.path or 'scenario'}: {p.message}" for p in error.problems)
        raise RangeError(f"Fix the scenario's inputs before giving ranges ({listed})") from None
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version)
        existing = InputRange.objects.filter(scenario=fresh, option=option, field=field).first()
        item = existing or InputRange(scenario=fresh, option=option, field=field)
        item.low, item.likely, item.high = low, likely, high
        set_history_user(item, user)
        item.save()
        return recompute_if_valid(scenario=fresh, user=user)


def range_clear(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    option: ScenarioOption | None,
    field: str,
) -> Change:
    """Remove an input's range (the input is then a single number again). A no-op apart from the version
    check when it had none."""
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version)
        for item in InputRange.objects.filter(scenario=fresh, option=option, field=field):
            set_history_user(item, user)
            item.delete()
        return recompute_if_valid(scenario=fresh, user=user)


def split_uncertainty(document: dict) -> tuple[dict, dict]:
    """A document as exported: ``(the tco-scenario/1 document, its ranges)``; no ``uncertainty`` key: no ranges."""
    if "uncertainty" not in document:
        return document, {}
    rest = {key: value for key, value in document.items() if key != "uncertainty"}
    return rest, document["uncertainty"]


def uncertainty_check_import(*, document: dict, uncertainty: Any) -> None:
    """The ranges of an imported document, checked by the engine against it and for exact storage; raises
    ScenarioError naming each problem's path under ``uncertainty``."""
    if not uncertainty:
        return
    try:
        check_uncertainty(document, uncertainty)
    except ScenarioError as error:
        named = [p if p.path == "uncertainty" else Problem(f"uncertainty.{p.path}", p.message) for p in error.problems]
        raise ScenarioError(named) from None
    problems: list[FieldProblem] = []
    for path, spec in uncertainty.items():
        for key in ("low", "likely", "high"):
            to_decimal(spec[key], f"uncertainty.{path}.{key}", problems)
    if problems:
        raise ScenarioError([Problem(p.path, p.message) for p in problems])


def uncertainty_import(*, scenario: Scenario, uncertainty: dict, user: AbstractBaseUser | None) -> None:
    """Store the ranges of an imported document (``{path: {low, likely, high}}``), already checked by
    :func:`uncertainty_check_import`. Call inside the import's transaction."""
    options = list(scenario.options.all())
    for path, spec in uncertainty.items():
        if path.startswith("options["):
            index, field = path[len("options[") :].split("].", 1)
            option, name = options[int(index)], field
        else:
            option, name = None, next(key for key, value in SCENARIO_RANGE_PATHS.items() if value == path)
        item = InputRange(scenario=scenario, option=option, field=name)
        item.low, item.likely, item.high = (to_decimal(spec[key], path, []) for key in ("low", "likely", "high"))
        set_history_user(item, user)
        item.save()


def uncertainty_copy(
    *, source: Scenario, target: Scenario, options: dict[int, ScenarioOption], user: AbstractBaseUser | None
) -> None:
    """Copy the ranges of ``source`` onto its clone ``target``; ``options`` maps each source option's id to its
    copy. Call inside the clone's transaction."""
    for item in InputRange.objects.filter(scenario=source):
        copy = InputRange(
            scenario=target,
            option=None if item.option_id is None else options[item.option_id],
            field=item.field,
            low=item.low,
            likely=item.likely,
            high=item.high,
        )
        set_history_user(copy, user)
        copy.save()


def uncertainty_run_queue(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    trials: int = DEFAULT_TRIALS,
    load_profile: Sequence[float] = (),
    load_profile_source: str = "",
) -> UncertaintyRun:
    """Freeze the scenario's document, ranges and load profile on a pending run; queue it on commit.

    Raises ScenarioError (nothing queued) when the engine refuses the inputs or the ranges."""
    from tco.tasks import scenario_simulate

    if not MIN_TRIALS <= trials <= MAX_TRIALS:
        raise ScenarioError([Problem("trials", f"Trials must be {MIN_TRIALS:,} to {MAX_TRIALS:,}; got {trials:,}")])
    options = list(scenario.options.all())
    document = scenario.to_document(options)
    uncertainty = uncertainty_map(scenario_ranges(scenario), options)
    check_uncertainty(document, uncertainty)
    with transaction.atomic():
        run = UncertaintyRun.objects.create(
            scenario=scenario,
            scenario_version=scenario.version,
            document=document,
            uncertainty=uncertainty,
            trials=trials,
            load_profile=list(load_profile),
            load_profile_source=load_profile_source[:200],
            requested_by=signed_in_user(user),
        )
        # Sending never fails the request: a run the broker could not take stays pending for the sweeper.
        transaction.on_commit(lambda: send_job(scenario_simulate, run.pk))
    return run


def uncertainty_run_cancel(*, run: UncertaintyRun) -> bool:
    """Ask the run to stop. A queued run is cancelled at once; a running one stops after its current batch.
    False when it had already finished."""
    if UncertaintyRun.objects.filter(pk=run.pk, status=UncertaintyStatus.PENDING).update(
        status=UncertaintyStatus.CANCELLED, cancel_requested=True, finished_at=timezone.now()
    ):
        return True
    return bool(
        UncertaintyRun.objects.filter(pk=run.pk, status=UncertaintyStatus.RUNNING).update(cancel_requested=True)
    )


def _report(run: UncertaintyRun, progress: float, stage: str) -> None:
    """Write the progress on the run row (what the page polls); stop if a cancel was asked for."""
    UncertaintyRun.objects.filter(pk=run.pk).update(progress=progress, stage=stage)
    if UncertaintyRun.objects.filter(pk=run.pk, cancel_requested=True).exists():
        raise RunCancelled


def _difference(document: dict) -> float:
    """Lowest owned NPV minus lowest rented NPV of the document as entered (the tornado's centre)."""
    result = evaluate(document)
    owned = [o["npv"] for o in result["options"] if o["kind"] in OWNED_KINDS]
    other = [o["npv"] for o in result["options"] if o["kind"] not in OWNED_KINDS]
    return min(owned) - min(other)


def _tornado(document: dict, uncertainty: dict) -> dict | None:
    """Ranged inputs swing over their range, every other input ±20 %; None without both sides."""
    try:
        defaults = sensitivity(document)
    except ScenarioError:
        return None
    swings = {row["path"]: {"low": row["low"], "high": row["high"]} for row in defaults}
    swings.update({path: {"low": spec["low"], "high": spec["high"]} for path, spec in uncertainty.items()})
    return {"base": _difference(document), "rows": sensitivity(document, swings)}


def _fleet_plan(document: dict, load_profile: list[float]) -> tuple[dict | None, str]:
    if not load_profile:
        return None, "No load profile: give one to size the owned fleet."
    try:
        return fleet_plan(document, load_profile), ""
    except ScenarioError as error:
        return None, "No fleet plan: " + "; ".join(problem.message for problem in error.problems)


def uncertainty_run_execute(*, run: UncertaintyRun) -> UncertaintyRun:
    """Simulate, then the tornado, then the fleet plan, reporting progress on the row between batches.

    The caller has claimed the run (running). Ends done, failed (with the engine's problems, or a logged
    error) or cancelled; never half-written."""
    fields = ["status", "progress", "stage", "result", "figures", "problems", "error", "engine_version", "finished_at"]
    try:
        _report(run, 0.0, "simulation")
        simulation = engine_simulate(
            run.document,
            run.uncertainty,
            trials=run.trials,
            seed=run.seed,
            progress=lambda done, total: _report(run, SIMULATION_SHARE * done / total, "simulation"),
        )
        _report(run, SIMULATION_SHARE, "tornado")
        tornado = _tornado(run.document, run.uncertainty)
        _report(run, SIMULATION_SHARE + TORNADO_SHARE, "fleet plan")
        plan, plan_note = _fleet_plan(run.document, run.load_profile)
        result = {"simulation": simulation, "tornado": tornado, "fleet_plan": plan, "fleet_plan_note": plan_note}
        figures = uncertainty_figures(result, run.document)
    except RunCancelled:
        run.status, run.stage = UncertaintyStatus.CANCELLED, "cancelled"
        run.progress = UncertaintyRun.objects.values_list("progress", flat=True).get(pk=run.pk)
    except ScenarioError as error:
        run.status = UncertaintyStatus.FAILED
        run.problems = [{"path": problem.path, "message": problem.message} for problem in error.problems]
        run.error = str(error)
    except SoftTimeLimitExceeded:  # the task fails the run with its time limit
        raise
    except Exception as error:  # a bug, not the user's input: record it and keep the page working
        logger.exception("uncertainty run %s failed", run.pk)
        run.status = UncertaintyStatus.FAILED
        run.error = f"The simulation failed unexpectedly ({type(error).__name__}); the error has been logged."
    else:
        run.status, run.progress, run.stage = UncertaintyStatus.DONE, 1.0, "done"
        run.result, run.figures, run.problems, run.error = result, figures, [], ""
    run.engine_version = ENGINE_VERSION
    run.finished_at = timezone.now()
    run.save(update_fields=fields)
    return run


SIMULATE_TASK = "tco.tasks.scenario_simulate"


def uncertainty_runs_sweep(*, scenario: Scenario | None = None) -> SweepResult:
    """Unstick simulation runs, as ``runs_sweep`` does evaluations: a run still running past its hard time
    limit lost its worker and fails with a message; a run pending since before the resend threshold (its job
    never sent, or lost with Redis) is sent again (the task's conditional claim runs it once)."""
    from tco.tasks import scenario_simulate

    now = timezone.now()
    runs = UncertaintyRun.objects.all() if scenario is None else UncertaintyRun.objects.filter(scenario=scenario)
    result = SweepResult()
    stuck = runs.filter(status=UncertaintyStatus.RUNNING, started_at__lt=stuck_before(SIMULATE_TASK, now))
    result.failed = stuck.update(
        status=UncertaintyStatus.FAILED,
        error=(
            "The simulation was interrupted: its worker stopped, or it ran past its "
            f"{hard_time_limit(SIMULATE_TASK)} s limit. Your ranges are saved; run it again."
        ),
        finished_at=now,
    )
    due = runs.filter(status=UncertaintyStatus.PENDING, created_at__lt=resend_before(now)).order_by("id")
    for run_id in list(due.values_list("id", flat=True)):
        if send_job(scenario_simulate, run_id):
            result.resent += 1
        else:
            result.unsent += 1
    return result
