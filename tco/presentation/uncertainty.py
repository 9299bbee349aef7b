"""Decisions under uncertainty in words and rows: the probability headline, the simulated NPVs per option,
the tornado rows and the fleet plan's budget lanes (owned baseline, rented burst)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.currencies import currency_of
from lib.formatting import format_money, format_pct, round_half_up
from lib.kinds import is_owned
from tco.engine.constants import HOURS_PER_YEAR
from tco.presentation.inputs import path_fact, path_words

from .finance import after_tax_words

PERCENTILES_NOTE = (
    "P10, P50 and P90 are percentiles of the trials: 1 in 10 trials came out below P10, half below P50 (the median)"
    " and 9 in 10 below P90."
)


def share_text(fraction: float) -> str:
    """A share of trials as the panel says it, in whole percent: 0.6234 → "62 %". A share that is not 0 never reads
    "0 %" ("< 1 %": it happened in some trials), nor one short of all "100 %" ("> 99 %")."""
    percent = round_half_up(fraction * 100, 0)
    if fraction > 0 and percent == 0:
        return "< 1 %"
    if fraction < 1 and percent == 100:
        return "> 99 %"
    return f"{percent} %"


def probability_headline(simulation: dict) -> str:
    """ "Owning is cheaper in 62 % of 20,000 trials" (or, without both sides, the option cheapest most often)."""
    trials = f"{simulation['trials']:,} trial{'s' if simulation['trials'] != 1 else ''}"
    difference = simulation.get("owned_minus_rental")
    if difference is not None:
        return f"Owning is cheaper in {share_text(difference['probability_owning_cheaper'])} of {trials}"
    best = max(simulation["options"], key=lambda option: option["probability_cheapest"])
    return f"{best['name']} is cheapest in {share_text(best['probability_cheapest'])} of {trials}"


def simulation_rows(simulation: dict) -> list[dict]:
    """Per option: P10 / P50 / P90 / mean NPV and the share of trials in which it is cheapest (and in words)."""
    return [
        {
            "name": option["name"],
            **option["npv"],
            "probability_cheapest": option["probability_cheapest"],
            "cheapest_text": share_text(option["probability_cheapest"]),
        }
        for option in simulation["options"]
    ]


def _best_of(names: Sequence[str]) -> str:
    """ "Own 8x H100", "the cheaper of A and B", "the cheapest of A, B and C"."""
    if len(names) == 1:
        return names[0]
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    return f"the cheaper of {listed}" if len(names) == 2 else f"the cheapest of {listed}"


def sides_text(document: dict) -> str:
    """What "owned minus rental" subtracts, by name: "Own 8x H100 minus the cheaper of Lambda and Hosted API" (in
    each trial the lowest owned NPV minus the lowest of the others, as the engine's simulate and sensitivity)."""
    options = document.get("options") or []
    owned = [option["name"] for option in options if is_owned(option["kind"])]
    others = [option["name"] for option in options if not is_owned(option["kind"])]
    if not owned or not others:
        return ""
    return f"{_best_of(owned)} minus {_best_of(others)}"


def spread_sentence(simulation: dict, document: dict) -> str:
    """P10 / P50 / P90 of owned minus rental NPV in words, naming both sides ("" without both sides)."""
    difference = simulation.get("owned_minus_rental")
    if difference is None:
        return ""
    currency = currency_of(document)
    p10, p50, p90 = (format_money(difference[key], currency) for key in ("p10", "p50", "p90"))
    sides = sides_text(document)
    which = f", in each trial {sides}" if sides else ""
    return (
        f"Owned minus rental present value of cost{after_tax_words(document)}{which}: P10 {p10}, P50 {p50}, P90 {p90} "
        "(below 0: owning is cheaper)."
    )


def has_effect(row: dict) -> bool:
    """A tornado row whose bar has a width: its two ends differ by at least one whole currency unit as shown."""
    return round_half_up(abs(row["difference_at_high"] - row["difference_at_low"]), 0) != 0


def tornado_rows(document: dict, tornado: dict) -> dict:
    """The tornado's rows in words (label, low and high as the inputs read) that move the answer, widest first;
    and the inputs that do not (``no_effect``, with ``no_effect_text``: "3 inputs with no effect on owned minus
    rental: Discount rate; Hosted API: Price per million input tokens, Price per million output tokens."), which
    would be bars of zero width."""
    shown, idle = [], []
    by_owner: dict[str, list[str]] = {}
    for row in tornado.get("rows") or []:
        found = path_fact(document, row["path"]) if row.get("path") else None
        owner, label = (found[0], found[1].label) if found else ("", row["label"])
        if not has_effect(row):
            idle.append(f"{owner}: {label}" if owner else label)
            by_owner.setdefault(owner, []).append(label)
            continue
        low, high = row["low"], row["high"]
        shown.append(
            {
                **row,
                "label": f"{owner}: {label}" if owner else label,
                "low_text": path_words(document, row["path"], low) if found else str(low),
                "high_text": path_words(document, row["path"], high) if found else str(high),
            }
        )
    groups = [f"{owner}: {', '.join(labels)}" if owner else "; ".join(labels) for owner, labels in by_owner.items()]
    count = f"{len(idle)} input{'s' if len(idle) != 1 else ''}"
    text = f"{count} with no effect on owned minus rental: {'; '.join(groups)}." if idle else ""
    return {"rows": shown, "no_effect": idle, "no_effect_text": text}


def plan_rule_sentence(rule: dict) -> str:
    """When one more owned GPU pays against renting, as a CFO reads it: a share of hours above 100 % is never."""
    share = rule.get("break_even_utilization")
    if share is None:
        return (
            f"An owned GPU never pays at this price: renting at {rule['rental']} costs less per hour than its power "
            "alone."
        )
    if share > 1:
        return (
            f"An owned GPU never pays at this price: even busy every hour it costs more than renting at "
            f"{rule['rental']}."
        )
    return f"An owned GPU pays when it is busy at least {format_pct(share)} of the hours."


def budget_lanes(plan: dict, load_profile: Sequence[float]) -> list[dict]:
    """The cheapest plan as two budget lines a year: the owned baseline (k GPUs, fixed and busy costs) and the
    rented burst (the load above k at the rental's price). They add up to the plan's annual cost."""
    loads = np.asarray(load_profile, dtype=float)
    owned = plan["owned_gpus"]
    rule = plan["rule"]
    scale = HOURS_PER_YEAR / len(loads)
    owned_hours = float(np.minimum(loads, owned).sum()) * scale
    burst_hours = float(np.maximum(loads - owned, 0).sum()) * scale
    owned_cost = owned * rule["fixed_per_gpu_hour"] * HOURS_PER_YEAR + owned_hours * rule["busy_per_gpu_hour"]
    burst_cost = burst_hours * rule["price_per_gpu_hour"]
    return [
        {
            "lane": "Owned baseline",
            "option": rule["owned"],
            "gpus": owned,
            "gpu_hours_per_year": owned_hours,
            "utilization": owned_hours / (owned * HOURS_PER_YEAR) if owned else None,
            "cost_per_year": owned_cost,
        },
        {
            "lane": "Rented burst",
            "option": rule["rental"],
            "gpus": max(0, int(np.ceil(loads.max())) - owned),
            "gpu_hours_per_year": burst_hours,
            "utilization": None,
            "cost_per_year": burst_cost,
        },
    ]
