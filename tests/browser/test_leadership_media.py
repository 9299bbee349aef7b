"""What leadership reads, on paper and on a phone, for a scenario that fills every part of the page: 60 months,
own 64 H100, a rental at 2.49, a used option, three ranges and a simulation, in euros, with a decision link comparing
it with a 36-month scenario.

- The brief prints on at most 3 A4 pages, every chart (brief, simulation, comparison) at the page's full width,
  nothing past the page's right edge, the break-even map's labels apart, every bar label whole; the tornado prints
  as its rows in words.
- The scenario page prints its inputs and answer without clipping.
- At 390 px the scenario page, the decision link and compare are no wider than the phone.
"""

from __future__ import annotations

import copy
import re

import pytest

from tco.charts import snapshot as snapshot_output
from tco.models import BRIEF_KEYS
from tco.services import scenario_create_from_document
from tco.services.decisions import brief_update, decision_record, link_create
from tco.services.uncertainty import uncertainty_run_queue
from tests.browser.helpers import case, log_in
from tests.scenarios.factories import give_ranges

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# A4 is 210 mm wide; less print.css's 11 mm margins that is 188 mm, 710 CSS px at 96 px per inch.
A4_CONTENT_WIDTH = int(188 / 25.4 * 96)
A4_CONTENT_HEIGHT = int((297 - 8 - 9) / 25.4 * 96)  # less print.css's 8 mm top and 9 mm bottom margins
OWNED = {
    "gpu_count": 64,
    "residual_value": 259_200,
    "cost_of_capital": 0.08,
    "power_kw": 81.6,
    "idle_power_kw": 20,
    "pue": 1.4,
    "electricity_per_kwh": 0.12,
    "facility_per_year": 190_944,
    "support_per_year": 228_000,
    "operations_per_year": 432_000,
}
LEADERSHIP_SCENARIO = {
    "schema": "tco-scenario/1",
    "name": "64x H100, 60 months",
    "currency": "EUR",
    "horizon_months": 60,
    "discount_rate": 0.08,
    "fleet_gpus": 64,
    "utilization": [0.55],
    "burst_price_per_gpu_hour": 6.16,
    "workload": {
        "tokens_per_second_per_gpu": 850,
        "output_tokens_per_response": 350,
        "input_tokens_per_response": 1200,
        "acceptance_rate": 0.9,
    },
    "options": [
        {"name": "Own 64x H100", "kind": "owned", **OWNED, "capex": 2_222_222.22, "useful_life_years": 5},
        {"name": "Hyperstack H100", "kind": "neocloud", "price_per_gpu_hour": 2.49, "billing": "on_demand"},
        {"name": "Used 64x H100", "kind": "secondary", **OWNED, "capex": 1_222_222, "useful_life_years": 3},
        {"name": "Committed H100", "kind": "neocloud", "price_per_gpu_hour": 2.1, "billing": "committed"},
        {
            "name": "Hosted API",
            "kind": "api",
            "price_per_million_input_tokens": 0.5,
            "price_per_million_output_tokens": 1.5,
        },
    ],
}
LEADERSHIP_SCENARIO["options"][3]["committed_gpus"] = 48


@pytest.fixture
def shared(analyst) -> dict:
    """The leadership scenario with ranges and a simulation, a 36-month variant, and a link comparing the two."""
    scenario = scenario_create_from_document(document=copy.deepcopy(LEADERSHIP_SCENARIO), user=analyst)
    shorter = copy.deepcopy(LEADERSHIP_SCENARIO)
    shorter.update(name="64x H100, 36 months", horizon_months=36)
    other = scenario_create_from_document(document=shorter, user=analyst)
    options = list(scenario.options.all())
    give_ranges(
        scenario,
        [
            (None, "utilization", "0.3", "0.55", "0.8"),
            (options[0], "capex", "2000000", "2222222.22", "2600000"),
            (options[1], "price_per_gpu_hour", "2", "2.49", "3.5"),
        ],
        user=analyst,
    )
    uncertainty_run_queue(scenario=scenario, user=analyst, trials=2_000)
    scenario.refresh_from_db()
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output, compare_with=[other])
    return {"scenario": scenario, "other": other, "token": token, "analyst": analyst}


def _decide_with_a_brief(shared: dict) -> str:
    """The same scenario decided, with a rationale, a workload brief and four of the seven questions answered: the
    brief a leader usually opens. Returns its link's token."""
    scenario, analyst = shared["scenario"], shared["analyst"]
    answers = dict.fromkeys(BRIEF_KEYS, "")
    for key in BRIEF_KEYS[:4]:
        answers[key] = "Settled with the platform team: see the capacity plan of 2026-11, section 3, for the detail."
    brief_update(
        scenario=scenario,
        user=analyst,
        expected_version=None,
        question="Rent or own the inference fleet for the next five years?",
        workload_brief="A 70B model in FP8 serving the support assistant: 350 output tokens per answer, 90 % kept.",
        answers=answers,
    )
    decision_record(
        scenario=scenario,
        user=analyst,
        option_name="Hyperstack H100",
        rationale="Renting is cheaper at the forecast utilization in every simulated case we looked at; we revisit "
        "the decision when utilization stays above 80 % for a quarter.",
    )
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output, compare_with=[shared["other"]])
    return token


def _wait_for_charts(page) -> None:
    page.wait_for_function(
        "() => { const charts = [...document.querySelectorAll('[data-figure]')];"
        " return charts.length > 0 && charts.every((el) => el.querySelector('.main-svg')); }"
    )


# Elements whose right edge is past the layout width, outside any scroll box (what a page or a printout cuts).
PAST_THE_EDGE_JS = """(width) => [...document.querySelectorAll('body *')].filter((el) => {
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.right <= width + 1 || el.closest('.sr-only')) return false;
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    // A box that scrolls or clips inside the page keeps it in: CLIPPED_JS finds those.
    if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= width + 1) return false;
  }
  return true;
}).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') || ''}`
  + ` ${Math.round(el.getBoundingClientRect().right)}`)"""
# Boxes that scroll or clip their content sideways (on paper a scroll box prints its first columns only).
CLIPPED_JS = """(width) => [...document.querySelectorAll('body *')].filter((el) => {
  if (el.closest('.sr-only, .js-plotly-plot') || !el.getClientRects().length) return false;
  const style = getComputedStyle(el);
  return style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1;
}).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') || ''}`
  + ` ${el.scrollWidth}>${el.clientWidth}`)"""
# Tables whose content is wider than their own box (a cell cut at the table's edge).
CUT_TABLES_JS = """(width) => [...document.querySelectorAll('table')].filter((t) => t.getClientRects().length)
  .filter((t) => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > width + 1)
  .map((t) => `${t.id || t.className} ${t.scrollWidth}>${t.clientWidth}`)"""
# Every drawn chart: its box, its annotations (the break-even map's labels) and its bar labels.
CHART_BOXES_JS = """() => [...document.querySelectorAll('[data-figure]')]
  .filter((el) => el.getClientRects().length).map((el) => {
  const svg = el.querySelector('.main-svg').getBoundingClientRect();
  const notes = [...el.querySelectorAll('.annotation')].map((n) => n.getBoundingClientRect())
    .map((r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom}));
  const barTexts = [...el.querySelectorAll('.bartext')].map((t) => { const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right}; });
  const rows = new Set(el._fullData.filter((t) => t.type === 'bar' && t.orientation === 'h').flatMap((t) => t.y)).size;
  const rowLabels = el.querySelectorAll('.yaxislayer-above .ytick text').length;
  return {id: el.id, left: svg.left, right: svg.right, width: svg.width, notes, barTexts, rows, rowLabels};
})"""


def _overlapping(boxes: list[dict]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, a in enumerate(boxes)
        for j, b in enumerate(boxes)
        if i < j
        and min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1
    ]


def _print_on_a4(page) -> None:
    """The page as Chromium prints it on A4: print media, laid out at the paper's content width."""
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_CONTENT_WIDTH, "height": 1000})
    page.wait_for_timeout(500)


def _assert_nothing_cut_on_a4(page, *, tables: bool = False) -> None:
    """Nothing past the paper's edge and no box that clips its content sideways (nor a table cut, with ``tables``)."""
    checks = [PAST_THE_EDGE_JS, CLIPPED_JS, *([CUT_TABLES_JS] if tables else [])]
    for script in checks:
        found = page.evaluate(script, A4_CONTENT_WIDTH)
        assert found == [], "\n".join(found)


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


def test_the_brief_with_a_comparison_prints_on_at_most_three_a4_pages_charts_full_width(live_server, shared, new_page):
    """Open (as first shared), then decided with a rationale and answers (what a leader usually opens): one build of
    the scenario, each brief in a tab of its own."""
    for state in ("open", "decided"):
        token = shared["token"] if state == "open" else _decide_with_a_brief(shared)
        page = new_page(viewport={"width": 1366, "height": 900})  # a laptop: the charts are first drawn for its screen
        with case(f"the {state} brief"):
            _check_the_brief_prints_charts_full_width(page, f"{live_server.url}/d/{token}")


def _check_the_brief_prints_charts_full_width(page, url: str) -> None:
    page.goto(url)
    assert page.locator("#frozen-comparison").count() == 1 and page.locator("#frozen-uncertainty").count() == 1
    _wait_for_charts(page)

    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_CONTENT_WIDTH, "height": 1000})
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-figure]')].filter((el) => el.getClientRects().length)"
        ".every((el) => el.querySelector('.main-svg').getBoundingClientRect().width >= 650)"
    )
    page.wait_for_timeout(300)
    charts = page.evaluate(CHART_BOXES_JS)
    # Four brief charts (the forecast month by month is left off paper, as the comparison's chart of every option of
    # every scenario and the tornado chart, whose rows print in words: the page says where they are), the simulation's
    # histogram.
    assert [chart["id"] for chart in charts] == [
        "chart-annual_cost",
        "chart-cumulative",
        "chart-cost_per_output",
        "chart-break_even_map",
        "u-chart-outcome_histogram",
    ]
    assert page.locator("#u-tornado-table").is_visible()
    assert "tornado chart of these rows is on the web page" in page.inner_text("#u-tornado-on-the-web")
    for chart in charts:
        assert 650 <= chart["width"] <= A4_CONTENT_WIDTH + 1, f"{chart['id']} is not page-wide: {chart['width']}"
        for text in chart["barTexts"]:
            assert chart["left"] <= text["left"] and text["right"] <= chart["right"], f"{chart['id']}: {text} cut"
        if chart["rows"]:  # a horizontal bar chart (bars per option, the tornado) names every row
            named = f"{chart['id']} names {chart['rowLabels']} of its {chart['rows']} rows"
            assert chart["rowLabels"] == chart["rows"], named
    _assert_nothing_cut_on_a4(page)
    heat_map = next(chart for chart in charts if chart["id"] == "chart-break_even_map")
    assert len(heat_map["notes"]) >= 3 and _overlapping(heat_map["notes"]) == [], heat_map["notes"]

    pages = _pages(page.pdf(format="A4", print_background=True))
    assert 1 <= pages <= 3, f"the brief prints on {pages} A4 pages"


def test_the_scenario_page_prints_its_inputs_and_answer_without_clipping(live_server, analyst, shared, new_page):
    page = new_page(viewport={"width": 1366, "height": 900})
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{shared['scenario'].pk}/")
    _wait_for_charts(page)

    page.emulate_media(media="print")
    # As a print dialog does: the charts drawn for the laptop's screen are redrawn for paper before it lays out.
    page.wait_for_function(
        "(width) => [...document.querySelectorAll('[data-figure]')].filter((el) => el.getClientRects().length)"
        ".every((el) => el.querySelector('.main-svg').getBoundingClientRect().width <= width)",
        arg=A4_CONTENT_WIDTH,
    )
    page.set_viewport_size({"width": A4_CONTENT_WIDTH, "height": 1000})
    page.wait_for_timeout(500)
    assert page.locator("#inputs").is_visible() and page.locator("#option-table").is_visible()
    assert page.locator("button:visible, a.button:visible").count() == 0  # no control on paper
    # Every input row (label, value, note) is kept on one page: each avoids a break inside and fits on a page.
    rows = page.evaluate(
        "() => [...document.querySelectorAll('#inputs .field, #inputs tr')].filter((el) => el.getClientRects().length)"
        ".map((el) => ({id: el.id, breakInside: getComputedStyle(el).breakInside,"
        " height: el.getBoundingClientRect().height}))"
    )
    assert len(rows) > 20
    split = [row for row in rows if row["breakInside"] != "avoid" or row["height"] > A4_CONTENT_HEIGHT]
    assert split == [], split
    _assert_nothing_cut_on_a4(page)
    assert _pages(page.pdf(format="A4", print_background=True)) >= 1


def test_every_page_leadership_opens_fits_a_390px_phone(live_server, analyst, shared, new_page):
    """The scenario page (its links table lists the decision link), the decision link, compare, then the scenario
    page again once decided (its panel adds "Reason to re-open"): each page's width is gathered, then asserted."""
    page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    log_in(page, live_server, analyst)
    scenario, other = shared["scenario"], shared["other"]
    urls = {
        "scenario": f"/scenarios/{scenario.pk}/",
        "decision link": f"/d/{shared['token']}",
        "compare": f"/scenarios/compare/?s={scenario.pk}&s={other.pk}",
        "decided scenario": f"/scenarios/{scenario.pk}/",
    }
    too_wide = []
    for where, url in urls.items():
        if where == "decided scenario":
            decision_record(
                scenario=scenario,
                user=analyst,
                option_name="Hyperstack H100",
                rationale="Cheapest.",
                confirm_older=True,
            )
        with case(f"the {where} page"):
            page.goto(live_server.url + url)
            _wait_for_charts(page)
            if where == "decided scenario":
                page.locator("#reopen-reason").wait_for()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > 390:
            too_wide.append(f"the {where} page is {width} px wide: {page.evaluate(PAST_THE_EDGE_JS, 390)}")
    assert too_wide == [], "\n".join(too_wide)


def test_a_brief_comparing_three_scenarios_prints_on_at_most_three_a4_pages_nothing_cut(live_server, shared, new_page):
    scenario, analyst = shared["scenario"], shared["analyst"]
    others = [shared["other"]]
    for months in (48, 24):
        variant = copy.deepcopy(LEADERSHIP_SCENARIO)
        variant.update(name=f"64x H100, {months} months, rented burst", horizon_months=months)
        others.append(scenario_create_from_document(document=variant, user=analyst))
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output, compare_with=others)
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/d/{token}")
    _wait_for_charts(page)
    _print_on_a4(page)
    _assert_nothing_cut_on_a4(page)
    # The per-option tables of four scenarios are too wide to sit side by side: one under the other.
    npv, annual = (page.locator(f"#{table}").bounding_box() for table in ("compare-npv", "compare-annual"))
    first, second = sorted((npv, annual), key=lambda box: box["y"])
    assert second["y"] >= first["y"] + first["height"] and npv["width"] > A4_CONTENT_WIDTH * 0.9
    pages = _pages(page.pdf(format="A4", print_background=True))
    assert 1 <= pages <= 3, f"the brief prints on {pages} A4 pages"


def _finance_scenario() -> dict:
    """The leadership scenario taxed at 21 %: the new hardware leased for the horizon, the used one on MACRS 5-year
    replaced when its 3-year life ends, the commitment in half-upfront 1-year terms."""
    document = copy.deepcopy(LEADERSHIP_SCENARIO)
    document.update(name="64x H100 after tax", tax_rate=0.21, cost_of_debt=0.055, refresh_policy="replace")
    new, _, used, committed, _ = document["options"]
    new.update(financing="lease", lease_payment=42_000, lease_term_months=60)
    used.update(tax_depreciation="macrs_5", capex_change_per_year=-0.15)
    committed.update(committed_gpus=32, commitment_term_months=12, upfront_share=0.5, on_demand_price_per_gpu_hour=2.49)
    return document


def test_a_taxed_leased_committed_brief_prints_its_finance_answers_on_at_most_three_a4_pages(
    live_server, analyst, new_page, monkeypatch
):
    from tco.services import evaluation

    document = _finance_scenario()
    scenario = scenario_create_from_document(document=copy.deepcopy(LEADERSHIP_SCENARIO), user=analyst)
    # The finance inputs reach a scenario's rows through the editor; the link freezes the finance document itself.
    with monkeypatch.context() as patch:
        patch.setattr(evaluation, "scenario_document", lambda *args, **kwargs: copy.deepcopy(document))
        _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output)
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/d/{token}")
    _wait_for_charts(page)
    assert page.locator("#headline").inner_text().startswith("After tax at 21.0%, ")
    lines = page.locator("#finance-answers li").all_inner_texts()
    assert any("leasing" in line and "borrowing to buy" in line for line in lines)
    assert any("Used 64x H100: replaced in month 36 (year 3)" in line for line in lines)
    assert any("Committed H100: the committed GPUs must be busy at least" in line for line in lines)
    assert page.locator("#break-even-table thead").inner_text().count("After tax") == 1

    _print_on_a4(page)
    _assert_nothing_cut_on_a4(page)
    pages = _pages(page.pdf(format="A4", print_background=True))
    assert 1 <= pages <= 3, f"the brief prints on {pages} A4 pages"
