"""A small scenario recomputed by hand, straight from docs/money-math.md's formulas (no engine code used)."""

from __future__ import annotations

import pytest

from tco.engine import evaluate

from .docs import option_result, pair

U = [0.5, 1.0, 0.25]
BURST = 5.0
RATE = 0.1
DOC = {
    "schema": "tco-scenario/1",
    "name": "Hand check",
    "horizon_months": 3,
    "discount_rate": RATE,
    "fleet_gpus": 2,
    "utilization": U,
    "burst_price_per_gpu_hour": BURST,
    "workload": {
        "tokens_per_second_per_gpu": 1000,
        "output_tokens_per_response": 500,
        "input_tokens_per_response": 1000,
        "acceptance_rate": 0.8,
    },
    "options": [
        {
            "name": "Own",
            "kind": "owned",
            "gpu_count": 2,
            "capex": 12000,
            "residual_value": 2000,
            "useful_life_years": 2,
            "cost_of_capital": 0.05,
            "power_kw": 1.0,
            "idle_power_kw": 0.4,
            "pue": 1.5,
            "electricity_per_kwh": 0.1,
            "facility_per_year": 1200,
            "software_per_year": 600,
            "tokens_per_second_per_gpu": 800,
        },
        {
            "name": "Rent",
            "kind": "neocloud",
            "price_per_gpu_hour": 2.0,
            "price_change_per_year": 0.2,
            "extras_per_year": 120,
            "acceptance_rate": 0.9,
        },
        {
            "name": "Reserved",
            "kind": "hyperscaler",
            "price_per_gpu_hour": 3.0,
            "billing": "committed",
            "committed_gpus": 1,
        },
        {
            "name": "API",
            "kind": "api",
            "price_per_million_input_tokens": 1.0,
            "price_per_million_output_tokens": 2.0,
            "extras_per_year": 60,
            "acceptance_rate": 0.64,
        },
    ],
}

# Busy reference GPU-hours D_m = 2 x 730 x u_m.
D = [730.0, 1460.0, 365.0]
DISCOUNT = [(1 + RATE) ** (m / 12) for m in (1, 2, 3)]

# Owned: H_m = D_m x 1000/800; capacity 2 x 730 = 1460; month 2 overflows by 365 GPU-hours.
OWN_H = [912.5, 1825.0, 456.25]
OWN_V = [912.5 / 1460, 1.0, 456.25 / 1460]
OWN_OVERFLOW = [0.0, 365.0, 0.0]
KWH_YEAR = 1.5 * 8760 * 0.1  # PUE x hours x price per kWh, per kW


def energy(v):
    return (0.4 + 0.6 * v) * KWH_YEAR


OPEX = 1200 + 600
OWN_USAGE = [(energy(v) + OPEX) / 12 + o * BURST for v, o in zip(OWN_V, OWN_OVERFLOW, strict=True)]
CHARGE = (12000 - 2000 * 1.05**-2) * 0.05 / (1 - 1.05**-2)
RESALE = 12000 - (12000 - 2000) * (3 / 24)

# Rental: p_m = 2 x 1.2^((m-1)/12); H_m = D_m x 0.8/0.9.
RENT_H = [d * 0.8 / 0.9 for d in D]
RENT_USAGE = [h * 2.0 * 1.2 ** ((m - 1) / 12) + 10 for m, h in zip((1, 2, 3), RENT_H, strict=True)]

# Committed to 1 GPU (730 GPU-hours a month) at 3.00; month 2 buys 730 GPU-hours at the burst price.
RESERVED_USAGE = [2190.0, 2190.0 + 730 * BURST, 2190.0]

# API: attempts = D_m x 1000 x 3600 / 500 x 0.8/0.64; each costs (1000 x 1 + 500 x 2)/1e6 = 0.002.
API_ATTEMPTS = [d * 1000 * 3600 / 500 * 0.8 / 0.64 for d in D]
API_USAGE = [a * 0.002 + 5 for a in API_ATTEMPTS]

BUSY_PER_YEAR = 12 * sum(D) / 3
ACCEPTED_TOKENS = BUSY_PER_YEAR * 1000 * 3600 * 0.8
ACCEPTED_RESPONSES = ACCEPTED_TOKENS / 500


def _npv(usage, capex=0.0, resale=0.0):
    return capex + sum(c / f for c, f in zip(usage, DISCOUNT, strict=True)) - resale / (1 + RATE) ** (3 / 12)


@pytest.fixture(scope="module")
def result():
    return evaluate(DOC)


def test_it_reports_the_reference_workload(result):
    assert result["reference"] == pytest.approx(
        {
            "fleet_gpus": 2,
            "mean_utilization": sum(U) / 3,
            "busy_gpu_hours_per_year": BUSY_PER_YEAR,
            "accepted_responses_per_year": ACCEPTED_RESPONSES,
            "accepted_output_tokens_per_year": ACCEPTED_TOKENS,
        },
        rel=1e-12,
    )


def test_it_computes_owned_monthly_cash_with_capex_in_month_one(result):
    own = option_result(result, "Own")
    assert own["monthly_cost"] == pytest.approx([OWN_USAGE[0] + 12000, OWN_USAGE[1], OWN_USAGE[2]], rel=1e-12)
    assert own["cumulative_cost"][-1] == pytest.approx(12000 + sum(OWN_USAGE), rel=1e-12)


def test_it_computes_owned_totals_resale_and_npv(result):
    own = option_result(result, "Own")
    assert own["resale_value"] == pytest.approx(RESALE, rel=1e-12)
    assert own["total_cost"] == pytest.approx(12000 + sum(OWN_USAGE) - RESALE, rel=1e-12)
    assert own["npv"] == pytest.approx(_npv(OWN_USAGE, 12000, RESALE), rel=1e-12)
    assert own["overflow_gpu_hours"] == pytest.approx(365.0, rel=1e-12)
    assert own["mean_own_utilization"] == pytest.approx(sum(OWN_V) / 3, rel=1e-12)


def test_it_computes_owned_annual_cost_and_unit_costs(result):
    own = option_result(result, "Own")
    annual = CHARGE + energy(sum(OWN_V) / 3) + OPEX + 12 * (365 * BURST) / 3
    assert own["capital_charge_per_year"] == pytest.approx(CHARGE, rel=1e-12)
    assert own["annual_cost"] == pytest.approx(annual, rel=1e-12)
    assert own["cost_per_gpu_hour"] == pytest.approx(annual / BUSY_PER_YEAR, rel=1e-12)
    assert own["cost_per_accepted_response"] == pytest.approx(annual / ACCEPTED_RESPONSES, rel=1e-12)
    assert own["cost_per_million_accepted_tokens"] == pytest.approx(annual / ACCEPTED_TOKENS * 1e6, rel=1e-12)


def test_it_computes_on_demand_rental_with_price_change(result):
    rent = option_result(result, "Rent")
    assert rent["monthly_cost"] == pytest.approx(RENT_USAGE, rel=1e-12)
    assert rent["total_cost"] == pytest.approx(sum(RENT_USAGE), rel=1e-12)
    assert rent["npv"] == pytest.approx(_npv(RENT_USAGE), rel=1e-12)
    assert rent["annual_cost"] == pytest.approx(12 * sum(RENT_H) / 3 * 2.0 + 120, rel=1e-12)
    assert rent["resale_value"] == 0.0
    assert rent["capital_charge_per_year"] is None


def test_it_computes_committed_rental_with_burst(result):
    reserved = option_result(result, "Reserved")
    assert reserved["monthly_cost"] == pytest.approx(RESERVED_USAGE, rel=1e-12)
    assert reserved["npv"] == pytest.approx(_npv(RESERVED_USAGE), rel=1e-12)
    assert reserved["annual_cost"] == pytest.approx(8760 * 3.0 + 12 * (730 * BURST) / 3, rel=1e-12)
    assert reserved["overflow_gpu_hours"] == pytest.approx(730.0, rel=1e-12)


def test_it_computes_api_cost_per_attempt(result):
    api = option_result(result, "API")
    annual = 12 * sum(API_ATTEMPTS) / 3 * 0.002 + 60
    assert api["monthly_cost"] == pytest.approx(API_USAGE, rel=1e-12)
    assert api["npv"] == pytest.approx(_npv(API_USAGE), rel=1e-12)
    assert api["annual_cost"] == pytest.approx(annual, rel=1e-12)
    assert api["cost_per_accepted_response"] == pytest.approx(annual / ACCEPTED_RESPONSES, rel=1e-12)


def test_it_breaks_even_on_the_segment_below_the_owned_capacity_kink(result):
    # Flat u: owned H = 2 x 8760 x u x 1.25 reaches capacity at u = 0.8. Below it
    # T(u) = A + E(1.25u) + O and R(u) = 2 x 8760 x u x (0.8/0.9) x 2 + 120.
    def owned_cost(u):
        return CHARGE + energy(min(1.25 * u, 1)) + OPEX + 8760 * max(2.5 * u - 2, 0) * BURST

    def rental_cost(u):
        return 2 * 8760 * u * (0.8 / 0.9) * 2.0 + 120

    assert owned_cost(0.8) < rental_cost(0.8) and owned_cost(1.0) < rental_cost(1.0)
    slope_gap = 2 * 8760 * (0.8 / 0.9) * 2.0 - 0.6 * 1.25 * KWH_YEAR
    expected = (owned_cost(0) - rental_cost(0)) / slope_gap
    assert pair(result, "Own", "Rent")["utilization"] == pytest.approx(expected, rel=1e-12)


def test_it_finds_the_crossover_month(result):
    owned_cum, rent_cum = [], []
    for m in range(3):
        owned_cum.append((owned_cum[-1] if owned_cum else 12000) + OWN_USAGE[m])
        rent_cum.append((rent_cum[-1] if rent_cum else 0) + RENT_USAGE[m])
    expected = next((m + 1 for m in range(3) if owned_cum[m] <= rent_cum[m]), None)
    assert pair(result, "Own", "Rent")["crossover_month"] == expected


def test_it_names_the_option_with_the_lowest_npv_cheapest(result):
    npvs = {
        "Own": _npv(OWN_USAGE, 12000, RESALE),
        "Rent": _npv(RENT_USAGE),
        "Reserved": _npv(RESERVED_USAGE),
        "API": _npv(API_USAGE),
    }
    assert result["cheapest"] == min(npvs, key=npvs.get)
