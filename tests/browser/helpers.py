"""What browser tests share besides fixtures (tests/browser/conftest.py): signing in, opening a folded group, and
naming the case a test checking several was in when it failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client


def log_in(page, live_server, user: User) -> None:
    """Signs ``user`` in on the page's browser context with a session made the way Django's own test client makes one
    (a session cookie; the page does not navigate). Driving the sign-in form costs two page loads per test; that form
    is driven once, in test_walk_drawn.py."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": live_server.url}])


def reveal(field) -> None:
    """Open the folded group (a closed disclosure, such as an option's tax and financing) an input sits in, as a user
    does: by clicking its summary."""
    folded = field.locator("xpath=ancestor::details[not(@open)][1]")
    if folded.count():
        folded.locator(":scope > summary").click()


@contextmanager
def case(name: str) -> Iterator[None]:
    """One case of a test that checks several (pages, screens, states) in turn: a failure in it, an assertion or a
    timeout, names the case."""
    try:
        yield
    except Exception as error:
        error.add_note(f"in the case: {name}")
        raise
