"""How an import's outcome reads on its snapshot page: one result box, the status named once, counts that add up."""

from __future__ import annotations

from dataclasses import dataclass

from pricing.models import PriceSnapshot, SnapshotStatus


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
