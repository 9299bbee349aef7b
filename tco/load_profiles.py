"""Hourly load profiles for the fleet plan: from an uploaded CSV (``hour,gpus_busy``) or from the forecast.

No database. A profile is a list of GPUs busy per hour, at least 24 hours (the engine's ``fleet_plan``
scales any length to a year).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Sequence

from lib.errors import AppError
from lib.numbers import NumberTextError, read_decimal, read_integer

MIN_HOURS = 24
MAX_HOURS = 100_000
MAX_ERRORS_SHOWN = 20
HEADER = ("hour", "gpus_busy")
PEAK_RATIO_RANGE = (1.0, 2.0)
# A row is two short numbers: a longer line is refused with its number, well before the csv module's own limit.
MAX_LINE_CHARS = 1_000
MAX_HOUR = 999_999_999


class LoadProfileError(AppError, ValueError):
    """Why a profile was refused: every problem found (line, column, value, what was expected); the message
    lists the first MAX_ERRORS_SHOWN."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        shown = list(self.problems[:MAX_ERRORS_SHOWN])
        more = len(self.problems) - len(shown)
        super().__init__("; ".join(shown) + (f"; and {more:,} more" if more > 0 else ""))


def _hour(text: str) -> int | None:
    try:
        hour = read_integer(text)
    except NumberTextError:
        return None
    return hour if hour is not None and hour <= MAX_HOUR else None


def _busy(text: str) -> tuple[float | None, str]:
    """(GPUs busy, "") or (None, what is wrong with ``text``)."""
    try:
        value = read_decimal(text)
    except NumberTextError as error:
        return None, str(error)
    if value is None:
        return None, "'' is not a number"
    if value < 0:
        return None, f"{text} is negative; GPUs busy is 0 or more"
    return float(value), ""


def _lines(text: str) -> Iterator[str]:
    """The file's lines as the csv module reads them, each refused, naming it, when longer than MAX_LINE_CHARS
    (the csv module's own field limit would raise an error naming nothing)."""
    for line, physical in enumerate(io.StringIO(text, newline=""), start=1):
        if len(physical.rstrip("\r\n")) > MAX_LINE_CHARS:
            raise LoadProfileError(
                (
                    f"Line {line} has {len(physical):,} characters; a row is hour,gpus_busy, two short numbers "
                    f"(at most {MAX_LINE_CHARS:,} characters a line)",
                )
            )
        yield physical


def _rows(text: str) -> list[tuple[int, list[str]]]:
    """(line number in the file, cells) of the header and each row with a value, read no further than the row
    past MAX_HOURS: a longer file is refused there, whatever follows."""
    reader = csv.reader(_lines(text))
    rows = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(rows) > MAX_HOURS:
                raise LoadProfileError(
                    (
                        f"A load profile is at most {MAX_HOURS:,} hours; the file has more "
                        f"(line {reader.line_num:,} is hour {len(rows):,})",
                    )
                )
            rows.append((reader.line_num, row))
    except csv.Error as error:  # an unterminated quote, a NUL, a field past csv's own limit
        raise LoadProfileError((f"Line {reader.line_num}: this is not CSV the app reads ({error})",)) from None
    return rows


def parse_load_csv(text: str) -> list[float]:
    """GPUs busy per hour from CSV text with the header ``hour,gpus_busy``, in hour order.

    Hours are whole numbers, each once (any start, gaps allowed: the rows are what is counted); GPUs busy
    is a number 0 or more. Both are read with lib.numbers' rules (digits 0-9 only); a line has at most
    MAX_LINE_CHARS characters. Raises LoadProfileError listing every bad line (numbered as in the file)."""
    rows = _rows(text.lstrip("\ufeff"))
    if not rows:
        raise LoadProfileError(("The file is empty: it needs the header hour,gpus_busy and one row per hour",))
    header_line, header_row = rows[0]
    header = tuple(cell.strip().lower() for cell in header_row)
    if header != HEADER:
        got = ",".join(header_row)[:80]
        raise LoadProfileError((f"Line {header_line}: the header must be hour,gpus_busy; got {got!r}",))
    problems: list[str] = []
    seen: dict[int, int] = {}
    hours: list[tuple[int, float]] = []
    for line, row in rows[1:]:
        if len(row) != 2:
            problems.append(f"Line {line}: expected 2 values (hour, gpus_busy); got {len(row)}")
            continue
        hour_text, busy_text = (cell.strip() for cell in row)
        hour = _hour(hour_text)
        if hour is None:
            problems.append(f"Line {line}, hour: {hour_text[:40]!r} is not a whole number of 0 or more")
        elif hour in seen:
            problems.append(f"Line {line}, hour: hour {hour} is already on line {seen[hour]}")
        busy, problem = _busy(busy_text)
        if problem:
            problems.append(f"Line {line}, gpus_busy: {problem}")
        if hour is not None and hour not in seen:
            seen[hour] = line
        if hour is not None and busy is not None:
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
