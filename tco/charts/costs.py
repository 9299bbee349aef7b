"""Cost charts from a tco-result/1: annual cost by utilization, cumulative cash cost, cost per accepted output."""

from __future__ import annotations

from typing import Any

import numpy as np

from lib.chart_style import (
    MARK_COLOR,
    base_layout,
    kind_dash,
    kind_pattern,
    money_hover,
    option_color,
    percent_values,
    plain,
    rounded,
    vertical_marker,
)
from lib.currencies import currency_of
from lib.formatting import currency_prefix, format_money, format_pct, format_unit_money
from lib.kinds import legend_name
from tco.presentation.events import EVENT_KINDS, cost_events
from tco.presentation.finance import compared_months


def _first_by_name(options: list[dict]) -> dict[str, dict]:
    by_name: dict[str, dict] = {}
    for option in options:
        by_name.setdefault(option["name"], option)
    return by_name


def _option_line(index: int, option: dict, x: list, costs: list[float], hovertemplate: str) -> dict:
    """One option's cost line: the option's own colour (by its position), its kind's dash, in every line chart."""
    return {
        "type": "scatter",
        "x": x,
        "y": rounded(costs, 0),
        "mode": "lines",
        "name": plain(legend_name(option["name"], option["kind"])),
        "line": {"color": option_color(index), "dash": kind_dash(option["kind"]), "width": 2},
        "hovertemplate": hovertemplate,
    }


def annual_cost_vs_utilization(result: dict, curve: dict) -> dict:
    """One line per option (the engine's annual_cost_curve), each break-even point and the forecast mean marked."""
    currency = currency_of(result)
    utilizations = curve["utilization"]
    x = percent_values(utilizations)
    hover = (
        f"%{{fullData.name}}<br>Utilization %{{x:.1f}}%<br>Annual cost {money_hover(currency)} per year<extra></extra>"
    )
    traces = [
        _option_line(index, option, x, option["annual_cost"], hover) for index, option in enumerate(curve["options"])
    ]

    curves = _first_by_name(curve["options"])
    points_x, points_y, labels = [], [], []
    for pair in result.get("break_even", []):
        rental = curves.get(pair["rental"])
        if pair["utilization"] is None or rental is None:
            continue
        # The on-demand rental's annual cost is linear in utilization, so interpolating it is exact.
        cost = float(np.interp(pair["utilization"], utilizations, rental["annual_cost"]))
        points_x.append(percent_values([pair["utilization"]])[0])
        points_y.append(rounded([cost], 0)[0])
        labels.append([plain(pair["owned"]), plain(pair["rental"]), format_pct(pair["utilization"])])
    if points_x:
        traces.append(
            {
                "type": "scatter",
                "x": points_x,
                "y": points_y,
                "mode": "markers",
                "name": "Break-even (owned = rental)",
                "marker": {
                    "symbol": "diamond",
                    "size": 11,
                    "color": MARK_COLOR,
                    "line": {"color": "white", "width": 1},
                },
                "customdata": labels,
                "hovertemplate": (
                    "Break-even: %{customdata[0]} vs %{customdata[1]}<br>at %{customdata[2]} utilization<br>"
                    f"Annual cost {money_hover(currency)} per year<extra></extra>"
                ),
            }
        )

    layout = base_layout(
        "Annual cost by utilization, per option", "Reference utilization (%)", f"Annual cost ({currency} per year)"
    )
    mean = result["reference"]["mean_utilization"]
    shape, annotation = vertical_marker(percent_values([mean])[0], f"Forecast mean {format_pct(mean)}")
    layout.update(shapes=[shape], annotations=[annotation])
    layout["xaxis"].update(range=[-0.5, 100.5], ticksuffix="%")
    layout["yaxis"].update(rangemode="tozero", tickprefix=currency_prefix(currency))
    return {"data": traces, "layout": layout}


def cumulative_cost(result: dict, document: dict | None = None) -> dict:
    """Cumulative cash cost per option by month (owned lines start with the capex), crossover months marked, and,
    with the ``document``, each replacement, lease end and commitment renewal marked on its option's line."""
    currency = currency_of(result)
    horizon = compared_months(result)
    months = list(range(1, horizon + 1))
    hover = f"%{{fullData.name}}<br>Month %{{x}}<br>Cumulative cost {money_hover(currency)}<extra></extra>"
    traces = [
        _option_line(index, option, months, option["cumulative_cost"], hover)
        for index, option in enumerate(result["options"])
    ]

    options = _first_by_name(result["options"])
    points_x, points_y, labels = [], [], []
    for pair in result.get("break_even", []):
        month = pair["crossover_month"]
        owned = options.get(pair["owned"])
        if month is None or owned is None:
            continue
        points_x.append(month)
        points_y.append(rounded([owned["cumulative_cost"][month - 1]], 0)[0])
        labels.append([plain(pair["owned"]), plain(pair["rental"])])
    if points_x:
        traces.append(
            {
                "type": "scatter",
                "x": points_x,
                "y": points_y,
                "mode": "markers",
                "name": "Crossover (owned ≤ rental)",
                "marker": {"symbol": "x", "size": 11, "color": MARK_COLOR},
                "customdata": labels,
                "hovertemplate": (
                    "Crossover: %{customdata[0]} costs no more than %{customdata[1]}<br>from month %{x}<br>"
                    f"Cumulative cost {money_hover(currency)}<extra></extra>"
                ),
            }
        )

    if document is not None:
        traces += _event_markers(cost_events(document, result), options, currency)

    layout = base_layout(
        f"Cumulative cash cost over {horizon} months (before resale)", "Month", f"Cumulative cost ({currency})"
    )
    layout["xaxis"].update(range=[0.5, horizon + 0.5])
    layout["yaxis"].update(rangemode="tozero", tickprefix=currency_prefix(currency))
    return {"data": traces, "layout": layout}


EVENT_SYMBOLS = {"replacement": "triangle-up", "lease_end": "square", "commitment": "circle-open"}


def _event_markers(events: list[dict], options: dict[str, dict], currency: str) -> list[dict]:
    """One marker trace per kind of event, each point on its option's line with its words as the hover text."""
    traces = []
    for kind, name in EVENT_KINDS.items():
        chosen = [event for event in events if event["kind"] == kind and event["option"] in options]
        if not chosen:
            continue
        traces.append(
            {
                "type": "scatter",
                "x": [event["month"] for event in chosen],
                "y": [
                    rounded([options[event["option"]]["cumulative_cost"][event["month"] - 1]], 0)[0] for event in chosen
                ],
                "mode": "markers",
                "name": name,
                "marker": {"symbol": EVENT_SYMBOLS[kind], "size": 11, "color": MARK_COLOR},
                "customdata": [plain(event["text"]) for event in chosen],
                "hovertemplate": f"%{{customdata}}<br>Cumulative cost {money_hover(currency)}<extra></extra>",
            }
        )
    return traces


LABEL_PX_PER_CHARACTER = 7.5


def _significant(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.6g}")


def cost_per_accepted_output(result: dict) -> dict:
    """Horizontal bars per option, cheapest on top, in each option's colour, labelled with its name and kind.

    Primary metric: cost per million accepted output tokens; without a workload, cost per busy GPU-hour.
    Hover and bar labels use the same rounding as the tables (format_unit_money).
    """
    currency = currency_of(result)
    with_workload = result["reference"].get("accepted_output_tokens_per_year") is not None
    if with_workload:
        key, title = "cost_per_million_accepted_tokens", "Cost per million accepted output tokens, by option"
        axis, unit = f"Cost per million accepted output tokens ({currency})", "per million accepted output tokens"
    else:
        key, title = "cost_per_gpu_hour", "Cost per busy GPU-hour, by option (no workload given)"
        axis, unit = f"Cost per busy GPU-hour ({currency})", "per busy GPU-hour"
    hover = "<br>%{customdata[1]} per accepted response" if with_workload else ""
    return _cost_bars(result, key, title, axis, unit, hover, format_unit_money, "No value (no busy GPU-hours): ")


def cost_per_validated_version(result: dict) -> dict:
    """The same bars for the training plan (docs/money-math.md "Training runs"): each option's cost per validated
    model version, in whole currency units as the tables write it; an option that serves no training (a managed
    API) is named beside the chart."""
    currency = currency_of(result)
    title = "Cost per validated model version, by option"
    axis = f"Cost per validated model version ({currency})"
    return _cost_bars(
        result,
        "cost_per_validated_version",
        title,
        axis,
        "per validated model version",
        "",
        format_money,
        "Serves no training: ",
    )


def _cost_bars(
    result: dict, key: str, title: str, axis: str, unit: str, hover: str, written: Any, missing_words: str
) -> dict:
    """Horizontal bars of one per-unit cost ``key`` per option, cheapest on top; ``written`` formats a value as the
    tables do, ``hover`` adds to the hover text, ``missing_words`` begins the note naming options without a value."""
    currency = currency_of(result)
    indexed = list(enumerate(result["options"]))
    shown = sorted(((i, option) for i, option in indexed if option[key] is not None), key=lambda item: item[1][key])
    missing = [plain(option["name"]) for option in result["options"] if option[key] is None]
    # One trace per option: its own colour (as in the line charts) and its kind's fill pattern; the axis names both.
    traces: list[dict] = [
        {
            "type": "bar",
            "orientation": "h",
            "y": [plain(legend_name(option["name"], option["kind"]))],
            "x": [_significant(option[key])],
            "name": plain(legend_name(option["name"], option["kind"])),
            "showlegend": False,
            "marker": {
                "color": option_color(index),
                "pattern": {
                    "shape": kind_pattern(option["kind"]),
                    "fillmode": "overlay",
                    "fgcolor": "white",
                    "solidity": 0.3,
                },
            },
            "text": [written(option[key], currency)],
            "textposition": "outside",
            "cliponaxis": False,
            "customdata": [
                [
                    written(option[key], currency),
                    format_unit_money(option.get("cost_per_accepted_response"), currency),
                ]
            ],
            "hovertemplate": (f"%{{y}}<br>%{{customdata[0]}} {unit}" + hover + "<extra></extra>"),
        }
        for index, option in shown
    ]

    layout = base_layout(title, axis, "")
    layout.update(barmode="relative", height=max(260, 120 + 36 * len(shown)))
    layout["yaxis"].update(
        categoryorder="array",
        categoryarray=[plain(legend_name(option["name"], option["kind"])) for _, option in shown],
        autorange="reversed",
        gridcolor="rgba(0,0,0,0)",
    )
    layout["xaxis"].update(rangemode="tozero", tickprefix=currency_prefix(currency))
    if shown:
        # Room past the longest bar for its label, written outside it (plotly's autorange leaves none): its share of
        # a 300 px plot, the narrowest printed one, at 7 px a character.
        longest, label = max((option[key], written(option[key], currency)) for _, option in shown)
        layout["xaxis"]["range"] = [0, _significant(longest * (1 + len(label) * LABEL_PX_PER_CHARACTER / 300))]
    if missing:
        layout["annotations"] = [
            {
                "text": missing_words + ", ".join(missing),
                "xref": "paper",
                "yref": "paper",
                "x": 0,
                "y": 1,
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 11},
            }
        ]
    return {"data": traces, "layout": layout}
