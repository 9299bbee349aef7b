"""Engine speed: one evaluate of a 36-month, 8-option scenario, and sweep vs an evaluate loop.

Run from the repository root: ``.venv/bin/python bench/engine_bench.py``. Both sides of each ratio
are measured in this run on this machine; the targets are a few milliseconds per evaluate
and a 100 x 100 sweep at least 20x faster than 10,000 evaluate calls. The same scenario after tax, financed
(a loan, a lease), refreshed, with a resale curve, a price path and a commitment term: evaluate under 2x the
plain scenario's time, and its sweep still at least 20x an evaluate loop.
"""

from __future__ import annotations

import copy
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tco.engine import evaluate, sweep

SMOKE = "--smoke" in sys.argv  # a small size in a few seconds: that it runs (make bench-smoke), not how fast
GRID = 10 if SMOKE else 100
RUNS = 20 if SMOKE else 500
SWEEPS = 1 if SMOKE else 5
TARGET_RATIO = 20.0


def document() -> dict:
    """36 months, 8 options of every kind, a rising forecast, throughput overrides, a commitment."""
    return {
        "schema": "tco-scenario/1",
        "name": "Engine benchmark",
        "horizon_months": 36,
        "discount_rate": 0.08,
        "fleet_gpus": 8,
        "utilization": [0.3 + 0.5 * m / 35 for m in range(36)],
        "burst_price_per_gpu_hour": 6.16,
        "workload": {
            "tokens_per_second_per_gpu": 2400,
            "output_tokens_per_response": 350,
            "input_tokens_per_response": 1200,
            "acceptance_rate": 0.9,
        },
        "options": [
            {"name": "Own 8x H100", "kind": "owned", "capex": 320000, "residual_value": 40000,
             "useful_life_years": 4, "cost_of_capital": 0.07, "power_kw": 10.2, "idle_power_kw": 3.5,
             "pue": 1.35, "electricity_per_kwh": 0.11, "facility_per_year": 24000, "network_per_year": 6000,
             "software_per_year": 5000, "support_per_year": 12000, "operations_per_year": 30000},
            {"name": "Own 4x H100", "kind": "owned", "gpu_count": 4, "capex": 160000, "useful_life_years": 4,
             "power_kw": 5.1, "electricity_per_kwh": 0.11, "tokens_per_second_per_gpu": 2600},
            {"name": "Secondary 8x H100", "kind": "secondary", "capex": 176000, "residual_value": 10000,
             "useful_life_years": 3, "cost_of_capital": 0.08, "power_kw": 10.2, "electricity_per_kwh": 0.12,
             "support_per_year": 20000, "acceptance_rate": 0.85},
            {"name": "Lambda", "kind": "neocloud", "price_per_gpu_hour": 3.99, "price_change_per_year": -0.1},
            {"name": "Google Cloud A3", "kind": "hyperscaler", "price_per_gpu_hour": 11.06, "extras_per_year": 5000},
            {"name": "CoreWeave committed", "kind": "neocloud", "price_per_gpu_hour": 4.2, "billing": "committed",
             "committed_gpus": 6},
            {"name": "Marketplace", "kind": "marketplace", "price_per_gpu_hour": 2.1,
             "tokens_per_second_per_gpu": 1800},
            {"name": "Hosted API", "kind": "api", "price_per_million_input_tokens": 0.5,
             "price_per_million_output_tokens": 1.5},
        ],
    }  # fmt: skip


def finance_document() -> dict:
    """The benchmark scenario with the finance depth: tax, a loan, a lease, replacement, a curve, paths, a term."""
    doc = document()
    doc.update(tax_rate=0.21, cost_of_debt=0.06, refresh_policy="replace")
    own8, own4, secondary = doc["options"][0], doc["options"][1], doc["options"][2]
    own8.update(
        financing="loan",
        loan_apr=0.07,
        loan_term_months=48,
        down_payment_share=0.2,
        tax_depreciation="macrs_5",
        capex_change_per_year=-0.15,
    )
    own4.update(financing="lease", lease_payment=4200, lease_term_months=36, tax_depreciation="macrs_5")
    del secondary["residual_value"]
    secondary.update(
        resale_curve=[[0, 1], [12, 0.7], [36, 0.35], [60, 0.15]],
        age_at_purchase_months=12,
        useful_life_years=1.5,
        tax_depreciation="macrs_3",
        bonus_depreciation=0.4,
    )
    doc["options"][3].pop("price_change_per_year")
    doc["options"][3]["price_change_by_year"] = [-0.2, -0.1, -0.05]
    doc["options"][5].update(commitment_term_months=12, upfront_share=0.5, on_demand_price_per_gpu_hour=5.5)
    return doc  # fmt: skip


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    plain = measure_evaluate(document(), "evaluate, 36 months x 8 options")
    financed = measure_evaluate(finance_document(), "evaluate after tax, financed, refreshed")
    ratio = financed / plain
    verdict = "meets" if ratio < 2.0 else "MISSES"
    print(f"the finance depth costs {ratio:.2f}x the plain evaluate ({verdict} the < 2x target)")
    measure_sweep(document(), "")
    measure_sweep(finance_document(), " (after tax, financed, refreshed)")


def measure_evaluate(doc: dict, label: str) -> float:
    evaluate(doc)  # warm up imports and caches
    singles = [timed(lambda: evaluate(doc)) for _ in range(RUNS)]
    print(f"{label}: median {statistics.median(singles) * 1e3:.3f} ms "
          f"(p90 {statistics.quantiles(singles, n=10)[-1] * 1e3:.3f} ms, {len(singles)} runs)")  # fmt: skip
    return statistics.median(singles)


def measure_sweep(doc: dict, label: str) -> None:
    x = ("utilization", [i / (GRID - 1) for i in range(GRID)])
    y = ("options[3].price_per_gpu_hour", [1.0 + 0.1 * j for j in range(GRID)])
    variants = []
    for price in y[1]:
        for share in x[1]:
            variant = copy.deepcopy(doc)
            variant["utilization"] = [share]
            variant["options"][3]["price_per_gpu_hour"] = price
            variants.append(variant)
    sweeps = [timed(lambda: sweep(doc, x, y)) for _ in range(SWEEPS)]
    loop = timed(lambda: [evaluate(v) for v in variants])
    best = statistics.median(sweeps)
    ratio = loop / best
    print(f"sweep {GRID}x{GRID}{label}: median {best * 1e3:.1f} ms ({SWEEPS} runs)")
    print(f"evaluate x {len(variants)} in a loop (variants built beforehand): {loop * 1e3:.0f} ms")
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(f"sweep is {ratio:.0f}x faster than the loop ({verdict} the >= {TARGET_RATIO:.0f}x target)")

    grid = sweep(doc, x, y)
    for j, i in ((0, 0), (GRID * 37 // 100, GRID * 81 // 100), (GRID - 1, GRID - 1)):
        cell = evaluate(variants[j * GRID + i])
        assert grid["cheapest"][j][i] == cell.get("cheapest_after_tax", cell["cheapest"]), (j, i)
    print("spot check: sweep cells agree with evaluate of the same variants")


if __name__ == "__main__":
    main()
