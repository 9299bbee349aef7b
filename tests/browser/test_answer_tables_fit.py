"""The answer's tables fit their column: at 1,440 px the option and break-even tables do not scroll sideways (a
taxed scenario, with a leased option and Market prices, has their widest cells); at 390 px (a phone) each option's
figures are on screen, a row stacked as label and value, not cut off behind the option's name and kind."""

from __future__ import annotations

import copy

import pytest

from tco.services import scenario_create_from_document
from tests.browser.helpers import case, log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

SCROLLS_JS = """(id) => { const t = document.getElementById(id); const wrap = t.closest('.table-wrap') || t;
  return [wrap.scrollWidth, wrap.clientWidth]; }"""


def _scenario(analyst):
    document = {**copy.deepcopy(DESIGN_EXAMPLE), "tax_rate": 0.21}
    document["options"][0].update(
        financing="lease", lease_payment=27000, lease_payment_interval_months=3, lease_term_months=36
    )
    document["options"][1]["price_source"] = {
        "provider": "Lambda",
        "offering": "gpu_8x_h100_sxm5",
        "pricing_term": "on_demand",
        "observed_on": "2026-11-01",
    }
    return scenario_create_from_document(document=document, user=analyst)


def test_the_answers_tables_fit_at_1440_px_and_390_px_and_stay_in_view_on_a_wide_screen(page, live_server, analyst):
    """One scenario, loaded at 1,440 px (the tables, then the answer while the inputs scroll), then at 390 px."""
    scenario = _scenario(analyst)
    log_in(page, live_server, analyst)

    with case("at 1,440 px, the option and break-even tables do not scroll sideways"):
        page.set_viewport_size({"width": 1440, "height": 900})
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
        page.locator("#option-table").wait_for()
        for table in ("option-table", "break-even-table"):
            scroll, client = page.evaluate(SCROLLS_JS, table)
            assert scroll <= client + 1, f"{table} scrolls sideways: {scroll} > {client}"

    with case("on a wide screen, the answer stays in view while the inputs scroll"):
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight - window.innerHeight)")  # the last input
        page.wait_for_function(
            "() => window.scrollY > 0 && window.scrollY >= document.body.scrollHeight - innerHeight - 1"
        )
        top = page.evaluate("() => document.getElementById('results').getBoundingClientRect().top")
        # A sub-pixel above 0 is layout rounding, not the answer scrolled away.
        assert -1 < top < 200, f"the answer is out of view ({top} px from the top)"

    with case("at 390 px, each option's figures are on screen"):
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
        page.locator("#option-table").wait_for()
        row = page.locator("#option-table tbody tr").first
        cells = row.locator("td")
        for index in range(cells.count()):
            box = cells.nth(index).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 391, (index, box)
        text = row.inner_text()
        assert "Annual cost" in text and "Per busy GPU-hour" in text  # each figure says what it is
        scroll, client = page.evaluate(SCROLLS_JS, "option-table")
        assert scroll <= client + 1
