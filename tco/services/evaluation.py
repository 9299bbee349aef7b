"""The numbers of a scenario's current inputs, for sharing and exporting: a finished run's, or the engine's now.

A service rather than a selector because it may run the engine (it still writes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.charts import build_figures, with_map_rental
from tco.engine import ENGINE_VERSION, Problem, ScenarioError, evaluate
from tco.models import RunStatus, Scenario, ScenarioRun


class NotEvaluable(Exception):
    """The scenario's inputs cannot be evaluated right now; the message lists every problem."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        listed = "; ".join(f"{problem.path or 'scenario'}: {problem.message}" for problem in problems)
        super().__init__(f"The scenario cannot be evaluated until its inputs are fixed ({listed}).")


@dataclass(frozen=True)
class Evaluation:
    """A document with its result (and figures), from a finished run or computed on the spot."""

    document: dict
    result: dict
    figures: dict | None
    engine_version: str
    run_id: int | None


def current_evaluation(scenario: Scenario, *, with_figures: bool, map_rental: str = "") -> Evaluation:
    """The numbers for the scenario's current inputs.

    The latest finished run is reused when it was computed from exactly today's document; otherwise (edits not
    yet evaluated, a job still queued) the engine runs here, synchronously, so nobody shares or exports numbers
    that belong to other inputs. Raises NotEvaluable when the engine refuses the inputs. Writes nothing.
    ``map_rental`` picks the rental the break-even map varies (default: the cheapest on-demand rental).
    """
    document = scenario.to_document()
    run = ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE).order_by("-id").first()
    if run is not None and run.document == document and run.result and (run.figures or not with_figures):
        figures = with_map_rental(document, run.result, run.figures, map_rental) if with_figures else run.figures
        return Evaluation(document, run.result, figures, run.engine_version or ENGINE_VERSION, run.pk)
    try:
        result = evaluate(document)
    except ScenarioError as error:
        raise NotEvaluable(list(error.problems)) from None
    figures = None
    if with_figures:
        figures = build_figures(document, result, map_rental=map_rental)
    return Evaluation(document, result, figures, ENGINE_VERSION, None)
