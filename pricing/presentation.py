"""Market facts in words: an import's outcome on its snapshot page (one result box, the status named once, counts
that add up) and where a price index is heading (``trend_words``)."""

from __future__ import annotations

from dataclasses import dataclass

from lib.formatting import format_pct
from pricing.models import PriceSnapshot, PricingTerm, SnapshotStatus
from pricing.trends import MIN_WEEKS, PriceTrend, Trend


@dataclass(frozen=True)
class ImportResult:
    status: str  # the badge: the status, said once
    tone: str  # css class: status-<tone>
    message: str  # what happened, never repeating the badge
    counts: tuple[tuple[str, int], ...]  # (what became of the rows, how many) when the import finished with rows
    rows_total: int
    waiting: bool


def _message(snapshot: PriceSnapshot) -> str:
    errors = len(snapshot.errors)
    if snapshot.status == SnapshotStatus.PENDING:
        return "The file is stored and waits for a worker to import it; this box updates by itself."
    if snapshot.status == SnapshotStatus.RUNNING:
        return "The file is being checked and imported; this box updates by itself."
    if snapshot.status == SnapshotStatus.REJECTED:
        return f"{errors} problem{'s' if errors != 1 else ''} found; nothing from this file was stored."
    if snapshot.status == SnapshotStatus.FAILED:
        return "The import stopped: " + "; ".join(str(error.get("reason", "")) for error in snapshot.errors[:3])
    if snapshot.status == SnapshotStatus.DUPLICATE:
        return "Nothing new: every price in the file was already known."
    new = snapshot.prices_new
    return f"{new} new price{'s' if new != 1 else ''} stored."


def import_result(snapshot: PriceSnapshot) -> ImportResult:
    """The snapshot page's result box for ``snapshot``, pending to finished."""
    finished_with_rows = snapshot.status in (SnapshotStatus.IMPORTED, SnapshotStatus.DUPLICATE)
    return ImportResult(
        status=snapshot.status_text,
        tone=snapshot.status,
        message=_message(snapshot),
        counts=snapshot.row_counts if finished_with_rows else (),
        rows_total=snapshot.rows_total,
        waiting=not snapshot.is_finished,
    )


def trend_words(found: PriceTrend) -> str:
    """The trend page's sentence: what the index is, how it moved a year, how sure that is, and what it rests on."""
    what = f"{found.gpu_model} {PricingTerm(found.pricing_term).label.lower()} prices in {found.currency}"
    if found.last_day is None:
        return f"No {what} have been imported yet."
    window = f"the {found.months} months to {found.last_day.isoformat()}"
    trend = found.trend
    if trend is None:
        weeks = len(found.index)
        return (
            f"{weeks} week{'s' if weeks != 1 else ''} of {what} in {window}: a trend needs at least {MIN_WEEKS} "
            "weeks of prices (import more snapshots, or choose a longer window)."
        )
    interval = f"{format_pct(trend.low, plus=True)} to {format_pct(trend.high, plus=True)} a year"
    certainty = f"95 % interval {interval}"
    if trend.low <= 0 <= trend.high:
        certainty = f"no clear trend: the 95 % interval, {interval}, includes no change"
    return (
        f"{what} changed by {format_pct(trend.change_per_year, plus=True)} a year over {window}, fitted to "
        f"{trend.weeks} weekly medians of {found.offerings} offering{'s' if found.offerings != 1 else ''} "
        f"({certainty})."
    )


def offering_trend_words(trend: Trend | None, *, weeks: int) -> str:
    """One offering's own trend on its history page, or why there is none yet."""
    if trend is None:
        return f"{weeks} week{'s' if weeks != 1 else ''} of prices: a trend needs at least {MIN_WEEKS}."
    return (
        f"Its price changed by {format_pct(trend.change_per_year, plus=True)} a year, fitted to {trend.weeks} weeks "
        f"from {trend.first_week.isoformat()} (95 % interval {format_pct(trend.low, plus=True)} to "
        f"{format_pct(trend.high, plus=True)} a year)."
    )
