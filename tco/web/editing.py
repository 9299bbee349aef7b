"""htmx endpoints that edit a scenario in place: a Django form reads the input, a service saves it, and the
answer is the workspace as it now is (tco.web.responses)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRefresh, reswap, retarget

from lib.jobs import unstick
from tco.engine.catalogue import OPTION_FIELD
from tco.forecast import ForecastError
from tco.models import RunStatus, ScenarioRun
from tco.selectors.scenarios import run_state
from tco.services import (
    EditRefused,
    VersionConflict,
    forecast_update,
    option_update,
    scenario_update_field,
)
from tco.web.access import get_option_for_user, get_scenario_for_user, require_role
from tco.web.answers import answer_for, figures_json, figures_url
from tco.web.context import WORKSPACE, forecast_starting_texts, workspace_context
from tco.web.currency import currency_question
from tco.web.fields import scenario_field
from tco.web.forms import ForecastForm, option_input_form, scenario_input_form
from tco.web.inputs import expected_version, parse_id
from tco.web.responses import VERSION_HEADER, conflict_response, refused_response, workspace_response


@require_POST
def scenario_field_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one of the scenario's own inputs (or its workload's), posted under its name."""
    scenario = get_scenario_for_user(request, pk, write=True)
    form = scenario_input_form()(request.POST)
    if form.name is None:
        return HttpResponseBadRequest(form.not_one_input)
    key = f"s-{form.name}"
    if not form.is_valid():
        return refused_response(request, scenario, key, form.text, form.message)
    if form.name == "currency":  # money inputs in the old currency: ask whether to convert them or relabel
        question = currency_question(request, scenario, form.value)
        if question is not None:
            return reswap(retarget(question, f"#f-{key}"), "outerHTML")
    if form.value == getattr(scenario, form.name):  # the same value written another way: nothing to save
        return workspace_response(request, scenario)
    try:
        change = scenario_update_field(
            scenario=scenario,
            user=request.user,
            field=form.name,
            value=form.value,
            expected_version=expected_version(request),
        )
    except VersionConflict as conflict:
        label = scenario_field(scenario, form.name, {}).label
        return conflict_response(request, conflict, f" ({label} → {form.text})")
    except EditRefused as refused:  # the engine's message at the input; nothing was stored
        return refused_response(request, scenario, key, form.text, refused.message)
    if form.name == "currency" and request.htmx:  # every money label on the page names it: reload the page
        return HttpResponseClientRefresh()
    return workspace_response(request, change=change)


@require_POST
def option_field_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    """Save one input of an option, posted under its name and read by the option kind's form."""
    option = get_option_for_user(request, pk, option_pk, write=True)
    scenario = option.scenario
    form = option_input_form(option.kind)(request.POST)
    if form.name is None:
        return HttpResponseBadRequest(form.not_one_input)
    key = f"o{option.pk}-{form.name}"
    if not form.is_valid():
        return refused_response(request, scenario, key, form.text, form.message)
    if form.value == getattr(option, form.name):  # the same value written another way: nothing to save
        return workspace_response(request, scenario)
    try:
        change = option_update(
            option=option,
            user=request.user,
            expected_version=expected_version(request),
            field=form.name,
            value=form.value,
        )
    except EditRefused as refused:  # the engine's message at the input; nothing was stored
        return refused_response(request, scenario, key, form.text, refused.message)
    except VersionConflict as conflict:
        label = OPTION_FIELD[form.name].label if form.name in OPTION_FIELD else "name"
        return conflict_response(request, conflict, f" ({option.name} → {label}: {form.text})")
    return workspace_response(request, change=change)


@require_POST
def forecast_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    kind = request.POST.get("forecast_kind", "")
    # Switching kinds: blank parameters start from that kind's saved ones, else from the current forecast.
    starting = forecast_starting_texts(scenario, kind) if kind != scenario.forecast_kind else None
    form = ForecastForm(request.POST, horizon_months=scenario.horizon_months, starting=starting)
    posted = {name: str(form.data.get(name, "")) for name in form.fields}
    if not form.is_valid():
        return workspace_response(
            request, scenario, forecast_error=form.message, forecast_values=posted, message=form.message
        )
    try:
        change = forecast_update(
            scenario=scenario,
            user=request.user,
            expected_version=expected_version(request),
            forecast=form.cleaned_data["forecast"],
        )
    except (ForecastError, EditRefused) as error:
        return workspace_response(
            request, scenario, forecast_error=error.message, forecast_values=posted, message=error.message
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, " (the utilization forecast)")
    return workspace_response(request, change=change)


@require_GET
def results_view(request: HttpRequest, pk: int) -> HttpResponse:
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
