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


def finance_example() -> dict:
    """The example document with every option input, the finance ones (docs/money-math.md "Finance depth") among
    them, set on some option to a value other than its default: a loan and a straight-line tax life on the owned
    option, a lease ending in a buyout on a secondary one, a priced commitment on the rental, a hyperscaler rental
    whose price changes by a rate a year."""
    import copy

    document = copy.deepcopy(DESIGN_EXAMPLE)
    document.update({"tax_rate": 0.21, "cost_of_debt": 0.06, "refresh_policy": "replace"})
    owned = document["options"][0]
    del owned["residual_value"]  # the resale curve sets it
    owned.update(
        {
            "tax_depreciation": "straight_line",
            "tax_life_years": 5,
            "bonus_depreciation": 0.5,
            "financing": "loan",
            "loan_apr": 0.07,
            "loan_term_months": 48,
            "down_payment_share": 0.2,
            "capex_change_per_year": -0.2,
            "resale_curve": [[0, 1], [12, 0.7], [36, 0.4], [60, 0.2]],
            "age_at_purchase_months": 6,
        }
    )
    secondary = {
        **{key: value for key, value in owned.items() if key in DESIGN_EXAMPLE["options"][0]},
        "name": "Leased 8x H100 (secondary)",
        "kind": "secondary",
        "residual_value": 20000,
        "tax_depreciation": "macrs_5",
        "financing": "lease",
        "lease_payment": 27000,
        "lease_payment_interval_months": 3,
        "lease_term_months": 36,
        "lease_payment_timing": "arrears",
        "lease_end": "buyout",
        "lease_buyout_price": 30000,
    }
    rental = document["options"][1]
    del rental["price_change_per_year"]  # the path by year replaces it
    rental.update(
        {
            "billing": "committed",
            "price_change_by_year": [-0.25, -0.1, 0],
            "commitment_term_months": 12,
            "upfront_share": 0.5,
            "after_term": "on_demand",
            "on_demand_price_per_gpu_hour": 4.5,
            "committed_gpus": 8,
            "tokens_per_second_per_gpu": 2600,
            "acceptance_rate": 0.95,
        }
    )
    document["options"].insert(1, secondary)
    hyperscaler = {"name": "Hyperscaler on demand", "kind": "hyperscaler", "price_per_gpu_hour": 6.88}
    document["options"].append({**hyperscaler, "price_change_per_year": -0.1})
    return document


def training_example() -> dict:
    """The finance example with a training plan (docs/money-math.md "Training runs") sized by its model, and a
    capacity block beside the other options: every option input, the block's among them, set on some option."""
    document = finance_example()
    document["training"] = {
        "runs_per_year": 4,
        "params_billion": 8,
        "tokens_billion": 200,
        "mfu": 0.4,
        "peak_tflops": 989,
        "cluster_gpus": 8,
        "interruptions_per_million_gpu_hours": 20,
        "checkpoint_interval_hours": 2,
        "restart_hours": 0.5,
        "success_rate": 0.5,
        "other_cost_per_run": 1000,
    }
    document["options"].append(
        {
            "name": "Capacity block 8x H100",
            "kind": "hyperscaler",
            "price_per_gpu_hour": 4.5,
            "billing": "capacity_block",
            "block_gpus": 8,
            "block_days": 7,
        }
    )
    return document
