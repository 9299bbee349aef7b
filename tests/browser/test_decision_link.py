"""A leader opens a decision link in a fresh, logged-out Chromium: right headline numbers, charts drawn."""

from __future__ import annotations

import copy
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from tco.charts import snapshot as snapshot_output
from tco.services import option_pick_price, scenario_create_from_document
from tco.services.decisions import link_create
from tests.browser.helpers import case
from tests.decisions.conftest import DOCUMENT, LAMBDA_ROW, REPO, import_prices

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

LAMBDA_PRICE = 3.99  # the Market price the rental option picks (LAMBDA_ROW)


@pytest.fixture
def link_url(live_server, editor) -> str:
    from pricing.models import PriceObservation
    from pricing.services import reference_data_load

    reference_data_load(path=REPO / "fixtures" / "reference.json")
    import_prices(LAMBDA_ROW)
    scenario = scenario_create_from_document(document=copy.deepcopy(DOCUMENT), user=editor)
    option_pick_price(
        option=scenario.options.get(kind="neocloud"),
        user=editor,
        expected_version=None,
        observation=PriceObservation.objects.get(provider__name="Lambda"),
    )
    _, token = link_create(scenario=scenario, user=editor, output=snapshot_output)
    return f"{live_server.url}/d/{token}"


def _dollars(value: float) -> str:
    return f"${Decimal(repr(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP):,}"


def _percent(fraction: float) -> str:
    return f"{(Decimal(repr(fraction)) * 100).quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}%"


def expected_headline() -> dict[str, str]:
    """docs/money-math.md by hand for DOCUMENT with the rental at $3.99: NPVs, savings and break-even."""
    owned = DOCUMENT["options"][0]
    months, rate, fleet, u = DOCUMENT["horizon_months"], DOCUMENT["discount_rate"], DOCUMENT["fleet_gpus"], 0.6
    discount = [(1 + rate) ** (m / 12) for m in range(1, months + 1)]
    busy_hours = fleet * 730 * u
    rental_npv = sum(busy_hours * LAMBDA_PRICE / d for d in discount)

    capex, residual, life, r = (
        owned["capex"],
        owned["residual_value"],
        owned["useful_life_years"],
        owned["cost_of_capital"],
    )
    kwh = owned["pue"] * 8760 * owned["electricity_per_kwh"]
    energy = (owned["idle_power_kw"] + (owned["power_kw"] - owned["idle_power_kw"]) * u) * kwh
    fixed = owned["facility_per_year"] + owned["support_per_year"] + owned["operations_per_year"]
    resale = capex - (capex - residual) * min(months / (12 * life), 1)
    owned_npv = capex + sum((energy + fixed) / 12 / d for d in discount) - resale / (1 + rate) ** (months / 12)

    capital_charge = (capex - residual * (1 + r) ** -life) * r / (1 - (1 + r) ** -life)
    break_even = (capital_charge + owned["idle_power_kw"] * kwh + fixed) / (
        fleet * 8760 * LAMBDA_PRICE - (owned["power_kw"] - owned["idle_power_kw"]) * kwh
    )
    return {
        "cheapest": "Lambda rental",
        "cheapest_npv": _dollars(rental_npv),
        "savings": _dollars(owned_npv - rental_npv),
        "runner_up_npv": _dollars(owned_npv),
        "break_even": _percent(break_even),
        "forecast": _percent(u),
    }


def test_a_logged_out_leader_sees_the_right_headline_every_chart_a_three_page_print_and_a_phone_fit(new_page, link_url):
    """One link, opened as a leader opens it from an e-mail (no cookies, no session): on a laptop its headline
    numbers, its charts drawn, then the same page printed; then on a phone."""
    expected = expected_headline()
    leader_page = new_page(viewport={"width": 1280, "height": 900})

    with case("the headline numbers"):
        response = leader_page.goto(link_url)

        assert response.status == 200
        assert leader_page.inner_text("#card-cheapest") == expected["cheapest"]
        assert leader_page.inner_text("#card-cheapest-npv") == expected["cheapest_npv"]
        assert leader_page.inner_text("#card-savings") == expected["savings"]
        assert leader_page.inner_text("#card-runner-up-npv") == expected["runner_up_npv"]
        assert leader_page.inner_text("#card-break-even") == expected["break_even"]
        assert leader_page.inner_text("#card-forecast") == expected["forecast"]
        assert f"breaks even above {expected['break_even']} utilization" in leader_page.inner_text("#headline")
        assert leader_page.context.cookies() == []

    with case("every chart drawn"):
        containers = leader_page.locator(".brief-chart [data-figure]")
        leader_page.wait_for_function(
            "() => [...document.querySelectorAll('.brief-chart [data-figure]')]"
            ".every((el) => el.querySelector('.main-svg'))"
        )
        count = containers.count()
        assert count == 5
        for index in range(count):
            assert containers.nth(index).locator(".main-svg").count() >= 1
            assert containers.nth(index).locator(".plotly").count() == 1

    # The promise for leadership: a tidy brief of at most three A4 pages (charts at full page width), charts
    # included, screen-only links hidden.
    with case("the brief printed"):
        leader_page.emulate_media(media="print")
        charts_shown = leader_page.evaluate(
            "() => [...document.querySelectorAll('.brief-chart')]"
            ".filter((el) => el.getBoundingClientRect().height > 0).length"
        )
        screen_only = leader_page.evaluate(
            "() => [...document.querySelectorAll('.no-print')].map((el) => el.getBoundingClientRect().height)"
        )

        pdf = leader_page.pdf(format="A4", print_background=True)

        pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))
        assert 1 <= pages <= 3, f"the brief prints on {pages} A4 pages"
        assert charts_shown == 4  # every chart but the utilization forecast's (the web page shows it)
        assert screen_only and not any(screen_only)  # the download links are there on screen, not on paper

    with case("the brief on a phone, without sideways scrolling"):
        page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
        page.goto(link_url)
        page.wait_for_selector(".brief-chart .main-svg")

        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")

        assert overflow <= 0
