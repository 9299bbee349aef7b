"""Charts as pure functions: engine result in, plotly figure out, drawn by the vendored plotly.js cartesian bundle.

A figure is plotly's figure JSON as plain Python data ({"data": [traces], "layout": {...}}; lists, str, int, float,
None), built directly rather than through plotly.graph_objects: validating and serialising go.Figure objects cost
~20 ms per evaluation, most of an edit's time. ``go.Figure(figure)`` gives a Figure object (and validates it) when
one is wanted; the tests do that for every chart.
"""

from __future__ import annotations

from .break_even_map import break_even_map
from .build import FIGURE_ORDER, build_figures, map_rental_index, map_rentals, with_map_rental
from .costs import annual_cost_vs_utilization, cost_per_accepted_output, cumulative_cost
from .forecast import expand_utilization, utilization_forecast
from .sizing import throughput_vs_interactivity

__all__ = [
    "FIGURE_ORDER",
    "annual_cost_vs_utilization",
    "break_even_map",
    "build_figures",
    "cost_per_accepted_output",
    "cumulative_cost",
    "expand_utilization",
    "map_rental_index",
    "map_rentals",
    "throughput_vs_interactivity",
    "utilization_forecast",
    "with_map_rental",
]
