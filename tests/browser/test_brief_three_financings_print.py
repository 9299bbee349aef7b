"""A decision link comparing three scenarios that differ in how the owned hardware is paid for (cash; a loan with
its defaults typed out; a lease) prints on at most three A4 pages: the "inputs that differ" table lists only inputs
that apply and are not at their default (a loan's terms only where there is a loan, a blank and its default typed
out are the same). A long price source address and the brief's own address wrap instead of running off the page."""

from __future__ import annotations

import copy

import pytest

from tco.charts import snapshot as snapshot_output
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.browser.test_leadership_media import (
    LEADERSHIP_SCENARIO,
    _assert_nothing_cut_on_a4,
    _pages,
    _print_on_a4,
    _wait_for_charts,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

LONG_SOURCE = (
    "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/20261101000000/us-east-1/index.json"
    "?region=us-east-1&instance=p5.48xlarge&term=OnDemand&operatingSystem=Linux&tenancy=Shared&capacity=Used"
)


def _variant(name: str, **owned) -> dict:
    document = copy.deepcopy(LEADERSHIP_SCENARIO)
    document["name"] = name
    for option in document["options"]:
        if option["kind"] in ("owned", "secondary"):
            option.update(owned)
    return document


def _scenarios(analyst) -> tuple:
    base = copy.deepcopy(LEADERSHIP_SCENARIO)
    base["options"][1]["price_source"] = {
        "provider": "AWS",
        "pricing_term": "on_demand",
        "observed_on": "2026-11-01",
        "source_url": LONG_SOURCE,
    }
    loan = _variant(
        "64x H100, borrowed",
        financing="loan",
        loan_apr=0.07,
        loan_term_months=48,
        down_payment_share=0,  # its default, typed out
        tax_depreciation="straight_line",  # its default, typed out
        capex_change_per_year=0,  # its default, typed out
    )
    lease = _variant(
        "64x H100, leased",
        financing="lease",
        lease_payment=160_000,
        lease_payment_interval_months=3,
        lease_term_months=60,
        lease_payment_timing="advance",  # its default, typed out
        lease_end="return",  # its default, typed out
    )
    return tuple(scenario_create_from_document(document=d, user=analyst) for d in (base, loan, lease))


def test_three_financings_compared_print_on_at_most_three_pages_with_only_the_differences_that_matter(
    new_page, live_server, analyst
):
    base, loan, lease = _scenarios(analyst)
    _, token = link_create(scenario=base, user=analyst, compare_with=[loan, lease], output=snapshot_output)
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/d/{token}")
    _wait_for_charts(page)
    differences = page.locator("#frozen-comparison").inner_text()
    assert "Loan APR" in differences and "Lease payment" in differences
    for default_or_idle in ("Lease payment timing", "Down payment", "Tax depreciation", "Lease end", "Buyout"):
        assert default_or_idle not in differences, default_or_idle

    _print_on_a4(page)
    _assert_nothing_cut_on_a4(page, tables=True)
    pages = _pages(page.pdf(format="A4", print_background=True))
    assert 1 <= pages <= 3, f"the brief comparing three financings prints on {pages} A4 pages"
