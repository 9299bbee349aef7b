"""How an edit answers: the edited fragment plus out-of-band updates (version, errors, results, history)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django_htmx.http import reswap, retarget

from tco.models import Scenario
from tco.selectors.history import latest_change_lines, scenario_history
from tco.selectors.scenarios import scenario_with_options
from tco.services import Change, VersionConflict
from tco.web.context import gpu_models, workspace_context


def edit_response(
    request: HttpRequest,
    scenario: Scenario,
    fragment: str,
    *,
    extra: dict[str, Any] | None = None,
    extra_errors: dict[str, str] | None = None,
    forecast_values: dict[str, str] | None = None,
    target_key: str = "",
    refresh_forecast: bool = False,
    change: Change | None = None,
    changed: Any = None,
) -> HttpResponse:
    """Render `fragment` (a partial of the scenario page) and the out-of-band bundle after a save.

    With the service's `change`, the saved scenario, options and validation are reused as they are; with
    `changed` (the one scenario or option saved) only its new history lines are sent."""
    if not request.htmx:
        return redirect("tco:scenario_detail", pk=scenario.pk)
    fresh = change.scenario if change is not None else scenario_with_options(scenario.pk)
    context = workspace_context(
        request,
        fresh,
        change=change,
        extra_errors=extra_errors,
        forecast_values=forecast_values,
        with_history=False,
        with_forecast_preview=refresh_forecast or fragment.endswith("#forecast"),
    )
    context["oob_forecast"] = refresh_forecast
    if changed is not None:  # one input saved: append its history lines instead of re-reading the history
        context["history_added"] = latest_change_lines(changed)
    else:
        context["history"] = scenario_history(fresh)
    context["gpu_models"] = gpu_models() if fragment.endswith("#options") else []
    context.update(extra or {})
    if target_key:
        context["f"] = find_field(context, target_key)
    html = render_to_string(fragment, context, request=request)
    html += render_to_string("tco/_oob.html", context, request=request)
    return HttpResponse(html)


def find_field(context: dict[str, Any], key: str) -> Any:
    """The FieldView with `key` in a workspace context."""
    fields = [*context["basics"], *context["workload"], context["name_field"]]
    for view in context["option_views"]:
        fields += [view.name_field, *view.fields]
    return next((f for f in fields if f.key == key), None)


def input_error_response(request: HttpRequest, scenario: Scenario, fragment: str, context: dict) -> HttpResponse:
    """A value that could not be read: only the field answers (nothing was saved, nothing else changes)."""
    if not request.htmx:
        messages.error(request, context.get("message", "That value could not be read."))
        return redirect("tco:scenario_detail", pk=scenario.pk)
    return HttpResponse(render_to_string(fragment, context, request=request))


def conflict_response(request: HttpRequest, conflict: VersionConflict, attempted: str) -> HttpResponse:
    """A stale save: refuse it, say who changed what, and show the newer values in place of the form."""
    fresh = scenario_with_options(conflict.scenario.pk)
    context = workspace_context(request, fresh, with_history=True)
    last = context["history"][0] if context["history"] else None
    who = f" by {last.who} at {last.when:%Y-%m-%d %H:%M} UTC" if last else ""
    context["conflict"] = (
        f"This scenario was changed{who} since you opened it (now version {fresh.version}, yours was "
        f"{conflict.expected_version}). Your change{attempted} was not saved. The current values are shown "
        "below; re-enter your change if it still applies."
    )
    context["gpu_models"] = gpu_models()
    if not request.htmx:
        messages.error(request, context["conflict"])
        return redirect("tco:scenario_detail", pk=fresh.pk)
    html = render_to_string("tco/scenario_detail.html#inputs", context, request=request)
    context["oob_skip_version"] = True
    html += render_to_string("tco/_oob.html", context, request=request)
    return reswap(retarget(HttpResponse(html), "#inputs"), "outerHTML")
