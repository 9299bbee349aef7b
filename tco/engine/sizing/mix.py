"""The cheapest mix of replica types serving every bucket (docs/money-math.md, "Sizing"; Melange, arXiv 2404.14527).

A mixed-integer program solved exactly by HiGHS (``scipy.optimize.milp``): whole replicas ``y_t >= 0`` of each type,
shares ``x_bt >= 0`` of each bucket with ``sum_t x_bt = 1``, every type's load ``sum_b x_bt·r_b·(1 + headroom)/cap_tb
<= y_t``, minimising ``sum_t y_t·tp_t·price_t``. Ties are broken exactly by solving again with the optimum as a
constraint: the fewest GPUs, then the replicas on the earliest types of the document (least ``sum_t position_t·y_t``),
then the shares on the earliest types.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# HiGHS's own tolerances (feasibility 1e-7, integrality 1e-6) are wider than these; they only absorb its float noise.
COST_TOLERANCE = 1e-7
LOAD_TOLERANCE = 1e-9
SHARE_NOISE = 1e-9
# The largest mix solved: a scenario holds at most this many GPUs of an option. A bucket share needing more is out
# of reach (and would put coefficients of 10^16 before the solver).
MAX_GPUS = 1_000_000
# Why a mix is there or not: solved; some bucket has no type meeting the target; only more than MAX_GPUS serve it.
MIX_STATUSES = ("solved", "unservable", "too_large")


@dataclass(frozen=True)
class ReplicaType:
    """One GPU at one tensor-parallel degree; ``capacities[b]`` in requests per second, None where it cannot serve b."""

    name: str
    tp: int
    price_per_gpu_hour: float
    capacities: tuple[float | None, ...]

    @property
    def cost_per_hour(self) -> float:
        return self.tp * self.price_per_gpu_hour


@dataclass(frozen=True)
class Mix:
    replicas: tuple[int, ...]
    shares: tuple[tuple[float, ...], ...]  # shares[b][t]

    def cost_per_hour(self, types: list[ReplicaType]) -> float:
        return sum(y * t.cost_per_hour for y, t in zip(self.replicas, types, strict=True))


class _Program:
    """The matrices of the program, built once and solved with extra constraints for the tie-breaks."""

    def __init__(self, types: list[ReplicaType], rates: list[float], headroom: float) -> None:
        from scipy.optimize import Bounds, LinearConstraint  # only a sizing pays for importing scipy
        from scipy.sparse import csr_array

        self.types, self.rates = types, rates
        self.pairs = [(b, t) for b in range(len(rates)) for t, k in enumerate(types) if k.capacities[b] is not None]
        n_t, n_x = len(types), len(self.pairs)
        self.n = n_t + n_x
        self.loads = np.array([rates[b] * (1 + headroom) / types[t].capacities[b] for b, t in self.pairs])
        rows, cols, vals = [], [], []
        for j, (b, t) in enumerate(self.pairs):
            rows += [b, len(rates) + t]
            cols += [n_t + j, n_t + j]
            vals += [1.0, self.loads[j]]
        for t in range(n_t):
            rows.append(len(rates) + t)
            cols.append(t)
            vals.append(-1.0)
        matrix = csr_array((vals, (rows, cols)), shape=(len(rates) + n_t, self.n))
        lower = np.concatenate([np.ones(len(rates)), np.full(n_t, -np.inf)])
        upper = np.concatenate([np.ones(len(rates)), np.zeros(n_t)])
        self.constraints = [LinearConstraint(matrix, lower, upper)]
        most = np.zeros(n_t)
        for j, (_, t) in enumerate(self.pairs):
            most[t] += self.loads[j]
        reach = np.array([MAX_GPUS // t.tp for t in types], dtype=float)
        self.bounds = Bounds(np.zeros(self.n), np.concatenate([np.minimum(np.ceil(most) + 1, reach), np.ones(n_x)]))
        self.integrality = np.concatenate([np.ones(n_t), np.zeros(n_x)])

    def replica_vector(self, weights: list[float]) -> np.ndarray:
        return np.concatenate([np.asarray(weights, dtype=float), np.zeros(len(self.pairs))])

    def solve(self, objective: np.ndarray, extra: list, integral: bool = True) -> np.ndarray | None:
        from scipy.optimize import milp

        result = milp(
            objective,
            constraints=self.constraints + extra,
            integrality=self.integrality if integral else None,
            bounds=self.bounds,
            options={"mip_rel_gap": 0.0},
        )
        return result.x


def cheapest_mix(types: list[ReplicaType], rates: list[float], headroom: float) -> tuple[Mix | None, str]:
    """The cheapest mix and "solved", or None and why not (``MIX_STATUSES``)."""
    if not types or _unservable(types, len(rates)):
        return None, "unservable"
    reachable = [_within_reach(t, rates, headroom) for t in types]
    if _unservable(reachable, len(rates)):
        return None, "too_large"
    from scipy.optimize import LinearConstraint

    program = _Program(reachable, rates, headroom)
    n_t = len(types)
    cost = program.replica_vector([t.cost_per_hour for t in types])
    gpus = program.replica_vector([t.tp for t in types])
    position = program.replica_vector(list(range(n_t)))
    x = program.solve(cost, [])
    if x is None:  # every bucket is in reach of some type, but not all of them at once
        return None, "too_large"
    # Each tie-break keeps the optimum so far as a constraint; a stage HiGHS cannot satisfy (its tolerances) keeps x.
    best_cost = float(cost @ np.round(x))
    fixed = [LinearConstraint(cost, -np.inf, best_cost + COST_TOLERANCE * max(1.0, best_cost))]
    for objective in (gpus, position) if n_t > 1 else ():
        tied = program.solve(objective, fixed)
        if tied is None:
            break
        x = tied
        fixed.append(LinearConstraint(objective, -np.inf, float(objective @ np.round(x)) + 0.5))
    # The replicas found, then the shares on the earliest types that fit in them (an LP: the replicas are fixed).
    replicas = np.round(x[:n_t])
    pin = [
        LinearConstraint(program.replica_vector([1.0 if i == t else 0.0 for i in range(n_t)]), r, r)
        for t, r in enumerate(replicas)
    ]
    share_cost = np.concatenate([np.zeros(n_t), [float(t) for _, t in program.pairs]])
    shares = program.solve(share_cost, pin, integral=False) if n_t > 1 else None
    found = _mix(program, replicas, (x if shares is None else shares)[n_t:])
    # A load HiGHS let through within its tolerances got whole replicas in _mix; one type alone, sized by the same
    # rule, is then never beaten by a dearer "mix".
    return min([found, *_single_types(program)], key=lambda m: _rank(m, types)), "solved"


def _unservable(types: list[ReplicaType], buckets: int) -> bool:
    return any(all(t.capacities[b] is None for t in types) for b in range(buckets))


def _within_reach(kind: ReplicaType, rates: list[float], headroom: float) -> ReplicaType:
    """The type without the buckets it could carry only on more than MAX_GPUS GPUs."""
    capacities = tuple(
        None if c is None or r * (1 + headroom) / c * kind.tp > MAX_GPUS else c
        for c, r in zip(kind.capacities, rates, strict=True)
    )
    return ReplicaType(kind.name, kind.tp, kind.price_per_gpu_hour, capacities)


def _mix(program: _Program, replicas: np.ndarray, x: np.ndarray) -> Mix:
    n_t, n_b = len(program.types), len(program.rates)
    shares = np.zeros((n_b, n_t))
    for j, (b, t) in enumerate(program.pairs):
        shares[b, t] = 0.0 if x[j] < SHARE_NOISE else min(x[j], 1.0)
    shares /= shares.sum(axis=1, keepdims=True)
    load = np.zeros(n_t)
    for j, (b, t) in enumerate(program.pairs):
        load[t] += shares[b, t] * program.loads[j]
    # A load the solver let through within its feasibility tolerance still needs whole replicas.
    needed = [max(int(r), math.ceil(used - LOAD_TOLERANCE)) for r, used in zip(replicas, load, strict=True)]
    return Mix(tuple(needed), tuple(tuple(float(s) for s in row) for row in shares))


def _single_types(program: _Program) -> list[Mix]:
    """Every type that serves all buckets, alone, with the single-type rule's replicas."""
    n_t, n_b = len(program.types), len(program.rates)
    mixes = []
    for t in range(n_t):
        loads = [program.loads[j] for j, (_, k) in enumerate(program.pairs) if k == t]
        if len(loads) < n_b:
            continue
        replicas = [0] * n_t
        replicas[t] = math.ceil(sum(loads) - LOAD_TOLERANCE)
        if replicas[t] * program.types[t].tp > MAX_GPUS:
            continue
        shares = tuple(tuple(1.0 if k == t else 0.0 for k in range(n_t)) for _ in range(n_b))
        mixes.append(Mix(tuple(replicas), shares))
    return mixes


def _rank(mix: Mix, types: list[ReplicaType]) -> tuple[float, int, int]:
    """The objective and its tie-breaks: cost (to a millionth an hour), then GPUs, then replicas on earlier types."""
    return (
        round(mix.cost_per_hour(types), 6),
        sum(y * t.tp for y, t in zip(mix.replicas, types, strict=True)),
        sum(y * i for i, y in enumerate(mix.replicas)),
    )
