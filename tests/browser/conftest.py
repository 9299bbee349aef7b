"""One Chromium per test session, driven by Playwright's sync API: Debian's (or $CHROMIUM) when present, else the
build `playwright install chromium` downloaded (`.ci/ensure-chromium`, run by `make test`, provides one of them)."""

from __future__ import annotations

import os
import threading

import pytest

# Playwright's sync API runs an event loop in this thread; Django refuses ORM calls there unless told otherwise.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# Chromium keeps only the last --disable-features it is given, so this one repeats the features Playwright disables
# itself (PLAYWRIGHT_DISABLED_FEATURES; tests/browser/test_chromium_args.py checks the installed Playwright's list is
# still all here) and adds the omnibox popups: Chromium 156 draws each as a web page of its own for every tab, even
# headless; they were 30% of the renderers' CPU in the browser tests (those took 187-223 s at -n 2 here, 148 s without).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
DISABLED_FEATURES = (*PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features=" + ",".join(DISABLED_FEATURES),
]


@pytest.fixture(scope="session")
def browser(django_db_setup, live_server):
    """Playwright's sync API leaves its event loop running in this thread, and from then on Django keeps this
    thread's connections as it would an async task's: new ones, without the rows the tests on committed rows restore
    (Django kept those on the first), so the first such test after the browser started found no role groups. The
    connections the database was set up on are put back.

    The browser closes before the live server stops (it asks for the server), and the server's threads that answered
    the connections Chromium kept open end first: on in-memory SQLite each closes the database connection it shares
    with the tests, which it may only do while the server shares it."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    kept = {alias: connections[alias] for alias in connections}
    with sync_playwright() as playwright:
        for alias, connection in kept.items():
            connections[alias] = connection
        executable = CHROMIUM if os.access(CHROMIUM, os.X_OK) else None  # None: Playwright's own build
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
    for thread in threading.enumerate():
        if "process_request_thread" in thread.name:
            thread.join(5)


@pytest.fixture(scope="session", autouse=True)
def _in_memory_sqlite_writes_wait():
    """With SQLite the tests and the live server share one in-memory database ("shared cache"), in which a write
    that meets another connection's unfinished read of its table fails at once with "database table is locked",
    where a database file (the embedded deployment) waits for the reader. A run computed by its own request, writing
    its progress while the page polls it, failed that way in one of six runs of the browser tests here. Such a
    statement is tried again here for up to 5 s."""
    import sqlite3
    import time

    from django.db.backends.sqlite3.base import SQLiteCursorWrapper

    execute, executemany = SQLiteCursorWrapper.execute, SQLiteCursorWrapper.executemany

    def waiting(statement, cursor, query, params):
        deadline = time.monotonic() + 5
        while True:
            try:
                return statement(cursor, query, params)
            except sqlite3.OperationalError as error:
                if "table is locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            SQLiteCursorWrapper, "execute", lambda cursor, query, params=None: waiting(execute, cursor, query, params)
        )
        patch.setattr(
            SQLiteCursorWrapper,
            "executemany",
            lambda cursor, query, params: waiting(executemany, cursor, query, list(params)),
        )
        yield


@pytest.fixture
def analyst(transactional_db):
    """An editor (tests.browser.helpers.log_in signs them in; live_server needs committed rows)."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("browser-analyst")
    user.groups.add(Group.objects.get(name="editors"))
    return user


@pytest.fixture
def scenario(analyst):
    """The worked example as a scenario of the analyst's."""
    from tco.services import scenario_create_from_document
    from tests.documents import DESIGN_EXAMPLE

    return scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)


# What a test may not change on a context other tests share: each would outlive the test. A test that needs one asks
# new_page(fresh=True) for a context of its own; an init script or a route on the tab itself (page.add_init_script,
# page.route) ends with the tab.
_CONTEXT_WIDE = (
    "add_init_script",
    "expose_binding",
    "expose_function",
    "grant_permissions",
    "route",
    "route_from_har",
    "set_extra_http_headers",
    "set_geolocation",
    "set_offline",
)


def _refuse(name: str):
    def refused(*args, **kwargs):
        raise AssertionError(f"context.{name} on a context tests share: use the tab's own, or new_page(fresh=True)")

    return refused


@pytest.fixture(scope="session")
def _contexts(browser):
    """The session's browser contexts, one per set of options (viewport, phone emulation...), each kept for the whole
    session like a user's browser profile: its HTTP cache keeps plotly.js and the other static files compiled, so a
    test's first page loads in about a quarter of the time a new context takes (0.2 s against 0.7 s here). Cookies
    are cleared after every test, so each starts signed out."""
    pool = {}
    yield pool
    for context in pool.values():
        context.close()


class _Requests:
    """How many requests the live server is answering, from Django's request_started and request_finished signals.
    The test client's are not counted: they run in the tests' own thread, and the test client does not always name
    its handler as the sender (a response it closes itself sends ``sender=None``)."""

    def __init__(self) -> None:
        self.answering = 0
        self.changed = threading.Condition()
        self.tests_thread = threading.current_thread()

    def started(self, sender, **kwargs) -> None:
        if threading.current_thread() is self.tests_thread:
            return
        with self.changed:
            self.answering += 1

    def finished(self, sender, **kwargs) -> None:
        if threading.current_thread() is self.tests_thread:
            return
        with self.changed:
            self.answering -= 1
            self.changed.notify_all()

    def wait_until_answered(self, seconds: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.answering <= 0, timeout=seconds)


@pytest.fixture(scope="session")
def _requests():
    from django.core.signals import request_finished, request_started

    requests = _Requests()
    request_started.connect(requests.started)
    request_finished.connect(requests.finished)
    yield requests
    request_started.disconnect(requests.started)
    request_finished.disconnect(requests.finished)


@pytest.fixture
def new_page(browser, _contexts, _requests, live_server, transactional_db):
    """``new_page(**options)``: a new tab in the session's context made with Playwright's ``new_context`` options;
    ``fresh=True`` makes a context of the test's own. What a tab logs as an error, or throws, is collected in
    ``tab.console_errors``.

    The tabs close before the test's database is emptied (this fixture asks for it, so it ends first), and that waits
    for the live server to answer what they had sent: a page's last requests (a panel loading itself, a chart's
    figures) would otherwise meet a database being flushed."""
    tabs, own = [], []

    def make(*, fresh: bool = False, **options):
        key = repr(sorted(options.items()))
        context = None if fresh else _contexts.get(key)
        if context is None:
            context = browser.new_context(**options)
            context.set_default_timeout(15_000)
            if fresh:
                own.append(context)
            else:
                for name in _CONTEXT_WIDE:
                    setattr(context, name, _refuse(name))
                _contexts[key] = context
        tab = context.new_page()
        tab.console_errors = []
        tab.on("console", lambda message: message.type == "error" and tab.console_errors.append(message.text))
        tab.on("pageerror", lambda error: tab.console_errors.append(f"uncaught {error}"))
        tabs.append(tab)
        return tab

    yield make
    for tab in tabs:
        if tab.context not in own:
            tab.close()
            tab.context.clear_cookies()
    for context in own:
        context.close()
    assert _requests.wait_until_answered(15), "the live server is still answering the closed tabs' requests"


@pytest.fixture
def page(new_page):
    """A new tab at a 1,400 x 1,000 laptop viewport (see new_page)."""
    return new_page(viewport={"width": 1400, "height": 1000})
