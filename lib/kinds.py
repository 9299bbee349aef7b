"""Option and provider kinds in words: the labels tables, legends and sentences use (colour is never the only carrier).

The kind tuples are the engine's (``tco.engine.kinds``: the engine imports nothing from Django or the apps, so the
definition lives there and this module adds the words). One label per kind everywhere: scenario forms, tables,
charts, exports and the Market page. Colours and line styles are in ``lib.chart_style``.
"""

from __future__ import annotations

from tco.engine.kinds import API_KINDS, KINDS, OWNED_KINDS, RENTAL_KINDS, is_on_demand_rental, is_owned

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


def kind_choices(kinds: tuple[str, ...] = KINDS) -> list[tuple[str, str]]:
    """``(value, label)`` pairs for model and form choices."""
    return [(kind, KIND_LABELS[kind]) for kind in kinds]


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind)


def legend_name(name: str, kind: str) -> str:
    return f"{name} ({KIND_WORDS.get(kind, kind)})"
