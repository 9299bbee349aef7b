"""htmx endpoints that edit a scenario in place: a Django form reads the input, a service saves it, and the
answer is the workspace as it now is (tco.web.responses)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh, reswap, retarget

from tco.engine.catalogue import OPTION_FIELD
from tco.forecast import ForecastError
from tco.services import (
    EditRefused,
    VersionConflict,
    forecast_update,
    option_restore,
    option_update,
    scenario_update_field,
)
from tco.web.access import get_option_for_user, get_scenario_for_user
from tco.web.forms import ForecastForm, option_input_form, scenario_input_form
from tco.web.inputs import expected_version
from tco.web.responses import conflict_response, refused_response, workspace_response
from tco.web.viewmodels.fields import scenario_field
from tco.web.viewmodels.workspace import forecast_starting_texts
from tco.web.views.currency import currency_question


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
def option_restore_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    """Put back the inputs an edit of the option cleared (and the choice that cleared them), until the next save."""
    option = get_option_for_user(request, pk, option_pk, write=True)
    fields = [name for name in request.POST.get("fields", "")[:2000].split(",") if name]
    if not fields or any(name not in OPTION_FIELD for name in fields):
        return HttpResponseBadRequest("Name the inputs to restore (fields=financing,loan_apr).")
    try:
        change = option_restore(
            option=option, user=request.user, expected_version=expected_version(request), fields=fields
        )
    except EditRefused as refused:
        return workspace_response(
            request, option.scenario, message=refused.message, errors={"general": refused.message}
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (restoring {option.name}'s cleared inputs)")
    except ValueError as error:
        return HttpResponseBadRequest(str(error))
    return workspace_response(request, change=change)


@require_POST
def scenario_forecast_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Save the utilization forecast (kind and parameters, or a pasted column) as one change."""
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
