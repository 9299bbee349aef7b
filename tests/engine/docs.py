"""Small builders of tco-scenario/1 documents for the engine tests."""

from __future__ import annotations

import copy
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tests.documents import DESIGN_EXAMPLE

# The example document's owned option without its gpu_count, so the fleet size decides it.
_EXAMPLE_OWNED = {key: value for key, value in DESIGN_EXAMPLE["options"][0].items() if key != "gpu_count"}


def owned(**fields: Any) -> dict[str, Any]:
    return _without_drops({**_EXAMPLE_OWNED, "name": "Own", **fields})


def rental(**fields: Any) -> dict[str, Any]:
    return _without_drops({"name": "Rent", "kind": "neocloud", "price_per_gpu_hour": 3.99, **fields})


def api(**fields: Any) -> dict[str, Any]:
    base = {"name": "API", "kind": "api", "price_per_million_input_tokens": 0.5, "price_per_million_output_tokens": 1.5}
    return _without_drops({**base, **fields})


WORKLOAD = dict(DESIGN_EXAMPLE["workload"])


def scenario(*options: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A valid document; the example document when called without arguments."""
    base = {
        "schema": "tco-scenario/1",
        "name": "Test scenario",
        "currency": "USD",
        "horizon_months": 36,
        "discount_rate": 0.08,
        "fleet_gpus": 8,
        "utilization": [0.55],
        "burst_price_per_gpu_hour": 6.16,
        "workload": dict(WORKLOAD),
        "options": list(options)
        or [owned(name="Own 8x H100"), rental(name="Lambda", price_change_per_year=-0.1), api(name="Hosted API")],
    }
    return copy.deepcopy(_without_drops({**base, **fields}))


DROP = object()  # pass as a field value to leave the field out


def _without_drops(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not DROP}


def pct(share: float) -> Decimal:
    """A utilization as shown: percent rounded half-up to 0.1 (docs/money-math.md)."""
    return (Decimal(repr(share)) * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def cents(amount: float) -> Decimal:
    return Decimal(repr(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def option_result(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(o for o in result["options"] if o["name"] == name)


def pair(result: dict[str, Any], owned_name: str, rental_name: str) -> dict[str, Any]:
    return next(p for p in result["break_even"] if p["owned"] == owned_name and p["rental"] == rental_name)
