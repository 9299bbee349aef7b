"""Market charts as pure functions: price points in, plotly figure JSON out (same look as the scenario charts).

Like the scenario charts, a figure is plain data ({"data": [traces], "layout": {...}}) rather than a go.Figure, so the
Market page need not validate and serialise plotly objects on every request.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from lib.chart_style import MARK_COLOR, base_layout, kind_color, money_hover, plain
from lib.currencies import DEFAULT_CURRENCY
from lib.formatting import format_money, format_pct
from lib.kinds import API_KINDS, DISPLAY_ORDER, RENTAL_KINDS, kind_label
from pricing import trends

# Provider kinds (rentals and managed APIs) in display order; their labels are the option kinds'.
KIND_ORDER = tuple(kind for kind in DISPLAY_ORDER if kind in RENTAL_KINDS + API_KINDS)


@dataclass(frozen=True)
class PricePoint:
    provider: str
    kind: str
    offering: str
    region: str
    gpus_per_instance: int
    price_per_gpu_hour: float
    currency: str = DEFAULT_CURRENCY


@dataclass(frozen=True)
class HistoryPoint:
    observed_on: date
    price_per_gpu_hour: float  # for a model API, its price per million input tokens
    snapshot_id: int


def _empty(layout: dict, message: str) -> dict:
    annotation = {"text": message, "showarrow": False, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}
    layout["annotations"] = [annotation]
    layout["xaxis"]["visible"] = False
    layout["yaxis"]["visible"] = False
    return {"data": [], "layout": layout}


def provider_comparison(points: Iterable[PricePoint], *, gpu_model: str, term_label: str, region: str = "") -> dict:
    """The lowest $/GPU-hour each provider lists for one GPU model, providers grouped by kind.

    One bar per provider (its cheapest offering and region; the hover names them and how many
    offerings it has), one trace per kind so the legend names the kind, not only its colour. Each bar is
    labelled with its price and currency. ``region``: the Market's region filter, named in the title.
    """
    points, currency, others = _one_currency(points)
    cheapest: dict[str, tuple[PricePoint, int]] = {}
    for point in points:
        best, count = cheapest.get(point.provider, (point, 0))
        cheapest[point.provider] = (point if point.price_per_gpu_hour < best.price_per_gpu_hour else best, count + 1)
    where = f" in regions matching “{plain(region)}”" if region else ""
    title = f"{plain(gpu_model)}: lowest {term_label} price per GPU-hour by provider{where} (latest prices)"
    if others:
        title += f"<br><sup>{currency} prices only; prices in {', '.join(others)} are not compared with them</sup>"
    layout = base_layout(title, "Provider, grouped by kind", f"{currency} per GPU-hour")
    if not cheapest:
        return _empty(layout, f"No {term_label} prices for {plain(gpu_model)}{where} yet.")
    order = sorted(
        cheapest.values(),
        key=lambda item: (_kind_rank(item[0].kind), item[0].price_per_gpu_hour, item[0].provider),
    )
    traces: list[dict] = []
    for kind in KIND_ORDER + tuple(sorted({p.kind for p, _ in order} - set(KIND_ORDER))):
        items = [(p, n) for p, n in order if p.kind == kind]
        if not items:
            continue
        traces.append(
            {
                "type": "bar",
                "name": kind_label(kind),
                "x": [plain(p.provider) for p, _ in items],
                "y": [round(p.price_per_gpu_hour, 4) for p, _ in items],
                "marker": {"color": kind_color(kind)},
                "text": [format_money(p.price_per_gpu_hour, p.currency, places=2) for p, _ in items],
                "textposition": "outside",
                "customdata": [
                    [plain(p.offering), plain(p.region) or "no region given", n, kind_label(kind)] for p, n in items
                ],
                "hovertemplate": (
                    "%{x} (%{customdata[3]})<br>%{customdata[0]}, %{customdata[1]}<br>"
                    f"{money_hover(currency, 'y', 2)} per GPU-hour<br>"
                    "cheapest of %{customdata[2]} offering(s)<extra></extra>"
                ),
            }
        )
    layout.update(barmode="relative", showlegend=True)
    layout["legend"]["title"] = {"text": "Provider kind"}
    layout["xaxis"].update(categoryorder="array", categoryarray=[plain(p.provider) for p, _ in order])
    return {"data": traces, "layout": layout}


def _one_currency(points: Iterable[PricePoint]) -> tuple[list[PricePoint], str, list[str]]:
    """The points in the currency most of them are in (USD on a tie), that currency, and the others left out:
    a chart never sets prices in two currencies side by side on one axis."""
    points = list(points)
    counts = Counter(point.currency for point in points)
    if not counts:
        return points, DEFAULT_CURRENCY, []
    currency = max(counts, key=lambda code: (counts[code], code == DEFAULT_CURRENCY, code))
    return [p for p in points if p.currency == currency], currency, sorted(set(counts) - {currency})


def _kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def price_history(
    points: Sequence[HistoryPoint], *, label: str, currency: str = DEFAULT_CURRENCY, unit: str = "GPU-hour"
) -> dict:
    """$/GPU-hour of one offering (a model API's: $ per million input tokens, `unit`) at each date it was observed,
    with the snapshot that recorded it."""
    layout = base_layout(f"Price history: {plain(label)}", "Observed on", f"{currency} per {unit}")
    if not points:
        return _empty(layout, "No observations of this offering.")
    trace = {
        "type": "scatter",
        "x": [p.observed_on.isoformat() for p in points],
        "y": [round(p.price_per_gpu_hour, 6) for p in points],
        "mode": "lines+markers",
        "name": f"Price per {unit}",
        "line": {"shape": "hv"},
        "customdata": [p.snapshot_id for p in points],
        "hovertemplate": (
            f"%{{x}}<br>{money_hover(currency, 'y', 2)} per {unit}<br>snapshot #%{{customdata}}<extra></extra>"
        ),
    }
    layout["showlegend"] = False
    layout["xaxis"].update(type="date", tickformat="%Y-%m-%d")
    first, last = points[0].observed_on, points[-1].observed_on
    if first == last:  # one date: show a month around it rather than milliseconds
        layout["xaxis"]["range"] = [(first - timedelta(days=15)).isoformat(), (last + timedelta(days=15)).isoformat()]
    layout["yaxis"]["range"] = [0, max(p.price_per_gpu_hour for p in points) * 1.15]
    return {"data": [trace], "layout": layout}


def price_trend(found: trends.PriceTrend, *, term_label: str) -> dict:
    """The weekly median $/GPU-hour of one GPU model and term (markers sized by nothing, hover naming the count of
    offerings) and the fitted trend through it (a dashed line), in the index's currency."""
    label = f"{found.gpu_model}, {term_label}"
    currency = found.currency
    layout = base_layout(f"Weekly median price: {plain(label)}", "Week starting", f"{currency} per GPU-hour")
    if not found.index:
        return _empty(layout, "No observations in this window.")
    weeks = [point.week.isoformat() for point in found.index]
    medians = [point.median_price_per_gpu_hour for point in found.index]
    data = [
        {
            "type": "scatter",
            "x": weeks,
            "y": [round(value, 4) for value in medians],
            "mode": "lines+markers",
            "name": "Weekly median",
            "customdata": [point.offerings for point in found.index],
            "hovertemplate": (
                f"week of %{{x}}<br>median {money_hover(currency, 'y', 2)} per GPU-hour"
                "<br>of %{customdata} offerings<extra></extra>"
            ),
        }
    ]
    if found.trend is not None:
        data.append(
            {
                "type": "scatter",
                "x": [weeks[0], weeks[-1]],
                "y": [round(value, 4) for value in trend_line(found)],
                "mode": "lines",
                "name": f"Trend: {format_pct(found.trend.change_per_year)} a year",
                "line": {"dash": "dash", "color": MARK_COLOR},
                "hoverinfo": "skip",
            }
        )
    layout["xaxis"].update(type="date", tickformat="%Y-%m-%d")
    layout["yaxis"]["range"] = [0, max(medians) * 1.15]
    return {"data": data, "layout": layout}


def trend_line(found: trends.PriceTrend) -> tuple[float, float]:
    """The fitted line's price at the first and last week (a straight line on a log scale, drawn between them):
    through the geometric mean of the medians at the mean date, as least squares on logs fits it."""
    index, trend = found.index, found.trend
    first = index[0].week
    years = [(point.week - first).days / trends.DAYS_PER_YEAR for point in index]
    centre_years = sum(years) / len(years)
    centre_log = sum(math.log(point.median_price_per_gpu_hour) for point in index) / len(index)
    rate = math.log1p(trend.change_per_year)
    return (
        math.exp(centre_log + rate * (years[0] - centre_years)),
        math.exp(centre_log + rate * (years[-1] - centre_years)),
    )
