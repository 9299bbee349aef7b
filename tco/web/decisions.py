"""Decision views: the panel on the scenario page (decide, brief, links, exports) and the public decision page.

The public views (`/d/<token>...`) need no login and reach nothing but the one frozen snapshot of their token.
Malformed, unknown, expired and revoked tokens all get the same 404 page, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from tco import exports
from tco.inputs import parse_id
from tco.models import BRIEF_KEYS, DecisionLink, Scenario
from tco.selectors_decisions import NotEvaluable, active_link_for_token, current_evaluation
from tco.services.decisions import (
    DecisionError,
    brief_update,
    decision_record,
    decision_reopen,
    link_create,
    link_record_open,
    link_revoke,
    parse_expires_in_days,
)
from tco.throttle import limit_per_client
from tco.web.access import _get_scenario_for_user
from tco.web.decision_context import frozen_page_context, panel_context

PANEL = "decisions/panel.html"
PRIVATE_HEADERS = {
    "X-Robots-Tag": "noindex",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


def _panel(request: HttpRequest, scenario: Scenario, *, status: int = 200, **extra) -> HttpResponse:
    template = f"{PANEL}#panel" if request.htmx else PANEL
    return render(request, template, panel_context(request, scenario, **extra), status=status)


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
    return _panel(request, _get_scenario_for_user(request, pk))


@require_POST
def link_create_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = _get_scenario_for_user(request, pk, write=True)
    form = {"expires_in_days": request.POST.get("expires_in_days", ""), "note": request.POST.get("note", "")}
    try:
        days = parse_expires_in_days(form["expires_in_days"])
        link, token = link_create(
            scenario=scenario,
            user=request.user,
            expires_in_days=days,
            note=form["note"],
            map_rental=request.POST.get("map_rental", ""),  # the rental picked above the map, if any
        )
    except DecisionError as error:
        return _refused(request, scenario, error, form=form)
    url = request.build_absolute_uri(reverse("decision_page", args=[token]))
    return _panel(request, scenario, new_link=link, new_link_url=url, status=201 if not request.htmx else 200)


@require_POST
def link_revoke_view(request: HttpRequest, pk: int, link_pk: int) -> HttpResponse:
    scenario = _get_scenario_for_user(request, pk, write=True)
    link = get_object_or_404(DecisionLink, pk=link_pk, scenario=scenario)
    revoked = link_revoke(link=link, user=request.user)
    return _done(
        request, scenario, "Link revoked: it now opens nothing." if revoked else "That link was already revoked."
    )


@require_POST
def decide_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = _get_scenario_for_user(request, pk, write=True)
    form = {"option": request.POST.get("option", ""), "rationale": request.POST.get("rationale", "")}
    try:
        record = decision_record(
            scenario=scenario, user=request.user, option_name=form["option"], rationale=form["rationale"]
        )
    except DecisionError as error:
        return _refused(request, scenario, error, form=form)
    return _done(request, scenario, f"Decided: {record.option_name}. Links created from now on show it.")


@require_POST
def reopen_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = _get_scenario_for_user(request, pk, write=True)
    try:
        decision_reopen(scenario=scenario, user=request.user, reason=request.POST.get("reason", ""))
    except DecisionError as error:
        return _refused(request, scenario, error)
    return _done(request, scenario, "Re-opened: the scenario is no longer decided.")


@require_POST
def brief_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = _get_scenario_for_user(request, pk, write=True)
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


def _download(content: str | bytes, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _export(document: dict, result: dict, name: str, what: str, **extra) -> HttpResponse:
    if what == "options.csv":
        return _download(
            exports.csv_text(exports.option_table(result)),
            exports.export_filename(name, what),
            exports.CSV_CONTENT_TYPE,
        )
    if what == "monthly.csv":
        table = exports.monthly_table(document, result)
        return _download(exports.csv_text(table), exports.export_filename(name, what), exports.CSV_CONTENT_TYPE)
    if what == "results.xlsx":
        content = exports.results_workbook(document, result, **extra)
        return _download(content, exports.export_filename(name, what), exports.XLSX_CONTENT_TYPE)
    raise Http404("No such export.")


@require_GET
def scenario_export_view(request: HttpRequest, pk: int, what: str) -> HttpResponse:
    """The current numbers as CSV or Excel (viewers may export)."""
    scenario = _get_scenario_for_user(request, pk)
    try:
        evaluation = current_evaluation(scenario, with_figures=False)
    except NotEvaluable as error:
        messages.error(request, f"Nothing to export yet. {error}")
        return redirect("tco:scenario_detail", pk=scenario.pk)
    return _export(evaluation.document, evaluation.result, scenario.name, what)


# ---- the public decision page -------------------------------------------------------------------------------


def _private(response: HttpResponse) -> HttpResponse:
    for header, value in PRIVATE_HEADERS.items():
        response[header] = value
    return response


def link_not_found() -> HttpResponse:
    """The one answer for every token that opens nothing (no request data in it, so always the same bytes)."""
    return _private(HttpResponse(render_to_string("decisions/link_not_found.html"), status=404))


def public(view: Callable) -> Callable:
    """No login, GET only, rate-limited per client IP, private headers on every answer (405, 429 and 404 included).

    CSRF-exempt because nothing here accepts a write: a POST gets the same private 405 as any other method,
    not the CSRF middleware's 403 page without these headers.
    """
    throttled = limit_per_client("decision-link", "DECISION_LINK_OPENS_PER_MINUTE", 60)(require_GET(view))

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return _private(throttled(request, *args, **kwargs))

    return csrf_exempt(login_not_required(wrapped))


@public
def decision_page(request: HttpRequest, token: str) -> HttpResponse:
    link = active_link_for_token(token)
    if link is None:
        return link_not_found()
    link_record_open(link=link)
    context = frozen_page_context(link.snapshot, expires_at=link.expires_at)
    context["token"] = token
    return render(request, "decisions/decision.html", context)


@public
def decision_export(request: HttpRequest, token: str, what: str) -> HttpResponse:
    """Downloads of the frozen numbers; they do not count as openings."""
    link = active_link_for_token(token)
    if link is None:
        return link_not_found()
    data = link.snapshot.data
    name = data["scenario"]["name"]
    if what == "snapshot.json":
        return _download(link.snapshot.content, exports.export_filename(name, "decision.json"), "application/json")
    extra = {"prices": data["prices"], "brief": exports.brief_table(data, link.snapshot.content_hash)}
    return _export(data["document"], data["result"], name, what, **extra)


@public
def decision_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    return link_not_found()
