"""Every chart's title stays readable beside Plotly's mode bar (the toolbar of download, zoom and pan buttons at its
top right), on a 390 px phone and a laptop: the Market's charts, and the scenario page's, the simulation's, the
decision link's and compare's charts. No chart's toolbar offers to send its data off the machine."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.models import PriceObservation, SnapshotOrigin
from pricing.services import price_snapshot_import, reference_data_load
from tco.charts import snapshot as snapshot_output
from tco.models import ScenarioOption
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tco.services.uncertainty import range_set, uncertainty_run_queue
from tests.browser.helpers import case, log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
SCREENS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}

# Each drawn chart's title box and its mode bar's box (the bar is in the page while hidden until hovered).
TITLE_AND_MODE_BAR_JS = """() => [...document.querySelectorAll('[data-figure]')]
  .filter((el) => el.getClientRects().length && el.querySelector('.main-svg')).map((el) => {
  const box = (node) => { if (!node) return null; const r = node.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  return {id: el.id || el.dataset.figure, chart: box(el), title: box(el.querySelector('.gtitle')),
          modeBar: box(el.querySelector('.modebar')),
          buttons: [...el.querySelectorAll('.modebar-btn')].map((button) => button.dataset.title)};
})"""


def _overlaps(a: dict, b: dict) -> bool:
    return (
        min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0
    )


def _charts(page) -> list[dict]:
    page.wait_for_function(
        "() => { const charts = [...document.querySelectorAll('[data-figure]')]"
        ".filter((el) => el.getClientRects().length);"
        " return charts.length > 0 && charts.every((el) => el.querySelector('.modebar')); }"
    )
    page.wait_for_timeout(300)  # fitChartRoom's relayout after the first draw
    return page.evaluate(TITLE_AND_MODE_BAR_JS)


def _apart(where: str, charts: list[dict]) -> list[str]:
    """What is wrong with the charts of ``where`` (a page at a screen), in words: nothing when every title is clear."""
    problems = []
    for chart in charts:
        if chart["title"] is None or chart["modeBar"] is None:
            problems.append(f"{where}: a chart has no title or no mode bar {chart}")
            continue
        if _overlaps(chart["title"], chart["modeBar"]):
            problems.append(f"{where}: {chart['id']}: the mode bar covers the title {chart}")
        if chart["modeBar"]["top"] < chart["chart"]["top"]:
            problems.append(f"{where}: {chart['id']}: the mode bar is above its chart")
        # Nothing leaves the machine: "Share chart..." would post the figure, numbers and all, to Plotly's cloud.
        if "Download plot as a PNG" not in chart["buttons"] or "Share chart..." in chart["buttons"]:
            problems.append(f"{where}: {chart['id']}: its mode bar's buttons {chart['buttons']}")
    return problems


def _visit_every_page_on_every_screen(new_page, live_server, analyst, urls: dict, counts: dict) -> None:
    """Each page of ``urls`` on each screen, one tab per screen, drawing as many charts as ``counts`` says (a range);
    every page's problems are gathered, then asserted together, each naming its page and screen."""
    problems = []
    for screen, viewport in SCREENS.items():
        page = new_page(viewport=viewport, is_mobile=screen == "phone")
        log_in(page, live_server, analyst)
        for where, url in urls.items():
            page.goto(live_server.url + url)
            with case(f"waiting for the charts of {where} on a {screen}"):
                charts = _charts(page)
            if len(charts) not in counts[where]:
                problems.append(f"{where} on a {screen}: {len(charts)} charts drawn, not {counts[where]}")
            problems += _apart(f"{where} on a {screen}", charts)
    assert problems == [], "\n".join(problems)


def test_the_markets_chart_titles_are_not_under_their_mode_bars(new_page, live_server, analyst):
    """The Market, its trend and a price's history, each on a phone and a laptop."""
    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    price_snapshot_import(
        content=(ROOT / "fixtures" / "prices" / "published-2026-09.csv").read_bytes(),
        origin=SnapshotOrigin.COMMAND,
        source="test",
        file_name="published-2026-09.csv",
    )
    urls = {
        "market": "/market/",
        "trend": "/market/trend/",
        "price history": f"/market/history/{PriceObservation.objects.order_by('pk').first().pk}/",
    }
    _visit_every_page_on_every_screen(new_page, live_server, analyst, urls, dict.fromkeys(urls, range(1, 2)))


@pytest.fixture
def pages(analyst) -> dict[str, str]:
    """The worked example with a ranged rental price and a simulation, and a link comparing it with a clone."""
    scenario = scenario_create_from_document(document=copy.deepcopy(DESIGN_EXAMPLE), user=analyst)
    other = scenario_create_from_document(document={**copy.deepcopy(DESIGN_EXAMPLE), "name": "Other"}, user=analyst)
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    range_set(
        scenario=scenario,
        user=analyst,
        expected_version=None,
        option=rental,
        field="price_per_gpu_hour",
        low=Decimal(3),
        likely=Decimal("3.99"),
        high=Decimal(6),
    )
    scenario.refresh_from_db()
    uncertainty_run_queue(scenario=scenario, user=analyst, trials=1_000)
    scenario.refresh_from_db()
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output, compare_with=[other])
    return {
        "scenario": f"/scenarios/{scenario.pk}/",
        "decision link": f"/d/{token}",
        "compare": f"/scenarios/compare/?s={scenario.pk}&s={other.pk}",
    }


def test_every_charts_title_is_not_under_its_mode_bar(new_page, live_server, analyst, pages):
    """The scenario page, the decision link and compare, each on a phone and a laptop, from one build of them."""
    counts = {"scenario": range(4, 100), "decision link": range(4, 100), "compare": range(1, 100)}
    _visit_every_page_on_every_screen(new_page, live_server, analyst, pages, counts)
