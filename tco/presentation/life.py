"""Owned hardware whose useful life ends inside the horizon while the refresh policy is "none": it keeps running, its
capital charge spread over its life, its residual value credited at the horizon, so the answer says so. (With
"replace" the answer lists the replacements; with "truncate" no life ends inside the compared months.)"""

from __future__ import annotations

import math

from lib.formatting import round_half_up
from lib.kinds import is_owned


def life_note(option: dict, horizon_months: int, refresh_policy: str | None = None) -> str:
    """ "Used 8x H100: its 3-year life ends in month 36 of 60. Replacement is not modelled: costs after month 36
    assume the hardware keeps running." ("" for a rental, a life that lasts the horizon, or hardware the refresh
    policy replaces or cuts the comparison at)."""
    life = option.get("useful_life_years")
    if refresh_policy not in (None, "", "none"):
        return ""
    if not is_owned(option.get("kind", "")) or life is None or float(life) <= 0:
        return ""
    months = float(life) * 12
    if months >= horizon_months:
        return ""
    ends = max(1, math.ceil(round(months, 6)))  # 2.9 years = 34.8 months: it runs out during month 35
    years = f"{round_half_up(life, 2).normalize():f}"
    return (
        f"{option.get('name', 'This option')}: its {years}-year life ends in month {ends} of {horizon_months}. "
        f"Replacement is not modelled: costs after month {ends} assume the hardware keeps running."
    )


def life_notes(document: dict) -> list[str]:
    """The note of every owned option of ``document`` whose life ends before its horizon, in document order."""
    horizon = int(document.get("horizon_months") or 0)
    policy = document.get("refresh_policy")
    notes = (life_note(option, horizon, policy) for option in document.get("options") or [])
    return [note for note in notes if note]
