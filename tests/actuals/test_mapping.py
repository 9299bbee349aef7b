"""Mapping rules send billing lines to a decided scenario's options; what no rule maps is shown, never dropped; money
in another currency converts at the dated rate (docs/money-math.md), or is shown apart when no rate exists."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from pricing.models import ExchangeRate
from tco.models import MappingRule
from tco.selectors.actuals import plan_comparison, rule_option
from tco.services.actuals import ActualsError, actuals_import, rule_add
from tests.actuals.story import OWN, RENT

pytestmark = pytest.mark.django_db
FOCUS = Path(__file__).parent / "samples" / "focus-1.0-sample-excerpt.csv"
SEPTEMBER = pytest.mark.parametrize("plan", ["2024-09"], indirect=True)


def _sample_total() -> float:
    rows = csv.DictReader(io.StringIO(FOCUS.read_text()))
    return sum(float(row["BilledCost"]) for row in rows if row["BilledCost"] != "NULL")


@SEPTEMBER
def test_cost_no_rule_maps_is_shown_as_unmapped(plan):
    actuals_import(stream=FOCUS.open("rb"), file_name=FOCUS.name)
    view = plan_comparison(plan)
    assert view.unmapped_cost == pytest.approx(_sample_total())
    assert sum(float(b.billed_cost) for b in view.breakdown if b.option is None) == pytest.approx(_sample_total())


@SEPTEMBER
def test_a_rule_by_sku_maps_the_g5_rows_to_the_rental_with_their_gpu_hours(plan):
    actuals_import(stream=FOCUS.open("rb"), file_name=FOCUS.name)
    rule_add(plan=plan, option_name=RENT, provider="AWS", sku="4GQWNPC9K2PZAY97")
    view = plan_comparison(plan)
    rent = next(option for option in view.comparison.options if option.name == RENT)
    september = rent.months[0].actual
    assert september.cost == pytest.approx(1.624 + 0.480884264 + 1.624)
    # A rental on demand is billed for the hours it runs: its billed GPU-hours stand for its busy ones.
    assert september.busy_gpu_hours == pytest.approx(2.296111)
    assert view.unmapped_cost == pytest.approx(_sample_total() - september.cost)


def test_a_tag_rule_matches_a_key_and_value_of_the_json_tags():
    tags = '{"application": "BrightPathMatrix", "environment": "dev"}'
    for tag, expected in (("environment=dev", True), ("environment=prod", False), ("application", True)):
        rule = MappingRule(option_name="Rent", tag=tag)
        found = rule_option([rule], provider="AWS", service="", sku="", resource="", tags=tags)
        assert (found == "Rent") is expected, tag


def test_owned_costs_in_euros_convert_at_the_rate_of_the_months_end(plan):
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.0800"), rate_date=date(2027, 1, 29), source="ECB"
    )
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.2000"), rate_date=date(2026, 6, 1), source="ECB"
    )
    data = b"month,kind,amount,currency,resource\n2027-01,energy,1000,EUR,gpu-server-1\n"
    actuals_import(stream=io.BytesIO(data), file_name="owned.csv")
    view = plan_comparison(plan)
    own = next(option for option in view.comparison.options if option.name == OWN)
    assert own.months[0].actual.cost == pytest.approx(1080.0)
    assert any("1 EUR = 1.08 USD" in text for text in view.rates_used)


def test_money_without_a_rate_is_shown_apart_not_added(plan):
    data = b"month,kind,amount,currency,resource\n2027-01,energy,1000,GBP,rack-9\n"
    actuals_import(stream=io.BytesIO(data), file_name="owned.csv")
    view = plan_comparison(plan)
    assert view.unmapped_unconverted == {"GBP": Decimal("1000")}
    assert view.unmapped_cost == 0.0
    assert view.missing_rates == ["GBP → USD for 2027-01"]


def test_a_rule_needs_an_option_of_the_plan_and_something_to_match(plan):
    with pytest.raises(ActualsError, match="one of the decided scenario's options"):
        rule_add(plan=plan, option_name="Nobody", provider="AWS")
    with pytest.raises(ActualsError, match="at least one"):
        rule_add(plan=plan, option_name=OWN)
