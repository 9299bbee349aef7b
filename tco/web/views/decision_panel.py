"""The decision panel on the scenario page: decide, re-open, the brief, decision links, and the exports.

Editors write, viewers read and export. The public pages a link opens are in ``tco.web.views.decision_links``.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from lib.htmx import render_partial
from tco.charts import snapshot as snapshot_output
from tco.checks import DecisionError, parse_expires_in_days
from tco.models import BRIEF_KEYS, DecisionLink, Scenario
from tco.presentation.currency import conversion_about
from tco.selectors.uncertainty import current_uncertainty
from tco.services.decisions import (
    brief_update,
    decision_record,
    decision_reopen,
    link_create,
    link_revoke,
)
from tco.services.evaluation import NotEvaluable, NotReady, export_evaluation
from tco.web.access import get_scenario_for_user
from tco.web.downloads import EXPORTS, export_response, refusal
from tco.web.inputs import parse_id
from tco.web.viewmodels.decisions import panel_context
from tco.web.views.compare import compare_choice

PANEL = "decisions/panel.html"


def _panel(request: HttpRequest, scenario: Scenario, *, status: int = 200, **extra) -> HttpResponse:
    return render_partial(request, PANEL, "panel", panel_context(request, scenario, **extra), status=status)


def _done(request: HttpRequest, scenario: Scenario, notice: str) -> HttpResponse:
    """After a successful write: the fresh panel for htmx, otherwise back to the scenario page."""
    if request.htmx:
        return _panel(request, scenario, notice=notice)
    messages.success(request, notice)
    return redirect("tco:scenario_detail", pk=scenario.pk)


def _refused(request: HttpRequest, scenario: Scenario, error: DecisionError, **extra) -> HttpResponse:
    """A refused write: the panel with the message next to the field (htmx swaps 200s only)."""
    errors = {error.field or "general": str(error)}
    return _panel(request, scenario, status=200 if request.htmx else 400, errors=errors, **extra)


@require_GET
def decision_panel_view(request: HttpRequest, pk: int) -> HttpResponse:
    return _panel(request, get_scenario_for_user(request, pk))


@require_POST
def link_create_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    form = {"expires_in_days": request.POST.get("expires_in_days", ""), "note": request.POST.get("note", "")}
    try:
        days = parse_expires_in_days(form["expires_in_days"])
        link, token = link_create(
            scenario=scenario,
            user=request.user,
            output=snapshot_output,
            expires_in_days=days,
            note=form["note"],
            map_rental=request.POST.get("map_rental", ""),  # the rental picked above the map, if any
            compare_with=compare_choice(scenario, request.POST.getlist("compare_with")),
        )
    except DecisionError as error:
        return _refused(request, scenario, error, form=form)
    url = request.build_absolute_uri(reverse("decision_page", args=[token]))
    return _panel(request, scenario, new_link=link, new_link_url=url, status=201 if not request.htmx else 200)


@require_POST
def link_revoke_view(request: HttpRequest, pk: int, link_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    link = get_object_or_404(DecisionLink, pk=link_pk, scenario=scenario)
    revoked = link_revoke(link=link, user=request.user)
    return _done(
        request, scenario, "Link revoked: it now opens nothing." if revoked else "That link was already revoked."
    )


@require_POST
def decide_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    form = {"option": request.POST.get("option", ""), "rationale": request.POST.get("rationale", "")}
    try:
        record = decision_record(
            scenario=scenario,
            user=request.user,
            option_name=form["option"],
            rationale=form["rationale"],
            confirm_older=request.POST.get("confirm_older") == "1",
        )
    except DecisionError as error:
        return _refused(request, scenario, error, form=form)
    return _done(request, scenario, f"Decided: {record.option_name}. Links created from now on show it.")


@require_POST
def reopen_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    try:
        decision_reopen(scenario=scenario, user=request.user, reason=request.POST.get("reason", ""))
    except DecisionError as error:
        return _refused(request, scenario, error)
    return _done(request, scenario, "Re-opened: the scenario is no longer decided.")


@require_POST
def brief_update_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    try:
        brief_update(
            scenario=scenario,
            user=request.user,
            expected_version=parse_id(request.POST.get("brief_version", "")),
            question=request.POST.get("question", ""),
            workload_brief=request.POST.get("workload_brief", ""),
            answers={key: request.POST.get(f"answer_{key}", "") for key in BRIEF_KEYS},
        )
    except DecisionError as error:
        return _refused(request, scenario, error, brief=getattr(error, "brief", None))
    return _done(request, scenario, "Brief saved.")


@require_GET
def scenario_export_results_view(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    """The current numbers as CSV or Excel (viewers may export)."""
    scenario = get_scenario_for_user(request, pk)
    if what not in EXPORTS:
        raise Http404("No such export.")
    version = request.GET.get("version", "")
    try:
        evaluation = export_evaluation(scenario, version=parse_id(version) if version else None)
    except (NotEvaluable, NotReady) as error:
        return refusal(f"Nothing was exported. {error}")
    about = evaluation.about(scenario.name)
    uncertainty = current_uncertainty(scenario, evaluation.document)
    conversions = conversion_about(scenario.currency_conversions)
    return export_response(
        evaluation.document,
        evaluation.result,
        scenario.name,
        what,
        about=about,
        uncertainty=uncertainty,
        conversions=conversions,
    )
