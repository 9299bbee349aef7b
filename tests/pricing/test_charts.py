"""Chart functions are pure: plain points in, plotly figure JSON out (no database); read back through go.Figure."""

from __future__ import annotations

from datetime import date

import plotly.graph_objects as go

from pricing.charts import HistoryPoint, PricePoint, price_history, provider_comparison


def _point(provider: str, kind: str, price: float, offering: str = "box") -> PricePoint:
    return PricePoint(provider, kind, offering, "us", 8, price)


def _figure(points: list[PricePoint], **labels: str) -> go.Figure:
    return go.Figure(provider_comparison(points, **labels))


def test_the_comparison_shows_each_providers_cheapest_offering_grouped_by_kind():
    figure = _figure(
        [
            _point("AWS", "hyperscaler", 6.88),
            _point("Lambda", "neocloud", 3.99, "big"),
            _point("Lambda", "neocloud", 2.99, "small"),
            _point("Vast.ai", "marketplace", 1.87),
            _point("Google Cloud", "hyperscaler", 5.38),
        ],
        gpu_model="H100 SXM",
        term_label="on demand",
    )
    traces = {trace.name: (list(trace.x), list(trace.y)) for trace in figure.data}
    assert traces == {
        "Hyperscaler": (["Google Cloud", "AWS"], [5.38, 6.88]),
        "Neocloud": (["Lambda"], [2.99]),
        "Marketplace": (["Vast.ai"], [1.87]),
    }
    assert figure.data[1].customdata[0][0] == "small"
    assert list(figure.layout.xaxis.categoryarray) == ["Google Cloud", "AWS", "Lambda", "Vast.ai"]
    assert figure.layout.yaxis.title.text == "USD per GPU-hour"
    assert "H100 SXM" in figure.layout.title.text
    assert "per GPU-hour" in figure.data[0].hovertemplate


def test_the_comparison_never_sets_two_currencies_side_by_side():
    points = [
        _point("Lambda", "neocloud", 2.99),
        PricePoint("Nebius", "neocloud", "eu box", "eu", 8, 1.50, "EUR"),  # cheaper in number, another currency
        _point("AWS", "hyperscaler", 6.88),
    ]
    figure = _figure(points, gpu_model="H100 SXM", term_label="on demand")
    assert sorted(x for trace in figure.data for x in trace.x) == ["AWS", "Lambda"]
    assert figure.layout.yaxis.title.text == "USD per GPU-hour"
    assert "USD prices only; prices in EUR are not compared with them" in figure.layout.title.text


def test_the_comparison_uses_the_currency_most_prices_are_in():
    points = [PricePoint(name, "neocloud", "box", "eu", 8, 2.0, "EUR") for name in ("A", "B")]
    figure = _figure([*points, _point("Lambda", "neocloud", 2.99)], gpu_model="H100 SXM", term_label="on demand")
    assert figure.layout.yaxis.title.text == "EUR per GPU-hour"
    assert sorted(x for trace in figure.data for x in trace.x) == ["A", "B"]


def test_the_comparison_says_so_when_there_are_no_prices():
    figure = _figure([], gpu_model="B300", term_label="spot")
    assert figure.data == ()
    assert figure.layout.annotations[0].text == "No spot prices for B300 yet."


def test_the_history_is_a_step_line_of_price_over_date():
    figure = go.Figure(
        price_history(
            [HistoryPoint(date(2026, 10, 1), 3.75, 1), HistoryPoint(date(2026, 11, 1), 2.99, 2)], label="Lambda box"
        )
    )
    (trace,) = figure.data
    assert list(trace.x) == ["2026-10-01", "2026-11-01"]
    assert list(trace.y) == [3.75, 2.99]
    assert figure.layout.xaxis.title.text == "Observed on"
    assert figure.layout.title.text == "Price history: Lambda box"
