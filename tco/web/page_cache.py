"""The scenario page of an unchanged scenario, rendered once per process and then served from memory.

What the page's content shows is a function of the scenario's stamp (``tco.selectors.scenarios.page_stamp``: its
version, its runs, the Market's revision) and of whether the reader may edit. So a view of an unchanged scenario
costs the stamp query and a few string copies instead of building the inputs form, the answer panel and the
history again.

The content is rendered without the request, so it can hold nothing of the reader beyond its key. Around it goes
the shell (``base.html``: the signed-in user's name and links), kept per user and title. Both are rendered with a
placeholder where the CSRF token goes, swapped for this request's token. Content is kept only when the scenario is
settled (a run queued or running changes the page without a new stamp) and its stamp did not change while it was
rendered; a request with messages to show renders its shell in full.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.messages import get_messages
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render

from lib.lru import LruCache
from tco.selectors.scenarios import page_stamp

CACHED_CONTENTS = 64  # per process; one is ~150 kB of text, most of it the figures' JSON
CACHED_SHELLS = 256  # per process; one is ~2 kB
TEMPLATE = "tco/scenario_detail.html"
# Rendered where the token goes: it cannot occur in content otherwise (real tokens are 64 letters and digits).
CSRF_PLACEHOLDER = "{csrf-token-placeholder}"
CONTENT_PLACEHOLDER = "{page-content-placeholder}"

_contents: LruCache[str] = LruCache(CACHED_CONTENTS)
_shells: LruCache[tuple[str, str]] = LruCache(CACHED_SHELLS)


def scenario_page(
    request: HttpRequest, scenario_id: int, *, editor: bool, render_content: Callable[[dict], str]
) -> HttpResponse:
    """The page for this request (404 when there is no such scenario). ``render_content(extra)`` renders the
    content without the request, with ``extra`` added to its context."""
    stamp = page_stamp(scenario_id)
    if stamp is None:
        raise Http404("No such scenario.")
    body = _contents.get_or_build(
        (stamp.key, editor),
        lambda: render_content({"csrf_token": CSRF_PLACEHOLDER}),
        keep=lambda: stamp.settled and page_stamp(scenario_id) == stamp,  # nothing changed while it was rendered
    )
    title = {"name": stamp.name}
    if len(get_messages(request)):  # shown once, so never cached
        page = render(request, TEMPLATE, {"scenario": title, "body": body, "csrf_token": CSRF_PLACEHOLDER})
        html = page.content.decode()
    else:
        user = request.user
        head, tail = _shells.get_or_build(
            (user.pk, user.get_username(), user.is_staff, stamp.name), lambda: _shell(request, title)
        )
        html = head + body + tail
    return HttpResponse(html.replace(CSRF_PLACEHOLDER, get_token(request)))


def _shell(request: HttpRequest, title: dict) -> tuple[str, str]:
    page = render(request, TEMPLATE, {"scenario": title, "body": CONTENT_PLACEHOLDER, "csrf_token": CSRF_PLACEHOLDER})
    head, _, tail = page.content.decode().rpartition(CONTENT_PLACEHOLDER)  # the last: only static parts follow it
    return head, tail
