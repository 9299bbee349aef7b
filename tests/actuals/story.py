"""The nine-month story the actuals tests share: a decision to own 8 GPUs of the worked example at 75 % busy, then
nine months of owned costs and DCGM scrapes, the GPUs' busy share falling to 40 % from July, below the 61.7 %
break-even (worked by hand in tests/actuals/test_decision_against_actuals.py), so the verdict turns in September."""

from __future__ import annotations

import io

from tco.services.actuals import actuals_attach, actuals_import, rule_add
from tco.services.decisions import decision_record

OWN, RENT = "Own 8x H100 (new)", "Lambda 8x H100 SXM"
MONTHS = [f"2027-{m:02d}" for m in range(1, 10)]
MEASURED = [0.75] * 6 + [0.40] * 3  # busy share of each of the 8 GPUs, month by month


def dcgm_scrape(share: float) -> bytes:
    """One month's DCGM exporter scrape of the 8 GPUs of gpu-server-1, each busy ``share`` of the time."""
    lines = [
        f'DCGM_FI_PROF_GR_ENGINE_ACTIVE{{gpu="{i}",UUID="GPU-{i}",modelName="NVIDIA H100 80GB HBM3",'
        f'Hostname="gpu-server-1"}} {share:.6f}'
        for i in range(8)
    ]
    return (
        "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n" + "\n".join(lines)
    ).encode()


def owned_costs(month: str) -> bytes:
    """One month's owned costs of gpu-server-1 (its energy)."""
    return f"month,kind,amount,currency,description,resource\n{month},energy,812.40,USD,power,gpu-server-1\n".encode()


def decide_and_attach(scenario, user, start_month: str = "2027-01"):
    """The scenario decided for owning, its plan attached from ``start_month``, both actuals sources mapped to it."""
    decision_record(scenario=scenario, user=user, option_name=OWN, rationale="Busy enough to own.")
    plan = actuals_attach(scenario=scenario, user=user, start_month=start_month)
    rule_add(plan=plan, option_name=OWN, provider="Owned", resource="gpu-server-1")
    rule_add(plan=plan, option_name=OWN, provider="DCGM", resource="gpu-server-1")
    return plan


def import_month(month: str, share: float, *, costs: bool = True) -> None:
    """A month of the story: its owned costs (unless ``costs`` is False) and its scrape."""
    if costs:
        actuals_import(stream=io.BytesIO(owned_costs(month)), file_name=f"owned-{month}.csv")
    actuals_import(stream=io.BytesIO(dcgm_scrape(share)), file_name=f"dcgm-{month}.prom", month=month)


def import_nine_months(*, costs: bool = True) -> None:
    for month, share in zip(MONTHS, MEASURED, strict=True):
        import_month(month, share, costs=costs)
