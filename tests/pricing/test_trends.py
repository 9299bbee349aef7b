"""Where prices are heading: the weekly index, its fitted change per year, and the pages that show them.

Golden numbers come from hand arithmetic and from the least-squares formulas written out here (slope =
S_xy / S_xx, standard error = sqrt(SSR / (n - 2) / S_xx)), not from pricing.trends."""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pytest
from django.urls import reverse

from pricing import selectors, trends
from pricing.models import GpuModel
from tests.pricing.conftest import canonical, run_import

MONDAY = date(2026, 1, 5)


def _weeks(count: int) -> list[date]:
    return [MONDAY + timedelta(weeks=week) for week in range(count)]


def test_the_weekly_index_is_the_median_of_the_offerings_of_each_week_with_their_count():
    rows = [
        (MONDAY, "a", 2.0),
        (MONDAY, "b", 3.0),
        (MONDAY, "c", 10.0),
        (MONDAY + timedelta(weeks=1), "a", 2.0),
        (MONDAY + timedelta(weeks=1), "b", 4.0),
    ]
    index = trends.weekly_index(rows)
    assert [(p.week, p.median_price_per_gpu_hour, p.offerings) for p in index] == [
        (MONDAY, 3.0, 3),
        (MONDAY + timedelta(weeks=1), 3.0, 2),
    ]


def test_an_offering_observed_daily_counts_once_a_week_at_its_mean_price():
    days = [MONDAY + timedelta(days=day) for day in range(10)]  # Monday .. the next Wednesday
    prices = [1.0] * 7 + [2.0, 2.0, 5.0]
    assert trends.weekly_means(zip(days, prices, strict=True), key="x") == [
        (MONDAY, "x", 1.0),
        (MONDAY + timedelta(weeks=1), "x", 3.0),
    ]


def test_a_steady_fall_is_fitted_exactly_with_no_spread():
    weeks = _weeks(20)
    index = [trends.WeeklyPrice(week, 4.0 * 0.8 ** ((week - MONDAY).days / trends.DAYS_PER_YEAR), 5) for week in weeks]
    trend = trends.fit_trend(index)
    assert trend.change_per_year == pytest.approx(-0.2, abs=1e-12)
    assert trend.low == pytest.approx(-0.2, abs=1e-9) and trend.high == pytest.approx(-0.2, abs=1e-9)
    assert (trend.weeks, trend.first_week, trend.last_week) == (20, weeks[0], weeks[-1])


def test_a_noisy_index_is_fitted_by_least_squares_on_logs_with_a_student_t_interval():
    weeks = _weeks(12)
    wobble = [1.03, 0.97, 1.01, 0.99, 1.04, 0.96, 1.0, 1.02, 0.98, 1.01, 0.99, 1.0]
    prices = [3.0 * 0.9 ** ((w - MONDAY).days / 365.25) * k for w, k in zip(weeks, wobble, strict=True)]
    trend = trends.fit_trend([trends.WeeklyPrice(w, p, 3) for w, p in zip(weeks, prices, strict=True)])

    x = np.array([(w - MONDAY).days / 365.25 for w in weeks])
    y = np.log(prices)
    sxx = ((x - x.mean()) ** 2).sum()
    slope = ((x - x.mean()) * (y - y.mean())).sum() / sxx
    residuals = y - (y.mean() + slope * (x - x.mean()))
    se = math.sqrt((residuals**2).sum() / 10 / sxx)
    t_10 = 2.228139  # Student's t, 97.5 % quantile, 10 degrees of freedom (printed tables)
    assert trend.change_per_year == pytest.approx(math.expm1(slope), rel=1e-12)
    assert slope - math.log1p(trend.low) == pytest.approx(t_10 * se, rel=1e-4)
    assert math.log1p(trend.high) - slope == pytest.approx(t_10 * se, rel=1e-4)
    assert trend.low < trend.change_per_year < trend.high


@pytest.mark.parametrize(
    ("freedom", "table"), [(6, 2.446912), (8, 2.306004), (10, 2.228139), (20, 2.085963), (60, 2.000298)]
)
def test_the_t_quantile_matches_the_printed_tables(freedom, table):
    assert trends.student_t_quantile(0.975, freedom) == pytest.approx(table, rel=2e-3)


def test_too_few_weeks_or_a_free_week_give_no_trend():
    assert trends.fit_trend([trends.WeeklyPrice(w, 2.0, 1) for w in _weeks(trends.MIN_WEEKS - 1)]) is None
    free = [trends.WeeklyPrice(w, 0.0 if i == 3 else 2.0, 1) for i, w in enumerate(_weeks(10))]
    assert trends.fit_trend(free) is None


def test_a_window_starts_on_the_monday_of_its_first_week():
    start = trends.window_start(date(2026, 11, 30), 12)
    assert start.weekday() == 0
    assert date(2025, 11, 24) <= start <= date(2025, 12, 1)


ROW = "{provider},neocloud,H100 SXM,8,{offering},us-east-1,{term},,{price},{currency},{day},"


def _import_weeks(weeks: int, *, providers: dict[str, float], change: float, currency: str = "USD") -> None:
    """One snapshot a week; each provider's price falls by ``change`` a year from its start price."""
    for week in range(weeks):
        day = MONDAY + timedelta(weeks=week, days=2)
        factor = (1 + change) ** (week * 7 / 365.25)
        rows = [
            ROW.format(
                provider=name,
                offering="8x",
                term="on_demand",
                price=f"{start * factor:.6f}",
                currency=currency,
                day=day.isoformat(),
            )
            for name, start in providers.items()
        ]
        run_import(canonical(*rows), source=f"week {week}")


@pytest.mark.usefixtures("reference")
def test_the_trend_of_the_market_reads_each_week_of_one_gpu_and_term():
    _import_weeks(10, providers={"Lambda": 3.0, "CoreWeave": 6.0, "Crusoe": 4.0}, change=-0.25)
    run_import(
        canonical(
            ROW.format(
                provider="Lambda", offering="8x", term="spot", price="0.5", currency="USD", day=MONDAY.isoformat()
            )
        ),
        source="spot",
    )
    h100 = GpuModel.objects.get(name="H100 SXM")
    found = selectors.price_trend(gpu_model=h100, pricing_term="on_demand", months=12)
    assert [p.offerings for p in found.index] == [3] * 10
    # The median of three providers falling alike is the middle one's price (Crusoe, from 4.00).
    first_day = MONDAY + timedelta(days=2)
    assert found.index[0].median_price_per_gpu_hour == pytest.approx(4.0, abs=1e-6)
    assert found.trend.change_per_year == pytest.approx(-0.25, abs=1e-4)
    assert found.offerings == 3 and found.last_day == first_day + timedelta(weeks=9)

    short = selectors.price_trend(gpu_model=h100, pricing_term="on_demand", months=1)
    assert len(short.index) < 10 and short.index[-1] == found.index[-1]
    assert selectors.price_trend(gpu_model=h100, pricing_term="spot").trend is None
    assert selectors.price_trend(gpu_model=h100, pricing_term="on_demand", currency="EUR").last_day is None


@pytest.mark.usefixtures("reference")
def test_the_trend_page_says_where_prices_are_heading_and_on_what(viewer_client):
    _import_weeks(10, providers={"Lambda": 3.0, "CoreWeave": 6.0, "Crusoe": 4.0}, change=-0.25)
    h100 = GpuModel.objects.get(name="H100 SXM")
    response = viewer_client.get(reverse("pricing:price_trend"), {"gpu": h100.pk, "term": "on_demand"})
    assert response.status_code == 200
    words = response.context["words"]
    assert words.startswith(
        "H100 SXM on demand prices in USD changed by \N{MINUS SIGN}25.0% a year over the 12 months to"
    )
    assert "fitted to 10 weekly medians of 3 offerings" in words
    html = response.content.decode()
    assert "Weekly median price: H100 SXM, on demand" in html
    assert "$4.00" in html  # the first week's median, in the table


@pytest.mark.usefixtures("reference")
def test_the_trend_page_refuses_an_unknown_window_and_says_when_prices_are_too_few(viewer_client):
    _import_weeks(3, providers={"Lambda": 3.0}, change=0.0)
    h100 = GpuModel.objects.get(name="H100 SXM")
    refused = viewer_client.get(reverse("pricing:price_trend"), {"gpu": h100.pk, "months": "7"})
    assert refused.status_code == 400
    assert "Select a valid choice" in refused.content.decode()
    few = viewer_client.get(reverse("pricing:price_trend"), {"gpu": h100.pk})
    assert "3 weeks of H100 SXM on demand prices in USD" in few.context["words"]
    assert "a trend needs at least 8 weeks" in few.context["words"]


def test_the_trend_page_with_no_prices_says_so(viewer_client, db):
    response = viewer_client.get(reverse("pricing:price_trend"))
    assert response.status_code == 200
    assert "No prices have been imported yet." in response.content.decode()


@pytest.mark.usefixtures("reference")
def test_an_offerings_history_page_gives_its_own_trend(viewer_client):
    _import_weeks(9, providers={"Lambda": 3.0}, change=-0.1)
    observation = selectors.offering_history(observation=selectors.latest_prices()[0].observation).last()
    response = viewer_client.get(reverse("pricing:price_history", args=[observation.pk]))
    assert response.context["trend"].startswith("Its price changed by \N{MINUS SIGN}10.0% a year, fitted to 9 weeks")
