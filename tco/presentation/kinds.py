"""Option kinds in words: the labels tables, legends and sentences use (colour is never the only carrier)."""

from __future__ import annotations

OWNED_KINDS = ("owned", "secondary")
RENTAL_KINDS = ("hyperscaler", "neocloud", "marketplace")
KINDS = ("hyperscaler", "neocloud", "marketplace", "owned", "secondary", "api")

KIND_LABELS = {
    "hyperscaler": "Hyperscaler",
    "neocloud": "Neocloud",
    "marketplace": "Marketplace",
    "owned": "Owned (new)",
    "secondary": "Owned (secondary)",
    "api": "Managed API",
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


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind)


def legend_name(name: str, kind: str) -> str:
    return f"{name} ({KIND_WORDS.get(kind, kind)})"


def is_owned(kind: str) -> bool:
    return kind in OWNED_KINDS


def is_on_demand_rental(option: dict) -> bool:
    """A rental billed by the hour: the options break-even pairs and the break-even map are built against."""
    return option.get("kind") in RENTAL_KINDS and option.get("billing", "on_demand") == "on_demand"
