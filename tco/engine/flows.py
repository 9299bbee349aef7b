"""Dispatch from an option's kind to its cash-flow formulas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.kinds import OWNED_KINDS, RENTAL_KINDS

from .model import Context, Flows
from .owned import owned_flows
from .rental import api_flows, rental_flows


def option_flows(option: Mapping[str, Any], ctx: Context) -> Flows:
    """Cash flows of one (normalised) option under the scenario context ``ctx``."""
    kind = option["kind"]
    if kind in OWNED_KINDS:
        return owned_flows(option, ctx)
    if kind in RENTAL_KINDS:
        return rental_flows(option, ctx)
    return api_flows(option, ctx)
