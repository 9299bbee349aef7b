"""Where prices are heading: a weekly price index and its fitted change per year (pandas, no Django).

The index of one GPU model and pricing term is the median $/GPU-hour of the offerings observed in each week
(each offering counted once a week, at its mean price that week, so a daily catalog weighs no more than a
weekly one), with the number of offerings behind it. The trend is an ordinary least-squares line through the
logarithm of the weekly medians against time in years: its slope ``b`` is a constant rate of change, so the
change per year is ``e^b - 1``, and the 95 % interval is ``e^(b ± t·se) - 1`` with Student's t on n - 2 degrees
of freedom. The mix of offerings changes from week to week (a new cheap provider lowers the median though no
price fell), which is why the count is shown beside every median.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from statistics import NormalDist

import numpy as np
import pandas as pd

DAYS_PER_YEAR = 365.25
MIN_WEEKS = 8  # fewer weekly medians give an interval too wide to act on
CONFIDENCE = 0.95


@dataclass(frozen=True)
class WeeklyPrice:
    """One week of the index: the Monday it starts, the median price and how many offerings it is the median of."""

    week: date
    median_price_per_gpu_hour: float
    offerings: int


@dataclass(frozen=True)
class Trend:
    """The fitted change per year of an index (``change_per_year`` -0.18 is 18 % cheaper each year), with its 95 %
    interval, over the weeks ``first_week`` .. ``last_week``."""

    change_per_year: float
    low: float
    high: float
    weeks: int
    first_week: date
    last_week: date


@dataclass(frozen=True)
class PriceTrend:
    """The weekly index of one GPU model and pricing term over a window, its fitted trend (None when too short)
    and what it was read from: enough to record it as an option's price path."""

    gpu_model: str
    pricing_term: str
    currency: str
    months: int
    first_day: date | None
    last_day: date | None
    index: list[WeeklyPrice]
    trend: Trend | None
    offerings: int = 0


def weekly_index(rows: Iterable[tuple[date, object, float]]) -> list[WeeklyPrice]:
    """The weekly median of ``(week start, offering key, mean price that week)`` rows, oldest week first.

    A week starts on Monday (ISO weeks, as Django's ``TruncWeek``); a row's week must already be its Monday."""
    frame = pd.DataFrame(list(rows), columns=["week", "offering", "price"])
    if frame.empty:
        return []
    weekly = frame.groupby("week")["price"].agg(["median", "count"]).sort_index()
    return [
        WeeklyPrice(week=week, median_price_per_gpu_hour=float(median), offerings=int(count))
        for week, median, count in weekly.itertuples()
    ]


def fit_trend(index: list[WeeklyPrice]) -> Trend | None:
    """The change per year fitted to ``index``; None with fewer than ``MIN_WEEKS`` weeks or a non-positive
    median (a free offering has no logarithm)."""
    if len(index) < MIN_WEEKS or any(point.median_price_per_gpu_hour <= 0 for point in index):
        return None
    first = index[0].week
    years = np.array([(point.week - first).days / DAYS_PER_YEAR for point in index])
    logs = np.log([point.median_price_per_gpu_hour for point in index])
    slope, intercept = np.polyfit(years, logs, 1)
    residuals = logs - (slope * years + intercept)
    freedom = len(index) - 2
    spread = float(np.sum((years - years.mean()) ** 2))
    standard_error = math.sqrt(float(np.sum(residuals**2)) / freedom / spread)
    margin = student_t_quantile(0.5 + CONFIDENCE / 2, freedom) * standard_error
    return Trend(
        change_per_year=math.expm1(slope),
        low=math.expm1(slope - margin),
        high=math.expm1(slope + margin),
        weeks=len(index),
        first_week=first,
        last_week=index[-1].week,
    )


def student_t_quantile(probability: float, freedom: int) -> float:
    """Student's t quantile by the Cornish-Fisher expansion around the normal one (Abramowitz and Stegun 26.7.5):
    within 0.2 % of the tables from 6 degrees of freedom on, exact in the limit."""
    z = NormalDist().inv_cdf(probability)
    n = float(freedom)
    return (
        z
        + (z**3 + z) / (4 * n)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * n**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * n**3)
    )


def window_start(end: date, months: int) -> date:
    """The Monday of the week ``months`` months (of 30.44 days) before ``end``: the first week a window reads."""
    start = end - timedelta(days=round(months * DAYS_PER_YEAR / 12))
    return start - timedelta(days=start.weekday())


def weekly_means(points: Iterable[tuple[date, float]], key: object = None) -> list[tuple[date, object, float]]:
    """One offering's ``(observed on, price)`` points as ``(week start, key, mean price that week)`` rows, the
    shape ``weekly_index`` reads (the database groups the Market's many offerings the same way)."""
    frame = pd.DataFrame(list(points), columns=["day", "price"])
    if frame.empty:
        return []
    frame["week"] = [day - timedelta(days=day.weekday()) for day in frame["day"]]
    means = frame.groupby("week")["price"].mean().sort_index()
    return [(week, key, float(price)) for week, price in means.items()]
