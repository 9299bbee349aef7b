"""``fleet_plan``: how many GPUs to own for the baseline while renting the bursts (docs/money-math.md).

Math. For an hourly load profile x_1..x_n (GPUs busy; any n ≥ 24, a representative period scaled
to a year), an owned option with G GPUs and an on-demand rental at p per GPU-hour (today's price):

- ``c_fix = (A + O + E(0)) / (G·8760)`` per owned GPU-hour: capital charge, fixed opex and idle
  energy (docs/money-math.md);
- ``c_busy = (P_max - P_idle)·PUE·price_kWh / G``: the extra energy of a busy owned GPU-hour;
- owning k GPUs costs a year ``cost(k) = 8760/n · Σ_h [k·c_fix + min(x_h, k)·c_busy + max(x_h - k, 0)·p]``
  for k = 0 .. ceil(max x_h).

Computed for every k at once from the sorted profile: ``Σ_h min(x_h, k) = Σ_{x_h < k} x_h + k·#{x_h ≥ k}``
and ``Σ_h max(x_h - k, 0) = Σ_h x_h - Σ_h min(x_h, k)``. The marginal rule: for whole-GPU loads
``cost(k) - cost(k-1) = 8760·(c_fix - (p - c_busy)·s_k)`` with ``s_k`` the share of hours with
x_h ≥ k, so the k-th GPU pays (does not raise the cost) exactly when ``s_k ≥ c_fix/(p - c_busy)``,
the break-even utilization. The optimum is found by that rule (a binary search, the cost being convex),
so the curve need not be computed whole: it is stored at most MAX_CURVE_POINTS counts long. With a tax rate T
(docs/money-math.md "Finance depth") the costs are after tax: c_fix uses the after-tax capital charge and ``(1 - T)``
of the fixed opex and idle energy, c_busy and p are ``(1 - T)`` of their values. Throughput
and acceptance overrides are not applied: the profile counts GPUs of either side alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS, is_on_demand_rental

from .constants import HOURS_PER_YEAR
from .errors import Problem, ScenarioError
from .fields import NumberField, check_number, describe
from .owned import capital_charge, energy_terms, fixed_opex_per_year
from .resale import residual
from .tax import after_tax_capital_charge
from .validation import validate

MIN_HOURS = 24
MAX_HOURS = 1_000_000
LOAD = NumberField("GPUs busy", lo=0.0, hi=1_000_000.0, unit="GPUs")
# Owned counts on the stored curve: every k up to a peak of 1,000 GPUs; past it this many, spread evenly, with
# the cheapest count and its neighbours (a peak of 10^6 would otherwise store and draw 10^6 points).
MAX_CURVE_POINTS = 1_001


def fleet_plan(
    document: Mapping[str, Any],
    load_profile: Sequence[float],
    owned: int | str | None = None,
    rental: int | str | None = None,
) -> dict[str, Any]:
    """The yearly cost of owning k = 0 .. ceil(max load) GPUs and renting the rest (module docstring).

    ``owned`` and ``rental`` pick options by index in ``document["options"]`` (an int) or by name (a
    str); ``owned`` must be an owned/secondary option, ``rental`` an on-demand hyperscaler, neocloud
    or marketplace option. Defaults: the owned option with the lowest cost of a busy GPU-hour
    (``c_fix + c_busy``) and the on-demand rental with the lowest price per GPU-hour (the first on a tie).

    Returns ``{"owned_gpus", "annual_cost", "peak_gpus", "costs": [{"owned_gpus", "annual_cost"}, ...],
    "rule": {"owned", "rental", "fixed_per_gpu_hour", "busy_per_gpu_hour", "price_per_gpu_hour",
    "break_even_utilization", "share_of_hours_at_least"}}``: the optimum (the fewest GPUs on a tie,
    found by the marginal rule), ``peak_gpus`` = ceil(max load), the curve (every k = 0 .. peak up to
    MAX_CURVE_POINTS counts, else that many spread evenly plus the optimum and its neighbours: the
    plan's size is bounded whatever the load), and the marginal rule's terms, where
    ``break_even_utilization`` is ``c_fix/(p - c_busy)`` (None when p ≤ c_busy: renting is cheaper even
    than the energy of an owned GPU) and ``share_of_hours_at_least[i]`` is s_k for the k of
    ``costs[i + 1]``.
    Raises ScenarioError for an invalid document, profile or choice of option, named by path.
    """
    doc = validate(document)
    problems: list[Problem] = []
    loads = _profile(load_profile, problems)
    owned_index = _pick(doc, owned, "owned", lambda o: o["kind"] in OWNED_KINDS, "an owned or secondary", problems)
    rental_index = _pick(doc, rental, "rental", is_on_demand_rental, "an on-demand rental", problems)
    if problems:
        raise ScenarioError(problems)
    tax = doc.get("tax_rate")  # with a tax rate every term is after tax (docs/money-math.md "Finance depth")
    terms = [_owned_terms(option, tax) for option in doc["options"]]
    if owned_index is None:
        candidates = [i for i, o in enumerate(doc["options"]) if o["kind"] in OWNED_KINDS]
        owned_index = min(candidates, key=lambda i: sum(terms[i]), default=None)
    if rental_index is None:
        candidates = [i for i, o in enumerate(doc["options"]) if is_on_demand_rental(o)]
        rental_index = min(candidates, key=lambda i: doc["options"][i]["price_per_gpu_hour"], default=None)
    if owned_index is None or rental_index is None:
        missing = "an owned or secondary option" if owned_index is None else "an on-demand rental"
        raise ScenarioError([Problem("options", f"A fleet plan needs {missing}")])
    c_fix, c_busy = terms[owned_index]
    price = doc["options"][rental_index]["price_per_gpu_hour"] * (1.0 - (tax or 0.0))
    peak = math.ceil(loads.max())
    candidate = cheapest_count(loads, c_fix, c_busy, price)
    counts, costs = annual_costs(loads, c_fix, c_busy, price, curve_counts(peak, candidate, MAX_CURVE_POINTS))
    best = int(np.argmin(costs))  # the rule's count or a neighbour, whichever rounding makes cheapest
    shares = share_at_least(loads, counts[1:])
    margin = price - c_busy
    return {
        "owned_gpus": int(counts[best]),
        "annual_cost": float(costs[best]),
        "peak_gpus": peak,
        "costs": [{"owned_gpus": int(k), "annual_cost": float(c)} for k, c in zip(counts, costs, strict=True)],
        "rule": {
            "owned": doc["options"][owned_index]["name"],
            "rental": doc["options"][rental_index]["name"],
            "fixed_per_gpu_hour": c_fix,
            "busy_per_gpu_hour": c_busy,
            "price_per_gpu_hour": price,
            "break_even_utilization": c_fix / margin if margin > 0 else None,
            "share_of_hours_at_least": shares.tolist(),
        },
    }


def annual_costs(
    loads: np.ndarray, c_fix: float, c_busy: float, price: float, counts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(k, cost(k))`` for the owned counts ``counts`` (default k = 0 .. ceil(max load)), by sorted prefix sums
    (module docstring)."""
    if counts is None:
        counts = np.arange(0, math.ceil(loads.max()) + 1)
    ordered = np.sort(loads)
    owned_busy = _owned_busy(ordered, np.concatenate(([0.0], np.cumsum(ordered))), counts)
    rented = ordered.sum() - owned_busy  # Σ max(x_h - k, 0)
    scale = HOURS_PER_YEAR / len(ordered)
    return counts, scale * (len(ordered) * counts * c_fix + owned_busy * c_busy + rented * price)


def _owned_busy(ordered: np.ndarray, prefix: np.ndarray, counts: np.ndarray | int) -> np.ndarray:
    """``Σ_h min(x_h, k)`` for each k in ``counts``, from the sorted loads and their prefix sums."""
    below = np.searchsorted(ordered, counts, side="left")  # hours with x_h < k
    return prefix[below] + np.asarray(counts) * (len(ordered) - below)


def cheapest_count(loads: np.ndarray, c_fix: float, c_busy: float, price: float) -> int:
    """The fewest owned GPUs of least yearly cost, by the marginal rule rather than the whole curve.

    The k-th GPU is busy ``f_k = (Σ min(x_h, k) - Σ min(x_h, k-1)) / n`` of the hours (s_k for whole-GPU loads)
    and lowers the cost exactly when ``f_k > c_fix/(p - c_busy)``. f_k never rises with k, so the cost is convex
    and the answer is the last k whose GPU still lowers it: a binary search over 0 .. ceil(max load)."""
    margin = price - c_busy
    if margin <= 0:
        return 0  # renting is cheaper than an owned GPU's energy alone: no owned GPU lowers the cost
    ordered = np.sort(loads)
    prefix = np.concatenate(([0.0], np.cumsum(ordered)))
    needed = len(ordered) * c_fix / margin  # busy GPU-hours (per profile) the k-th GPU must add to pay

    def pays(k: int) -> bool:
        return float(_owned_busy(ordered, prefix, k) - _owned_busy(ordered, prefix, k - 1)) > needed

    low, high = 0, math.ceil(ordered[-1])
    while low < high:
        middle = (low + high + 1) // 2
        if pays(middle):
            low = middle
        else:
            high = middle - 1
    return low


def curve_counts(peak: int, cheapest: int, limit: int) -> np.ndarray:
    """The owned counts the stored curve shows: every k = 0 .. peak while that is at most ``limit`` counts;
    past it ``limit`` evenly spread counts (0 and the peak among them) and the cheapest with its neighbours."""
    if peak + 1 <= limit:
        return np.arange(0, peak + 1)
    spread = np.rint(np.linspace(0, peak, limit)).astype(int)
    around = np.clip(np.arange(cheapest - 1, cheapest + 2), 0, peak)
    return np.unique(np.concatenate((spread, around)))


def share_at_least(loads: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``s_k``: the share of hours with x_h ≥ k, for each k in ``counts``."""
    ordered = np.sort(loads)
    return (len(ordered) - np.searchsorted(ordered, counts, side="left")) / len(ordered)


def _owned_terms(option: Mapping[str, Any], tax: float | None = None) -> tuple[float, float]:
    """``(c_fix, c_busy)`` of an owned option per GPU-hour; (inf, inf) for other kinds. With a tax rate T they are
    after tax: the after-tax capital charge ``A_AT`` plus ``(1 - T)`` of the fixed opex and energy."""
    if option["kind"] not in OWNED_KINDS:
        return math.inf, math.inf
    if tax is None:
        charge = capital_charge(
            capex=option["capex"],
            residual_value=residual(option),
            useful_life_years=option["useful_life_years"],
            cost_of_capital=option["cost_of_capital"],
        )
        kept = 1.0
    else:
        charge, kept = after_tax_capital_charge(option, tax, residual(option)), 1.0 - tax
    idle_energy, energy_slope = energy_terms(option)
    gpu_hours = option["gpu_count"] * HOURS_PER_YEAR
    return (charge + kept * (fixed_opex_per_year(option) + idle_energy)) / gpu_hours, kept * energy_slope / gpu_hours


def _profile(load_profile: Any, problems: list[Problem]) -> np.ndarray:
    if isinstance(load_profile, str | bytes | Mapping) or not isinstance(load_profile, Sequence | np.ndarray):
        problems.append(
            Problem(
                "load_profile", f"A load profile must be a list of GPUs busy per hour; got {describe(load_profile)}"
            )
        )
        return np.zeros(0)
    if not MIN_HOURS <= len(load_profile) <= MAX_HOURS:
        problems.append(
            Problem(
                "load_profile",
                f"A load profile needs {MIN_HOURS} to {MAX_HOURS:,} hours; got {len(load_profile):,}",
            )
        )
        return np.zeros(0)
    values = []
    for h, value in enumerate(load_profile):
        number, message = check_number(value.item() if isinstance(value, np.generic) else value, LOAD)
        if message:
            problems.append(Problem(f"load_profile[{h}]", f"Hour {h + 1}: {message}"))
        values.append(number)
    return np.array(values, dtype=float) if not problems else np.zeros(0)


def _pick(doc: Mapping[str, Any], choice: Any, role: str, fits: Any, what: str, problems: list[Problem]) -> int | None:
    if choice is None:
        return None
    options = doc["options"]
    if isinstance(choice, bool) or not isinstance(choice, int | str):
        problems.append(Problem(role, f"Pick the {role} option by index or name; got {describe(choice)}"))
        return None
    if isinstance(choice, str):
        index = next((i for i, o in enumerate(options) if o["name"] == choice), None)
        if index is None:
            problems.append(Problem(role, f"There is no option named '{choice}'"))
            return None
    else:
        index = choice
        if not 0 <= index < len(options):
            problems.append(Problem(role, f"There is no option {index} (the scenario has {len(options)})"))
            return None
    if not fits(options[index]):
        problems.append(
            Problem(
                role,
                f"'{options[index]['name']}' is not {what} option; kind {options[index]['kind']}",
            )
        )
        return None
    return index
