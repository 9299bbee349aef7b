"""Page views of a scenario whose run is done are served from what the run stored: no engine, no figure building,
a fixed number of queries, and the panel of a run is built once."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tco.models import ScenarioRun
from tests.scenarios.workspace_html import Workspace, figures_of

# Every way a view could run the engine or build a figure: the engine's entry points where the chart builder and the
# services call them, the figure builders themselves and where the task and a snapshot's output draw them.
ENGINE_AND_FIGURES = [
    "tco.charts.build.sweep",
    "tco.charts.build.annual_cost_curve",
    "tco.charts.build.break_even_map",
    "tco.charts.build.cumulative_cost",
    "tco.charts.build.utilization_forecast",
    "tco.services.runs.evaluate",
    "tco.tasks.build_figures",
    "tco.services.evaluation.evaluate",
    "tco.charts.snapshot.build_figures",
]


@pytest.fixture
def reader(viewer):
    """A viewer in a browser of their own (the editor_client and viewer_client fixtures share one client)."""
    client = Client()
    client.force_login(viewer)
    return client


@pytest.fixture
def no_engine():
    """Patch every engine and figure entry point to fail loudly; yields the mocks to assert on."""
    patches = [
        mock.patch(target, side_effect=AssertionError(f"{target} called on a page view"))
        for target in ENGINE_AND_FIGURES
    ]
    mocks = [patch.start() for patch in patches]
    yield mocks
    for patch in patches:
        patch.stop()


def _page(client, scenario) -> str:
    response = client.get(reverse("tco:scenario_detail", args=[scenario.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_page_view_of_a_done_run_runs_no_engine_and_builds_no_figure(editor_client, scenario, no_engine):
    run = ScenarioRun.objects.get(scenario=scenario)
    assert run.status == "done"

    first, second = _page(editor_client, scenario), _page(editor_client, scenario)

    assert all(not called.called for called in no_engine)
    # the stored figures, fetched from the run's figures URL (none is inline in the page)
    assert figures_of(editor_client, first) == figures_of(editor_client, second) == run.figures
    assert '<script id="fig-' not in first
    assert "Up to date" in second


def test_a_runs_figures_are_served_at_a_url_that_never_changes(editor_client, reader, scenario, client):
    html = _page(editor_client, scenario)
    url = re.search(r'data-figure-src="([^"#]+)#annual_cost"', html).group(1)
    response = reader.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "immutable" in response["Cache-Control"] and "private" in response["Cache-Control"]
    assert "max-age=31536000" in response["Cache-Control"]
    assert reader.get(url.replace("figures-", "figures-1")).status_code == 404  # another finish: not this run
    client.logout()
    assert client.get(url).status_code == 302  # to the login page


def _figure_reads(queries: CaptureQueriesContext) -> list[str]:
    """The queries that load a run's figures: building a run's panel needs them, showing a kept one does not."""
    return [q["sql"] for q in queries if 'FROM "tco_scenariorun"' in q["sql"] and '"figures"' in q["sql"]]


def _panel(html: str) -> list[str]:
    page = Workspace(html)
    return [page.text(part) for part in ("headline", "card-cheapest", "break-even-table", "option-table")]


def test_the_panel_of_a_run_is_built_once_then_reused(editor_client, reader, scenario):
    with CaptureQueriesContext(connection) as first_view:
        first = _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as later_views:
        later = [_page(editor_client, scenario), _page(editor_client, scenario)]
        later.append(_page(reader, scenario))  # another role: its own workspace, the same panel
        poll = editor_client.get(reverse("tco:scenario_results", args=[scenario.pk]), HTTP_HX_REQUEST="true")
    assert _figure_reads(first_view)  # the panel was built from the run's figures
    assert poll.status_code == 200 and _figure_reads(later_views) == []
    assert all(_panel(html) == _panel(first) for html in [*later, poll.content.decode()])


def test_a_new_run_gets_a_new_panel(editor_client, scenario, run_jobs):
    from tco.services import scenario_update_field

    before = _page(editor_client, scenario)
    with run_jobs():
        scenario_update_field(scenario=scenario, user=None, expected_version=None, field="name", value="Renamed")
    after = _page(editor_client, scenario)

    runs = list(ScenarioRun.objects.filter(scenario=scenario).order_by("id"))
    assert len(runs) == 2 and runs[1].status == "done"
    assert f"fig-annual_cost-{runs[0].pk}" in before and f"fig-annual_cost-{runs[1].pk}" in after


def test_a_page_view_reads_no_figures_from_the_database_once_the_panel_is_built(editor_client, reader, scenario):
    _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as queries:
        _page(reader, scenario)  # the viewer's workspace is rendered anew; the run's panel is kept
    run_reads = [q["sql"] for q in queries if 'FROM "tco_scenariorun"' in q["sql"]]
    assert run_reads and all('"figures"' not in sql for sql in run_reads)


def test_a_page_view_takes_a_fixed_small_number_of_queries(editor_client, reader, scenario):
    # session, user with roles, stamp; scenario, options, checklists; latest run; input ranges (twice); latest
    # simulation run; the stamp again (unchanged: the region is kept). A repeat view is the first three only
    # (tests/scenarios/test_page_cache.py).
    _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as queries:
        _page(reader, scenario)
    assert len(queries) <= 12, [q["sql"][:80] for q in queries]


NOT_RENTALS = ("nope", "still nope", "x" * 300)


def test_an_unknown_map_rental_draws_the_default_map_built_once(editor_client, scenario):
    run = ScenarioRun.objects.get(scenario=scenario)
    url = reverse("tco:break_even_map", args=[scenario.pk, run.pk])
    editor_client.get(url, HTTP_HX_REQUEST="true")  # the default map's panel, built
    with CaptureQueriesContext(connection) as kept:
        default = editor_client.get(url, HTTP_HX_REQUEST="true")
    for name in NOT_RENTALS:
        with CaptureQueriesContext(connection) as queries:
            answer = editor_client.get(url, {"map_rental": name}, HTTP_HX_REQUEST="true")
        assert answer.status_code == 200 and answer.content == default.content  # the default map, byte for byte
        assert len(queries) == len(kept)  # and its kept panel: no more reads than the default's repeat view


def test_the_history_of_a_version_is_read_once_and_a_change_shows_at_once(editor_client, reader, scenario, run_jobs):
    from tco.services import scenario_update_field

    _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as queries:
        _page(reader, scenario)  # rendered again: the history of the version is still not read again
    assert not [q for q in queries if "history" in q["sql"]]

    with run_jobs():
        scenario_update_field(scenario=scenario, user=None, expected_version=None, field="name", value="Renamed plan")
    html = _page(editor_client, scenario)
    history = html[html.index('id="history"') :]
    assert "Renamed plan" in history
