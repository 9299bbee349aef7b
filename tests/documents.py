"""Test documents shared by several test packages."""

from __future__ import annotations

# The example tco-scenario/1 document of docs/import-formats.md, verbatim.
DESIGN_EXAMPLE = {
    "schema": "tco-scenario/1",
    "name": "H100 inference 2027",
    "currency": "USD",
    "horizon_months": 36,
    "discount_rate": 0.08,
    "fleet_gpus": 8,
    "utilization": [0.55],
    "burst_price_per_gpu_hour": 6.16,
    "workload": {
        "tokens_per_second_per_gpu": 2400,
        "output_tokens_per_response": 350,
        "input_tokens_per_response": 1200,
        "acceptance_rate": 0.9,
    },
    "options": [
        {
            "name": "Own 8x H100 (new)",
            "kind": "owned",
            "gpu_count": 8,
            "capex": 320000,
            "residual_value": 40000,
            "useful_life_years": 4,
            "cost_of_capital": 0.07,
            "power_kw": 10.2,
            "idle_power_kw": 3.5,
            "pue": 1.35,
            "electricity_per_kwh": 0.11,
            "facility_per_year": 24000,
            "network_per_year": 6000,
            "software_per_year": 5000,
            "support_per_year": 12000,
            "operations_per_year": 30000,
        },
        {
            "name": "Lambda 8x H100 SXM",
            "kind": "neocloud",
            "price_per_gpu_hour": 3.99,
            "billing": "on_demand",
            "extras_per_year": 0,
            "price_change_per_year": -0.10,
        },
        {
            "name": "Hosted model API",
            "kind": "api",
            "price_per_million_input_tokens": 0.5,
            "price_per_million_output_tokens": 1.5,
        },
    ],
}
