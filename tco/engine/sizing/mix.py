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
        self.bounds = Bounds(np.zeros(self.n), np.concatenate([np.ceil(most) + 1, np.ones(n_x)]))
        self.integrality = np.concatenate([np.ones(n_t), np.zeros(n_x)])

    def replica_vector(self, weights: list[float]) -> np.ndarray:
        return np.concatenate([np.asarray(weights, dtype=float), np.zeros(len(self.pairs))])

    def solve(self, objective: np.ndarray, extra: list, integral: bool = True) -> np.ndarray:
        from scipy.optimize import milp

        result = milp(
            objective,
            constraints=self.constraints + extra,
            integrality=self.integrality if integral else None,
            bounds=self.bounds,
            options={"mip_rel_gap": 0.0},
        )
        if result.x is None:
            raise RuntimeError(f"HiGHS found no mix although one type serves every bucket: {result.message}")
        return result.x


def cheapest_mix(types: list[ReplicaType], rates: list[float], headroom: float) -> Mix | None:
    """The cheapest mix, or None when some bucket has no type that can serve it."""
    if not types or any(all(t.capacities[b] is None for t in types) for b in range(len(rates))):
        return None
    from scipy.optimize import LinearConstraint

    program = _Program(types, rates, headroom)
    n_t = len(types)
    cost = program.replica_vector([t.cost_per_hour for t in types])
    gpus = program.replica_vector([t.tp for t in types])
    position = program.replica_vector(list(range(n_t)))
    x = program.solve(cost, [])
    best_cost = float(cost @ np.round(x))
    fixed = [LinearConstraint(cost, -np.inf, best_cost + COST_TOLERANCE * max(1.0, best_cost))]
    x = program.solve(gpus, fixed)
    fixed.append(LinearConstraint(gpus, -np.inf, float(gpus @ np.round(x)) + 0.5))
    if n_t > 1:
        x = program.solve(position, fixed)
    replicas = np.round(x[:n_t])
    # The replicas found, then the shares on the earliest types that fit in them (an LP: the replicas are fixed).
    pin = [
        LinearConstraint(program.replica_vector([1.0 if i == t else 0.0 for i in range(n_t)]), r, r)
        for t, r in enumerate(replicas)
    ]
    share_cost = np.concatenate([np.zeros(n_t), [float(t) for _, t in program.pairs]])
    x = program.solve(share_cost, pin, integral=False) if n_t > 1 else x
    return _mix(program, replicas, x[n_t:])


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
