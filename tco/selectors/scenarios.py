"""Reads for the scenario pages: a fixed number of queries however many options a scenario has."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import OuterRef, Prefetch, Subquery

from pricing.selectors import market_revision_sql
from tco.documents import scenario_document
from tco.models import (
    RunStatus,
    Scenario,
    ScenarioOption,
    ScenarioRun,
    SecondaryDiligenceItem,
    UncertaintyRun,
    UncertaintyStatus,
)


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


def run_state(scenario: Scenario, *, figures: bool = False) -> RunState:
    """Latest run and latest done run in at most two queries, without their figures (the page's answer panel is
    built once per run, see tco.web.viewmodels.answers; reading ``run.figures`` loads them on demand), except the
    latest run's with ``figures``: an edit asks for them, since the run it shows is new and its panel is built from
    them."""
    runs = ScenarioRun.objects.filter(scenario=scenario).defer("figures").order_by("-id")
    latest = next(iter((runs.defer(None) if figures else runs)[:1]), None)
    if latest is None or latest.status == RunStatus.DONE:
        return RunState(latest=latest, done=latest)
    done = runs.filter(status=RunStatus.DONE).first()
    return RunState(latest=latest, done=done)


def answered_version(scenario: Scenario) -> tuple[int | None, bool]:
    """The version whose numbers the page shows (the latest finished run's; None before any) and whether that run
    computed exactly the scenario's current document."""
    done = (
        ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE)
        .order_by("-id")
        .only("document", "scenario_version")
        .first()
    )
    if done is None:
        return None, False
    return done.scenario_version, done.document == scenario_document(scenario)


@dataclass(frozen=True)
class PageStamp:
    """Everything the scenario page shows changes only when one of ``key`` does (see tco.web.page_cache)."""

    name: str
    key: tuple
    settled: bool  # no evaluation or simulation is queued or running (such a page changes without a new stamp)


@functools.cache
def _page_stamp_sql() -> str:
    """Plain SQL rather than the ORM: it runs on every scenario page view, and compiling an ORM query of a dozen
    subqueries cost more than running it. Of each kind of run: how many, the newest id, how many are queued or
    running. Runs are only ever added, and a run that is done, failed or cancelled stays so: while none is queued or
    running, the same count and newest id mean the same runs with the same results."""
    in_flight = "', '".join((RunStatus.PENDING, RunStatus.RUNNING))
    assert {RunStatus.PENDING, RunStatus.RUNNING} <= set(UncertaintyStatus.values)

    def runs(table: str) -> str:
        return (
            f"(SELECT COUNT(*) AS n, MAX(id) AS newest, "
            f"SUM(CASE WHEN status IN ('{in_flight}') THEN 1 ELSE 0 END) AS busy "
            f"FROM {table} WHERE scenario_id = %(id)s)"
        )

    return (
        "SELECT s.name, s.created_at, s.version, s.updated_at, r.n, r.newest, r.busy, u.n, u.newest, u.busy, "
        f"{market_revision_sql()} "
        f"FROM {Scenario._meta.db_table} s, {runs(ScenarioRun._meta.db_table)} r, "
        f"{runs(UncertaintyRun._meta.db_table)} u WHERE s.id = %(id)s"
    )


def page_stamp(scenario_id: int) -> PageStamp | None:
    """The scenario's stamp in one query (None when there is no such scenario): its row's version and times, its
    evaluation and simulation runs, and the Market's revision (newer-price notices and the GPU models list read
    it). Every write to a scenario, its options, checklists or input ranges bumps its version; created_at tells a
    reused primary key apart."""
    low, high = connection.ops.integer_field_range(Scenario._meta.pk.get_internal_type())
    if not low <= scenario_id <= high:  # as the ORM answers such a lookup: no row (the database would refuse it)
        return None
    with connection.cursor() as cursor:
        cursor.execute(_page_stamp_sql(), {"id": scenario_id})
        row = cursor.fetchone()
    if row is None:
        return None
    busy_runs, busy_simulations = row[6], row[9]
    return PageStamp(name=row[0], key=(scenario_id, *row[1:]), settled=not busy_runs and not busy_simulations)


def scenarios_with_latest_results(limit: int | None = None) -> list[tuple[Scenario, ScenarioRun | None]]:
    """Scenarios, most recently updated first, each with its latest done run (two queries)."""
    latest_done = ScenarioRun.objects.filter(scenario=OuterRef("pk"), status=RunStatus.DONE).order_by("-id")
    scenarios = list(
        Scenario.objects.select_related("owner").annotate(latest_done_id=Subquery(latest_done.values("id")[:1]))[:limit]
    )
    ids = [s.latest_done_id for s in scenarios if s.latest_done_id]
    runs = ScenarioRun.objects.defer("figures").in_bulk(ids) if ids else {}  # the lists show words, not charts
    return [(s, runs.get(s.latest_done_id)) for s in scenarios]
