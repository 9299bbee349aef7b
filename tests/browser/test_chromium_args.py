"""The browser tests' Chromium: no page of Chromium's own drawn beside each tab, and Playwright's own switches kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import DISABLED_FEATURES

pytestmark = [pytest.mark.browser]


def test_a_tab_has_no_page_of_chromiums_own_beside_it(browser):
    context = browser.new_context()
    try:
        context.new_page().goto("data:text/html,<p>A tab</p>")
        session = browser.new_browser_cdp_session()
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        context.close()
    assert [target["url"] for target in targets if target["type"] != "page"] == []
    assert [target["url"] for target in targets if target["type"] == "page"] == ["data:text/html,<p>A tab</p>"]


def _read(path: str) -> bytes:
    """A file of /proc, or nothing for a process that has ended meanwhile (Chromium starts and ends helpers)."""
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def _descendants(pid: int) -> list[int]:
    children = _read(f"/proc/{pid}/task/{pid}/children").split()
    return [int(child) for child in children] + [found for child in children for found in _descendants(int(child))]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the browser's command line from /proc")
def test_the_features_playwright_disables_stay_disabled(browser):
    """Chromium keeps only the last --disable-features: ours must carry Playwright's (the first) whole."""
    command_lines = [_read(f"/proc/{pid}/cmdline").split(b"\0") for pid in _descendants(os.getpid())]
    (browser_process,) = [
        [arg.decode() for arg in line] for line in command_lines if b"--remote-debugging-pipe" in line
    ]
    given = [
        arg.removeprefix("--disable-features=").split(",")
        for arg in browser_process
        if arg.startswith("--disable-features=")
    ]
    assert len(given) == 2, given
    playwrights, ours = given
    assert ours == list(DISABLED_FEATURES)
    assert set(playwrights) <= set(ours), f"add {sorted(set(playwrights) - set(ours))} to PLAYWRIGHT_DISABLED_FEATURES"
