"""One Chromium per test session, driven by Playwright's sync API: Debian's (or $CHROMIUM) when present, else the
build `playwright install chromium` downloaded (`.ci/ensure-chromium`, run by `make test`, provides one of them)."""

from __future__ import annotations

import os

import pytest

# Playwright's sync API runs an event loop in this thread; Django refuses ORM calls there unless told otherwise.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        executable = CHROMIUM if os.access(CHROMIUM, os.X_OK) else None  # None: Playwright's own build
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _roles_after_flush(request):
    """transactional_db (live_server) empties every table after each test, the roles migration's groups
    included; put the `editors` and `viewers` groups back so every browser test starts the same."""
    if "live_server" in request.fixturenames or "transactional_db" in request.fixturenames:
        request.getfixturevalue("transactional_db")
        from django.contrib.auth.models import Group

        for name in ("viewers", "editors"):
            Group.objects.get_or_create(name=name)
