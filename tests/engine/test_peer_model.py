"""The published peer model (docs/money-math.md): 4x H100 PCIe breaks even at 31.4 % against $3.29/GPU-hour.

The figure is reproduced by the break-even formula with: capital charge = capex / 5 years (no
residual, no cost of capital); power drawn at its 2.1 kW maximum whether busy or idle (so energy
is a fixed cost: 2.1 x 1.52 x 8760 x 0.2575 a year); colocation billed on the 2.1 kW IT load,
2.1 x 194.95 x 12 a year; nothing else.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tco.engine import evaluate

from .docs import owned, pair, pct, rental, scenario


def _peer_model() -> dict:
    return scenario(
        owned(
            name="4x H100 PCIe",
            gpu_count=4,
            capex=120414,
            residual_value=0,
            useful_life_years=5,
            cost_of_capital=0,
            power_kw=2.1,
            idle_power_kw=2.1,
            pue=1.52,
            electricity_per_kwh=0.2575,
            facility_per_year=2.1 * 194.95 * 12,
            network_per_year=0,
            software_per_year=0,
            support_per_year=0,
            operations_per_year=0,
        ),
        rental(name="Rent H100 PCIe", price_per_gpu_hour=3.29),
        fleet_gpus=4,
    )


def test_it_reproduces_the_published_31_4_percent():
    share = pair(evaluate(_peer_model()), "4x H100 PCIe", "Rent H100 PCIe")["utilization"]
    assert pct(share) == Decimal("31.4")


def test_its_peer_model_break_even_equals_the_hand_formula():
    annual = 120414 / 5 + 2.1 * 1.52 * 8760 * 0.2575 + 2.1 * 194.95 * 12
    share = pair(evaluate(_peer_model()), "4x H100 PCIe", "Rent H100 PCIe")["utilization"]
    assert share == pytest.approx(annual / (4 * 8760 * 3.29), rel=1e-12)
