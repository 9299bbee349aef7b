"""htmx endpoints that edit a scenario in place; each saves through a service and answers with fragments."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HTMX_STOP_POLLING, HttpResponseClientRefresh

from lib.jobs import unstick
from tco.engine.catalogue import OPTION_FIELD
from tco.forecast import (
    DECIMAL_PARAMETERS,
    FORM_FIELDS,
    Forecast,
    ForecastError,
    parse_pasted_column,
    starting_parameters,
)
from tco.models import RunStatus, ScenarioOption, ScenarioRun
from tco.models.scenario import SCENARIO_EDITABLE_FIELDS
from tco.selectors.scenarios import run_state
from tco.services import (
    EditRefused,
    VersionConflict,
    forecast_update,
    option_update,
    scenario_update_field,
)
from tco.web.access import get_scenario_for_user
from tco.web.answers import answer_for
from tco.web.context import forecast_context, workspace_context
from tco.web.currency import currency_question
from tco.web.fields import option_views, scenario_field
from tco.web.inputs import (
    InputError,
    expected_version,
    parse_decimal,
    parse_integer,
    parse_option_field,
    parse_scenario_field,
)
from tco.web.ranges import range_for_field
from tco.web.responses import conflict_response, edit_response, input_error_response

FIELD = "tco/scenario_detail.html#field"


@require_POST
def scenario_field_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    field, text = request.POST.get("field", ""), request.POST.get("value", "")
    try:
        value = parse_scenario_field(field, text)
    except InputError as error:
        if field not in SCENARIO_EDITABLE_FIELDS:  # not an input on the page: no field to show the message in
            return HttpResponseBadRequest(error.message)
        view = scenario_field(scenario, field, {f"s-{field}": error.message})
        view.text = text
        view.range = range_for_field(scenario, None, view)
        return input_error_response(request, scenario, FIELD, {"f": view, "can_edit": True, "message": error.message})
    if field == "currency":  # money inputs in the old currency: ask whether to convert them or relabel
        question = currency_question(request, scenario, value)
        if question is not None:
            return question
    try:
        change = scenario_update_field(
            scenario=scenario, user=request.user, field=field, value=value, expected_version=expected_version(request)
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" ({scenario_field(scenario, field, {}).label} → {text})")
    except EditRefused as refused:  # the engine's message in the field; nothing was stored
        message = refused.message
        view = scenario_field(scenario, field, {f"s-{field}": message})
        view.text = text
        return input_error_response(request, scenario, FIELD, {"f": view, "can_edit": True, "message": message})
    if field == "currency":  # every money label on the page names the currency: redraw the whole page
        return HttpResponseClientRefresh()
    # The horizon changes the forecast's months: redraw its preview too.
    return edit_response(
        request,
        scenario,
        FIELD,
        target_key=f"s-{field}",
        refresh_forecast=field == "horizon_months",
        change=change,
        changed=change.scenario,
    )


@require_POST
def option_field_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    option = get_object_or_404(ScenarioOption, pk=option_pk, scenario=scenario)
    field, text = request.POST.get("field", ""), request.POST.get("value", "")
    try:
        value = parse_option_field(field, text, allowed=option.document_fields())
        change = option_update(
            option=option, user=request.user, expected_version=expected_version(request), field=field, value=value
        )
    except (InputError, EditRefused) as error:  # the message in the field; nothing was stored
        message = error.message
        shown = option_views(scenario, [option], {f"o{option.pk}-{field}": message})[0]
        view = next((f for f in [shown.name_field, *shown.fields] if f.name == field), None)
        if view is None:
            return HttpResponseBadRequest(message)
        view.text = text
        view.range = range_for_field(scenario, option, view)
        return input_error_response(request, scenario, FIELD, {"f": view, "can_edit": True, "message": message})
    except VersionConflict as conflict:
        label = OPTION_FIELD[field].label if field in OPTION_FIELD else field
        return conflict_response(request, conflict, f" ({option.name} → {label}: {text})")
    return edit_response(request, scenario, FIELD, target_key=f"o{option.pk}-{field}", change=change, changed=option)


@require_POST
def forecast_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    posted = {name: request.POST.get(name, "") for name in FORM_FIELDS.values()}
    posted["forecast_kind"] = kind = request.POST.get("forecast_kind", "")
    if kind != scenario.forecast_kind:  # switching kinds: start from its saved parameters, else the current forecast
        for name, text in _switch_values(scenario, kind).items():
            posted[name] = posted[name].strip() or text
    fragment = "tco/scenario_detail.html#forecast"
    try:
        params: dict = {
            name: parse_decimal(FORM_FIELDS[name], posted[FORM_FIELDS[name]], percent=True)
            for name in DECIMAL_PARAMETERS
        }
        peak = FORM_FIELDS["seasonal_peak_month"]
        params["seasonal_peak_month"] = parse_integer(peak, posted[peak])
        if kind == "pasted":
            column = posted[FORM_FIELDS["pasted"]]
            params["pasted"] = tuple(parse_pasted_column(column, horizon_months=scenario.horizon_months))
        change = forecast_update(
            scenario=scenario,
            user=request.user,
            expected_version=expected_version(request),
            forecast=Forecast(kind=kind, **params),
        )
    except (InputError, ForecastError, EditRefused) as error:
        message = error.message
        return edit_response(request, scenario, fragment, extra_errors={"forecast": message}, forecast_values=posted)
    except VersionConflict as conflict:
        return conflict_response(request, conflict, " (the utilization forecast)")
    return edit_response(request, scenario, fragment, change=change, changed=change.scenario)


def _switch_values(scenario, kind: str) -> dict[str, str]:
    texts = forecast_context(scenario, {}, preview=False)["forecast"]
    starting = starting_parameters(
        kind=kind, current=scenario.utilization_values(), horizon_months=scenario.horizon_months
    )
    return {name: texts.get(name) or text for name, text in starting.items()}


@require_GET
def results_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The results panel; htmx polls it every second while a run is pending or running. A poll also
    unsticks this scenario's latest run (resends an unsent one, fails one whose worker died)."""
    scenario = get_scenario_for_user(request, pk, options=True)
    state = run_state(scenario)
    if unstick(state.latest):
        state = run_state(scenario)
    if state.polling:
        context = {"scenario": scenario, "state": state, "polling": True, "stale": True, "answer": None}
        if state.done is not None:
            context["answer"] = answer_for(state.done)
        return render(request, "tco/scenario_detail.html#results", context)
    context = workspace_context(request, scenario, with_history=True, with_forecast_preview=False)
    html = render_to_string("tco/scenario_detail.html#results", context, request=request)
    if request.htmx:
        context["oob_skip_results"] = True
        html += render_to_string("tco/_oob.html", context, request=request)
    response = HttpResponse(html)
    if request.htmx:
        response.status_code = HTMX_STOP_POLLING
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
