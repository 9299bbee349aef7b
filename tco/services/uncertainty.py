"""Write services for decisions under uncertainty: input ranges, and the simulation runs (queue, execute, cancel).

A range is saved like any other edit: the scenario's version is checked and bumped, history is kept, and the
engine's own range validation (``check_uncertainty``) decides what is acceptable, naming the input's path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from lib.errors import AppError
from lib.kinds import OWNED_KINDS
from lib.users import signed_in_user
from tco.documents import FieldProblem, scenario_document, to_decimal
from tco.engine import (
    ENGINE_VERSION,
    Problem,
    ScenarioError,
    check_uncertainty,
    entered_values,
    evaluate,
    fleet_plan,
    sensitivity,
)
from tco.engine import simulate as engine_simulate
from tco.engine.catalogue import money_step, option_fields
from tco.engine.fields import NumberField
from tco.engine.validation import entered_document
from tco.engine.variants import resolve
from tco.models import InputRange, Scenario, ScenarioOption, UncertaintyRun, UncertaintyStatus
from tco.models.fields import LARGEST_STORED
from tco.selectors.uncertainty import (
    MONEY_RANGE_FIELDS,
    SCENARIO_RANGE_PATHS,
    likely_is_input,
    option_range_fields,
    range_path,
    scenario_ranges,
    uncertainty_map,
)
from tco.services.common import Change, claim_version, recompute_if_valid, set_history_user

MIN_TRIALS, MAX_TRIALS, DEFAULT_TRIALS = 1_000, 200_000, 20_000
# Shares of the progress bar: the simulation, then the tornado, then the fleet plan.
SIMULATION_SHARE, TORNADO_SHARE = 0.8, 0.1


class RangeError(AppError, ValueError):
    """A range the engine refuses (or an input that takes none); nothing was saved."""


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
        check_uncertainty(scenario_document(scenario, options), {path: ranges[path]})
    except ScenarioError as error:
        own = [problem.message for problem in error.problems if problem.path == path]
        if own:
            raise RangeError(" ".join(own)) from None
        listed = "; ".join(f"{p.path or 'scenario'}: {p.message}" for p in error.problems)
        raise RangeError(f"Fix the scenario's inputs before giving ranges ({listed})") from None
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
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
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
        for item in InputRange.objects.filter(scenario=fresh, option=option, field=field):
            set_history_user(item, user)
            item.delete()
        return recompute_if_valid(scenario=fresh, user=user)


def ranges_drop_where_inputs_stop_applying(*, option: ScenarioOption, user: AbstractBaseUser | None) -> list[str]:
    """Remove the option's ranges on inputs that no longer apply to it (a loan's APR once it is leased): the engine
    would refuse them, and with them every simulation of the scenario. Call inside the edit's transaction, after
    the save. Returns the inputs whose range went."""
    values = {entry.name: getattr(option, entry.name) for entry in option_fields(option.kind)}
    stale = [entry.name for entry in option_fields(option.kind) if entry.when and not entry.applies(values)]
    dropped = []
    for item in InputRange.objects.filter(option=option, field__in=stale):
        set_history_user(item, user)
        item.delete()
        dropped.append(item.field)
    return dropped


FOLLOW_DIGITS = 4  # significant digits a re-centred range end of a rate or plain number keeps
FOLLOW_MONEY_DIGITS = 6  # significant digits a re-centred money range end keeps (never finer than its step)
STORED_PLACES = Decimal("0.0000000001")  # what an InputRange stores exactly (ten decimal places)


def ranges_follow_input(
    *, scenario: Scenario, before: dict, user: AbstractBaseUser | None, options: list[ScenarioOption] | None = None
) -> list[InputRange]:
    """After an input edit, move every range that was centred on its input with it. Call inside the edit's
    transaction, after the save: ``before`` is the scenario's document before the edit, ``options`` its options as
    saved (read again when omitted).

    The rule (README, "Decisions under uncertainty"): a range whose likely value equals the input's value before
    the edit follows the input: likely becomes the new value, and low and high keep their ratio to it (their
    distance when the old or the new value is 0), rounded half up (money to six significant digits, never finer than
    the cent, or four decimal places for unit prices; rates and plain numbers to four significant digits) and kept
    within the input's bounds. A range whose likely was set apart from the input stays as it is; the range, the
    simulation summary and the tornado say so.

    Returns the scenario's ranges as they now are (for the page that shows the edit).
    """
    ranges = scenario_ranges(scenario)
    if not ranges:
        return ranges
    options = list(scenario.options.all()) if options is None else options
    after = scenario_document(scenario, options)
    paths = {item.pk: range_path(item, options) for item in ranges}
    known = [path for path in paths.values() if path is not None]
    old, new = entered_values(before, known), entered_values(after, known)
    doc = entered_document(after)
    for item in ranges:
        path = paths[item.pk]
        if path is None or old[path] is None or new[path] is None or old[path] == new[path]:
            continue
        if not likely_is_input(item.likely, old[path]):
            continue
        spec, _ = resolve(doc, path)
        if spec is None:
            continue
        _recentre(item, Decimal(repr(old[path])), _stored(Decimal(repr(new[path]))), spec.field)
        set_history_user(item, user)
        item.save()
    return ranges


def _recentre(item: InputRange, old: Decimal, new: Decimal, bounds: NumberField) -> None:
    step = money_step(item.field) if item.field in MONEY_RANGE_FIELDS else None
    ends = []
    for end in (item.low, item.high):
        moved = new + (end - old) if old == 0 or new == 0 else end * new / old
        moved = _clipped(_within_storage(_rounded(moved, step), step), bounds, new)
        ends.append(moved)
    item.low, item.likely, item.high = min(ends[0], new), new, max(ends[1], new)


def _rounded(value: Decimal, step: Decimal | None) -> Decimal:
    """Money to FOLLOW_MONEY_DIGITS significant digits but never finer than its step (``money_step``), other numbers
    to FOLLOW_DIGITS significant digits. Fewer digits than the cent keep a range that follows an edit there and back
    where it was (to the cent, 1,800,000 came back as 1,799,999.99)."""
    if value == 0:
        return value
    if step is not None:
        return value.quantize(max(step, _digit(value, FOLLOW_MONEY_DIGITS)), rounding=ROUND_HALF_UP)
    return _stored(value.quantize(_digit(value, FOLLOW_DIGITS), rounding=ROUND_HALF_UP))


def _digit(value: Decimal, digits: int) -> Decimal:
    """The place of ``value``'s last significant digit when it keeps ``digits`` of them."""
    return Decimal(1).scaleb(value.adjusted() - digits + 1)


def _within_storage(value: Decimal, step: Decimal | None) -> Decimal:
    """At most the largest number a range stores (LARGEST_STORED, in the end's own rounding), either sign: a range
    that grew with its input past 14 digits stops there, and the input can go on being edited."""
    largest = LARGEST_STORED if step is not None else _rounded_down(LARGEST_STORED)
    return max(-largest, min(value, largest))


def _rounded_down(value: Decimal) -> Decimal:
    return value.quantize(Decimal(1).scaleb(value.adjusted() - FOLLOW_DIGITS + 1), rounding=ROUND_DOWN)


def _clipped(value: Decimal, bounds: NumberField, new: Decimal) -> Decimal:
    """Within the input's bounds: at a closed bound, or at the input itself at or beyond an open one."""
    if bounds.lo is not None:
        lo = Decimal(repr(bounds.lo))
        if value < lo or (bounds.lo_open and value == lo):
            value = new if bounds.lo_open else lo
    if bounds.hi is not None:
        hi = Decimal(repr(bounds.hi))
        if value > hi or (bounds.hi_open and value == hi):
            value = new if bounds.hi_open else hi
    return value


def _stored(value: Decimal) -> Decimal:
    return value.quantize(STORED_PLACES, rounding=ROUND_HALF_UP).normalize()


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
    if not MIN_TRIALS <= trials <= MAX_TRIALS:
        raise ScenarioError([Problem("trials", f"Trials must be {MIN_TRIALS:,} to {MAX_TRIALS:,}; got {trials:,}")])
    options = list(scenario.options.all())
    document = scenario_document(scenario, options)
    uncertainty = uncertainty_map(scenario_ranges(scenario), options)
    check_uncertainty(document, uncertainty)
    # Sending never fails the request: a run the broker could not take stays pending for the sweeper.
    return UncertaintyRun.objects.queue(
        scenario=scenario,
        scenario_version=scenario.version,
        document=document,
        uncertainty=uncertainty,
        trials=trials,
        load_profile=list(load_profile),
        load_profile_source=load_profile_source[:200],
        requested_by=signed_in_user(user),
    )


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
    """Lowest owned NPV minus lowest rented NPV of the document as entered (the tornado's centre): after tax when
    the scenario is taxed, as the tornado's rows are (the engine's decision NPV)."""
    result = evaluate(document)
    key = "npv_after_tax" if all("npv_after_tax" in o for o in result["options"]) else "npv"
    owned = [o[key] for o in result["options"] if o["kind"] in OWNED_KINDS]
    other = [o[key] for o in result["options"] if o["kind"] not in OWNED_KINDS]
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


def uncertainty_run_execute(*, run: UncertaintyRun, figures_of: Callable[[dict, dict], dict]) -> UncertaintyRun:
    """Simulate, then the tornado, then the fleet plan, reporting progress on the row between batches; the
    figures stored with the result are ``figures_of(result, document)`` (the charts the task composes).

    The caller (lib.jobs.run_claimed) has claimed the run, and fails it on any error not handled here. Ends
    done, failed with the engine's problems, or cancelled; never half-written."""
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
        figures = figures_of(result, run.document)
    except RunCancelled:
        progress = UncertaintyRun.objects.values_list("progress", flat=True).get(pk=run.pk)
        run.finish(UncertaintyStatus.CANCELLED, stage="cancelled", progress=progress, engine_version=ENGINE_VERSION)
    except ScenarioError as error:
        problems = [asdict(problem) for problem in error.problems]
        run.finish(UncertaintyStatus.FAILED, problems=problems, error=str(error), engine_version=ENGINE_VERSION)
    else:
        run.finish(
            UncertaintyStatus.DONE,
            progress=1.0,
            stage="done",
            result=result,
            figures=figures,
            problems=[],
            error="",
            engine_version=ENGINE_VERSION,
        )
    return run
