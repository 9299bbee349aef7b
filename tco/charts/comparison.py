"""The cumulative cash cost of two to four scenarios: one small panel per scenario, in one currency.

Four scenarios of three or more options are twelve or more lines: on one plot they tangle. Each scenario gets its own
panel instead (two columns), its options in the colours and dashes they have on the scenario's own page, so no two
lines in a panel look alike. Each panel has its own money scale (a small scenario beside a large one would otherwise lie
flat along the bottom; the tables compare the amounts), and they share the months of the longest horizon; the legend
sits below the panels, grouped and titled by scenario.
"""

from __future__ import annotations

import math

from lib.chart_style import base_layout, kind_dash, money_hover, option_color, plain, rounded
from lib.kinds import legend_name
from tco.presentation.finance import compared_months

COLUMNS = 2
PANEL_HEIGHT = 260  # px per row of panels
LEGEND_LINE = 20  # px per legend line: about three scenario groups fit side by side on a laptop screen
GAP_X, GAP_Y = 0.08, 0.16  # between panels, as fractions of the plotting area


def cumulative_comparison(entries: list[dict], currency: str) -> dict:
    """Small multiples of each scenario's options (``{"name", "result"}``, every result in ``currency``)."""
    columns = min(COLUMNS, len(entries))
    rows = math.ceil(len(entries) / columns)
    width = (1 - GAP_X * (columns - 1)) / columns
    height = (1 - GAP_Y * (rows - 1)) / rows
    longest = max(compared_months(entry["result"]) for entry in entries)
    layout = base_layout(
        f"Cumulative cash cost by scenario, {currency} (before resale; each panel its own scale)", "", ""
    )
    hover = f"%{{fullData.name}}<br>Month %{{x}}<br>Cumulative {money_hover(currency)}<extra>%{{meta}}</extra>"
    traces, titles = [], []
    for index, entry in enumerate(entries):
        row, column = divmod(index, columns)
        suffix = "" if index == 0 else str(index + 1)
        left, top = column * (width + GAP_X), 1 - row * (height + GAP_Y)
        layout[f"xaxis{suffix}"] = {
            "domain": [left, left + width],
            "anchor": f"y{suffix}",
            "range": [1, longest],
            "title": {"text": "Month" if row == rows - 1 else ""},
        }
        layout[f"yaxis{suffix}"] = {
            "domain": [top - height, top],
            "anchor": f"x{suffix}",
            "rangemode": "tozero",
            "tickformat": ",.0f",
            "title": {"text": f"Cumulative, {currency}" if column == 0 else ""},
        }
        result = entry["result"]
        name = plain(entry["name"])
        titles.append(
            {
                "text": f"{name} · {result['horizon_months']} months",
                "x": left,
                "xref": "paper",
                "xanchor": "left",
                "y": top,
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": 12},
            }
        )
        months = list(range(1, compared_months(result) + 1))
        for position, option in enumerate(result["options"]):
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": months,
                    "y": rounded(option["cumulative_cost"], 0),
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "name": plain(legend_name(option["name"], option["kind"])),
                    "meta": name,
                    "legendgroup": f"scenario-{index}",
                    "legendgrouptitle": {"text": name},
                    "line": {"color": option_color(position), "dash": kind_dash(option["kind"]), "width": 2},
                    "hovertemplate": hover,
                }
            )
    layout["annotations"] = titles
    layout["margin"] = {**layout["margin"], "t": 64}  # room for the top panels' titles under the chart's
    layout["legend"].update(groupclick="toggleitem", tracegroupgap=10)
    tallest_group = max(len(entry["result"]["options"]) for entry in entries) + 1  # its title, then its options
    layout["height"] = 110 + rows * PANEL_HEIGHT + math.ceil(len(entries) / 3) * tallest_group * LEGEND_LINE
    return {"data": traces, "layout": layout}
