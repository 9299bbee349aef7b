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


@pytest.fixture
def analyst(transactional_db):
    """An editor who signs in with tests.browser.helpers.PASSWORD (live_server needs committed rows)."""
    from django.contrib.auth.models import Group, User

    from tests.browser.helpers import PASSWORD

    user = User.objects.create_user("browser-analyst", password=PASSWORD)
    user.groups.add(Group.objects.get(name="editors"))
    return user


@pytest.fixture
def scenario(analyst):
    """The worked example as a scenario of the analyst's."""
    from tco.services import scenario_create_from_document
    from tests.documents import DESIGN_EXAMPLE

    return scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)


@pytest.fixture
def page(browser):
    """A fresh context and tab on the session's shared Chromium; what the page logs as an error, or throws, is
    collected in ``page.console_errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda message: message.type == "error" and tab.console_errors.append(message.text))
    tab.on("pageerror", lambda error: tab.console_errors.append(f"uncaught {error}"))
    yield tab
    context.close()
