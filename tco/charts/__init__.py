"""Charts as pure functions: engine result in, plotly Figure out (drawn by the vendored plotly.js cartesian bundle)."""

from __future__ import annotations

from .break_even_map import break_even_map
from .build import build_figures, figure_to_dict, map_rental_index
from .costs import annual_cost_vs_utilization, cost_per_accepted_output, cumulative_cost
from .forecast import expand_utilization, utilization_forecast
from .style import KIND_COLORS, KIND_DASHES

__all__ = [
    "KIND_COLORS",
    "KIND_DASHES",
    "annual_cost_vs_utilization",
    "break_even_map",
    "build_figures",
    "cost_per_accepted_output",
    "cumulative_cost",
    "expand_utilization",
    "figure_to_dict",
    "map_rental_index",
    "utilization_forecast",
]
