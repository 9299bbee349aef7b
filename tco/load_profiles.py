"""Hourly load profiles for the fleet plan: from an uploaded CSV (``hour,gpus_busy``) or from the forecast.

No database. A profile is a list of GPUs busy per hour, at least 24 hours (the engine's ``fleet_plan``
scales any length to a year).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

from lib.errors import AppError

MIN_HOURS = 24
MAX_HOURS = 100_000
MAX_ERRORS_SHOWN = 20
HEADER = ("hour", "gpus_busy")
PEAK_RATIO_RANGE = (1.0, 2.0)


class LoadProfileError(AppError, ValueError):
    """Why a profile was refused: every problem found (line, column, value, what was expected); the message
    lists the first MAX_ERRORS_SHOWN."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        shown = list(self.problems[:MAX_ERRORS_SHOWN])
        more = len(self.problems) - len(shown)
        super().__init__("; ".join(shown) + (f"; and {more:,} more" if more > 0 else ""))


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_load_csv(text: str) -> list[float]:
    """GPUs busy per hour from CSV text with the header ``hour,gpus_busy``, in hour order.

    Hours are whole numbers, each once (any start, gaps allowed: the rows are what is counted); GPUs busy
    is a number 0 or more. Raises LoadProfileError listing every bad line."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise LoadProfileError(("The file is empty: it needs the header hour,gpus_busy and one row per hour",))
    header = tuple(cell.strip().lower() for cell in rows[0])
    if header != HEADER:
        got = ",".join(rows[0])[:80]
        raise LoadProfileError((f"Line 1: the header must be hour,gpus_busy; got {got!r}",))
    problems: list[str] = []
    seen: dict[int, int] = {}
    hours: list[tuple[int, float]] = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != 2:
            problems.append(f"Line {line}: expected 2 values (hour, gpus_busy); got {len(row)}")
            continue
        hour_text, busy_text = (cell.strip() for cell in row)
        hour = int(hour_text) if hour_text.lstrip("+").isdigit() and len(hour_text) <= 9 else None
        busy = _number(busy_text)
        if hour is None:
            problems.append(f"Line {line}, hour: {hour_text[:40]!r} is not a whole number of 0 or more")
        elif hour in seen:
            problems.append(f"Line {line}, hour: hour {hour} is already on line {seen[hour]}")
        if busy is None:
            problems.append(f"Line {line}, gpus_busy: {busy_text[:40]!r} is not a number")
        elif busy < 0:
            problems.append(f"Line {line}, gpus_busy: {busy_text} is negative; GPUs busy is 0 or more")
        if hour is not None and hour not in seen:
            seen[hour] = line
        if hour is not None and busy is not None and busy >= 0:
            hours.append((hour, busy))
    if problems:
        raise LoadProfileError(tuple(problems))
    if not MIN_HOURS <= len(hours) <= MAX_HOURS:
        raise LoadProfileError(
            (f"A load profile needs {MIN_HOURS} to {MAX_HOURS:,} hours; the file has {len(hours):,}",)
        )
    return [busy for _, busy in sorted(hours)]


def from_forecast(
    utilization: Sequence[float], *, horizon_months: int, fleet_gpus: int, peak_ratio: float, peak_hour: int
) -> list[float]:
    """One representative day per month of the horizon: ``fleet · u_m · s(h)`` for h = 0..23, where the daily
    shape ``s(h) = 1 + (peak_ratio - 1)·cos(2π(h - peak_hour)/24)`` averages 1 (so each month keeps the
    forecast's busy GPU-hours) and peaks at ``peak_ratio`` times the mean at ``peak_hour``."""
    low, high = PEAK_RATIO_RANGE
    if not low <= peak_ratio <= high:
        raise LoadProfileError((f"The peak must be {low:g} to {high:g} times the daily mean; got {peak_ratio:g}",))
    if not 0 <= peak_hour <= 23:
        raise LoadProfileError((f"The peak hour must be 0 to 23; got {peak_hour}",))
    months = list(utilization) * horizon_months if len(utilization) == 1 else list(utilization)
    shape = [1 + (peak_ratio - 1) * math.cos(2 * math.pi * (h - peak_hour) / 24) for h in range(24)]
    return [max(0.0, fleet_gpus * u * s) for u in months[:horizon_months] for s in shape]
