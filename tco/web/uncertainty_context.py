"""Template context of the uncertainty panel (scenario page) and its frozen copy on the decision page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tco.charts.uncertainty import UNCERTAINTY_FIGURE_ORDER
from tco.exports.inputs import path_label, path_words
from tco.models import Scenario, UncertaintyStatus
from tco.presentation.uncertainty import (
    PERCENTILES_NOTE,
    budget_lanes,
    probability_headline,
    simulation_rows,
    spread_sentence,
    tornado_rows,
)
from tco.selectors.uncertainty import (
    is_current,
    latest_done_uncertainty_run,
    latest_uncertainty_run,
    run_data,
    scenario_uncertainty,
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
    rows: list[dict]
    figures: list[tuple[str, str, dict]]  # (key, element id, figure); the fleet plan's is drawn with its table
    tornado: list[dict]  # the rows that move the answer, in words
    tornado_no_effect: str  # "3 inputs with no effect on owned minus rental: ..." ("" when every row moves it)
    tornado_base: float | None
    plan: dict | None
    lanes: list[dict]
    notes: list[str]
    ranges: list[dict]
    profile_source: str


def range_rows(document: dict, uncertainty: dict) -> list[dict]:
    """The ranges a run used, in words ("Lambda 8x H100 SXM: Price", "$2.10 per GPU-hour")."""
    return [
        {
            "path": path,
            "label": path_label(document, path),
            **spec,
            **{f"{key}_text": path_words(document, path, spec[key]) for key in ("low", "likely", "high")},
        }
        for path, spec in uncertainty.items()
    ]


def uncertainty_answer(data: dict, *, element_suffix: str) -> UncertaintyAnswer:
    """``data`` holds a run's document, uncertainty, result, figures, load profile and its source (a run row's
    fields, or the frozen copy in a decision snapshot)."""
    result, document = data["result"], data["document"]
    currency = document.get("currency", "USD")
    figures = data.get("figures") or {}
    plan = result.get("fleet_plan")
    notes = [note for note in (result.get("fleet_plan_note"),) if note]
    if result.get("tornado") is None:
        notes.append("No tornado: it needs at least one owned and one rented option.")
    if not data["uncertainty"]:
        notes.append("No input has a range yet, so every trial is the scenario as entered: give ranges with ±.")
    tornado = tornado_rows(document, result.get("tornado") or {})
    return UncertaintyAnswer(
        headline=probability_headline(result["simulation"]),
        spread=spread_sentence(result["simulation"], document),
        percentiles_note=PERCENTILES_NOTE,
        trials=result["simulation"]["trials"],
        currency=currency,
        rows=simulation_rows(result["simulation"]),
        figures=[(k, f"fig-{k}-{element_suffix}", figures[k]) for k in UNCERTAINTY_FIGURE_ORDER if k in figures],
        tornado=tornado["rows"],
        tornado_no_effect=tornado["no_effect_text"],
        tornado_base=(result.get("tornado") or {}).get("base"),
        plan=plan,
        lanes=data["lanes"] if "lanes" in data else (budget_lanes(plan, data["load_profile"]) if plan else []),
        notes=notes,
        ranges=range_rows(document, data["uncertainty"]),
        profile_source=data.get("load_profile_source", ""),
    )


def uncertainty_context(
    scenario: Scenario,
    *,
    can_edit: bool,
    document: dict | None = None,
    form: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
) -> dict[str, Any]:
    latest = latest_uncertainty_run(scenario)
    done = latest if latest is not None and latest.status == UncertaintyStatus.DONE else None
    if done is None and latest is not None:
        done = latest_done_uncertainty_run(scenario)
    options = list(scenario.options.all())
    document = scenario.to_document(options) if document is None else document
    ranges = scenario_uncertainty(scenario, options)
    return {
        "scenario": scenario,
        "can_edit": can_edit,
        "u_run": latest,
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
