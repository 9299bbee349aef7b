"""Reads for the scenario pages: a fixed number of queries however many options a scenario has."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, Prefetch, Subquery

from tco.models import RunStatus, Scenario, ScenarioOption, ScenarioRun, SecondaryDiligenceItem


def scenario_with_options(scenario_id: int) -> Scenario:
    """The scenario with its options and their checklists prefetched (3 queries)."""
    items = SecondaryDiligenceItem.objects.all()
    options = ScenarioOption.objects.select_related("price_observation").prefetch_related(
        Prefetch("diligence_items", queryset=items)
    )
    return Scenario.objects.prefetch_related(Prefetch("options", queryset=options)).get(pk=scenario_id)


@dataclass
class RunState:
    """The latest run (any status) and the latest successful one; the page shows the latter."""

    latest: ScenarioRun | None
    done: ScenarioRun | None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def polling(self) -> bool:
        return self.latest is not None and self.latest.status in (RunStatus.PENDING, RunStatus.RUNNING)

    @property
    def failed(self) -> ScenarioRun | None:
        return self.latest if self.latest is not None and self.latest.status == RunStatus.FAILED else None


def run_state(scenario: Scenario) -> RunState:
    """Latest run and latest done run in at most two queries, without their figures (the page's answer panel is
    built once per run, see tco.web.answers; reading ``run.figures`` loads them on demand)."""
    runs = ScenarioRun.objects.filter(scenario=scenario).defer("figures").order_by("-id")
    latest = next(iter(runs[:1]), None)
    if latest is None or latest.status == RunStatus.DONE:
        return RunState(latest=latest, done=latest)
    done = runs.filter(status=RunStatus.DONE).first()
    return RunState(latest=latest, done=done)


def scenarios_with_latest_results(limit: int | None = None) -> list[tuple[Scenario, ScenarioRun | None]]:
    """Scenarios, most recently updated first, each with its latest done run (two queries)."""
    latest_done = ScenarioRun.objects.filter(scenario=OuterRef("pk"), status=RunStatus.DONE).order_by("-id")
    scenarios = list(
        Scenario.objects.select_related("owner").annotate(latest_done_id=Subquery(latest_done.values("id")[:1]))[:limit]
    )
    ids = [s.latest_done_id for s in scenarios if s.latest_done_id]
    runs = ScenarioRun.objects.defer("figures").in_bulk(ids) if ids else {}  # the lists show words, not charts
    return [(s, runs.get(s.latest_done_id)) for s in scenarios]
