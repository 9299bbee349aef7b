"""The walk of tests/test_walk.py once in Chromium: what the browser draws (the charts' ticks, legends and labels
plotly.js writes, and every text the page's scripts put in) holds no raw key, code, exponent or "None"/"nan"."""

from __future__ import annotations

import pytest

from tests.test_walk import _text_finds, world  # noqa: F401  (world: the walked scenario, a fixture)

pytestmark = [pytest.mark.browser]
# The page's text as shown (literal file syntax in <code> aside, as the walk reads it) and the charts' drawn text.
SHOWN = """() => {
  let text = document.body.innerText;
  document.querySelectorAll("code").forEach((code) => { text = text.split(code.innerText).join(" "); });
  return [text, ...Array.from(document.querySelectorAll("svg text"), (drawn) => drawn.textContent)];
}"""


def _log_in(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", "pw-for-tests-1")  # tests/conftest.py's users
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_what_the_browser_draws_is_in_words(page, live_server, editor, world):  # noqa: F811
    _log_in(page, live_server, editor)
    ids = "&".join(f"s={s.pk}" for s in [world.scenario, *world.others])
    walked = {
        "scenario page": f"/scenarios/{world.scenario.pk}/",
        "compare": f"/scenarios/compare/?{ids}",
        "decision brief": f"/d/{world.token}",
    }
    finds = []
    for where, path in walked.items():
        page.goto(f"{live_server.url}{path}")
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll("[data-figure], [data-figure-src]"))
                .every((chart) => chart.querySelector("svg text"))"""
        )
        shown = page.evaluate(SHOWN)
        assert len(shown) > 20, f"{where}: no chart drawn"  # the page's text, then each drawn tick and label
        for text in shown:
            finds += [str(find) for find in _text_finds(f"{where} (drawn)", text, euro=False)]
    assert not finds, "\n".join(dict.fromkeys(finds))
    assert page.console_errors == []
