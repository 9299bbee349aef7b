"""Write services (keyword-only, transactional). Views and commands call these, never the ORM directly."""

from __future__ import annotations

from tco.services.common import Change, EditRefused, VersionConflict
from tco.services.currency import CurrencyChangeError, money_inputs, scenario_change_currency
from tco.services.options import (
    PriceChoiceError,
    diligence_update,
    option_add,
    option_adopt_price_trend,
    option_delete,
    option_pick_price,
    option_restore,
    option_update,
    price_source_for,
)
from tco.services.runs import run_execute, run_queue
from tco.services.scenarios import (
    ScenarioInUse,
    forecast_update,
    scenario_clone,
    scenario_create,
    scenario_create_from_document,
    scenario_delete,
    scenario_update_field,
    unique_scenario_name,
)

__all__ = [
    "Change",
    "CurrencyChangeError",
    "EditRefused",
    "PriceChoiceError",
    "ScenarioInUse",
    "VersionConflict",
    "diligence_update",
    "forecast_update",
    "money_inputs",
    "option_add",
    "option_adopt_price_trend",
    "option_delete",
    "option_pick_price",
    "option_restore",
    "option_update",
    "price_source_for",
    "run_execute",
    "run_queue",
    "scenario_change_currency",
    "scenario_clone",
    "scenario_create",
    "scenario_create_from_document",
    "scenario_delete",
    "scenario_update_field",
    "unique_scenario_name",
]
