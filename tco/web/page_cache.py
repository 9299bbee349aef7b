"""The scenario page: its workspace region kept in Django's cache, the page around it rendered per request.

What the workspace shows is a function of the scenario's stamp (``tco.selectors.scenarios.page_stamp``: its version,
its runs, the Market's revision) and of whether the reader may edit; nothing of the reader is in it (no name, no
CSRF token: its forms post through htmx, which sends the token the page's shell carries). So the region is kept in
Django's cache (``lib.caching``: Redis with ``REDIS_URL``, shared by every process; local memory otherwise) under a
key made of the stamp and the role: a change makes a new key, so an entry never needs invalidating, and a view of
an unchanged scenario costs the stamp query instead of building the inputs, the answer panel and the history again.
The shell (``base.html``: the signed-in user's name, links and CSRF token) is rendered per request, as any page's.

A region is kept only when the scenario is settled (a run queued or running changes the page without a new stamp)
and its stamp did not change while it was rendered (else it could mix two versions).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from lib.caching import kept
from tco.selectors.scenarios import page_stamp

TEMPLATE = "tco/scenario_detail.html"
TIMEOUT = 24 * 3600  # seconds; a key is never reused, the timeout only bounds what a cache keeps


def region_key(stamp_key: tuple, editor: bool) -> str:
    digest = hashlib.sha256(repr((stamp_key, editor)).encode()).hexdigest()[:40]
    return f"scenario-workspace:{stamp_key[0]}:{digest}"


def scenario_page(
    request: HttpRequest, scenario_id: int, *, editor: bool, render_region: Callable[[], str]
) -> HttpResponse:
    """The page for this request (404 when there is no such scenario). ``render_region()`` renders the workspace
    region without the request."""
    stamp = page_stamp(scenario_id)
    if stamp is None:
        raise Http404("No such scenario.")
    region = kept(
        region_key(stamp.key, editor),
        render_region,
        timeout=TIMEOUT,
        keep=lambda: stamp.settled and page_stamp(scenario_id) == stamp,  # nothing changed while it was rendered
    )
    return render(request, TEMPLATE, {"scenario": {"name": stamp.name}, "workspace_html": region})
