"""Charts of decisions under uncertainty: the simulated owned minus rental histogram, the tornado, the fleet plan.

Pure functions of the engine's ``simulate``, ``sensitivity`` and ``fleet_plan`` answers, in ``lib``'s style.
"""

from __future__ import annotations

import itertools

from lib.chart_style import (
    MARK_COLOR,
    base_layout,
    kind_color,
    money_hover,
    plain,
    rounded,
    vertical_marker,
)
from lib.currencies import currency_of
from lib.formatting import format_money
from tco.presentation.finance import after_tax_words
from tco.presentation.uncertainty import tornado_rows

TORNADO_ROWS = 15


def outcome_histogram(simulation: dict, currency: str, taxed: str = "") -> dict | None:
    """Trials by owned minus rental NPV: bins below 0 (owning cheaper) and above (renting cheaper) as two named
    series, with P10, P50 and P90 marked. None when the scenario lacks an owned or a rented side. ``taxed`` is
    ``after_tax_words`` of the scenario: a taxed scenario's trials compare present values after tax."""
    difference = simulation.get("owned_minus_rental")
    if difference is None:
        return None
    edges, counts = difference["histogram"]["edges"], difference["histogram"]["counts"]
    centers = [(a + b) / 2 for a, b in itertools.pairwise(edges)]
    width = (edges[-1] - edges[0]) / max(1, len(counts)) or 1.0
    hover = f"Owned minus rental {money_hover(currency, 'x')}<br>%{{y:,}} trials<extra>%{{fullData.name}}</extra>"
    traces = []
    for name, kind, keep in (
        ("Owning cheaper (below 0)", "owned", lambda x: x < 0),
        ("Renting cheaper (0 or above)", "neocloud", lambda x: x >= 0),
    ):
        pairs = [(x, n) for x, n in zip(centers, counts, strict=True) if keep(x)]
        if pairs:
            traces.append(
                {
                    "type": "bar",
                    "x": rounded([x for x, _ in pairs], 0),
                    "y": [n for _, n in pairs],
                    "width": width,
                    "name": name,
                    "marker": {"color": kind_color(kind)},
                    "hovertemplate": hover,
                }
            )
    title = f"Owned minus rental present value of cost{taxed} over {simulation['trials']:,} trials ({currency})"
    layout = base_layout(
        title, f"Owned minus rental present value of cost{taxed}, {currency} (below 0: owning is cheaper)", "Trials"
    )
    layout["bargap"] = 0
    shapes, annotations = [], []
    for key in ("p10", "p50", "p90"):
        shape, note = vertical_marker(difference[key], f"{key.upper()} {format_money(difference[key], currency)}")
        shapes.append(shape)
        annotations.append({**note, "y": {"p10": 1, "p50": 0.9, "p90": 0.8}[key]})
    layout["shapes"], layout["annotations"] = shapes, annotations
    return {"data": traces, "layout": layout}


def tornado(tornado: dict, document: dict) -> dict | None:
    """Each input's swing of owned minus rental NPV, widest bar on top (at most TORNADO_ROWS inputs, those that move
    it: ``tco.presentation.uncertainty.tornado_rows``, labelled in words); bars start at the scenario's own
    difference ``base``. None without a row that moves the answer."""
    currency = currency_of(document)
    shown = tornado_rows(document, tornado)["rows"][:TORNADO_ROWS]
    if not shown:
        return None
    base = tornado["base"]
    labels = [plain(row["label"]) for row in shown]
    traces = []
    for key, name, kind in (("low", "Input at its low", "owned"), ("high", "Input at its high", "hyperscaler")):
        values = [row[f"difference_at_{key}"] for row in shown]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "y": labels,
                "x": rounded([value - base for value in values], 0),
                "base": rounded([base] * len(shown), 0),
                "customdata": [[plain(row[f"{key}_text"]), value] for row, value in zip(shown, values, strict=True)],
                "name": name,
                "marker": {"color": kind_color(kind)},
                "hovertemplate": (
                    f"%{{y}}<br>{name.lower()}: %{{customdata[0]}}<br>owned minus rental "
                    f"{money_hover(currency, 'customdata[1]')}<extra></extra>"
                ),
            }
        )
    taxed = after_tax_words(document)
    layout = base_layout(
        f"What moves the answer most: owned minus rental present value of cost{taxed} ({currency})",
        f"Owned minus rental present value of cost{taxed}, {currency} (below 0: owning is cheaper)",
        "",
    )
    layout["barmode"] = "overlay"
    layout["yaxis"] = {"autorange": "reversed", "automargin": True}
    layout["height"] = max(260, 60 + 28 * len(shown))
    shape, note = vertical_marker(base, f"As entered {format_money(base, currency)}")
    layout["shapes"], layout["annotations"] = [shape], [note]
    return {"data": traces, "layout": layout}


def fleet_plan_chart(plan: dict, currency: str) -> dict:
    """Yearly cost over the number of owned GPUs (the rest rented), the optimum marked."""
    counts = [point["owned_gpus"] for point in plan["costs"]]
    costs = [point["annual_cost"] for point in plan["costs"]]
    rule = plan["rule"]
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers" if len(counts) <= 40 else "lines",
            "x": counts,
            "y": rounded(costs, 0),
            "name": plain(f"Own k of {rule['owned']}, rent the rest at {rule['rental']}"),
            "line": {"color": kind_color("owned"), "width": 2},
            "hovertemplate": f"%{{x}} owned GPUs<br>{money_hover(currency)} per year<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [plan["owned_gpus"]],
            "y": rounded([plan["annual_cost"]], 0),
            "name": f"Cheapest: own {plan['owned_gpus']}",
            "marker": {"color": MARK_COLOR, "size": 12, "symbol": "diamond"},
            "hovertemplate": f"Cheapest: %{{x}} owned GPUs<br>{money_hover(currency)} per year<extra></extra>",
        },
    ]
    layout = base_layout(
        f"Yearly cost by owned GPUs, bursts rented ({currency})", "Owned GPUs", f"Cost per year, {currency}"
    )
    layout["yaxis"]["tickformat"] = ",.0f"
    shape, note = vertical_marker(plan["owned_gpus"], f"Own {plan['owned_gpus']}")
    layout["shapes"], layout["annotations"] = [shape], [note]
    return {"data": traces, "layout": layout}


def uncertainty_figures(result: dict, document: dict) -> dict[str, dict]:
    """The figures of one uncertainty run of ``document``, keyed by chart name (absent when there is nothing to
    draw)."""
    currency = currency_of(document)
    figures = {}
    if (histogram := outcome_histogram(result["simulation"], currency, after_tax_words(document))) is not None:
        figures["outcome_histogram"] = histogram
    if result.get("tornado") and (chart := tornado(result["tornado"], document)):
        figures["tornado"] = chart
    if result.get("fleet_plan"):
        figures["fleet_plan"] = fleet_plan_chart(result["fleet_plan"], currency)
    return figures


UNCERTAINTY_FIGURE_ORDER = ("outcome_histogram", "tornado", "fleet_plan")
