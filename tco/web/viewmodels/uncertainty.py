"""Template context of the uncertainty panel (scenario page) and its frozen copy on the decision page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib.currencies import currency_of
from tco.charts.uncertainty import UNCERTAINTY_FIGURE_ORDER
from tco.documents import scenario_document
from tco.engine import Problem, ScenarioError, entered_values, validate
from tco.engine.errors import problem_text
from tco.models import InputRange, Scenario, UncertaintyRun, UncertaintyStatus
from tco.presentation.finance import after_tax_words
from tco.presentation.inputs import path_label, path_words
from tco.presentation.uncertainty import (
    PERCENTILES_NOTE,
    budget_lanes,
    plan_rule_sentence,
    probability_headline,
    simulation_rows,
    spread_sentence,
    tornado_rows,
)
from tco.selectors.uncertainty import (
    is_current,
    latest_done_uncertainty_run,
    latest_uncertainty_run,
    likely_is_input,
    run_data,
    scenario_uncertainty,
    uncertainty_map,
)
from tco.services.uncertainty import DEFAULT_TRIALS, MAX_TRIALS, MIN_TRIALS

FORM_DEFAULTS = {"trials": str(DEFAULT_TRIALS), "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}


@dataclass
class UncertaintyAnswer:
    """What the panel shows of one finished simulation run (or of its frozen copy)."""

    headline: str
    spread: str
    percentiles_note: str
    trials: int
    currency: str
    taxed: str  # " after tax" when the trials and the tornado compare present values after tax, else ""
    rows: list[dict]
    figures: list[tuple[str, str, dict]]  # (key, element id, figure); the fleet plan's is drawn with its table
    tornado: list[dict]  # the rows that move the answer, in words
    tornado_no_effect: str  # "3 inputs with no effect on owned minus rental: ..." ("" when every row moves it)
    tornado_base: float | None
    plan: dict | None
    plan_rule: str  # when an owned GPU pays, in words ("" without a plan)
    lanes: list[dict]
    notes: list[str]
    ranges: list[dict]
    profile_source: str


def range_rows(document: dict, uncertainty: dict) -> list[dict]:
    """The ranges a run used, in words ("Lambda 8x H100 SXM: Price", low / likely / high as "$2.10 per GPU-hour"),
    each with the input's value as entered (``entered``, ``entered_text``) and whether its likely value is set apart
    from it (``differs``)."""
    try:
        doc = validate(document)
    except ScenarioError:
        return []
    entered = entered_values(doc, uncertainty)
    rows = []
    for path, spec in uncertainty.items():
        value = entered[path]
        rows.append(
            {
                "path": path,
                "label": path_label(document, path),
                **spec,
                **{f"{key}_text": path_words(document, path, spec[key]) for key in ("low", "likely", "high")},
                "entered": value,
                "entered_text": path_words(document, path, value) if value is not None else "",
                "differs": value is not None and not likely_is_input(spec["likely"], value),
            }
        )
    return rows


def differing_notes(rows: list[dict]) -> list[str]:
    """One sentence per range whose likely is not its input: the simulation and the deterministic answer differ."""
    return [
        f"{row['label']}: the simulation draws around a likely {row['likely_text']}, not the input "
        f"{row['entered_text']}; the answer and the tornado's “as entered” use {row['entered_text']}."
        for row in rows
        if row["differs"]
    ]


def uncertainty_answer(data: dict, *, element_suffix: str) -> UncertaintyAnswer:
    """``data`` holds a run's document, uncertainty, result, figures, load profile and its source (a run row's
    fields, or the frozen copy in a decision snapshot)."""
    result, document = data["result"], data["document"]
    currency = currency_of(document)
    figures = data.get("figures") or {}
    plan = result.get("fleet_plan")
    notes = [note for note in (result.get("fleet_plan_note"),) if note]
    if result.get("tornado") is None:
        notes.append("No tornado: it needs at least one owned and one rented option.")
    if not data["uncertainty"]:
        notes.append("No input has a range yet, so every trial is the scenario as entered: give ranges with ±.")
    ranges = range_rows(document, data["uncertainty"])
    notes += differing_notes(ranges)
    tornado = tornado_rows(document, result.get("tornado") or {})
    return UncertaintyAnswer(
        headline=probability_headline(result["simulation"]),
        spread=spread_sentence(result["simulation"], document),
        percentiles_note=PERCENTILES_NOTE,
        trials=result["simulation"]["trials"],
        currency=currency,
        taxed=after_tax_words(document),
        rows=simulation_rows(result["simulation"]),
        figures=[(k, f"fig-{k}-{element_suffix}", figures[k]) for k in UNCERTAINTY_FIGURE_ORDER if k in figures],
        tornado=tornado["rows"],
        tornado_no_effect=tornado["no_effect_text"],
        tornado_base=(result.get("tornado") or {}).get("base"),
        plan=plan,
        plan_rule=plan_rule_sentence(plan["rule"]) if plan else "",
        lanes=data["lanes"] if "lanes" in data else (budget_lanes(plan, data["load_profile"]) if plan else []),
        notes=notes,
        ranges=ranges,
        profile_source=data.get("load_profile_source", ""),
    )


def _problems(run: UncertaintyRun | None) -> list[str]:
    """A failed run's problems as a finance user reads them: the option's name and the field, never a path."""
    if run is None or run.status != UncertaintyStatus.FAILED:
        return []
    problems = [Problem(item.get("path", ""), item.get("message", "")) for item in run.problems or []]
    return list(dict.fromkeys(problem_text(problem, run.document) for problem in problems))


def uncertainty_context(
    scenario: Scenario,
    *,
    can_edit: bool,
    document: dict | None = None,
    form: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    ranges: list[InputRange] | None = None,
) -> dict[str, Any]:
    """The panel's context; ``document`` and ``ranges`` are the scenario's when the caller has read them already."""
    latest = latest_uncertainty_run(scenario)
    done = latest if latest is not None and latest.status == UncertaintyStatus.DONE else None
    if done is None and latest is not None:
        done = latest_done_uncertainty_run(scenario)
    options = list(scenario.options.all())
    document = scenario_document(scenario, options) if document is None else document
    ranges = scenario_uncertainty(scenario, options) if ranges is None else uncertainty_map(ranges, options)
    return {
        "scenario": scenario,
        "can_edit": can_edit,
        "u_run": latest,
        "u_problems": _problems(latest),
        "u_polling": latest is not None and not latest.is_finished,
        "u_answer": uncertainty_answer(run_data(done), element_suffix=str(done.pk)) if done else None,
        "u_done_run": done,
        "u_stale": done is not None and not is_current(done, document, ranges),
        "u_range_count": len(ranges),
        "u_form": {**FORM_DEFAULTS, **(form or {})},
        "u_errors": errors or {},
        "u_trials_range": (MIN_TRIALS, MAX_TRIALS),
    }


def frozen_uncertainty_context(data: dict) -> dict[str, Any]:
    """The decision page's simulation and comparison, from a snapshot's frozen content (older snapshots have
    neither key)."""
    frozen = data.get("uncertainty")
    return {
        "u_answer": uncertainty_answer(frozen, element_suffix="frozen") if frozen else None,
        "comparison": data.get("comparison"),
    }
