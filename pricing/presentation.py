"""How an import's outcome reads on its snapshot page: one result box, the status named once, counts that add up."""

from __future__ import annotations

from dataclasses import dataclass

from pricing.models import PriceSnapshot, SnapshotStatus

# The rows of a file, each counted once under what became of it; together they are the file's rows.
ROW_COUNTS = (
    ("rows_imported", "new"),
    ("rows_unchanged", "already known"),
    ("rows_skipped", "skipped"),
    ("rows_merged", "merged"),
    ("rows_held_back", "held back"),
)

# Only SkyPilot-style catalogs fold zones or hold rows back: these counts are shown when they are not zero.
OPTIONAL_COUNTS = ("rows_merged", "rows_held_back")


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
    counts = (
        tuple(
            (label, getattr(snapshot, field))
            for field, label in ROW_COUNTS
            if getattr(snapshot, field) or field not in OPTIONAL_COUNTS
        )
        if finished_with_rows
        else ()
    )
    status = snapshot.get_status_display()
    if snapshot.status == SnapshotStatus.IMPORTED and snapshot.rows_held_back:
        status = f"Imported with {snapshot.rows_held_back} rows held back"
    return ImportResult(
        status=status,
        tone=snapshot.status,
        message=_message(snapshot),
        counts=counts,
        rows_total=snapshot.rows_total,
        waiting=not snapshot.is_finished,
    )
