"""Dispatch from an option's kind to its cash-flow formulas (and, with the finance depth, its after-tax ledger)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.kinds import OWNED_KINDS, RENTAL_KINDS

from .commitments import committed_term_flows
from .finance import flows_ledger, owned_ledger
from .model import Context, Flows
from .owned import owned_flows
from .rental import api_flows, rental_flows
from .resale import residual


def option_flows(option: Mapping[str, Any], ctx: Context) -> Flows:
    """Cash flows of one (normalised) option under the scenario context ``ctx``."""
    kind = option["kind"]
    if kind in OWNED_KINDS:
        if option.get("resale_curve") is not None:  # the curve sets the residual the capital charge uses
            option = {**option, "residual_value": residual(option)}
        flows = owned_flows(option, ctx)
        if ctx.finance:
            flows.ledger = owned_ledger(option, ctx, flows)
        return flows
    deductible = None
    if kind in RENTAL_KINDS and option.get("commitment_term_months") is not None:
        flows, deductible, flows.details = committed_term_flows(option, ctx)
    elif kind in RENTAL_KINDS:
        flows = rental_flows(option, ctx)
    else:
        flows = api_flows(option, ctx)
    if ctx.finance:
        flows.ledger = flows_ledger(flows, ctx, deductible)
    return flows
