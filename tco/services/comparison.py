"""Scenarios side by side: each one's numbers for its current inputs (a finished run's, or the engine's now)."""

from __future__ import annotations

from lib.errors import AppError
from tco.charts.comparison import cumulative_comparison
from tco.models import Scenario
from tco.presentation.comparison import MAX_SCENARIOS, MIN_SCENARIOS, comparison
from tco.selectors.uncertainty import latest_done_uncertainty_run, scenario_uncertainty
from tco.services.evaluation import NotEvaluable, current_evaluation


class ComparisonError(AppError, ValueError):
    """The scenarios cannot be compared (too few, too many, or one cannot be evaluated); the message says why."""


def scenario_comparison(*, scenarios: list[Scenario]) -> dict:
    """The comparison data (``tco.presentation.comparison``) plus its ``cumulative_figure``. A scenario's
    simulation is included when its latest finished one belongs to exactly its current inputs and ranges."""
    if not MIN_SCENARIOS <= len(scenarios) <= MAX_SCENARIOS:
        raise ComparisonError(f"Pick {MIN_SCENARIOS} to {MAX_SCENARIOS} scenarios to compare; got {len(scenarios)}.")
    entries = []
    for scenario in scenarios:
        try:
            evaluation = current_evaluation(scenario, with_figures=False)
        except NotEvaluable as error:
            raise ComparisonError(f"“{scenario.name}” cannot be compared yet. {error}") from None
        run = latest_done_uncertainty_run(scenario)
        current = (
            run is not None
            and run.document == evaluation.document
            and run.uncertainty == scenario_uncertainty(scenario)
        )
        entries.append(
            {
                "id": scenario.pk,
                "name": scenario.name,
                "document": evaluation.document,
                "result": evaluation.result,
                "simulation": run.result["simulation"] if current else None,
            }
        )
    data = comparison(entries)
    data["cumulative_figure"] = cumulative_comparison(entries)
    return data
