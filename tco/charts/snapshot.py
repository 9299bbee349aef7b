"""What a comparison and a decision snapshot draw and word, for the services that read or freeze their numbers.

The services take these from their caller (a view or an API endpoint passes this module as ``output``), so reads
and writes never import charts or presentation themselves.
"""

from __future__ import annotations

from tco.charts.build import build_figures, with_map_rental
from tco.charts.comparison import cumulative_comparison
from tco.presentation.comparison import comparison as comparison_words
from tco.presentation.comparison import in_currency
from tco.presentation.currency import frozen_conversions
from tco.presentation.uncertainty import budget_lanes


def figures(document: dict, result: dict, stored: dict | None, map_rental: str) -> dict:
    """Every results figure: a run's ``stored`` ones with the break-even map redrawn for ``map_rental`` when
    another rental is asked for, or all drawn now (``stored`` None)."""
    if stored is not None:
        return with_map_rental(document, result, stored, map_rental)
    return build_figures(document, result, map_rental=map_rental)


def comparison(entries: list[dict], currency: str) -> dict:
    """The comparison data (``tco.presentation.comparison``) plus its ``cumulative_figure``, in ``currency``: an
    entry with a ``factor`` has its result converted at it first."""
    for entry in entries:
        if "factor" in entry:
            entry["result"] = in_currency(entry["result"], currency, entry["factor"])
    data = comparison_words(entries)
    data["cumulative_figure"] = cumulative_comparison(entries, currency)
    return data


def conversions(entries: list[dict] | None) -> list[dict]:
    """A scenario's currency conversions as a snapshot freezes them (rate, date, source, in words)."""
    return frozen_conversions(entries)


def lanes(plan: dict, load_profile: list[float]) -> list[dict]:
    """The fleet plan's budget lanes as a snapshot freezes them."""
    return budget_lanes(plan, load_profile)
