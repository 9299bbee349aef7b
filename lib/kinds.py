"""Option and provider kinds and billings, defined once for the whole project, and their words.

Plain Python at the bottom of the project: the engine, both apps' models and forms, the presentation and the Market
read the same tuples from here. One label per kind everywhere: scenario forms, tables, charts, exports and the
Market page (colour is never the only carrier; colours and line styles are in ``lib.chart_style``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OWNED_KINDS = ("owned", "secondary")
RENTAL_KINDS = ("hyperscaler", "neocloud", "marketplace")
API_KINDS = ("api",)
KINDS = OWNED_KINDS + RENTAL_KINDS + API_KINDS
# A rental's billing: the on-demand value is also the pricing term of that name and what a commitment falls back to.
ON_DEMAND, COMMITTED = "on_demand", "committed"
BILLINGS = (ON_DEMAND, COMMITTED)

# The order kinds are shown in (charts, menus): rentals first, then owned hardware, then the API.
DISPLAY_ORDER = (*RENTAL_KINDS, *OWNED_KINDS, *API_KINDS)

KIND_LABELS = {
    "owned": "Owned (new)",
    "secondary": "Owned (secondary)",
    "hyperscaler": "Hyperscaler",
    "neocloud": "Neocloud",
    "marketplace": "Marketplace",
    "api": "Managed model API",
}

# Short form for chart legends: "Lambda 8x H100 SXM (neocloud)".
KIND_WORDS = {
    "hyperscaler": "hyperscaler",
    "neocloud": "neocloud",
    "marketplace": "marketplace",
    "owned": "owned",
    "secondary": "secondary",
    "api": "API",
}

# How a sentence describes choosing an option of this kind.
KIND_VERBS = {
    "hyperscaler": "renting",
    "neocloud": "renting",
    "marketplace": "renting",
    "owned": "owning",
    "secondary": "owning",
    "api": "using",
}

__all__ = [
    "API_KINDS",
    "BILLINGS",
    "DISPLAY_ORDER",
    "KINDS",
    "KIND_LABELS",
    "KIND_VERBS",
    "KIND_WORDS",
    "OWNED_KINDS",
    "RENTAL_KINDS",
    "is_on_demand_rental",
    "is_owned",
    "kind_choices",
    "kind_label",
    "legend_name",
]


def is_owned(kind: str) -> bool:
    return kind in OWNED_KINDS


def is_on_demand_rental(option: Mapping[str, Any]) -> bool:
    """A rental billed by the hour: the options break-even pairs and the break-even map are built against.

    Reads a normalised option or a raw document option (a missing ``billing`` is on demand).
    """
    return option.get("kind") in RENTAL_KINDS and (option.get("billing") or ON_DEMAND) == ON_DEMAND


def kind_choices(kinds: tuple[str, ...] = KINDS) -> list[tuple[str, str]]:
    """``(value, label)`` pairs for model and form choices."""
    return [(kind, KIND_LABELS[kind]) for kind in kinds]


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind)


def legend_name(name: str, kind: str) -> str:
    return f"{name} ({KIND_WORDS.get(kind, kind)})"
