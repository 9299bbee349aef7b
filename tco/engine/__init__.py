"""The money math of the build-vs-rent dashboard (docs/money-math.md): plain Python and numpy.

No Django here: a ``tco-scenario/1`` document (dict) goes in, a ``tco-result/1`` dict comes out.
Under uncertainty (docs/money-math.md): ``simulate`` (Monte Carlo of input ranges), ``sensitivity`` (the
tornado) and ``fleet_plan`` (owned baseline, rented bursts). From the workload: ``size`` (memory fit, measured
throughput, replicas per GPU type and the cheapest mix of GPU types).
"""

from __future__ import annotations

from .breakeven import break_even_utilization, break_even_utilization_closed_form, crossover_month
from .constants import ENGINE_VERSION, HOURS_PER_MONTH, HOURS_PER_YEAR, RESULT_SCHEMA, SCENARIO_SCHEMA
from .curve import annual_cost_curve
from .errors import Problem, ScenarioError
from .fleet import fleet_plan
from .owned import capital_charge
from .results import evaluate
from .sensitivity import sensitivity
from .simulate import check_uncertainty, entered_values, simulate
from .sizing import SIZING_RESULT_SCHEMA, SIZING_SCHEMA, size
from .sweep import sweep
from .validation import validate

__all__ = [
    "ENGINE_VERSION",
    "HOURS_PER_MONTH",
    "HOURS_PER_YEAR",
    "RESULT_SCHEMA",
    "SCENARIO_SCHEMA",
    "SIZING_RESULT_SCHEMA",
    "SIZING_SCHEMA",
    "Problem",
    "ScenarioError",
    "annual_cost_curve",
    "break_even_utilization",
    "break_even_utilization_closed_form",
    "capital_charge",
    "check_uncertainty",
    "crossover_month",
    "entered_values",
    "evaluate",
    "fleet_plan",
    "sensitivity",
    "simulate",
    "size",
    "sweep",
    "validate",
]
