"""Decisions under uncertainty on the scenario page: the "±" range of an input, and the simulation job
(start, poll its progress, cancel)."""

from __future__ import annotations

import re

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HTMX_STOP_POLLING

from lib.jobs import unstick
from tco.documents import scenario_document
from tco.engine import ScenarioError
from tco.engine.catalogue import OPTION_FIELD, SCENARIO_FIELD
from tco.engine.errors import problem_text
from tco.load_profiles import LoadProfileError, from_forecast, parse_load_csv
from tco.models import InputRange, ScenarioOption, UncertaintyRun
from tco.selectors.uncertainty import SCENARIO_RANGE_PATHS, option_range_fields
from tco.services import VersionConflict
from tco.services.uncertainty import (
    RangeError,
    range_clear,
    range_set,
    uncertainty_run_cancel,
    uncertainty_run_queue,
)
from tco.web.access import can_edit, get_scenario_for_user
from tco.web.inputs import InputError, expected_version, parse_decimal, parse_integer
from tco.web.responses import conflict_response, workspace_response
from tco.web.viewmodels.fields import scenario_label
from tco.web.viewmodels.ranges import RATE_RANGE_FIELDS, range_for
from tco.web.viewmodels.uncertainty import uncertainty_context

PANEL = "tco/_uncertainty.html"
RANGE = "tco/_range.html"
TARGET = re.compile(r"s-(\w+)|o(\d{1,18})-(\w+)")
PROFILE_MAX_BYTES = 5 * 1024 * 1024


def _target(scenario, text: str) -> tuple[ScenarioOption | None, str, str]:
    """(option or None, field, label) of a range target such as ``s-discount_rate`` or ``o12-capex``."""
    match = TARGET.fullmatch(text)
    if match is None:
        raise Http404("No such input.")
    if match[1] is not None:
        if match[1] not in SCENARIO_RANGE_PATHS:
            raise Http404("That input takes no range.")
        label = scenario_label(SCENARIO_FIELD[match[1]], scenario.currency_code)
        return None, match[1], label
    option = get_object_or_404(ScenarioOption, pk=int(match[2]), scenario=scenario)
    entry = OPTION_FIELD.get(match[3])
    return option, match[3], f"{option.name}: {entry.label if entry else match[3]}"


@require_POST
def input_range_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Save or clear the range of one input; a refused range is shown in the disclosure, nothing saved."""
    scenario = get_scenario_for_user(request, pk, write=True)
    key = request.POST.get("target", "")
    option, field, label = _target(scenario, key)
    texts = {name: request.POST.get(name, "") for name in ("low", "likely", "high")}
    stored = InputRange.objects.filter(scenario=scenario, option=option, field=field).first()
    view = range_for(scenario, key, field, label, stored)
    view.low, view.likely, view.high = texts["low"], texts["likely"], texts["high"]
    view.refused = True  # until saved below: a refused range's summary is the stored one, marked "Not saved"
    clear = "clear" in request.POST or not any(text.strip() for text in texts.values())
    try:
        if clear:
            change = range_clear(
                scenario=scenario,
                user=request.user,
                expected_version=expected_version(request),
                option=option,
                field=field,
            )
            view.low = view.likely = view.high = ""
        else:
            values = {
                name: parse_decimal(name, text, percent=field in RATE_RANGE_FIELDS, required=True)
                for name, text in texts.items()
            }
            change = range_set(
                scenario=scenario,
                user=request.user,
                expected_version=expected_version(request),
                option=option,
                field=field,
                **values,
            )
    except InputError as error:
        view.error = f"{error.field.capitalize()}: {error.message}"
        return HttpResponse(render_to_string(RANGE, {"r": view, "can_edit": True}, request=request))
    except RangeError as error:
        view.error = error.message
        return HttpResponse(render_to_string(RANGE, {"r": view, "can_edit": True}, request=request))
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (the range of {label})")
    return workspace_response(request, change=change)


@require_GET
def input_range_editor_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The inputs of one "±" disclosure (low, likely, high, save and clear), fetched when it is opened: the workspace
    carries only each disclosure's summary. Viewers read them, read-only."""
    scenario = get_scenario_for_user(request, pk)
    key = request.GET.get("target", "")
    option, field, label = _target(scenario, key)
    if option is not None and field not in option_range_fields(option):
        raise Http404("That input takes no range.")
    found = InputRange.objects.filter(scenario=scenario, option=option, field=field).first()
    view = range_for(scenario, key, field, label, found)
    view.loaded = True
    return render(request, f"{RANGE}#inputs", {"r": view, "can_edit": can_edit(request)})


def _panel(request: HttpRequest, scenario, **extra) -> HttpResponse:
    return render(request, PANEL, uncertainty_context(scenario, can_edit=can_edit(request), **extra))


@require_GET
def uncertainty_panel_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The panel; htmx polls it every second while a run is queued or running, and stops when it ends."""
    scenario = get_scenario_for_user(request, pk, options=True)
    run = UncertaintyRun.objects.filter(scenario=scenario).order_by("-id").first()
    if unstick(run):  # a poll unsticks this scenario's run, as the results panel does
        run.refresh_from_db()
    response = _panel(request, scenario)
    if request.htmx and (run is None or run.is_finished):
        response.status_code = HTMX_STOP_POLLING
    return response


def _load_profile(request: HttpRequest, scenario) -> tuple[list[float], str]:
    """The hourly load profile: an uploaded ``hour,gpus_busy`` CSV, or the forecast with a daily peak."""
    if request.POST.get("profile") == "csv":
        upload = request.FILES.get("profile_file")
        if upload is None:
            raise LoadProfileError(("Choose a CSV file with the columns hour,gpus_busy",))
        if upload.size > PROFILE_MAX_BYTES:
            raise LoadProfileError((f"{upload.name} is {upload.size:,} bytes; a load profile is at most 5 MB",))
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise LoadProfileError((f"{upload.name} is not UTF-8 text",)) from None
        return parse_load_csv(text), f"uploaded {upload.name}"[:200]
    try:
        ratio = parse_decimal("peak", request.POST.get("peak_ratio", ""), required=True)
        hour = parse_integer("peak hour", request.POST.get("peak_hour", ""), required=True)
    except InputError as error:
        raise LoadProfileError((f"{error.field.capitalize()}: {error.message}",)) from None
    profile = from_forecast(
        scenario.utilization_values(),
        horizon_months=scenario.horizon_months,
        fleet_gpus=scenario.fleet_gpus,
        peak_ratio=float(ratio),
        peak_hour=hour,
    )
    return profile, f"the forecast, daily peak {ratio:f} times the mean at {hour}:00"


@require_POST
def uncertainty_run_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True, options=True)
    form = {name: request.POST.get(name, "") for name in ("trials", "profile", "peak_ratio", "peak_hour")}
    try:
        trials = parse_integer("trials", form["trials"], required=True)
        profile, source = _load_profile(request, scenario)
        uncertainty_run_queue(
            scenario=scenario, user=request.user, trials=trials, load_profile=profile, load_profile_source=source
        )
    except InputError as error:
        return _panel(request, scenario, form=form, errors={"trials": f"Trials: {error.message}"})
    except LoadProfileError as error:
        return _panel(request, scenario, form=form, errors={"profile": str(error)})
    except ScenarioError as error:
        document = scenario_document(scenario)
        listed = "; ".join(dict.fromkeys(problem_text(problem, document) for problem in error.problems))
        return _panel(request, scenario, form=form, errors={"general": f"Nothing was run. {listed}"})
    return _panel(request, scenario, form=form)


@require_POST
def uncertainty_cancel_view(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True, options=True)
    run = get_object_or_404(UncertaintyRun, pk=run_pk, scenario=scenario)
    uncertainty_run_cancel(run=run)  # a run that has already ended stays as it is
    return _panel(request, scenario)
