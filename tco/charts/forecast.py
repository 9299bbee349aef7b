"""The monthly utilization forecast, full size for results or compact for the forecast editor's preview."""

from __future__ import annotations

from collections.abc import Sequence

from lib.chart_style import base_layout, horizontal_marker, percent_values
from lib.formatting import format_pct

LINE_COLOR = "#0072B2"
FILL_COLOR = "rgba(0,114,178,0.12)"


def expand_utilization(utilization: Sequence[float], horizon_months: int) -> list[float]:
    """One value per month: a single value means a flat forecast (docs/money-math.md)."""
    if len(utilization) == 1:
        return [float(utilization[0])] * horizon_months
    if len(utilization) != horizon_months:
        raise ValueError(
            f"utilization has {len(utilization)} values; expected 1 (flat) or {horizon_months} (one per month)"
        )
    return [float(value) for value in utilization]


def utilization_forecast(utilization: Sequence[float], horizon_months: int, *, compact: bool = False) -> dict:
    """Utilization (%) by month with its mean marked; ``compact`` is the small editor preview (160 px high)."""
    monthly = expand_utilization(utilization, horizon_months)
    mean = sum(monthly) / len(monthly)
    months = list(range(1, horizon_months + 1))
    trace = {
        "type": "scatter",
        "x": months,
        "y": percent_values(monthly),
        "mode": "lines+markers" if horizon_months <= 60 and not compact else "lines",
        "name": "Utilization forecast",
        "line": {"color": LINE_COLOR, "width": 2},
        "marker": {"size": 5},
        "fill": "tozeroy",
        "fillcolor": FILL_COLOR,
        "hovertemplate": "Month %{x}<br>Utilization %{y:.1f}%<extra></extra>",
    }
    if compact:
        layout = base_layout(
            f"Utilization forecast (mean {format_pct(mean)})", "Month", "Utilization (%)", compact=True
        )
        layout["yaxis"].update(range=[0, 100], tickvals=[0, 50, 100], ticksuffix="%")
    else:
        layout = base_layout("Utilization forecast by month", "Month", "Utilization (%)")
        layout["yaxis"].update(range=[0, 102], ticksuffix="%")
        shape, annotation = horizontal_marker(percent_values([mean])[0], f"Mean {format_pct(mean)}")
        layout.update(shapes=[shape], annotations=[annotation], showlegend=False)
    layout["xaxis"].update(range=[0.5, horizon_months + 0.5])
    return {"data": [trace], "layout": layout}
