"""Reads for decisions under uncertainty: a scenario's input ranges as the engine's ``uncertainty`` map, the
inputs that may take one, and its simulation runs."""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from tco.documents import SERVING_KEY, number, scenario_document, serving_to_document
from tco.engine.catalogue import input_fields_of_type, option_fields, scenario_fields
from tco.models import InputRange, Scenario, ScenarioOption, UncertaintyRun, UncertaintyStatus

# The scenario's own inputs that take a range: the editor's key (``s-<name>``, as tco.web.viewmodels.fields names them)
# → the document path. ``utilization`` is the forecast's level (the engine scales every month with it).
SCENARIO_RANGE_PATHS: dict[str, str] = {entry.field: entry.path for entry in scenario_fields() if entry.takes_range}
RANGE_KEYS = ("low", "likely", "high")
# Ranges in money (converted with their input; a re-centred end is rounded like its input, money_step), by field name.
MONEY_RANGE_FIELDS = input_fields_of_type("money")


def likely_is_input(likely: Decimal | float, value: float | None) -> bool:
    """The range is centred on its input (the same number up to float noise): it follows the input's edits."""
    return value is not None and math.isclose(float(likely), value, rel_tol=1e-9, abs_tol=1e-12)


def option_range_fields(option: ScenarioOption) -> tuple[str, ...]:
    """The option's catalogued inputs that take a range."""
    return tuple(entry.name for entry in option_fields(option.kind) if entry.takes_range)


def range_path(input_range: InputRange, options: list[ScenarioOption]) -> str | None:
    """The document path of a range (``options[1].price_per_gpu_hour``); None for an option no longer listed."""
    if input_range.option_id is None:
        return SCENARIO_RANGE_PATHS.get(input_range.field)
    index = next((i for i, option in enumerate(options) if option.pk == input_range.option_id), None)
    return None if index is None else f"options[{index}].{input_range.field}"


def range_key(input_range: InputRange) -> str:
    """The editor's key of the input the range belongs to: ``s-discount_rate``, ``o12-capex``."""
    if input_range.option_id is None:
        return f"s-{input_range.field}"
    return f"o{input_range.option_id}-{input_range.field}"


def range_values(input_range: InputRange) -> dict[str, float | int]:
    return {key: number(getattr(input_range, key)) for key in RANGE_KEYS}


def scenario_ranges(scenario: Scenario) -> list[InputRange]:
    return list(InputRange.objects.filter(scenario=scenario).order_by("id"))


def uncertainty_map(ranges: Iterable[InputRange], options: list[ScenarioOption]) -> dict[str, dict]:
    """The engine's ``uncertainty``: ``{path: {"low", "likely", "high"}}`` in document order of the inputs."""
    paths = [(range_path(r, options), r) for r in ranges]
    return {path: range_values(r) for path, r in paths if path is not None}


def scenario_uncertainty(scenario: Scenario, options: list[ScenarioOption] | None = None) -> dict[str, dict]:
    options = list(scenario.options.all()) if options is None else options
    return uncertainty_map(scenario_ranges(scenario), options)


def latest_uncertainty_run(scenario: Scenario) -> UncertaintyRun | None:
    return UncertaintyRun.objects.filter(scenario=scenario).order_by("-id").first()


def latest_done_uncertainty_run(scenario: Scenario) -> UncertaintyRun | None:
    return UncertaintyRun.objects.filter(scenario=scenario, status=UncertaintyStatus.DONE).order_by("-id").first()


def run_data(run: UncertaintyRun) -> dict[str, Any]:
    """A done run's frozen inputs and outputs as plain data (what exports use and a decision snapshot copies)."""
    return {
        "run_id": run.pk,
        "scenario_version": run.scenario_version,
        "document": run.document,
        "uncertainty": run.uncertainty,
        "trials": run.trials,
        "seed": run.seed,
        "load_profile": run.load_profile,
        "load_profile_source": run.load_profile_source,
        "result": run.result,
        "figures": run.figures or {},
        "engine_version": run.engine_version,
    }


def is_current(run: UncertaintyRun | None, document: dict, uncertainty: dict) -> bool:
    """The run was computed from exactly these inputs and ranges."""
    return run is not None and run.document == document and run.uncertainty == uncertainty


def current_uncertainty(scenario: Scenario, document: dict) -> dict[str, Any] | None:
    """The latest finished simulation as plain data when it belongs to exactly ``document`` (the scenario's
    current inputs) and the current ranges; None otherwise (never numbers of other inputs)."""
    run = latest_done_uncertainty_run(scenario)
    if not is_current(run, document, scenario_uncertainty(scenario)):
        return None
    return run_data(run)


def export_document(scenario: Scenario) -> dict[str, Any]:
    """The scenario's tco-scenario/1 document for a JSON export, with its ranges under an ``uncertainty`` key
    when it has any, its currency changes (rate, date, source) under ``currency_conversions`` and its serving
    configuration under ``serving``. The keys sit
    beside the document's fields but are not part of tco-scenario/1 (the engine's schema has no place for them):
    the importer takes them off, checks them and stores them with the scenario."""
    options = list(scenario.options.all())
    document = scenario_document(scenario, options)
    ranges = scenario_uncertainty(scenario, options)
    if ranges:
        document["uncertainty"] = ranges
    if scenario.currency_conversions:
        document["currency_conversions"] = scenario.currency_conversions
    serving = serving_to_document(scenario)
    if serving is not None:
        document[SERVING_KEY] = serving
    return document
