"""Every option apart, on every medium: own colours in every chart, the A4 brief, the 390 px phone."""

from __future__ import annotations

import copy
import re

import pytest

from tco.charts import snapshot as snapshot_output
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.browser.helpers import case, log_in
from tests.decisions.conftest import DOCUMENT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

OWNED = DOCUMENT["options"][0]
NEBIUS = "Nebius 8x H100 SXM"
OPTION_NAMES = ["Own 8x H100", "Lambda rental", NEBIUS, "AWS p5.48xlarge", "Refurbished 8x H100"]
LINE_CHARTS = ("chart-annual_cost", "chart-cumulative")
# A4 is 210 mm wide; less print.css's 11 mm margins that is 188 mm, 710 CSS px at 96 px per inch.
A4_CONTENT_WIDTH = 188 / 25.4 * 96


def _five_options() -> dict:
    """Two neoclouds (one colour per kind used to make them the same green line), a hyperscaler, owned and
    secondary hardware: the legend of each line chart has six entries."""
    document = copy.deepcopy(DOCUMENT)
    document["horizon_months"] = 36
    secondary = {key: value for key, value in OWNED.items() if key not in ("name", "kind")}
    document["options"] += [
        {"name": NEBIUS, "kind": "neocloud", "price_per_gpu_hour": 2.95, "billing": "on_demand"},
        {"name": "AWS p5.48xlarge", "kind": "hyperscaler", "price_per_gpu_hour": 6.88, "billing": "on_demand"},
        {"name": "Refurbished 8x H100", "kind": "secondary", **secondary, "capex": 180_000},
    ]
    assert [option["name"] for option in document["options"]] == OPTION_NAMES
    return document


@pytest.fixture
def scenario(analyst):
    return scenario_create_from_document(document=_five_options(), user=analyst)


def _wait_for_charts(page, selector: str) -> None:
    page.wait_for_function(
        "(selector) => { const charts = [...document.querySelectorAll(selector)];"
        " return charts.length > 0 && charts.every((el) => el.querySelector('.main-svg')); }",
        arg=selector,
    )


# Option (legend name without the kind) -> colour as plotly drew it, per chart: lines and bars.
OPTION_COLOURS_JS = """(ids) => Object.fromEntries(ids.map((id) => {
  const el = document.getElementById(id);
  const colours = {};
  for (const trace of el._fullData) {
    if (trace.type === 'scatter' && trace.mode !== 'lines') continue;  // break-even and crossover marks
    colours[trace.name.replace(/ \\([^)]*\\)$/, '')] = trace.type === 'bar' ? trace.marker.color : trace.line.color;
  }
  return [id, colours];
}))"""
OPTION_CHARTS = [*LINE_CHARTS, "chart-cost_per_output"]


def _option_colours(page) -> dict[str, dict[str, str]]:
    return page.evaluate(OPTION_COLOURS_JS, OPTION_CHARTS)


BOXES_JS = """() => [...document.querySelectorAll('.brief-chart [data-figure]')]
  .filter((el) => el.getClientRects().length).map((el) => {
  const box = (selector) => { const node = el.querySelector(selector); if (!node) return null;
    const r = node.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const entries = [...el.querySelectorAll('.legend .traces')].map((node) => node.getBoundingClientRect());
  const legendTraces = el._fullData.filter((t) => t.showlegend !== false && t.type !== 'heatmap').length;
  const legend = box('.legend .bg');  // the legend's visible box: a legend too long for it scrolls and clips
  const hidden = legend ? entries.filter((r) => r.bottom > legend.bottom + 1 || r.right > legend.right + 1).length : 0;
  const bars = new Set(el._fullData.filter((t) => t.type === 'bar' && t.orientation === 'h').flatMap((t) => t.y)).size;
  return {id: el.id, svg: box('.main-svg'), plot: box('.nsewdrag'), title: box('.gtitle'), legend,
          legendEntries: entries.length, legendTraces, hiddenEntries: hidden, bars};
})"""


def _check_the_a4_brief_prints_full_width_readable_charts(page) -> None:
    """Printed on A4, the brief (drawn on a laptop) has full-width, readable charts on at most three pages."""
    page.emulate_media(media="print")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.brief-chart [data-figure]')].filter((el) => el.getClientRects().length)"
        ".every((el) => el.querySelector('.main-svg').getBoundingClientRect().width >= 650)"
    )
    charts = page.evaluate(BOXES_JS)
    pdf = page.pdf(format="A4", print_background=True)

    # Every chart but the utilization forecast month by month (on the web page; the assumptions say so).
    assert [chart["id"] for chart in charts] == [
        "chart-annual_cost",
        "chart-cumulative",
        "chart-cost_per_output",
        "chart-break_even_map",
    ]
    for chart in charts:
        name, svg, plot, title, legend = chart["id"], chart["svg"], chart["plot"], chart["title"], chart["legend"]
        assert 650 <= svg["right"] - svg["left"] <= A4_CONTENT_WIDTH, f"{name} is not page-wide: {svg}"
        # A horizontal bar chart is as high as its bars read (at least 100 px, 12 px a bar), every other plot 180 px.
        least = max(100, 12 * chart["bars"]) if chart["bars"] else 180
        assert plot["bottom"] - plot["top"] >= least, f"{name}'s plot is squashed: {plot}"
        assert title["bottom"] <= plot["top"], f"{name}'s title runs into the plot"
        if legend is not None:
            assert legend["right"] <= svg["right"] + 1 and legend["bottom"] <= svg["bottom"] + 1, f"{name}: legend cut"
            beside = legend["left"] >= plot["right"]
            below = legend["top"] >= plot["bottom"]
            assert beside or below, f"{name}'s legend covers the plot"
            assert legend["top"] >= title["bottom"], f"{name}'s legend runs into the title"
            assert chart["legendEntries"] == chart["legendTraces"], f"{name}'s legend lost entries"
            assert chart["hiddenEntries"] == 0, f"{name}'s legend scrolls: entries hidden"
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
    assert 1 <= pages <= 3, f"the brief prints on {pages} A4 pages"


def test_every_option_has_its_own_colour_on_the_decision_page_too_and_the_a4_brief_prints_readable_charts(
    new_page, live_server, analyst, scenario
):
    """The scenario page's charts, then its decision link's, loaded once on a laptop for the colours and then printed
    on A4."""
    page = new_page(viewport={"width": 1366, "height": 900})
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    _wait_for_charts(page, ".charts [data-figure]")

    on_scenario_page = _option_colours(page)
    first = on_scenario_page["chart-annual_cost"]
    assert sorted(first) == sorted(OPTION_NAMES)
    assert len(set(first.values())) == len(OPTION_NAMES), f"options share a colour: {first}"
    for chart, colours in on_scenario_page.items():
        assert colours == first, f"{chart} colours its options differently"
    # The kind is still written in every legend name and drawn as the line's dash: colour is not the only carrier.
    dashes = page.evaluate(
        "() => Object.fromEntries(document.getElementById('chart-annual_cost')._fullData"
        ".filter((t) => t.mode === 'lines').map((t) => [t.name, t.line.dash]))"
    )
    assert dashes["Lambda rental (neocloud)"] == dashes[f"{NEBIUS} (neocloud)"] != dashes["Own 8x H100 (owned)"]
    # Drawn, not only declared: the annual-cost lines have five different stroke colours on screen.
    strokes = page.evaluate(
        "() => [...document.querySelectorAll('#chart-annual_cost .scatterlayer .trace path.js-line')]"
        ".map((path) => getComputedStyle(path).stroke)"
    )
    assert len(set(strokes)) == len(OPTION_NAMES)

    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output)
    brief = new_page(viewport={"width": 1280, "height": 900})
    brief.goto(f"{live_server.url}/d/{token}")
    _wait_for_charts(brief, ".brief-chart [data-figure]")
    with case("the decision link's colours"):
        assert _option_colours(brief) == on_scenario_page
        assert brief.locator("link[rel=icon]").get_attribute("href").endswith("/img/favicon.svg")
    with case("the decision link printed on A4"):
        _check_the_a4_brief_prints_full_width_readable_charts(brief)


def test_the_scenario_page_fits_a_390px_phone_with_the_answer_first(new_page, live_server, analyst, scenario):
    page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    _wait_for_charts(page, ".charts [data-figure]")

    layout = page.evaluate(
        """() => ({
          innerWidth: window.innerWidth,
          scrollWidth: document.documentElement.scrollWidth,
          answerTop: document.getElementById('answer').getBoundingClientRect().top,
          inputsTop: document.getElementById('inputs').getBoundingClientRect().top,
          inputsWidth: document.getElementById('inputs').getBoundingClientRect().width,
          fieldsPastTheEdge: [...document.querySelectorAll('#inputs input:not([type=hidden]), #inputs select')]
            .filter((el) => el.closest('.table-wrap') === null && el.getBoundingClientRect().right > window.innerWidth)
            .map((el) => el.id),
          wideTablesOutsideAScrollBox: [...document.querySelectorAll('table')]
            .filter((table) => table.getBoundingClientRect().width > window.innerWidth)
            .filter((table) => { const box = table.closest('.table-wrap');
              return !box || getComputedStyle(box).overflowX !== 'auto'
                || box.getBoundingClientRect().width > window.innerWidth; })
            .map((table) => table.id || table.className),
          chartsPastTheEdge: [...document.querySelectorAll('.charts .main-svg')]
            .filter((svg) => svg.getBoundingClientRect().right > window.innerWidth).length,
        })"""
    )

    # A phone that had to zoom out to show the page would report a wider layout viewport than the screen.
    assert layout["innerWidth"] == 390
    assert layout["scrollWidth"] <= layout["innerWidth"], f"the page scrolls sideways: {layout['scrollWidth']} px"
    assert layout["answerTop"] < layout["inputsTop"], "the inputs come before the answer"
    assert layout["inputsWidth"] <= 390
    assert layout["fieldsPastTheEdge"] == []
    assert layout["wideTablesOutsideAScrollBox"] == []
    assert layout["chartsPastTheEdge"] == 0
