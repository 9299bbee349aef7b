"""Cross-checks against numpy-financial and an independent NPV summation."""

from __future__ import annotations

import numpy_financial as npf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import capital_charge, evaluate
from tests.hypothesis_profiles import examples

from .docs import scenario
from .strategies import scenarios


@settings(max_examples=examples(100), deadline=None)
@given(
    st.floats(1, 5_000_000),
    st.floats(0, 1),
    st.floats(0.5, 30),
    st.one_of(st.just(0.0), st.floats(0.001, 1)),
)
def test_capital_charge_equals_numpy_financial_pmt(capex, residual_share, life, rate):
    residual = capex * residual_share
    expected = npf.pmt(rate, life, -capex, residual)
    charge = capital_charge(capex=capex, residual_value=residual, useful_life_years=life, cost_of_capital=rate)
    assert charge == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_npv_equals_direct_summation_for_the_design_example():
    doc = scenario()
    result = evaluate(doc)
    for source, option in zip(doc["options"], result["options"], strict=True):
        capex = source.get("capex", 0.0)  # paid at month 0, undiscounted; shown in month 1's cash
        expected = capex
        for month, cash in enumerate(option["monthly_cost"], start=1):
            expected += (cash - (capex if month == 1 else 0.0)) / 1.08 ** (month / 12)
        expected -= option["resale_value"] / 1.08 ** (36 / 12)
        assert option["npv"] == pytest.approx(expected, rel=1e-12)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_npv_equals_numpy_financial_npv_at_the_monthly_rate(doc):
    monthly_rate = (1 + doc["discount_rate"]) ** (1 / 12) - 1
    result = evaluate(doc)
    for source, option in zip(doc["options"], result["options"], strict=True):
        capex = source.get("capex", 0.0) if source["kind"] in ("owned", "secondary") else 0.0
        flows = [capex, option["monthly_cost"][0] - capex, *option["monthly_cost"][1:]]
        flows[-1] -= option["resale_value"]
        assert option["npv"] == pytest.approx(npf.npv(monthly_rate, flows), rel=1e-9, abs=1e-6)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_total_cost_is_the_last_cumulative_cost_less_resale(doc):
    for option in evaluate(doc)["options"]:
        assert option["cumulative_cost"][-1] == pytest.approx(sum(option["monthly_cost"]), rel=1e-12)
        assert option["total_cost"] == option["cumulative_cost"][-1] - option["resale_value"]
