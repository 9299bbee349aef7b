"""The cumulative cost chart marks each replacement, lease end and commitment renewal on its option's line, with
words and the month in its hover."""

from __future__ import annotations

import pytest

from tco.charts.costs import cumulative_cost
from tco.engine import evaluate
from tco.presentation.events import cost_events
from tests.engine.docs import owned, rental, scenario

from .finance_docs import finance_document


def _markers(figure, name):
    return next((trace for trace in figure["data"] if trace["name"] == name), None)


def _cumulative(result, name):
    return next(option for option in result["options"] if option["name"] == name)["cumulative_cost"]


def test_replacements_lease_ends_and_renewals_are_marked_in_their_months():
    document = finance_document()
    result = evaluate(document)
    figure = cumulative_cost(result, document)
    replaced = _markers(figure, "Hardware replaced")
    # A 2-year life over 48 months: one new unit in month 24, at 320,000 x 0.8^2 on the capex path.
    assert replaced["x"] == [24]
    assert replaced["y"] == [round(_cumulative(result, "Own 8x H100")[23])]
    assert replaced["customdata"] == [
        "Own 8x H100: replaced in month 24 (year 2) by a new unit for $204,800, the old one sold"
    ]
    lease = _markers(figure, "Lease ends")
    assert lease["x"] == [36]  # the 3-year lease's term; replaced by a new lease
    assert lease["customdata"] == [
        "Lease 8x H100: the lease ends in month 36 (year 3): the unit is returned; a new lease starts"
    ]
    renewals = _markers(figure, "Commitment renews or ends")
    assert renewals["x"] == [13, 25, 37]  # 1-year terms from month 1 over 48 months
    assert (
        renewals["customdata"][0] == "Lambda 1-year: the commitment renews in month 13 (year 2) at $2.60 per GPU-hour"
    )
    assert all("Cumulative cost $%{y:,.0f}" in trace["hovertemplate"] for trace in (replaced, lease, renewals))


def test_a_commitment_that_falls_back_to_on_demand_says_from_which_month():
    committed = rental(
        name="Committed",
        billing="committed",
        committed_gpus=4,
        price_per_gpu_hour=2.0,
        commitment_term_months=12,
        after_term="on_demand",
        on_demand_price_per_gpu_hour=4.0,
    )
    document = scenario(owned(name="Own"), rental(name="Lambda"), committed, horizon_months=30)
    events = cost_events(document, evaluate(document))
    assert events == [
        {
            "kind": "commitment",
            "option": "Committed",
            "month": 13,
            "text": "Committed: the last whole commitment term ends; from month 13 (year 2) every hour is bought on "
            "demand",
        }
    ]


def test_a_bought_out_lease_ends_with_its_buyout_price():
    leased = owned(
        name="Leased",
        financing="lease",
        lease_payment=5000.0,
        lease_term_months=24,
        lease_end="buyout",
        lease_buyout_price=45_000.0,
    )
    document = scenario(leased, rental(name="Lambda"), horizon_months=36)
    assert [event["text"] for event in cost_events(document, evaluate(document))] == [
        "Leased: the lease ends in month 24 (year 2): bought out for $45,000"
    ]


@pytest.mark.parametrize("with_document", [True, False])
def test_a_scenario_without_the_finance_depth_has_no_markers(with_document):
    document = scenario(owned(name="Own"), rental(name="Lambda"))
    figure = cumulative_cost(evaluate(document), document if with_document else None)
    assert [trace["name"] for trace in figure["data"] if trace["mode"] == "markers"] == []


def test_the_comparison_chart_runs_over_the_months_each_scenario_compares():
    from tco.charts.comparison import cumulative_comparison

    cut = scenario(owned(name="Own", useful_life_years=2), rental(), refresh_policy="truncate", horizon_months=48)
    figure = cumulative_comparison([{"name": "Cut", "result": evaluate(cut)}], "USD")
    lines = [trace for trace in figure["data"] if trace.get("mode") == "lines"]
    assert lines and all(len(trace["x"]) == len(trace["y"]) == 24 for trace in lines)
