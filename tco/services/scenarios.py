"""Write services for scenarios: create (blank or from a document), edit, forecast, clone, rename, delete."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from lib.errors import AppError
from lib.users import signed_in_user
from pricing.models import PriceObservation
from tco.checks import document_problems, is_gap
from tco.documents import SERVING_KEY, document_to_fields, scenario_document, serving_fields
from tco.engine import Problem, ScenarioError
from tco.engine.catalogue import OPTION_FIELD, SCENARIO_FIELD, scenario_fields, scenario_inputs
from tco.engine.fields import check_number
from tco.forecast import Forecast, ForecastError
from tco.models import DILIGENCE_ITEMS, ForecastKind, OptionKind, Scenario, ScenarioOption, SecondaryDiligenceItem
from tco.selectors.decisions import live_links
from tco.services.common import (
    Change,
    EditRefused,
    claim_version,
    recompute_if_valid,
    refuse_invalid,
    scenario_options,
    set_history_user,
)
from tco.services.uncertainty import (
    ranges_follow_input,
    split_uncertainty,
    uncertainty_check_import,
    uncertainty_copy,
    uncertainty_import,
)


def scenario_create(*, user: AbstractBaseUser | None, name: str) -> Scenario:
    """A blank scenario with no options yet, each input at the catalogue's ``initial`` (8 GPUs, 36 months, 8 %
    discount rate, flat 60 % utilization)."""
    initial = {entry.field: entry.initial for entry in scenario_fields() if entry.initial is not None}
    with transaction.atomic():
        scenario = Scenario(name=name, owner=signed_in_user(user), **initial)
        set_history_user(scenario, user)
        scenario.save()
    return scenario


def scenario_create_from_document(*, document: Any, user: AbstractBaseUser | None) -> Scenario:
    """Create a scenario (and its options) from a tco-scenario/1 document and queue its evaluation.

    An optional ``uncertainty`` key holds input ranges (``{path: {low, likely, high}}``, as exported); they are
    checked by the engine's range validation and stored with the scenario. An optional ``currency_conversions`` key
    (as exported) keeps the record of the rates its money went through, and an optional ``serving`` key its serving
    configuration (checked as the sizing page checks it).
    Raises ScenarioError listing every problem (the engine's, plus values the database cannot
    store exactly); nothing is written then. Exporting the new scenario gives the document back.
    """
    if not isinstance(document, dict):
        raise ScenarioError([Problem("", "the file must hold one JSON object (a tco-scenario/1 document)")])
    document, uncertainty = split_uncertainty(document)
    document, conversions = _split_conversions(document)
    serving = document.get(SERVING_KEY)
    document = {key: value for key, value in document.items() if key != SERVING_KEY}
    _refuse_all_but_gaps(document)
    uncertainty_check_import(document=document, uncertainty=uncertainty)
    scenario_fields, option_fields, storage_problems = document_to_fields(document)
    serving_values, serving_problems = serving_fields(serving)
    scenario_fields.update(serving_values)
    storage_problems += serving_problems
    if storage_problems:
        raise ScenarioError([Problem(problem.path, problem.message) for problem in storage_problems])
    with transaction.atomic():
        scenario = Scenario(owner=signed_in_user(user), currency_conversions=conversions, **scenario_fields)
        set_history_user(scenario, user)
        scenario.save()
        for fields in option_fields:
            option = ScenarioOption(scenario=scenario, **fields)
            _link_observation(option)
            set_history_user(option, user)
            option.save()
            if option.kind == OptionKind.SECONDARY:
                create_diligence_items(option=option, user=user)
        uncertainty_import(scenario=scenario, uncertainty=uncertainty, user=user)
        recompute_if_valid(scenario=scenario, user=user)
    return scenario


def _refuse_all_but_gaps(document: dict) -> None:
    """Raise ScenarioError for every problem of the document but its gaps: a draft (inputs still to give, as the
    editor saves one field by field) exports, and its file must import back as the same draft."""
    problems = document_problems(document)
    if refused := [problem for problem in problems if not _draft_gap(problem, document)]:
        raise ScenarioError(refused)


_OPTION_INPUT = re.compile(r"options\[\d+\]\.(\w+)")
# A value of the wrong type or size is there and wrong, even an empty list where a number belongs: never a gap.
WRONG_VALUE_CODES = frozenset({"not_a_number", "not_whole", "out_of_range"})


def _draft_gap(problem: Problem, document: dict) -> bool:
    """A gap a draft may have, as the editor saves one: an option's input, the workload, the burst price, or no
    option yet. The document's frame (its name, currency, horizon, an option's name and kind) is never a gap."""
    if problem.code in WRONG_VALUE_CODES or not is_gap(problem, document):
        return False
    path = problem.path
    if path == "options":
        return isinstance(document.get("options"), list)
    if match := _OPTION_INPUT.fullmatch(path):
        return match[1] in OPTION_FIELD
    return path in ("workload", "burst_price_per_gpu_hour") or path.startswith("workload.")


CONVERSION_KEYS = frozenset({"from", "to", "mode", "at", "rate", "rate_date", "source", "via"})
MAX_CONVERSIONS = 100


def _split_conversions(document: dict) -> tuple[dict, list[dict[str, str]]]:
    """An exported document's ``currency_conversions`` (the record ``scenario_change_currency`` keeps: rate, date,
    source), taken off and checked; raises ScenarioError naming what is wrong."""
    if "currency_conversions" not in document:
        return document, []
    entries = document["currency_conversions"]
    rest = {key: value for key, value in document.items() if key != "currency_conversions"}
    fine = (
        isinstance(entries, list)
        and len(entries) <= MAX_CONVERSIONS
        and all(
            isinstance(entry, dict)
            and set(entry) <= CONVERSION_KEYS
            and all(isinstance(value, str) and len(value) <= 200 for value in entry.values())
            for entry in entries
        )
    )
    if not fine:
        raise ScenarioError(
            [
                Problem(
                    "currency_conversions",
                    f"must be the list of currency changes an export writes (at most {MAX_CONVERSIONS}, each with "
                    f"{', '.join(sorted(CONVERSION_KEYS))} as text)",
                )
            ]
        )
    return rest, entries


# The scenario inputs "apply sizing" writes (tco.services.sizing), whose provenance a typed value replaces.
SIZED_SCENARIO_FIELDS = (
    "fleet_gpus",
    "workload_tokens_per_second_per_gpu",
    "workload_input_tokens_per_response",
    "workload_output_tokens_per_response",
)


def scenario_update_field(
    *, scenario: Scenario, user: AbstractBaseUser | None, field: str, value: Any, expected_version: int | None
) -> Change:
    """Set one scenario input (already parsed), bump the version and recompute (once nothing is missing).

    A value valid on its own is saved even while the document still lacks other inputs (``document_gaps``); one
    that is wrong on its own or against what is stored raises EditRefused with the engine's messages (nothing is
    written, the version stays).
    """
    if field not in {entry.field for entry in scenario_inputs()}:
        raise ValueError(f"{field} is not an editable scenario field")
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
        entry = SCENARIO_FIELD[field]
        spec = entry.check if entry.scope == "scenario" else None
        if spec is not None and value is not None:  # before the forecast is expanded over a horizon of 10^9 months
            _, message = check_number(value, spec)
            if message:
                raise EditRefused([Problem(field, message)], {})
        options = scenario_options(fresh)
        before = scenario_document(fresh, options)
        if field in SIZED_SCENARIO_FIELDS and value != getattr(fresh, field):  # the figure is now the user's
            fresh.sizing_applied = None
        setattr(fresh, field, value)
        refuse_invalid(before, scenario_document(fresh, options), edited=(entry.path,))
        set_history_user(fresh, user)
        fresh.save()
        ranges = ranges_follow_input(scenario=fresh, before=before, options=options, user=user)
        return recompute_if_valid(scenario=fresh, user=user, ranges=ranges)


def forecast_update(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    forecast: Forecast,
) -> Change:
    """Replace the utilization forecast. Raises ForecastError for unusable parameters and EditRefused when it does
    not fit the scenario (a pasted column of the wrong length); nothing is saved then."""
    kind = forecast.kind
    if kind not in ForecastKind.values:
        choose = ", ".join(ForecastKind.values)
        raise ForecastError("forecast_kind", f"{kind!r} is not a forecast kind; choose {choose}")
    problems = forecast.problems()
    if problems:
        raise problems[0]
    if kind == ForecastKind.PASTED and not forecast.pasted:
        raise ForecastError("forecast_pasted", "paste at least one number")
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
        options = scenario_options(fresh)
        before = scenario_document(fresh, options)
        # Only this kind's parameters: the other kinds' are kept so switching back and forth loses nothing.
        for field, value in forecast.model_fields().items():
            setattr(fresh, field, value)
        refuse_invalid(before, scenario_document(fresh, options), edited=("utilization",))
        set_history_user(fresh, user)
        fresh.save()
        ranges = ranges_follow_input(scenario=fresh, before=before, options=options, user=user)
        return recompute_if_valid(scenario=fresh, user=user, ranges=ranges)


def unique_scenario_name(name: str) -> str:
    """``name``, or "name (2)", "name (3)"… when a scenario is already called that: a compare legend and "Compare
    with" name each scenario once."""
    taken = set(Scenario.objects.filter(name__startswith=name[:190]).values_list("name", flat=True))
    if name not in taken:
        return name
    number = 2
    while f"{name[:190]} ({number})" in taken:
        number += 1
    return f"{name[:190]} ({number})"


def scenario_clone(*, scenario: Scenario, user: AbstractBaseUser | None, name: str | None = None) -> Scenario:
    """A copy with its options, diligence checklist and input ranges, owned by `user`, at version 1, under a name no
    other scenario has ("Copy of X", then "Copy of X (2)")."""
    source_options = list(scenario.options.prefetch_related("diligence_items"))
    with transaction.atomic():
        copy = Scenario.objects.get(pk=scenario.pk)
        copy.pk = None
        copy.id = None
        copy.name = unique_scenario_name((name or f"Copy of {scenario.name}")[:200])
        copy.version = 1
        copy.owner = signed_in_user(user)
        copy._state.adding = True
        set_history_user(copy, user)
        copy.save()
        new_options: dict[int, ScenarioOption] = {}
        for option in source_options:
            items = list(option.diligence_items.all())
            old_pk = option.pk
            option.pk = None
            option.id = None
            option.scenario = copy
            option._state.adding = True
            set_history_user(option, user)
            option.save()
            for item in items:
                item.pk = None
                item.id = None
                item.option = option
                item._state.adding = True
                set_history_user(item, user)
                item.save()
            new_options[old_pk] = option
        uncertainty_copy(source=scenario, target=copy, options=new_options, user=user)
        recompute_if_valid(scenario=copy, user=user)
    return copy


class ScenarioInUse(AppError, ValueError):
    """The scenario cannot be deleted: leaders may be reading it through live decision links."""


def scenario_delete(*, scenario: Scenario, user: AbstractBaseUser | None) -> None:
    """Delete the scenario with its options, checklist, runs, decisions and dead links (history rows are kept).

    Refused (ScenarioInUse, nothing deleted) while a decision link still opens: deleting would silently turn
    a page leadership was promised would never change into a 404. Revoke the links first.
    """
    with transaction.atomic():
        # Waits for a link being created right now (its insert holds a key-share lock), so it is counted.
        Scenario.objects.select_for_update().filter(pk=scenario.pk).first()
        live = live_links(scenario).count()
        if live:
            raise ScenarioInUse(
                f"“{scenario.name}” has {live} live decision link{'s' if live != 1 else ''}; leaders may be "
                "reading them. Revoke them on the scenario page first, then delete."
            )
        set_history_user(scenario, user)
        scenario.delete()


def create_diligence_items(*, option: ScenarioOption, user: AbstractBaseUser | None) -> None:
    for key, _label, _help in DILIGENCE_ITEMS:
        item = SecondaryDiligenceItem(option=option, key=key)
        set_history_user(item, user)
        item.save()


def _link_observation(option: ScenarioOption) -> None:
    """Re-link an imported option to its Market observation when it is the same price in this database."""
    source = option.price_source or {}
    observation_id = source.get("price_observation_id")
    if not isinstance(observation_id, int) or isinstance(observation_id, bool) or option.price_per_gpu_hour is None:
        return
    observation = PriceObservation.objects.select_related("provider").filter(pk=observation_id).first()
    if (
        observation is not None
        and observation.price_per_gpu_hour == option.price_per_gpu_hour
        and observation.provider.name == source.get("provider")
    ):
        option.price_observation = observation
