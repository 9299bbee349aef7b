"""The finance depth (docs/money-math.md "Finance depth"): tax, loans, leases, refresh, resale curves, price paths.

Golden figures come from the textbook (MACRS 5-year PV factor, Brealey-Myers' bus lease), numpy-financial and
month-by-month re-computations written here, never from the engine's own code.
"""

from __future__ import annotations

import copy

import numpy_financial as npf
import pytest

from tco.engine import ScenarioError, evaluate, fleet_plan, sensitivity, simulate, sweep

from .docs import DROP, cents, option_result, owned, rental, scenario

BARE = {
    "power_kw": 0.0,
    "idle_power_kw": DROP,
    "electricity_per_kwh": 0.0,
    "facility_per_year": DROP,
    "network_per_year": DROP,
    "software_per_year": DROP,
    "support_per_year": DROP,
    "operations_per_year": DROP,
    "pue": DROP,
}


def hardware(**fields):
    """An owned option whose only cost is its capex (no energy, no opex), so tax figures are the capex's alone."""
    return owned(**{**BARE, "capex": 100_000.0, "residual_value": 0.0, "useful_life_years": 6, **fields})


def tax_scenario(*options, **fields):
    return scenario(*options, rental(), **{"workload": DROP, "discount_rate": 0.10, "horizon_months": 72, **fields})


def own(result):
    return option_result(result, "Own")


# --- tax ---------------------------------------------------------------------------------------------------------


def test_macrs_5_shields_16238_47_of_100000_at_21_percent_and_10_percent():
    result = evaluate(tax_scenario(hardware(tax_depreciation="macrs_5"), tax_rate=0.21))
    assert cents(own(result)["pv_depreciation_tax_shield"]) == cents(16238.47)
    assert round(own(result)["pv_depreciation_tax_shield"] / 21_000, 5) == 0.77326
    assert own(result)["tax_depreciation_by_year"] == pytest.approx([20000, 32000, 19200, 11520, 11520, 5760])


def test_full_bonus_depreciation_shields_19090_91():
    result = evaluate(tax_scenario(hardware(tax_depreciation="macrs_5", bonus_depreciation=1.0), tax_rate=0.21))
    assert cents(own(result)["pv_depreciation_tax_shield"]) == cents(19090.91)


def test_half_bonus_takes_half_in_year_one_and_the_method_on_the_rest():
    result = evaluate(tax_scenario(hardware(tax_depreciation="macrs_3", bonus_depreciation=0.5), tax_rate=0.21))
    expected = [50000 + 0.5 * 33330, 0.5 * 44450, 0.5 * 14810, 0.5 * 7410, 0, 0]
    assert own(result)["tax_depreciation_by_year"] == pytest.approx(expected)


def test_straight_line_over_a_tax_life_with_a_part_year():
    result = evaluate(tax_scenario(hardware(tax_life_years=2.5), tax_rate=0.3))
    assert own(result)["tax_depreciation_by_year"] == pytest.approx([40000, 40000, 20000, 0, 0, 0])


def test_a_sale_above_the_tax_basis_is_taxed_and_the_book_and_deferred_tax_follow():
    # 100,000 with residual 40,000 over 6 years, MACRS 3: by month 36 the whole basis is deducted.
    doc = tax_scenario(hardware(residual_value=40_000.0, tax_depreciation="macrs_3"), tax_rate=0.25, horizon_months=36)
    result = own(evaluate(doc))
    value = 100_000 - 60_000 * 36 / 72  # straight line to the residual: 70,000 at 3 of 6 years
    basis = 100_000 * (1 - 0.3333 - 0.4445 - 0.1481)
    assert result["resale_value"] == pytest.approx(value)
    assert result["tax_basis_at_horizon"] == pytest.approx(basis)
    assert result["pv_tax_on_disposals"] == pytest.approx(0.25 * (value - basis) * 1.1**-3)
    assert result["book_value_at_horizon"] == pytest.approx(value)
    assert result["book_depreciation_per_year"] == pytest.approx(10_000)
    assert result["deferred_tax_liability_at_horizon"] == pytest.approx(0.25 * (value - basis))


def test_the_after_tax_npv_is_redone_month_by_month():
    doc = scenario(
        owned(tax_depreciation="macrs_5"), rental(), tax_rate=0.21, horizon_months=48, workload=DROP, discount_rate=0.08
    )
    result = evaluate(doc)
    option = doc["options"][0]
    energy = (3.5 + (10.2 - 3.5) * 0.55) * 1.35 * 8760 * 0.11
    opex = (energy + 24000 + 6000 + 5000 + 12000 + 30000) / 12
    macrs = [0.20, 0.32, 0.192, 0.1152]
    total = option["capex"]
    for month in range(1, 49):
        flow = opex * (1 - 0.21)
        if month % 12 == 0:
            flow -= 0.21 * option["capex"] * macrs[month // 12 - 1]
        total += flow * 1.08 ** (-month / 12)
    value = 40_000.0  # at the end of the 4-year life
    basis = 320_000 * (1 - sum(macrs))
    total -= (value - 0.21 * (value - basis)) * 1.08**-4
    assert own(result)["npv_after_tax"] == pytest.approx(total, rel=1e-12)
    rent = option_result(result, "Rent")
    assert rent["npv_after_tax"] == pytest.approx(0.79 * rent["npv"], rel=1e-12)


def test_a_tax_rate_of_zero_is_the_pre_tax_result_exactly():
    plain = evaluate(scenario())
    taxed = evaluate(scenario(tax_rate=0.0))
    for before, after in zip(plain["options"], taxed["options"], strict=True):
        assert after["npv"] == before["npv"]
        assert after["npv_after_tax"] == after["npv"]
        assert after["monthly_cost"] == before["monthly_cost"]
    assert [p["utilization_after_tax"] for p in taxed["break_even"]] == [p["utilization"] for p in plain["break_even"]]
    assert taxed["cheapest_after_tax"] == plain["cheapest"]


def test_the_after_tax_capital_charge_at_zero_tax_is_the_capital_charge():
    result = own(evaluate(scenario(owned(), rental(), tax_rate=0.0)))
    assert result["capital_charge_after_tax_per_year"] == pytest.approx(85463.87, abs=0.005)


def test_the_after_tax_break_even_solves_the_after_tax_annual_curves():
    doc = scenario(owned(), rental(), tax_rate=0.3, workload=DROP)
    result = evaluate(doc)
    u = result["break_even"][0]["utilization_after_tax"]
    charge = own(result)["capital_charge_after_tax_per_year"]
    energy = (3.5 + (10.2 - 3.5) * u) * 1.35 * 8760 * 0.11
    owned_after = charge + 0.7 * (energy + 77000)
    rental_after = 0.7 * 8 * 8760 * u * 3.99
    assert owned_after == pytest.approx(rental_after, rel=1e-9)


# --- loans -------------------------------------------------------------------------------------------------------


def loan(**fields):
    return hardware(capex=320_000.0, financing="loan", loan_apr=0.07, loan_term_months=48, **fields)


def test_a_loan_of_256000_at_7_percent_over_48_months_pays_6130_24():
    result = own(evaluate(tax_scenario(loan(down_payment_share=0.2), horizon_months=48)))
    assert cents(result["loan_payment_per_month"]) == cents(6130.24)
    assert result["loan_payment_per_month"] == pytest.approx(npf.pmt(0.07 / 12, 48, -256_000))


def test_loan_interest_is_deductible_when_paid_as_numpy_financial_splits_it():
    result = own(evaluate(tax_scenario(loan(), tax_rate=0.21, horizon_months=48)))
    months = range(1, 49)
    interest = [-npf.ipmt(0.07 / 12, m, 48, -320_000) * -1 for m in months]
    expected = sum(0.21 * i * 1.1 ** (-m / 12) for m, i in zip(months, interest, strict=True))
    assert result["pv_financing_tax_saving"] == pytest.approx(expected, rel=1e-12)


def test_a_loan_discounted_at_its_own_after_tax_rate_is_npv_neutral():
    tax = 0.25
    own_rate = (1 + 0.07 * (1 - tax) / 12) ** 12 - 1
    for horizon in (48, 30):  # paid off, and sold (the balance repaid) before the loan ends
        cash = own(
            evaluate(
                tax_scenario(hardware(capex=320_000.0), tax_rate=tax, discount_rate=own_rate, horizon_months=horizon)
            )
        )
        financed = own(
            evaluate(
                tax_scenario(loan(down_payment_share=0.1), tax_rate=tax, discount_rate=own_rate, horizon_months=horizon)
            )
        )
        assert financed["npv_after_tax"] == pytest.approx(cash["npv_after_tax"], rel=1e-12)
    assert financed["loan_balance_repaid_at_sale"] == pytest.approx(
        npf.fv(0.07 / 12, 30, npf.pmt(0.07 / 12, 48, -288_000), -288_000)
    )


# --- leases ------------------------------------------------------------------------------------------------------


def bus(**fields):
    """Brealey-Myers' bus: 100,000, leased 8 years at 16,900 a year in advance, 5-year MACRS, worthless at the end."""
    lease = {
        "useful_life_years": 8,
        "tax_depreciation": "macrs_5",
        "financing": "lease",
        "lease_payment": 16_900.0,
        "lease_payment_interval_months": 12,
        "lease_term_months": 96,
    }
    return hardware(**{**lease, **fields})


def test_brealey_myers_bus_lease_has_a_net_advantage_of_about_minus_700():
    result = own(evaluate(tax_scenario(bus(), tax_rate=0.35, cost_of_debt=0.10, horizon_months=96)))
    assert round(result["nal"], -2) == -700
    assert result["after_tax_cost_of_debt"] == pytest.approx(0.065)
    assert result["lease_payment"] == 16_900.0


def test_the_break_even_lease_payment_gives_a_nal_of_zero():
    first = own(evaluate(tax_scenario(bus(), tax_rate=0.35, cost_of_debt=0.10, horizon_months=96)))
    again = own(
        evaluate(
            tax_scenario(
                bus(lease_payment=first["break_even_lease_payment"]),
                tax_rate=0.35,
                cost_of_debt=0.10,
                horizon_months=96,
            )
        )
    )
    assert again["nal"] == pytest.approx(0.0, abs=1e-6)
    assert first["break_even_lease_payment"] < 16_900


def test_a_leased_unit_pays_its_payments_and_is_never_depreciated():
    result = own(evaluate(tax_scenario(bus(), tax_rate=0.35, horizon_months=96)))
    assert result["pv_depreciation_tax_shield"] == 0
    assert result["nal"] is None  # no cost of debt
    payments = [16_900 * 1.1**-k for k in range(8)]
    assert result["npv"] == pytest.approx(sum(payments))
    assert result["pv_financing_tax_saving"] == pytest.approx(0.35 * sum(payments))
    assert result["monthly_cost"][0] == 16_900 and result["monthly_cost"][11] == 16_900  # months 0 and 12


def test_a_lease_bought_out_is_then_depreciated_and_sold():
    doc = tax_scenario(
        hardware(
            residual_value=DROP,
            resale_curve=[[0, 1], [24, 0.5], [72, 0.1]],
            financing="lease",
            lease_payment=3_000.0,
            lease_term_months=24,
            lease_payment_timing="arrears",
            lease_end="buyout",
            lease_buyout_price=45_000.0,
            tax_depreciation="straight_line",
            tax_life_years=2,
        ),
        tax_rate=0.2,
        horizon_months=48,
    )
    result = own(evaluate(doc))
    assert result["tax_depreciation_by_year"] == pytest.approx([0, 0, 22_500, 22_500])
    assert result["resale_value"] == pytest.approx(100_000 * (0.5 - 0.4 * 24 / 48))
    assert result["monthly_cost"][23] == pytest.approx(3_000 + 45_000)


# --- refresh, resale curves, price paths ---------------------------------------------------------------------------


def test_replace_buys_a_new_unit_every_cycle_at_the_price_path_and_sells_the_old():
    doc = tax_scenario(
        hardware(useful_life_years=2, residual_value=20_000.0, capex_change_per_year=-0.2),
        refresh_policy="replace",
        horizon_months=60,
    )
    result = own(evaluate(doc))
    assert result["replacements"] == 2
    assert result["replacement_capex"] == [[24, pytest.approx(64_000)], [48, pytest.approx(40_960)]]
    last = 40_960 - (40_960 - 20_000 * 0.4096) * 12 / 24  # a year into its 2-year life, residual on the path
    assert result["resale_value"] == pytest.approx(20_000 + 12_800 + last)
    assert result["monthly_cost"][23] == pytest.approx(64_000)
    expected = 100_000 + 64_000 * 1.1**-2 + 40_960 * 1.1**-4 - 20_000 * 1.1**-2 - 12_800 * 1.1**-4 - last * 1.1**-5
    assert result["npv"] == pytest.approx(expected)


def test_truncate_cuts_every_option_to_the_shortest_owned_cycle():
    doc = scenario(owned(useful_life_years=2), rental(), refresh_policy="truncate", horizon_months=48)
    result = evaluate(doc)
    short = evaluate(scenario(owned(useful_life_years=2), rental(), horizon_months=24))
    assert result["effective_horizon_months"] == 24 and result["horizon_months"] == 48
    for cut, plain in zip(result["options"], short["options"], strict=True):
        assert len(cut["monthly_cost"]) == 24
        assert cut["npv"] == pytest.approx(plain["npv"], rel=1e-12)


def test_a_resale_curve_is_interpolated_and_sets_the_residual():
    curve = [[0, 1], [12, 0.7], [36, 0.4]]
    doc = tax_scenario(hardware(residual_value=DROP, resale_curve=curve, useful_life_years=3), horizon_months=24)
    result = own(evaluate(doc))
    assert result["resale_value"] == pytest.approx(100_000 * 0.55)
    # The capital charge uses S = C·f(36) = 40,000.
    assert result["capital_charge_per_year"] == pytest.approx(npf.pmt(0.07, 3, -100_000, 40_000))


def test_a_used_unit_starts_part_way_along_the_curve():
    curve = [[0, 1], [12, 0.7], [36, 0.4]]
    doc = tax_scenario(
        hardware(kind="secondary", residual_value=DROP, resale_curve=curve, age_at_purchase_months=12),
        horizon_months=12,
    )
    assert own(evaluate(doc))["resale_value"] == pytest.approx(100_000 * 0.55 / 0.7)


def test_a_price_path_by_year_compounds_each_year_and_repeats_the_last():
    doc = scenario(rental(price_change_by_year=[-0.2, -0.1]), workload=DROP, horizon_months=48, utilization=[1.0])
    monthly = option_result(evaluate(doc), "Rent")["monthly_cost"]
    hours = 8 * 730
    assert monthly[0] == pytest.approx(hours * 3.99)
    assert monthly[12] == pytest.approx(hours * 3.99 * 0.8)
    assert monthly[18] == pytest.approx(hours * 3.99 * 0.8 * 0.9**0.5)
    assert monthly[36] == pytest.approx(hours * 3.99 * 0.8 * 0.9 * 0.9)


def test_one_yearly_change_is_the_price_change_per_year():
    by_year = evaluate(scenario(rental(price_change_by_year=[-0.1]), workload=DROP))
    per_year = evaluate(scenario(rental(price_change_per_year=-0.1), workload=DROP))
    assert option_result(by_year, "Rent")["npv"] == pytest.approx(option_result(per_year, "Rent")["npv"], rel=1e-13)


# --- commitments ---------------------------------------------------------------------------------------------------


def committed(**fields):
    base = {
        "billing": "committed",
        "committed_gpus": 4,
        "price_per_gpu_hour": 2.0,
        "commitment_term_months": 12,
        "on_demand_price_per_gpu_hour": 4.0,
    }
    return rental(**{**base, **fields})


def test_a_commitment_term_locks_its_price_and_pays_its_upfront_share_when_it_starts():
    doc = scenario(
        committed(upfront_share=0.5, price_change_per_year=-0.1),
        workload=DROP,
        horizon_months=30,
        utilization=[0.75],
        burst_price_per_gpu_hour=DROP,
        tax_rate=0.2,
    )
    result = option_result(evaluate(doc), "Rent")
    k_hours, busy = 4 * 730, 8 * 730 * 0.75
    later = 2.0 * 0.9  # the second term starts at month 13
    assert result["commitment_terms"] == [[1, 2.0], [13, pytest.approx(later)]]
    assert result["monthly_cost"][0] == pytest.approx(
        0.5 * k_hours * 2.0 * 12 + 0.5 * k_hours * 2.0 + (busy - k_hours) * 4.0
    )
    overflow_12 = (busy - k_hours) * 4.0 * 0.9 ** (11 / 12)  # the on-demand price follows the path
    assert result["monthly_cost"][11] == pytest.approx(0.5 * k_hours * later * 12 + 0.5 * k_hours * 2.0 + overflow_12)
    month_25 = busy * 4.0 * 0.9**2  # after the last whole term: on demand at the path
    assert result["monthly_cost"][24] == pytest.approx(month_25)
    assert result["commitment_coverage"] == pytest.approx(k_hours * 24 / (busy * 30))
    assert result["commitment_utilization"] == pytest.approx(1.0)


def test_the_committed_gpus_must_be_busy_72_percent_of_the_time():
    # No upfront: p_eff = p, so u_c = 2.88 / 4.00 = 72 %.
    doc = scenario(committed(price_per_gpu_hour=2.88), workload=DROP, horizon_months=12)
    result = option_result(evaluate(doc), "Rent")
    assert result["commitment_break_even_utilization"] == pytest.approx(0.72)
    assert result["break_even_utilization_vs_on_demand"] == pytest.approx(4 * 0.72 / 8)


def test_the_effective_price_spreads_the_upfront_over_the_term_at_the_discount_rate():
    doc = scenario(committed(upfront_share=1.0), workload=DROP, horizon_months=12, discount_rate=0.08)
    result = option_result(evaluate(doc), "Rent")
    annuity = sum(1.08 ** (-m / 12) for m in range(1, 13))
    assert result["commitment_effective_price_per_gpu_hour"] == pytest.approx(2.0 * 12 / annuity)


# --- bad input -----------------------------------------------------------------------------------------------------


def _problem(doc, path):
    with pytest.raises(ScenarioError) as error:
        evaluate(doc)
    found = [p for p in error.value.problems if p.path == path]
    assert found, [str(p) for p in error.value.problems]
    return found[0]


@pytest.mark.parametrize(
    ("doc", "path", "code", "words"),
    [
        (
            scenario(owned(financing="lease", lease_payment=1000.0, lease_term_months=48), rental()),
            "options[0].lease_term_months",
            "out_of_range",
            "longer than the horizon",
        ),
        (scenario(owned(financing="loan", loan_term_months=48), rental()), "options[0].loan_apr", "required", "loan"),
        (
            scenario(
                owned(financing="lease", lease_payment=1000.0, lease_term_months=36, lease_buyout_price=5.0), rental()
            ),
            "options[0].lease_buyout_price",
            "conflict",
            "returned lease",
        ),
        (
            scenario(owned(residual_value=DROP, resale_curve=[[0, 1], [24, 0.5], [12, 0.4]]), rental()),
            "options[0].resale_curve[2]",
            "conflict",
            "ages must rise",
        ),
        (
            scenario(owned(residual_value=DROP, resale_curve=[[0, 1], [12, 0.5], [24, 0.6]]), rental()),
            "options[0].resale_curve[2]",
            "conflict",
            "must not rise",
        ),
        (scenario(tax_rate=1.0), "tax_rate", "out_of_range", "less than 1"),
        (
            scenario(owned(), committed(commitment_term_months=48)),
            "options[1].commitment_term_months",
            "out_of_range",
            "past the horizon",
        ),
        (scenario(owned(loan_apr=0.05), rental()), "options[0].loan_apr", "conflict", "applies to a loan"),
        (
            scenario(owned(residual_value=DROP, resale_curve=[[0, 1], [24, 0.0]], age_at_purchase_months=30), rental()),
            "options[0].age_at_purchase_months",
            "conflict",
            "worth nothing",
        ),
        (
            scenario(owned(age_at_purchase_months=12), rental()),
            "options[0].age_at_purchase_months",
            "conflict",
            "curve",
        ),
        (scenario(refresh_policy="sometimes"), "refresh_policy", "invalid", "none, replace, truncate"),
        (
            scenario(owned(financing="lease", lease_payment=1000.0, lease_term_months=24), rental()),
            "options[0].lease_term_months",
            "conflict",
            "before the horizon",
        ),
        (
            scenario(owned(useful_life_years=2), committed(commitment_term_months=36), refresh_policy="truncate"),
            "options[1].commitment_term_months",
            "out_of_range",
            "effective horizon of 24",
        ),
    ],
)
def test_every_impossible_combination_names_its_input(doc, path, code, words):
    problem = _problem(doc, path)
    assert problem.code == code
    assert words in problem.message


# --- the same figures in the sweep, the simulation, the tornado and the fleet plan ---------------------------------


def financed_scenario(**fields):
    own_option = owned(financing="loan", loan_apr=0.07, loan_term_months=36, tax_depreciation="macrs_5")
    return scenario(own_option, rental(), **{"tax_rate": 0.21, "workload": DROP, **fields})


def test_a_sweep_cell_is_the_after_tax_npv_of_that_variant():
    doc = financed_scenario()
    grid = sweep(doc, ("tax_rate", [0.0, 0.3]), ("options[0].loan_apr", [0.04, 0.1]))
    for row, apr in enumerate([0.04, 0.1]):
        for column, tax in enumerate([0.0, 0.3]):
            variant = financed_scenario(tax_rate=tax)
            variant["options"][0]["loan_apr"] = apr
            result = evaluate(variant)
            difference = own(result)["npv_after_tax"] - option_result(result, "Rent")["npv_after_tax"]
            assert grid["owned_minus_rental"][row][column] == pytest.approx(difference, rel=1e-12)


def test_a_sweep_cannot_move_the_useful_life_that_decides_the_refresh():
    with pytest.raises(ScenarioError, match="refresh"):
        sweep(
            financed_scenario(refresh_policy="replace"), ("options[0].useful_life_years", [3, 4]), ("tax_rate", [0.1])
        )


def test_degenerate_ranges_on_tax_rate_and_apr_reproduce_evaluate():
    doc = financed_scenario()
    ranges = {
        "tax_rate": {"low": 0.25, "likely": 0.25, "high": 0.25},
        "options[0].loan_apr": dict.fromkeys(("low", "likely", "high"), 0.09),
    }
    run = simulate(doc, ranges, trials=50)
    variant = financed_scenario(tax_rate=0.25)
    variant["options"][0]["loan_apr"] = 0.09
    expected = own(evaluate(variant))["npv_after_tax"]
    assert run["options"][0]["npv"]["p50"] == pytest.approx(expected, rel=1e-12)


def test_a_tax_rate_range_moves_the_after_tax_npv():
    run = simulate(financed_scenario(), {"tax_rate": {"low": 0.1, "likely": 0.21, "high": 0.35}}, trials=2000)
    low = own(evaluate(financed_scenario(tax_rate=0.35)))["npv_after_tax"]
    high = own(evaluate(financed_scenario(tax_rate=0.1)))["npv_after_tax"]
    assert low < run["options"][0]["npv"]["p50"] < high


def test_the_tornado_swings_the_tax_rate_and_the_apr():
    rows = sensitivity(financed_scenario())
    assert {"tax_rate", "options[0].loan_apr"} <= {row["path"] for row in rows}


def test_the_fleet_plan_prices_owned_gpus_after_tax():
    doc = scenario(owned(tax_depreciation="macrs_5"), rental(), tax_rate=0.3, workload=DROP)
    plan = fleet_plan(doc, [4.0] * 24)
    charge = own(evaluate(doc))["capital_charge_after_tax_per_year"]
    energy_idle = 3.5 * 1.35 * 8760 * 0.11
    slope = (10.2 - 3.5) * 1.35 * 8760 * 0.11
    c_fix = (charge + 0.7 * (77_000 + energy_idle)) / (8 * 8760)
    c_busy = 0.7 * slope / (8 * 8760)
    assert plan["rule"]["fixed_per_gpu_hour"] == pytest.approx(c_fix)
    assert plan["rule"]["break_even_utilization"] == pytest.approx(c_fix / (0.7 * 3.99 - c_busy))


def test_a_sweep_and_a_simulation_of_a_commitment_term_agree_with_evaluate():
    doc = scenario(
        owned(),
        committed(upfront_share=0.5, price_change_per_year=-0.1),
        rental(name="On demand"),
        workload=DROP,
        horizon_months=30,
        tax_rate=0.2,
    )
    grid = sweep(doc, ("options[1].committed_gpus", [2, 4, 6]), ("options[1].upfront_share", [0.0, 0.5]))
    for row, share in enumerate([0.0, 0.5]):
        for column, gpus in enumerate([2, 4, 6]):
            variant = copy.deepcopy(doc)
            variant["options"][1].update(committed_gpus=gpus, upfront_share=share)
            npvs = [option["npv_after_tax"] for option in evaluate(variant)["options"]]
            assert grid["owned_minus_rental"][row][column] == pytest.approx(npvs[0] - min(npvs[1:]), rel=1e-12)
    run = simulate(doc, {"options[1].upfront_share": dict.fromkeys(("low", "likely", "high"), 0.2)}, trials=10)
    variant = copy.deepcopy(doc)
    variant["options"][1]["upfront_share"] = 0.2
    assert run["options"][1]["npv"]["p50"] == pytest.approx(evaluate(variant)["options"][1]["npv_after_tax"])
