"""Hypothesis strategies for valid tco-scenario/1 documents."""

from __future__ import annotations

from hypothesis import strategies as st


def _floats(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats a user would type: 0 or at least 0.01, never subnormal (which would break exact scaling)."""
    if low == 0:
        return st.one_of(st.just(0.0), st.floats(0.01, high))
    return st.floats(low, high)


def _money(high: float) -> st.SearchStrategy[float]:
    return _floats(0, high)


@st.composite
def owned_options(draw, *, fleet: int, workload: bool, name: str = "Own") -> dict:
    capex = draw(st.floats(1000, 1_000_000))
    power = draw(_floats(0, 20))
    option = {
        "name": name,
        "kind": draw(st.sampled_from(["owned", "secondary"])),
        "gpu_count": draw(st.integers(1, 2 * fleet)),
        "capex": capex,
        "residual_value": draw(_floats(0, 1)) * capex,
        "useful_life_years": draw(st.floats(1, 8)),
        "cost_of_capital": draw(st.sampled_from([0.0, 0.03, 0.07, 0.15])),
        "power_kw": power,
        "idle_power_kw": draw(_floats(0, 1)) * power,
        "pue": draw(st.floats(1, 2)),
        "electricity_per_kwh": draw(_money(0.3)),
        "facility_per_year": draw(_money(50000)),
        "operations_per_year": draw(_money(80000)),
    }
    if workload and draw(st.booleans()):
        option["tokens_per_second_per_gpu"] = draw(st.floats(500, 4000))
    if workload and draw(st.booleans()):
        option["acceptance_rate"] = draw(st.floats(0.5, 1))
    return option


@st.composite
def rental_options(draw, *, fleet: int, workload: bool, name: str = "Rent", on_demand: bool = False) -> dict:
    option = {
        "name": name,
        "kind": draw(st.sampled_from(["hyperscaler", "neocloud", "marketplace"])),
        "price_per_gpu_hour": draw(st.floats(0.1, 15)),
        "billing": "on_demand" if on_demand else draw(st.sampled_from(["on_demand", "committed"])),
        "committed_gpus": draw(st.integers(1, 2 * fleet)),
        "extras_per_year": draw(_money(20000)),
        "price_change_per_year": draw(st.floats(-0.5, 0.5)),
    }
    if workload and draw(st.booleans()):
        option["tokens_per_second_per_gpu"] = draw(st.floats(500, 4000))
    if workload and draw(st.booleans()):
        option["acceptance_rate"] = draw(st.floats(0.5, 1))
    return option


@st.composite
def api_options(draw, *, name: str = "API") -> dict:
    return {
        "name": name,
        "kind": "api",
        "price_per_million_input_tokens": draw(_floats(0, 5)),
        "price_per_million_output_tokens": draw(_floats(0, 20)),
        "extras_per_year": draw(_money(10000)),
        "acceptance_rate": draw(st.floats(0.5, 1)),
    }


@st.composite
def scenarios(draw, *, monthly: bool | None = None, api: bool = True) -> dict:
    """A valid document with one owned, one on-demand rental, one more rental and maybe an API."""
    horizon = draw(st.integers(1, 48))
    fleet = draw(st.integers(1, 16))
    with_workload = draw(st.booleans())
    per_month = draw(st.booleans()) if monthly is None else monthly
    count = horizon if per_month else 1
    doc = {
        "schema": "tco-scenario/1",
        "name": "Generated",
        "horizon_months": horizon,
        "discount_rate": draw(_floats(0, 0.25)),
        "fleet_gpus": fleet,
        "utilization": draw(st.lists(_floats(0, 1), min_size=count, max_size=count)),
        "burst_price_per_gpu_hour": draw(_floats(0, 15)),
        "options": [
            draw(owned_options(fleet=fleet, workload=with_workload)),
            draw(rental_options(fleet=fleet, workload=with_workload, on_demand=True)),
            draw(rental_options(fleet=fleet, workload=with_workload, name="Other rent")),
        ],
    }
    if with_workload:
        doc["workload"] = {
            "tokens_per_second_per_gpu": draw(st.floats(500, 4000)),
            "output_tokens_per_response": draw(st.floats(50, 1000)),
            "input_tokens_per_response": draw(_floats(0, 2000)),
            "acceptance_rate": draw(st.floats(0.5, 1)),
        }
        if api:
            doc["options"].append(draw(api_options()))
    return doc
