"""The finance depth's answers in words (docs/money-math.md "Finance depth"): after tax, a comparison cut short by
the refresh policy, and each option's loan, lease, replacements and commitment."""

from __future__ import annotations

from lib.kinds import is_owned


def tax_rate_of(document: dict, result: dict) -> float:
    """The scenario's tax rate when its answer carries after-tax figures; 0 when untaxed (then nothing changes)."""
    rate = float(document.get("tax_rate") or 0)
    if rate > 0 and all("npv_after_tax" in option for option in result["options"]):
        return rate
    return 0.0


def compared_months(result: dict) -> int:
    """The months every option is compared over: the horizon, or less when the refresh policy cuts it."""
    return int(result.get("effective_horizon_months") or result["horizon_months"])


def _cycle_months(option: dict) -> int | None:
    """Months one owned unit serves: a returned lease's term, else its useful life."""
    if option.get("financing") == "lease" and option.get("lease_end", "return") == "return":
        return int(option["lease_term_months"])
    life = option.get("useful_life_years")
    return max(1, round(12 * float(life))) if life else None


def truncation_note(document: dict, result: dict) -> str:
    """ "Every option is compared over the first 24 of the 48 months entered: ..." ("" when nothing was cut)."""
    months, entered = compared_months(result), int(result["horizon_months"])
    if months >= entered:
        return ""
    shortest = [
        option["name"]
        for option in document.get("options") or []
        if is_owned(option.get("kind", "")) and _cycle_months(option) == months
    ]
    which = f" ({', '.join(shortest)})" if shortest else ""
    return (
        f"Every option is compared over the first {months} of the {entered} months entered: the refresh policy cuts "
        f"the comparison to the shortest hardware life{which} instead of replacing the hardware."
    )
