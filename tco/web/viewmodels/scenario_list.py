"""The scenario list's rows, each scenario with its latest answer: the list page and the Overview."""

from __future__ import annotations

from tco.models import Scenario, ScenarioRun
from tco.presentation import headline


def scenario_rows(pairs: list[tuple[Scenario, ScenarioRun | None]]) -> list[dict]:
    """Each scenario with its latest answer in words, marked stale when the inputs changed since."""
    rows = []
    for scenario, run in pairs:
        answer = headline(run.document, run.result)["sentence"] if run is not None else ""
        stale = run is not None and run.scenario_version != scenario.version
        rows.append({"scenario": scenario, "run": run, "answer": answer, "stale": stale})
    return rows
