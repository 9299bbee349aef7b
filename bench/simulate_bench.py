"""Uncertainty engine speed: simulate vs an evaluate loop, and fleet_plan vs a per-count loop.

Run from the repository root: ``.venv/bin/python bench/simulate_bench.py``. Both sides of each ratio
are measured in this run on this machine. The targets: 20,000 trials x 36 months x 6 options
with 6 ranged inputs at least 50x faster than ``evaluate`` per trial (200 trials timed, scaled to
20,000) and well under 2 s; ``fleet_plan`` on 8,760 hours x 0..512 GPUs under 1 s. The same run after tax,
financed (a loan, a lease), refreshed, with a resale curve, a price path and a commitment term, with ranges on
the tax rate and the loan's APR among its 6: still under 2 s.
"""

from __future__ import annotations

import copy
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tco.engine import evaluate, fleet_plan, simulate
from tco.engine.fleet import annual_costs

SMOKE = "--smoke" in sys.argv  # a small size in a few seconds: that it runs (make bench-smoke), not how fast
TRIALS = 500 if SMOKE else 20_000
LOOP_TRIALS = 10 if SMOKE else 200
RUNS = 1 if SMOKE else 5
TARGET_RATIO = 50.0
SIMULATE_BUDGET_S = 2.0
FLEET_BUDGET_S = 1.0


def document() -> dict:
    """36 months, 6 options (two owned, a secondary, three rentals), a rising forecast."""
    return {
        "schema": "tco-scenario/1",
        "name": "Simulate benchmark",
        "horizon_months": 36,
        "discount_rate": 0.08,
        "fleet_gpus": 8,
        "utilization": [0.3 + 0.5 * m / 35 for m in range(36)],
        "burst_price_per_gpu_hour": 6.16,
        "options": [
            {"name": "Own 8x H100", "kind": "owned", "capex": 320000, "residual_value": 40000,
             "useful_life_years": 4, "cost_of_capital": 0.07, "power_kw": 10.2, "idle_power_kw": 3.5,
             "pue": 1.35, "electricity_per_kwh": 0.11, "facility_per_year": 24000, "network_per_year": 6000,
             "software_per_year": 5000, "support_per_year": 12000, "operations_per_year": 30000},
            {"name": "Own 4x H100", "kind": "owned", "gpu_count": 4, "capex": 160000, "useful_life_years": 4,
             "power_kw": 5.1, "electricity_per_kwh": 0.11},
            {"name": "Secondary 8x H100", "kind": "secondary", "capex": 176000, "residual_value": 10000,
             "useful_life_years": 3, "cost_of_capital": 0.08, "power_kw": 10.2, "electricity_per_kwh": 0.12,
             "support_per_year": 20000},
            {"name": "Lambda", "kind": "neocloud", "price_per_gpu_hour": 3.99, "price_change_per_year": -0.1},
            {"name": "Google Cloud A3", "kind": "hyperscaler", "price_per_gpu_hour": 11.06, "extras_per_year": 5000},
            {"name": "CoreWeave committed", "kind": "neocloud", "price_per_gpu_hour": 4.2, "billing": "committed",
             "committed_gpus": 6},
        ],
    }  # fmt: skip


UNCERTAINTY = {
    "utilization": {"low": 0.35, "likely": 0.55, "high": 0.8},
    "options[3].price_per_gpu_hour": {"low": 2.5, "likely": 3.99, "high": 5.0},
    "options[3].price_change_per_year": {"low": -0.3, "likely": -0.1, "high": 0.05},
    "options[0].electricity_per_kwh": {"low": 0.08, "likely": 0.11, "high": 0.2},
    "options[0].residual_value": {"low": 10000, "likely": 40000, "high": 80000},
    "options[0].capex": {"low": 280000, "likely": 320000, "high": 380000},
}


FINANCE_UNCERTAINTY = {
    "utilization": {"low": 0.35, "likely": 0.55, "high": 0.8},
    "tax_rate": {"low": 0.15, "likely": 0.21, "high": 0.3},
    "options[0].loan_apr": {"low": 0.05, "likely": 0.07, "high": 0.1},
    "options[0].capex": {"low": 280000, "likely": 320000, "high": 380000},
    "options[2].capex_change_per_year": {"low": -0.3, "likely": -0.15, "high": 0.0},
    "options[3].price_per_gpu_hour": {"low": 2.5, "likely": 3.99, "high": 5.0},
}


def finance_document() -> dict:
    """The benchmark scenario with the finance depth: tax, a loan, a lease, replacement, a curve, paths, a term."""
    doc = document()
    doc.update(tax_rate=0.21, cost_of_debt=0.06, refresh_policy="replace")
    own8, own4, secondary = doc["options"][0], doc["options"][1], doc["options"][2]
    own8.update(
        financing="loan", loan_apr=0.07, loan_term_months=48, down_payment_share=0.2, tax_depreciation="macrs_5"
    )
    own4.update(financing="lease", lease_payment=4200, lease_term_months=36, tax_depreciation="macrs_5")
    del secondary["residual_value"]
    secondary.update(
        resale_curve=[[0, 1], [12, 0.7], [36, 0.35], [60, 0.15]],
        age_at_purchase_months=12,
        useful_life_years=1.5,
        tax_depreciation="macrs_3",
        capex_change_per_year=-0.15,
    )
    doc["options"][3].pop("price_change_per_year")
    doc["options"][3]["price_change_by_year"] = [-0.2, -0.1, -0.05]
    doc["options"][5].update(commitment_term_months=12, upfront_share=0.5, on_demand_price_per_gpu_hour=5.5)
    return doc  # fmt: skip


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def loop_variants(doc: dict, n: int) -> list[dict]:
    """The documents an evaluate-per-trial Monte Carlo would evaluate (built beforehand, not timed)."""
    rng = np.random.default_rng(0)
    level = sum(doc["utilization"]) / len(doc["utilization"])
    variants = []
    for _ in range(n):
        variant = copy.deepcopy(doc)
        for path, spec in UNCERTAINTY.items():
            value = float(rng.triangular(spec["low"], spec["likely"], spec["high"]))
            if path == "utilization":
                variant["utilization"] = [min(u * value / level, 1.0) for u in doc["utilization"]]
            else:
                index, field = path[len("options[") :].split("].")
                variant["options"][int(index)][field] = value
        variants.append(variant)
    return variants


def per_count_loop(loads: np.ndarray, c_fix: float, c_busy: float, price: float) -> np.ndarray:
    """The obvious fleet-plan: one numpy pass over the hours for each owned count k."""
    costs = []
    for k in range(math.ceil(loads.max()) + 1):
        owned_busy = np.minimum(loads, k)
        costs.append(k * c_fix * len(loads) + owned_busy.sum() * c_busy + (loads - owned_busy).sum() * price)
    return np.array(costs) * 8760 / len(loads)


def main() -> None:
    doc = document()
    simulate(doc, UNCERTAINTY, trials=min(TRIALS, 1000))  # warm up imports
    runs = [timed(lambda: simulate(doc, UNCERTAINTY, trials=TRIALS)) for _ in range(RUNS)]
    best = statistics.median(runs)
    variants = loop_variants(doc, LOOP_TRIALS)
    loop = timed(lambda: [evaluate(v) for v in variants]) * TRIALS / LOOP_TRIALS
    ratio = loop / best
    print(f"simulate {TRIALS:,} trials x 36 months x 6 options x {len(UNCERTAINTY)} ranges: "
          f"median {best * 1e3:.0f} ms ({RUNS} runs; budget {SIMULATE_BUDGET_S:.0f} s: "
          f"{'meets' if best < SIMULATE_BUDGET_S else 'MISSES'})")  # fmt: skip
    print(f"evaluate x {LOOP_TRIALS} in a loop, scaled to {TRIALS:,}: {loop:.1f} s")
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(f"simulate is {ratio:.0f}x faster than the loop ({verdict} the >= {TARGET_RATIO:.0f}x target)")

    financed = finance_document()
    simulate(financed, FINANCE_UNCERTAINTY, trials=min(TRIALS, 1000))
    runs = [timed(lambda: simulate(financed, FINANCE_UNCERTAINTY, trials=TRIALS)) for _ in range(RUNS)]
    best = statistics.median(runs)
    print(f"simulate after tax, financed, refreshed, {TRIALS:,} trials x 36 months x 6 options x "
          f"{len(FINANCE_UNCERTAINTY)} ranges: median {best * 1e3:.0f} ms ({RUNS} runs; budget "
          f"{SIMULATE_BUDGET_S:.0f} s: {'meets' if best < SIMULATE_BUDGET_S else 'MISSES'})")  # fmt: skip

    loads = np.clip(np.random.default_rng(1).normal(300, 120, 720 if SMOKE else 8760), 0, 512).round()
    loads[0] = 512  # counts 0..512
    plan = fleet_plan(doc, loads.tolist(), owned=0, rental=3)
    rule = plan["rule"]
    fleet_runs = [timed(lambda: fleet_plan(doc, loads.tolist(), owned=0, rental=3)) for _ in range(RUNS)]
    fleet_best = statistics.median(fleet_runs)
    terms = (rule["fixed_per_gpu_hour"], rule["busy_per_gpu_hour"], rule["price_per_gpu_hour"])
    baseline = statistics.median(timed(lambda: per_count_loop(loads, *terms)) for _ in range(RUNS))
    curve = statistics.median(timed(lambda: annual_costs(loads, *terms)) for _ in range(RUNS))
    expected = per_count_loop(loads, *terms)
    assert np.allclose([row["annual_cost"] for row in plan["costs"]], expected, rtol=1e-9)
    print(f"fleet_plan {len(loads):,} hours x 0..{len(plan['costs']) - 1} GPUs: median {fleet_best * 1e3:.1f} ms "
          f"({RUNS} runs, validation included; budget {FLEET_BUDGET_S:.0f} s: "
          f"{'meets' if fleet_best < FLEET_BUDGET_S else 'MISSES'}); optimum {plan['owned_gpus']} GPUs")  # fmt: skip
    print(f"the curve alone (sorted prefix sums): {curve * 1e3:.2f} ms; a per-count numpy loop over the same "
          f"profile: {baseline * 1e3:.1f} ms, {baseline / curve:.0f}x slower; curves agree")  # fmt: skip


if __name__ == "__main__":
    main()
