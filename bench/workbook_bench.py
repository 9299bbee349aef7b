"""The audited workbook's cost: a 240-month, 12-option scenario written as live formulas (named inputs, a ledger per
option, the results and break-even as formulas), against the same file's value sheets alone, measured in this run.
The scenario uses the finance depth: a tax rate and cost of debt, hardware replaced every cycle, bought for cash
(MACRS), on a loan, on a lease and along a resale curve, commitments with terms and upfront shares, a price path.

Run from the repository root: ``.venv/bin/python bench/workbook_bench.py``. Targets: the whole workbook built in
under 2 s and under 5 MB; exit status 1 when either is missed. The ratio to the values-only sheets is printed to
show what the formulas add.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")

import django

django.setup()

from tco.engine import evaluate  # noqa: E402
from tco.exports.files import results_workbook, workbook  # noqa: E402
from tco.exports.tables import inputs_table, monthly_table  # noqa: E402

SMOKE = "--smoke" in sys.argv  # a small size in a few seconds: that it runs (make bench-smoke), not how fast
MONTHS, RUNS = (48, 1) if SMOKE else (240, 5)
TARGET_SECONDS, TARGET_BYTES = 2.0, 5_000_000


def document() -> dict:
    """240 months, 12 options: four owned (two with throughput overrides), six rentals (two committed), two APIs."""
    owned = [
        {
            "name": f"Own {n}",
            "kind": "owned" if n % 2 else "secondary",
            "gpu_count": 8 + 4 * n,
            "capex": 285_000 + 20_000 * n,
            "residual_value": 28_000,
            "useful_life_years": 5,
            "cost_of_capital": 0.08,
            "power_kw": 10.2,
            "idle_power_kw": 2.5,
            "pue": 1.4,
            "electricity_per_kwh": 0.12,
            "facility_per_year": 23_868,
            "support_per_year": 28_500,
            "operations_per_year": 54_000,
            **({"tokens_per_second_per_gpu": 2000 + 200 * n} if n > 2 else {}),
        }
        for n in range(1, 5)
    ]
    owned[0].update(tax_depreciation="macrs_5", capex_change_per_year=-0.15)
    owned[1].update(financing="loan", loan_apr=0.07, loan_term_months=48, down_payment_share=0.2)
    owned[2].update(financing="lease", lease_payment=6_500, lease_term_months=48, lease_payment_interval_months=3)
    del owned[3]["residual_value"]
    owned[3].update(bonus_depreciation=0.6, resale_curve=[[0, 1], [12, 0.65], [36, 0.3], [60, 0.12]])
    rentals = [
        {
            "name": f"Rent {n}",
            "kind": "neocloud",
            "price_per_gpu_hour": 2.5 + n,
            "billing": "committed" if n > 4 else "on_demand",
            "committed_gpus": 8,
            "price_change_per_year": -0.1,
        }
        for n in range(1, 7)
    ]
    rentals[4].update(commitment_term_months=36, upfront_share=0.5)
    rentals[5].update(commitment_term_months=12, upfront_share=1.0, after_term="on_demand")
    del rentals[1]["price_change_per_year"]
    rentals[1]["price_change_by_year"] = [-0.25, -0.1, 0.0]
    apis = [
        {
            "name": f"API {n}",
            "kind": "api",
            "price_per_million_input_tokens": 0.5 * n,
            "price_per_million_output_tokens": 1.5 * n,
        }
        for n in range(1, 3)
    ]
    return {
        "schema": "tco-scenario/1",
        "name": "Workbook benchmark",
        "horizon_months": MONTHS,
        "discount_rate": 0.08,
        "fleet_gpus": 16,
        "utilization": [0.3 + 0.6 * m / (MONTHS - 1) for m in range(MONTHS)],
        "burst_price_per_gpu_hour": 6.16,
        "tax_rate": 0.21,
        "cost_of_debt": 0.06,
        "refresh_policy": "replace",
        "workload": {
            "tokens_per_second_per_gpu": 2400,
            "output_tokens_per_response": 350,
            "input_tokens_per_response": 1200,
            "acceptance_rate": 0.9,
        },
        "options": owned + rentals + apis,
    }


def timed(build) -> tuple[float, float, bytes]:
    """Median wall and CPU seconds of ``RUNS`` builds (CPU time shows the cost on a machine busy with other work)."""
    walls, cpus, content = [], [], b""
    for _ in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        content = build()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), content


def main() -> int:
    doc = document()
    result = evaluate(doc)
    baseline, baseline_cpu, values = timed(
        lambda: workbook([("Monthly cost", monthly_table(doc, result)), ("Inputs in words", inputs_table(doc))])
    )
    seconds, cpu, content = timed(lambda: results_workbook(doc, result))
    print(
        f"values only (monthly cost, inputs in words): {baseline * 1000:.0f} ms ({baseline_cpu * 1000:.0f} ms CPU), "
        f"{len(values) / 1e6:.2f} MB"
    )
    print(
        f"whole workbook with the live model:          {seconds * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU), "
        f"{len(content) / 1e6:.2f} MB"
    )
    print(f"ratio: {seconds / baseline:.1f}x the time, {len(content) / len(values):.1f}x the bytes")
    ok = seconds < TARGET_SECONDS and len(content) < TARGET_BYTES
    print(f"target: under {TARGET_SECONDS:.0f} s and {TARGET_BYTES / 1e6:.0f} MB: {'met' if ok else 'MISSED'}")
    return 0 if SMOKE or ok else 1


if __name__ == "__main__":
    sys.exit(main())
