"""The Market price picker's pages: which offers of how many matching it shows, and where the next ones are; the
option's own term first, in words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lib.kinds import COMMITTED, ON_DEMAND
from lib.terms import PRICING_TERMS, term_label

# The terms an option is billed at: a committed rental's are the reserved and committed ones, everything else's on
# demand (a model API is billed per token as used).
COMMITTED_TERMS = ("reserved_1y", "reserved_3y", "committed")

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


def own_terms(billing: str | None) -> tuple[str, ...]:
    """The pricing terms an option billed so (``on_demand``, ``committed``; None for a model API) is priced at."""
    return COMMITTED_TERMS if billing == COMMITTED else (ON_DEMAND,)


def picker_groups(rows: Sequence[Any], first_terms: Sequence[str]) -> list[dict]:
    """One page of the picker's rows (already in order: the option's own terms first) as at most two groups, each
    with its heading in words: "On demand, as this option is billed: cheapest first", then "Other terms: Spot,
    Reserved 1 year: cheapest first"."""
    own = [row for row in rows if row.pricing_term in first_terms]
    other = [row for row in rows if row.pricing_term not in first_terms]
    groups = []
    if own:
        words = _terms_in_words(first_terms)
        groups.append({"heading": f"{words}, as this option is billed: cheapest first", "rows": own})
    if other:
        words = _terms_in_words(sorted({row.pricing_term for row in other}, key=_term_order))
        groups.append({"heading": f"Other terms: {words}: cheapest first", "rows": other})
    return groups


def _term_order(term: str) -> int:
    return PRICING_TERMS.index(term) if term in PRICING_TERMS else len(PRICING_TERMS)


def _terms_in_words(terms: Sequence[str]) -> str:
    return ", ".join(term_label(term) for term in terms)
