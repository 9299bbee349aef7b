"""Option kinds and billings, defined once for the whole project.

The engine owns these tuples because it must import nothing from Django or the apps; everything else
(``lib.kinds`` for labels and colours, the ``ScenarioOption.kind`` choices, the presentation) imports them from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OWNED_KINDS = ("owned", "secondary")
RENTAL_KINDS = ("hyperscaler", "neocloud", "marketplace")
API_KINDS = ("api",)
KINDS = OWNED_KINDS + RENTAL_KINDS + API_KINDS
BILLINGS = ("on_demand", "committed")


def is_owned(kind: str) -> bool:
    return kind in OWNED_KINDS


def is_on_demand_rental(option: Mapping[str, Any]) -> bool:
    """A rental billed by the hour: the options break-even pairs and the break-even map are built against.

    Reads a normalised option or a raw document option (a missing ``billing`` is on demand).
    """
    return option.get("kind") in RENTAL_KINDS and (option.get("billing") or "on_demand") == "on_demand"
