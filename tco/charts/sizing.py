"""The sizing chart: throughput per GPU against interactivity for every GPU type, from the measured rows.

Interactivity is what one user sees, output tokens per second per user = 1000 / tpot_ms; a fleet trades it against
throughput per GPU (more concurrency: more tokens per GPU, slower for each user). Each GPU's measured rows are one
series (its own colour and marker symbol, so colour is never the only difference), the operating points the sizing
chose are marked, and the latency target is a vertical line: rows left of it are too slow for it. The hover says
the row's cost per million output tokens at the GPU's price.
"""

from __future__ import annotations

from lib.chart_style import MARK_COLOR, base_layout, option_color, plain, rounded, vertical_marker
from lib.currencies import DEFAULT_CURRENCY
from lib.formatting import currency_prefix

SYMBOLS = ("circle", "square", "triangle-up", "cross", "x", "triangle-down", "star", "hexagon", "pentagon", "hourglass")
SECONDS_PER_HOUR = 3600.0


def _interactivity(tpot_ms: float | None) -> float | None:
    return None if not tpot_ms else 1000.0 / tpot_ms


def _cost_per_million(price_per_gpu_hour: float, throughput: float) -> float:
    return price_per_gpu_hour / (throughput * SECONDS_PER_HOUR / 1e6)


def throughput_vs_interactivity(document: dict, result: dict, currency: str = DEFAULT_CURRENCY) -> dict:
    """Plotly figure JSON from a ``tco-sizing/1`` document (its measured rows) and its ``tco-sizing-result/1``."""
    money = currency_prefix(currency)
    hover = (
        "%{fullData.name}<br>%{customdata[0]}<br>Interactivity %{x:,.1f} tokens/s per user<br>"
        "Throughput %{y:,.0f} tokens/s per GPU<br>" + money + "%{customdata[1]:,.2f} per million output tokens"
        "<br>%{customdata[2]}<extra></extra>"
    )
    traces = []
    for index, gpu in enumerate(document.get("gpus", [])):
        rows = [r for r in gpu.get("throughput") or [] if _interactivity(r.get("tpot_ms")) is not None]
        if not rows:
            continue
        price = gpu["price_per_gpu_hour"]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": plain(gpu["name"]),
                "x": rounded([_interactivity(r["tpot_ms"]) for r in rows], 2),
                "y": rounded([r["output_tokens_per_second_per_gpu"] for r in rows], 1),
                "customdata": [
                    [
                        plain(_shape(r)),
                        float(rounded([_cost_per_million(price, r["output_tokens_per_second_per_gpu"])], 4)[0]),
                        plain(str(r.get("source") or "")),
                    ]
                    for r in rows
                ],
                "marker": {"color": option_color(index), "symbol": SYMBOLS[index % len(SYMBOLS)], "size": 8},
                "hovertemplate": hover,
            }
        )
    traces += _chosen(result, money)
    layout = base_layout(
        "Throughput per GPU against interactivity",
        "Interactivity (output tokens/s per user)",
        "Throughput (output tokens/s per GPU)",
    )
    tpot_limit = (document.get("slo") or {}).get("tpot_ms")
    if tpot_limit:
        target = 1000.0 / tpot_limit
        shape, annotation = vertical_marker(target, f"Target: {target:,.1f} tokens/s per user")
        layout["shapes"] = [shape]
        layout["annotations"] = [annotation]
    return {"data": traces, "layout": layout}


def _shape(row: dict) -> str:
    concurrency = row.get("concurrency")
    at = f", concurrency {concurrency:,}" if concurrency else ""
    return f"tp {row['tp']}{at}, {row['input_tokens']:,} in / {row['output_tokens']:,} out"


def _chosen(result: dict, money: str) -> list[dict]:
    """The operating points the sizing took, one marker each, hollow diamonds over the measured rows."""
    x, y, data = [], [], []
    for gpu in result.get("gpus", []):
        for kind in gpu.get("types", []):
            for point in kind.get("operating_points", []):
                if point is None or _interactivity(point.get("tpot_ms")) is None:
                    continue
                x.append(_interactivity(point["tpot_ms"]))
                y.append(point["output_tokens_per_second_per_gpu"])
                data.append([plain(f"{gpu['name']}, tp {kind['tp']}"), point["cost_per_million_output_tokens"]])
    if not x:
        return []
    return [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "Operating point at the target",
            "x": rounded(x, 2),
            "y": rounded(y, 1),
            "customdata": [[label, float(rounded([cost], 4)[0])] for label, cost in data],
            "marker": {"symbol": "diamond-open", "size": 14, "color": MARK_COLOR, "line": {"width": 2}},
            "hovertemplate": "Operating point: %{customdata[0]}<br>Interactivity %{x:,.1f} tokens/s per user<br>"
            "Throughput %{y:,.0f} tokens/s per GPU<br>" + money + "%{customdata[1]:,.2f} per million output tokens"
            "<extra></extra>",
        }
    ]
