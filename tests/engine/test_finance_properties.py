"""Identities of the finance depth (docs/money-math.md "Finance depth") over generated scenarios."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import evaluate

from .strategies import scenarios

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SAVINGS = ("pv_opex_tax_saving", "pv_depreciation_tax_shield", "pv_financing_tax_saving")


@st.composite
def financed(draw) -> dict:
    """A generated scenario whose owned option pays cash, borrows or leases, with tax and maybe a refresh."""
    doc = draw(scenarios())
    horizon = doc["horizon_months"]
    own = doc["options"][0]
    own["tax_depreciation"] = draw(st.sampled_from(["macrs_3", "macrs_5", "macrs_7", "straight_line", "none"]))
    own["bonus_depreciation"] = draw(st.sampled_from([0.0, 0.4, 1.0]))
    financing = draw(st.sampled_from(["cash", "loan", "lease"]))
    own["financing"] = financing
    if financing == "loan":
        own["loan_apr"] = draw(st.sampled_from([0.0, 0.05, 0.12]))
        own["loan_term_months"] = draw(st.integers(1, 72))
        own["down_payment_share"] = draw(st.sampled_from([0.0, 0.25]))
    elif financing == "lease":
        own["lease_payment"] = draw(st.floats(100, 50_000))
        own["lease_term_months"] = horizon
        own["lease_payment_timing"] = draw(st.sampled_from(["advance", "arrears"]))
    doc["refresh_policy"] = draw(st.sampled_from(["none", "replace", "truncate"]))
    if doc["refresh_policy"] == "truncate":
        own["useful_life_years"] = max(own["useful_life_years"], horizon / 12)  # keep the lease within the cycle
    other = doc["options"][2]
    if other["billing"] == "committed" and draw(st.booleans()):
        other["commitment_term_months"] = draw(st.integers(1, horizon))
        other["upfront_share"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
        other["after_term"] = draw(st.sampled_from(["renew", "on_demand"]))
    if draw(st.booleans()):
        del doc["options"][1]["price_change_per_year"]
        doc["options"][1]["price_change_by_year"] = draw(st.lists(st.floats(-0.5, 0.5), min_size=1, max_size=4))
    own["capex_change_per_year"] = draw(st.sampled_from([0.0, -0.2]))
    doc["tax_rate"] = draw(st.sampled_from([0.0, 0.21, 0.35]))
    doc["cost_of_debt"] = 0.06
    return doc


@FAST
@given(financed())
def test_the_after_tax_npv_is_the_npv_less_the_savings_plus_the_disposal_tax(doc):
    for option in evaluate(doc)["options"]:
        parts = option["npv"] - sum(option[key] for key in SAVINGS) + option["pv_tax_on_disposals"]
        assert option["npv_after_tax"] == pytest.approx(parts, rel=1e-9, abs=1e-6)


@FAST
@given(financed())
def test_without_a_tax_the_after_tax_figures_are_the_pre_tax_ones_exactly(doc):
    doc["tax_rate"] = 0.0
    result = evaluate(doc)
    for option in result["options"]:
        assert option["npv_after_tax"] == option["npv"]
        assert all(option[key] == 0 for key in (*SAVINGS, "pv_tax_on_disposals"))
    assert result["cheapest_after_tax"] == result["cheapest"]


@FAST
@given(financed())
def test_the_deferred_tax_is_the_tax_on_book_value_less_tax_basis(doc):
    owned = evaluate(doc)["options"][0]
    expected = doc["tax_rate"] * (owned["book_value_at_horizon"] - owned["tax_basis_at_horizon"])
    assert owned["deferred_tax_liability_at_horizon"] == pytest.approx(expected, abs=1e-6)


@FAST
@given(scenarios())
def test_every_finance_input_at_its_default_changes_no_figure(doc):
    plain = evaluate(doc)
    own = doc["options"][0]
    own.update(tax_depreciation="straight_line", bonus_depreciation=0, financing="cash", capex_change_per_year=0)
    doc.update(tax_rate=0.0, refresh_policy="none")
    explicit = evaluate(doc)
    for before, after in zip(plain["options"], explicit["options"], strict=True):
        assert {key: after[key] for key in before} == before
    assert [{key: p[key] for key in plain["break_even"][0]} for p in explicit["break_even"]] == plain["break_even"]
