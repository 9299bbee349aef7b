"""The throughput library in a browser: on a 390 px phone only its table scrolls sideways, never the page, and the
filter narrows the rows."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import case, log_in

pytestmark = pytest.mark.browser

# Elements wider than the screen that do not scroll inside themselves: what makes a page scroll sideways.
SPILLING = """(width) => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > width + 1)
  .filter((el) => !el.closest('.table-wrap'))
  .map((el) => el.tagName + '.' + el.className)"""


@pytest.fixture
def library(analyst, live_server):
    from pathlib import Path

    from pricing.services import reference_data_load, throughput_import

    root = Path(__file__).resolve().parents[2]
    reference_data_load(path=root / "fixtures" / "reference.json")
    content = (root / "fixtures" / "throughput" / "inferencex-agg_bmk-dsr1-b200-h200.json").read_bytes()
    throughput_import(content=content, file_name="agg_bmk.json")
    return live_server


def test_the_library_never_makes_the_page_scroll_sideways(new_page, analyst, library):
    """On a 390 px phone and at 1,400 px, from one import of the library: each width loads the page afresh."""
    page = new_page(viewport={"width": 390, "height": 900})
    log_in(page, library, analyst)
    for width in (390, 1400):
        with case(f"at {width} px"):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{library.url}/market/throughput/")
            spilling = page.evaluate(SPILLING, width)
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            rows = page.locator("table").first.locator("tbody tr").count()
            page.select_option("#id_gpu", label="H200 SXM")
            page.click("form.filters button[type=submit]")
            page.wait_for_url(re.compile(r".*/market/throughput/\?gpu=\d+"))
            filtered = page.locator("table").first.locator("tbody tr")
            gpus = {filtered.nth(i).locator("td").first.inner_text() for i in range(filtered.count())}
            assert spilling == [] and overflow <= 0
            assert rows == 100  # the first page of 126 measurements
            assert gpus == {"H200 SXM"}
