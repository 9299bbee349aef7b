"""The cumulative cash cost of two to four scenarios on one chart (each scenario's options, named by scenario)."""

from __future__ import annotations

from lib.chart_style import base_layout, kind_color, money_hover, plain, rounded

SCENARIO_DASHES = ("solid", "dash", "dot", "dashdot")


def cumulative_comparison(entries: list[dict]) -> dict:
    """One line per option of each scenario (``{"name", "result"}``), coloured by kind, dashed by scenario."""
    traces = []
    currencies = {entry["result"].get("currency", "USD") for entry in entries}
    currency = currencies.pop() if len(currencies) == 1 else ""
    for index, entry in enumerate(entries):
        result = entry["result"]
        months = list(range(1, result["horizon_months"] + 1))
        for option in result["options"]:
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": months,
                    "y": rounded(option["cumulative_cost"], 0),
                    "name": plain(f"{entry['name']} · {option['name']}"),
                    "line": {"color": kind_color(option["kind"]), "dash": SCENARIO_DASHES[index % 4], "width": 2},
                    "hovertemplate": (
                        f"%{{fullData.name}}<br>Month %{{x}}<br>Cumulative {money_hover(result.get('currency', 'USD'))}"
                        "<extra></extra>"
                    ),
                }
            )
    unit = f" ({currency})" if currency else " (each scenario's currency)"
    layout = base_layout("Cumulative cash cost by scenario (before resale)", "Month", f"Cumulative cost{unit}")
    layout["yaxis"].update(rangemode="tozero", tickformat=",.0f")
    return {"data": traces, "layout": layout}
