"""How every edit answers: the workspace as it now is, rendered once from one context (``workspace_context``).

htmx merges it into the page with idiomorph (``static/js/workspace.js``): only what changed is touched, so focus,
caret and scroll survive, an input being typed in keeps its text, and an input refused earlier keeps its text and
message until it is corrected or restored. No region is sent on its own, so none can be older than another.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django_htmx.http import reswap, retarget

from tco.models import Scenario
from tco.selectors.history import scenario_changes
from tco.selectors.scenarios import scenario_with_options
from tco.services import Change, VersionConflict
from tco.services.common import VERSION_HEADER
from tco.web.viewmodels.workspace import WORKSPACE, workspace_context

# Sent with every workspace: the page refuses to morph in one older than what it shows (a slow poll answered after
# an edit), see static/js/workspace.js.


def workspace_response(
    request: HttpRequest,
    scenario: Scenario | None = None,
    *,
    change: Change | None = None,
    message: str = "",
    **options: Any,
) -> HttpResponse:
    """The workspace after an edit (``change``, as the service saved it) or a refused one (``scenario``; ``options``
    go to ``workspace_context``: refused inputs, messages, a conflict). Without htmx: back to the page, with
    ``message`` (why the edit was not saved) shown once."""
    assert (scenario is None) != (change is None)
    if not request.htmx:
        if message:
            messages.error(request, message)
        return redirect("tco:scenario_detail", pk=(change.scenario if change else scenario).pk)
    fresh = change.scenario if change is not None else scenario_with_options(scenario.pk)
    map_rental = (request.POST.get("map_rental") or request.GET.get("map_rental") or "")[:200]
    context = workspace_context(request, fresh, change=change, decision_panel=True, map_rental=map_rental, **options)
    response = HttpResponse(render_to_string(WORKSPACE, context, request=request))
    response[VERSION_HEADER] = str(fresh.version)
    return reswap(retarget(response, "#workspace"), "morph")


def refused_response(request: HttpRequest, scenario: Scenario, key: str, text: str, message: str) -> HttpResponse:
    """One input refused: it keeps what was typed, says why and shows the stored value; nothing was saved."""
    return workspace_response(request, scenario, refused={key: (text, message)}, message=message)


def conflict_response(request: HttpRequest, conflict: VersionConflict, attempted: str) -> HttpResponse:
    """A stale save: refuse it, say who changed what, and show the newer values everywhere."""
    fresh = conflict.scenario
    history = scenario_changes(fresh)
    last = history[0] if history else None
    who = f" by {last.who} at {last.when:%Y-%m-%d %H:%M} UTC" if last else ""
    text = (
        f"This scenario was changed{who} since you opened it (now version {fresh.version}, yours was "
        f"{conflict.expected_version}). Your change{attempted} was not saved. The current values are shown "
        "below; re-enter your change if it still applies."
    )
    return workspace_response(request, fresh, conflict=text, message=text)
