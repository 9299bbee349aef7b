"""Typical owned-hardware figures to start an owned or secondary option from a GPU model.

Every figure is an assumption to replace with a quote; the option lists which fields still hold
one. Sources: docs/money-math.md ("Typical figures the app starts from", 8x H100 SXM server, 2026),
middle of each published range. Figures are per 8-GPU server and scale per GPU for other counts.

Power: GPU TDP x count plus host overhead. An 8x H100 SXM server draws 10.2 kW at full load, of
which the GPUs are 8 x 700 W = 5.6 kW; the remaining 4.6 kW (CPUs, memory, NICs, NVSwitch, fans,
storage) is our host overhead: 0.575 kW per GPU. Idle is 24.5 % of full load (2.5 of 10.2 kW),
also an assumption: measure it on the real machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

GPUS_PER_SERVER = Decimal(8)
HOST_OVERHEAD_KW_PER_GPU = Decimal("0.575")
IDLE_SHARE_OF_MAX = Decimal("0.245")
SPARES_SHARE = Decimal("0.05")  # spare GPUs/parts, 3-10 % -> 5 %, added to capex
INSTALLATION_PER_SERVER = Decimal("12750")  # $3.5k-22k -> middle
NETWORK_FABRIC_PER_SERVER = Decimal("12000")  # fabric per host, a one-off purchase -> capex
PUE = Decimal("1.4")
ELECTRICITY_PER_KWH = Decimal("0.12")
COLOCATION_PER_KW_MONTH = Decimal("195")
SUPPORT_SHARE_PER_YEAR = Decimal("0.10")  # of the server price
OPERATIONS_FTE_PER_SERVER = Decimal("0.25")
OPERATIONS_LOADED_COST_PER_FTE_YEAR = Decimal("216000")
USEFUL_LIFE_YEARS = Decimal("5")
RESIDUAL_SHARE = Decimal("0.10")
COST_OF_CAPITAL = Decimal("0.08")

# Secondary (refurbished) servers: lower capex and residual, shorter life, higher support.
SECONDARY_CAPEX_SHARE = Decimal("0.55")  # of a new server's price (demo figure; ask for a quote)
SECONDARY_RESIDUAL_SHARE = Decimal("0.05")
SECONDARY_USEFUL_LIFE_YEARS = Decimal("3")
SECONDARY_SUPPORT_SHARE_PER_YEAR = Decimal("0.12")  # of the new-equivalent server price: shorter warranty

CENT = Decimal("0.01")


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass
class Prefill:
    values: dict[str, Decimal | int]
    note: str
    assumed_fields: list[str] = field(default_factory=list)


def owned_prefill(
    *, gpu_name: str, gpu_count: int, tdp_watts: int | None, server_capex_per_gpu: Decimal | None, secondary: bool
) -> Prefill:
    """Owned-option inputs for `gpu_count` GPUs of one model (see the module docstring for the sources)."""
    count = Decimal(gpu_count)
    servers = count / GPUS_PER_SERVER
    values: dict[str, Decimal | int] = {
        "gpu_count": gpu_count,
        "pue": PUE,
        "electricity_per_kwh": ELECTRICITY_PER_KWH,
        "network_per_year": Decimal(0),
        "software_per_year": Decimal(0),
        "operations_per_year": _money(OPERATIONS_FTE_PER_SERVER * OPERATIONS_LOADED_COST_PER_FTE_YEAR * servers),
        "useful_life_years": SECONDARY_USEFUL_LIFE_YEARS if secondary else USEFUL_LIFE_YEARS,
        "cost_of_capital": COST_OF_CAPITAL,
    }
    whole_servers = f" ({servers:.0f} server{'' if servers == 1 else 's'} of 8)" if servers == int(servers) else ""
    lines = [
        f"Typical figures for {gpu_count}\u00d7 {gpu_name} (published 2026 ranges), not a quote; capex, power and "
        f"running costs are for the whole option: all {gpu_count} GPUs{whole_servers}."
    ]
    if tdp_watts:
        power_kw = (count * (Decimal(tdp_watts) / 1000 + HOST_OVERHEAD_KW_PER_GPU)).quantize(Decimal("0.001"))
        values["power_kw"] = power_kw
        values["idle_power_kw"] = (power_kw * IDLE_SHARE_OF_MAX).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        values["facility_per_year"] = _money(power_kw * COLOCATION_PER_KW_MONTH * 12)
        lines.append(
            f"power {power_kw} kW = {gpu_count} x ({tdp_watts} W TDP + {HOST_OVERHEAD_KW_PER_GPU * 1000:.0f} W host); "
            f"idle {values['idle_power_kw']} kW (24.5 % of max); colocation ${COLOCATION_PER_KW_MONTH}/kW-month."
        )
    else:
        lines.append("No TDP on record for this GPU: enter power from the server's spec sheet.")
    if server_capex_per_gpu:
        new_server = server_capex_per_gpu * count
        server = _money(new_server * SECONDARY_CAPEX_SHARE) if secondary else _money(new_server)
        spares = _money(server * SPARES_SHARE)
        installation = _money(INSTALLATION_PER_SERVER * servers)
        fabric = _money(NETWORK_FABRIC_PER_SERVER * servers)
        capex = server + spares + installation + fabric
        values["capex"] = capex
        values["residual_value"] = _money(capex * (SECONDARY_RESIDUAL_SHARE if secondary else RESIDUAL_SHARE))
        support_share = SECONDARY_SUPPORT_SHARE_PER_YEAR if secondary else SUPPORT_SHARE_PER_YEAR
        values["support_per_year"] = _money(new_server * support_share)
        server_text = f"server {server:,.0f}" + (" (55 % of new)" if secondary else "")
        lines.append(
            f"capex {capex:,.0f} = {server_text} + spares 5 % {spares:,.0f} + installation {installation:,.0f} "
            f"+ network fabric {fabric:,.0f}; residual {'5' if secondary else '10'} % of capex; "
            f"support {support_share * 100:.0f} % of the new server price per year."
        )
    else:
        lines.append("No typical server price on record for this GPU: enter capex and support from a quote.")
    lines.append(
        f"PUE {PUE}, electricity ${ELECTRICITY_PER_KWH}/kWh, operations 0.25 FTE per server at $216k, "
        f"life {values['useful_life_years']} years, cost of capital 8 %."
    )
    return Prefill(values=values, note=" ".join(lines), assumed_fields=sorted(k for k in values if k != "gpu_count"))
