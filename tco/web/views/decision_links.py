"""The public decision page a link opens (``/d/<token>``) and its downloads.

These views need no login and reach nothing but the one frozen snapshot of their token. Malformed, unknown, expired
and revoked tokens all get the same 404 page, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from tco import exports
from tco.presentation.currency import conversion_about
from tco.selectors.decisions import active_link_for_token
from tco.services.decisions import link_record_open
from tco.web.downloads import download, export_response
from tco.web.throttle import limit_per_client
from tco.web.viewmodels.actuals import link_actuals
from tco.web.viewmodels.decisions import frozen_page_context

PRIVATE_HEADERS = {
    "X-Robots-Tag": "noindex",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


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
def decision_page_view(request: HttpRequest, token: str) -> HttpResponse:
    link = active_link_for_token(token)
    if link is None:
        return link_not_found()
    link_record_open(link=link)
    context = frozen_page_context(link.snapshot, expires_at=link.expires_at)
    context["token"] = token
    decided = context["decision"]
    actuals = link_actuals(link.scenario) if decided.get("status") == "decided" else None
    # Actuals only against the decision this link froze: a later decision has its own plan.
    context["actuals"] = actuals if actuals and actuals["plan"].decision.option_name == decided.get("option") else None
    return render(request, "decisions/decision.html", context)


@public
def decision_export_view(request: HttpRequest, token: str, what: str) -> HttpResponse:
    """Downloads of the frozen numbers; they do not count as openings."""
    link = active_link_for_token(token)
    if link is None:
        return link_not_found()
    data = link.snapshot.data
    name = data["scenario"]["name"]
    if what == "snapshot.json":
        return download(link.snapshot.content, exports.export_filename(name, "decision.json"), "application/json")
    extra = {
        "prices": data["prices"],
        "brief": exports.brief_table(data, link.snapshot.content_hash),
        "conversions": conversion_about(data.get("currency_conversions")),
    }
    about = [
        ("scenario", name),
        ("scenario version", str(data["scenario"].get("version", ""))),
        ("computed at (UTC)", data.get("frozen_at", "").replace("T", " ").removesuffix("+00:00")),
        ("engine version", str(data.get("engine_version", ""))),
        ("note", f"Frozen in decision link (SHA-256 {link.snapshot.content_hash})"),
    ]
    return export_response(
        data["document"], data["result"], name, what, about=about, uncertainty=data.get("uncertainty"), **extra
    )


@public
def decision_not_found_view(request: HttpRequest, rest: str = "") -> HttpResponse:
    return link_not_found()
