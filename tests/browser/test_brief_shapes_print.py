"""Decision briefs of every part a brief can have print on at most 3 A4 pages with nothing clipped: the leadership
scenario (five options, in euros) in four shapes that together hold each part, from the barest to the fullest. No
comparison nor simulation; a simulation with a fleet plan and one compared scenario, open; a simulation without a
load profile (no fleet plan) and three compared scenarios, decided with a rationale and four questions answered;
and everything, three compared, decided with all seven answered (the longest). Nothing is wider than the page's
content box, no box scrolls or cuts a table; what paper leaves to the web page (the tornado chart, the fleet plan's
chart) is said on the paper."""

from __future__ import annotations

import copy
import math

import pytest

from tco.charts import snapshot as snapshot_output
from tco.models import BRIEF_KEYS
from tco.services import scenario_create_from_document
from tco.services.decisions import brief_update, decision_record, link_create
from tco.services.uncertainty import uncertainty_run_queue
from tests.browser.test_leadership_media import (
    LEADERSHIP_SCENARIO,
    _assert_nothing_cut_on_a4,
    _pages,
    _print_on_a4,
    _wait_for_charts,
)
from tests.scenarios.factories import give_ranges

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# Two weeks of hourly load on the 64 GPUs: a daily swing between about 20 and 60 busy.
LOAD_PROFILE = [round(40 + 20 * math.sin(2 * math.pi * hour / 24), 2) for hour in range(24 * 14)]
# Each part of a brief is in at least one shape: no simulation and no comparison (the first); the tornado in words
# (every other); the fleet plan's lanes (the second, the fourth) and a simulation without them (the third); one
# compared scenario (the second) and three (the third, the fourth); open (the second), decided with four answers (the
# third) and with all seven (the fourth, the longest brief). A simulation or a fleet plan with no comparison, and the
# fleet plan with three compared open or with four answers, add no part these lack.
SHAPES = [
    "no comparison",
    "a fleet plan, one comparison",
    "a simulation, three comparisons, decided",
    "everything, three comparisons, decided, seven answered",
]


def _brief(analyst, shape: str) -> str:
    """The link's token for the leadership scenario in ``shape``."""
    scenario = scenario_create_from_document(document=copy.deepcopy(LEADERSHIP_SCENARIO), user=analyst)
    if shape != "no comparison":
        owned, rental = list(scenario.options.all())[:2]
        give_ranges(
            scenario,
            [
                (None, "utilization", "0.3", "0.55", "0.8"),
                (owned, "capex", "2000000", "2222222.22", "2600000"),
                (rental, "price_per_gpu_hour", "2", "2.49", "3.5"),
            ],
            user=analyst,
        )
        profile = LOAD_PROFILE if not shape.startswith("a simulation") else ()
        uncertainty_run_queue(scenario=scenario, user=analyst, trials=1_000, load_profile=profile)
        scenario.refresh_from_db()
    others = []
    if "comparison" in shape and shape != "no comparison":
        for months in (36, 48, 24)[: 3 if "three" in shape else 1]:
            variant = copy.deepcopy(LEADERSHIP_SCENARIO)
            variant.update(name=f"64x H100, {months} months", horizon_months=months)
            others.append(scenario_create_from_document(document=variant, user=analyst))
    if "decided" in shape:  # with a rationale and four (or all) of the seven questions answered
        answers = dict.fromkeys(BRIEF_KEYS, "")
        for key in BRIEF_KEYS[: 7 if "seven" in shape else 4]:
            answers[key] = "Settled with the platform team: see the capacity plan of 2026-11, section 3."
        brief_update(
            scenario=scenario,
            user=analyst,
            expected_version=None,
            question="Rent or own the inference fleet for the next five years?",
            workload_brief="A 70B model in FP8 serving the support assistant: 350 output tokens per answer.",
            answers=answers,
        )
        decision_record(
            scenario=scenario,
            user=analyst,
            option_name="Hyperstack H100",
            rationale="Renting is cheaper at the forecast utilization in every simulated case we looked at.",
        )
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output, compare_with=others)
    return token


@pytest.mark.parametrize("shape", SHAPES)
def test_the_brief_prints_on_at_most_three_a4_pages_nothing_clipped(new_page, live_server, analyst, shape):
    token = _brief(analyst, shape)
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/d/{token}")
    _wait_for_charts(page)
    assert page.locator("#frozen-uncertainty").count() == (shape != "no comparison")
    if "fleet plan" in shape or shape.startswith("everything"):
        assert page.locator("#frozen-uncertainty table").count() >= 1
        assert "No load profile" not in page.inner_text("#frozen-uncertainty")
    assert page.locator("#frozen-comparison").count() == ("comparison" in shape and shape != "no comparison")

    _print_on_a4(page)
    _assert_nothing_cut_on_a4(page, tables=True)
    if shape != "no comparison":  # the tornado in words, its chart on the web page (the line says where)
        assert page.locator("#u-tornado-table").is_visible()
        assert not page.locator("#u-chart-box-tornado").is_visible()
        where = page.inner_text("#u-tornado-on-the-web")
        assert f"tornado chart of these rows is on the web page: {live_server.url}/d/{token}" in where
    if "fleet plan" in shape or shape.startswith("everything"):  # the plan in words and lanes, its chart on the web
        assert page.locator("#u-lanes-table").is_visible()
        assert "on the web page of this brief" in page.inner_text("#u-plan-sentence")
        assert not page.locator("#u-chart-box-fleet_plan").is_visible()
    pages = _pages(page.pdf(format="A4", print_background=True))
    assert 1 <= pages <= 3, f"the brief ({shape}) prints on {pages} A4 pages"
