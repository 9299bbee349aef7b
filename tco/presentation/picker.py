"""The Market price picker's pages: which offers of how many matching it shows, and where the next ones are."""

from __future__ import annotations

PICKER_PAGE = 25  # offers a page of the picker shows, cheapest first


def picker_offset(text: str, total: int) -> int:
    """The first offer to show (0-based) from the request's ``offset``: a page start within the matches; anything
    else (blank, not a whole number, negative, past the end) is the first page."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        return 0
    offset = int(text)
    return offset - offset % PICKER_PAGE if offset < total else 0


def picker_page(offset: int, shown: int, total: int) -> dict:
    """ "26 to 50 of 110 matching offers": the range shown, the total, and the offsets and sizes of the pages either
    side (None at either end)."""
    following = offset + shown
    return {
        "first": offset + 1,
        "last": following,
        "total": total,
        "previous_offset": max(0, offset - PICKER_PAGE) if offset > 0 else None,
        "previous_count": min(PICKER_PAGE, offset),
        "next_offset": following if following < total else None,
        "next_count": min(PICKER_PAGE, total - following),
    }
