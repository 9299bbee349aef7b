"""The workspace's reads: the results poll, the break-even map redrawn against another rental, a run's figures.
Viewers may call each of them; nothing here writes (a poll may resend or fail its own stuck run, as every job
reader does)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from lib.jobs import unstick
from tco.models import RunStatus, ScenarioRun
from tco.selectors.scenarios import run_state
from tco.web.access import get_scenario_for_user, require_role
from tco.web.inputs import parse_id
from tco.web.responses import VERSION_HEADER, workspace_response
from tco.web.viewmodels.answers import answer_for, figures_json, figures_url
from tco.web.viewmodels.workspace import WORKSPACE, workspace_context


@require_GET
def scenario_results_view(request: HttpRequest, pk: int) -> HttpResponse:
    """What the page polls every second while a run is queued or running: nothing (204) until the run ends or the
    scenario changes (another tab, another editor), then the whole workspace. A poll also unsticks this
    scenario's latest run (resends an unsent one, fails one whose worker died)."""
    scenario = get_scenario_for_user(request, pk, options=True)
    state = run_state(scenario)
    if unstick(state.latest):
        state = run_state(scenario)
    shown = parse_id(request.GET.get("version", ""))
    if request.htmx and state.polling and shown == scenario.version:
        return HttpResponse(status=204)
    if request.htmx:
        return workspace_response(request, scenario)
    context = workspace_context(request, scenario)  # the region alone (no page around it)
    response = HttpResponse(render_to_string(WORKSPACE, context, request=request))
    response[VERSION_HEADER] = str(scenario.version)
    return response


@require_GET
def break_even_map_view(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """The run's break-even map redrawn against the rental picked above it (a read: viewers may explore too)."""
    scenario = get_scenario_for_user(request, pk)
    run = get_object_or_404(ScenarioRun, pk=run_pk, scenario=scenario, status=RunStatus.DONE)
    answer = answer_for(run, map_rental=request.GET.get("map_rental", ""))
    chart = answer.chart("break_even_map")
    if chart is None:
        raise Http404("This run has no break-even map.")
    return render(request, "tco/scenario_detail.html#chart_box", {"answer": answer, "chart": chart})


@require_GET
def run_figures_view(request: HttpRequest, pk: int, run_pk: int, stamp: int) -> HttpResponse:
    """A done run's figures (JSON, key → plotly figure). The URL names the run's finish (``figures_url``), so its
    answer never changes: the browser keeps it for a year and asks again only for a new run."""
    require_role(request, write=False)
    runs = ScenarioRun.objects.only("id", "scenario_id", "finished_at")  # the figures only if not kept already
    run = get_object_or_404(runs, pk=run_pk, scenario__pk=pk, status=RunStatus.DONE)
    if figures_url(run) != request.path:
        raise Http404("No such figures.")
    response = HttpResponse(figures_json(run), content_type="application/json")
    patch_cache_control(response, private=True, max_age=365 * 24 * 3600, immutable=True)
    return response
