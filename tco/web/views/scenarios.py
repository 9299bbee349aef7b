"""Scenario pages: list, create (blank, demo, import), the workspace, export, clone, delete."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from lib.jsontext import JSONTextError, read_json
from tco.demos import demo, demos
from tco.engine import ScenarioError
from tco.engine.errors import problem_text
from tco.models import Scenario
from tco.selectors.decisions import live_links
from tco.selectors.scenarios import scenario_with_options, scenarios_with_latest_results
from tco.selectors.uncertainty import export_document
from tco.services import (
    ScenarioInUse,
    scenario_clone,
    scenario_create,
    scenario_create_from_document,
    scenario_delete,
    unique_scenario_name,
)
from tco.web.access import can_edit, get_scenario_for_user, require_role
from tco.web.inputs import parse_id
from tco.web.page_cache import scenario_page
from tco.web.viewmodels.history import scenario_history_page
from tco.web.viewmodels.scenario_list import scenario_rows
from tco.web.viewmodels.workspace import WORKSPACE, workspace_context

IMPORT_MAX_BYTES = 1024 * 1024
HISTORY_PAGES_MAX = 400  # 10,000 lines: each page reads every line before it


@require_GET
def scenario_list_view(request: HttpRequest) -> HttpResponse:
    require_role(request, write=False)
    context = {"rows": scenario_rows(scenarios_with_latest_results()), "demos": demos(), "can_edit": can_edit(request)}
    return render(request, "tco/scenario_list.html", context)


@require_POST
def scenario_new_view(request: HttpRequest) -> HttpResponse:
    require_role(request, write=True)
    slug = request.POST.get("demo", "")
    if slug:
        chosen = demo(slug)
        if chosen is None:
            messages.error(request, f"There is no demo scenario called {slug!r}.")
            return redirect("tco:scenario_list")
        document = {
            **chosen.document,
            "name": unique_scenario_name(chosen.document["name"]),
        }  # each demo copy named apart
        scenario = scenario_create_from_document(document=document, user=request.user)
    else:
        name = request.POST.get("name", "").strip()[:200] or "Untitled scenario"
        scenario = scenario_create(user=request.user, name=name)
    return redirect("tco:scenario_detail", pk=scenario.pk)


@require_POST
def scenario_import_view(request: HttpRequest) -> HttpResponse:
    """Upload a tco-scenario/1 JSON file; every problem is listed, nothing is created on error."""
    require_role(request, write=True)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a scenario JSON file to import.")
        return redirect("tco:scenario_list")
    if upload.size > IMPORT_MAX_BYTES:
        messages.error(request, f"{upload.name} is {upload.size:,} bytes; scenario files are at most 1 MB.")
        return redirect("tco:scenario_list")
    try:
        document = read_json(upload.read().decode("utf-8"))
    except (UnicodeDecodeError, JSONTextError) as error:  # also numbers over 4,300 digits and nesting too deep
        messages.error(request, f"{upload.name} is not valid JSON: {error}.")
        return redirect("tco:scenario_list")
    try:
        scenario = scenario_create_from_document(document=document, user=request.user)
    except ScenarioError as error:
        lines = "; ".join(problem_text(problem, document) for problem in error.problems)
        messages.error(request, f"{upload.name} was not imported: {lines}")
        return redirect("tco:scenario_list")
    messages.success(request, f"Imported “{scenario.name}”.")
    return redirect("tco:scenario_detail", pk=scenario.pk)


@require_GET
def scenario_detail_view(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request, write=False)
    editor = can_edit(request)

    def render_region() -> str:
        try:
            scenario = scenario_with_options(pk)
        except Scenario.DoesNotExist:  # deleted since its stamp was read
            raise Http404("No such scenario.") from None
        return render_to_string(WORKSPACE, workspace_context(None, scenario, editor=editor))

    return scenario_page(request, pk, editor=editor, render_region=render_region)


@require_GET
def scenario_export_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, options=True)
    response = JsonResponse(export_document(scenario), json_dumps_params={"indent": 2, "ensure_ascii": False})
    filename = "".join(c if c.isalnum() or c in "-_" else "-" for c in scenario.name).strip("-")[:60] or "scenario"
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response


@require_POST
def scenario_clone_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    copy = scenario_clone(scenario=scenario, user=request.user)
    messages.success(request, f"Cloned “{scenario.name}” as “{copy.name}”.")
    url = reverse("tco:scenario_detail", args=[copy.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_http_methods(["GET", "POST"])
def scenario_delete_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    if request.method == "GET":
        return _confirm_delete(request, scenario)
    name = scenario.name
    try:
        scenario_delete(scenario=scenario, user=request.user)
    except ScenarioInUse as error:
        return _confirm_delete(request, scenario, error=str(error), status=409)
    messages.success(request, f"Deleted “{name}”.")
    return redirect(reverse("tco:scenario_list"))


def _confirm_delete(request: HttpRequest, scenario: Scenario, *, error: str = "", status: int = 200) -> HttpResponse:
    """The confirmation page names what goes with the scenario, and refuses while decision links still open."""
    context = {
        "scenario": scenario,
        "live_links": list(live_links(scenario)),
        "decision_count": scenario.decision_records.count(),
        "link_count": scenario.decision_links.count(),
        "error": error,
    }
    return render(request, "tco/scenario_confirm_delete.html", context, status=status)


@require_GET
def scenario_history_view(request: HttpRequest, pk: int) -> HttpResponse:
    """An older page of the scenario's history ("Show older changes"), with the button for the page after it."""
    scenario = get_scenario_for_user(request, pk)
    page = parse_id(request.GET.get("page", "")) or 1
    if page > HISTORY_PAGES_MAX:
        raise Http404("No such page of the history.")
    lines, older = scenario_history_page(scenario, page)
    context = {
        "scenario": scenario,
        "history": lines,
        "history_page": page,
        "history_next_page": page + 1 if older else None,
    }
    return render(request, "tco/scenario_detail.html#history_page", context)
