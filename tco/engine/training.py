"""Training runs: GPU-hours per validated model version and capacity blocks (docs/money-math.md "Training runs").

One attempt takes ``H = 6·params·tokens / (peak_tflops·1e12·mfu·3600)`` GPU-hours (or the ``gpu_hours`` given) and
``H/K`` hours of wall clock on a cluster of K GPUs. Interruptions (lambda per million GPU-hours) each lose half a
checkpoint interval c of work and a restart s on the whole cluster: ``H_eff = H + lambda·H/1e6·K·(c/2 + s)``. A
validated version takes ``H_eff/success_rate`` GPU-hours. The plan's ``runs_per_year·H_eff/12`` GPU-hours a month are
added, unscaled, to every GPU option's own busy hours; a capacity block serves them in whole blocks instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .constants import HOURS_PER_DAY, MONTHS_PER_YEAR, SECONDS_PER_HOUR

FLOPS_PER_PARAMETER_TOKEN = 6.0  # forward and backward pass of a dense transformer (Kaplan et al. 2020)


def gpu_hours_per_attempt(training: Mapping[str, Any]) -> float:
    """``H``: the ``gpu_hours`` given, or ``6·N·D / (peak·1e12·mfu·3600)`` with N parameters and D tokens."""
    if training.get("gpu_hours") is not None:
        return training["gpu_hours"]
    flops = FLOPS_PER_PARAMETER_TOKEN * training["params_billion"] * 1e9 * training["tokens_billion"] * 1e9
    return flops / (training["peak_tflops"] * 1e12 * training["mfu"] * SECONDS_PER_HOUR)


def interruption_waste(training: Mapping[str, Any], hours: float) -> float:
    """GPU-hours lost to interruptions: ``lambda·H/1e6`` interruptions, each ``K·(c/2 + s)`` GPU-hours."""
    interruptions = training["interruptions_per_million_gpu_hours"] * hours / 1e6
    lost_hours = training["checkpoint_interval_hours"] / 2.0 + training["restart_hours"]
    return interruptions * training["cluster_gpus"] * lost_hours


@dataclass(frozen=True)
class TrainingPlan:
    """A normalised ``training`` block worked out: what every option's cost of a validated version needs."""

    gpu_hours_per_attempt: float
    gpu_hours_effective: float
    cluster_gpus: int
    runs_per_year: float
    success_rate: float
    other_cost_per_run: float

    @property
    def gpu_hours_per_validated_version(self) -> float:
        return self.gpu_hours_effective / self.success_rate

    @property
    def other_cost_per_validated_version(self) -> float:
        return self.other_cost_per_run / self.success_rate

    @property
    def gpu_hours_per_month(self) -> float:
        """``runs_per_year·H_eff/12``: what every GPU option serves each month besides the inference demand."""
        return self.runs_per_year * self.gpu_hours_effective / MONTHS_PER_YEAR

    def result(self) -> dict[str, float]:
        """The top-level ``training`` of a result."""
        return {
            "gpu_hours_per_attempt": self.gpu_hours_per_attempt,
            "gpu_hours_effective": self.gpu_hours_effective,
            "gpu_hours_per_validated_version": self.gpu_hours_per_validated_version,
            "wall_clock_days": self.gpu_hours_effective / self.cluster_gpus / HOURS_PER_DAY,
        }

    def version_cost_at(self, cost_per_gpu_hour: float | None) -> float | None:
        """The GPU-hours per version at an option's cost of a GPU-hour, plus the other costs per version."""
        if cost_per_gpu_hour is None or not math.isfinite(cost_per_gpu_hour):
            return None
        return self.gpu_hours_per_validated_version * cost_per_gpu_hour + self.other_cost_per_validated_version

    def block_version_cost(self, option: Mapping[str, Any]) -> float:
        """A capacity block's: ``blocks_per_run·block_gpus·24·block_days·price / success_rate`` + the other costs
        per version (every block hour is paid, used or not)."""
        paid = float(blocks_per_run(option, self.gpu_hours_effective) * block_hours(option))
        return paid * option["price_per_gpu_hour"] / self.success_rate + self.other_cost_per_validated_version


def training_plan(training: Mapping[str, Any] | None) -> TrainingPlan | None:
    """The plan of a normalised ``training`` block (None without one)."""
    if training is None:
        return None
    hours = gpu_hours_per_attempt(training)
    return TrainingPlan(
        gpu_hours_per_attempt=hours,
        gpu_hours_effective=hours + interruption_waste(training, hours),
        cluster_gpus=training["cluster_gpus"],
        runs_per_year=training["runs_per_year"],
        success_rate=training["success_rate"],
        other_cost_per_run=training["other_cost_per_run"],
    )


def block_hours(option: Mapping[str, Any]) -> Any:
    """GPU-hours one capacity block holds: ``block_gpus·24·block_days``."""
    return option["block_gpus"] * HOURS_PER_DAY * option["block_days"]


def blocks_per_run(option: Mapping[str, Any], effective_hours: float) -> Any:
    """``ceil(H_eff / (block_gpus·24·block_days))``: blocks side by side, each paid whole."""
    # The tolerance keeps a run that fills its blocks exactly (float noise of 1e-12) from buying one more.
    return np.ceil(effective_hours / block_hours(option) - 1e-9)
