"""Scenarios, their options and forecasts, secondary-hardware diligence, and evaluation runs."""

from __future__ import annotations

from tco.models.option import (
    DILIGENCE_ITEMS,
    DILIGENCE_KEYS,
    DiligenceStatus,
    OptionKind,
    ScenarioOption,
    SecondaryDiligenceItem,
)
from tco.models.run import RunStatus, ScenarioRun
from tco.models.scenario import ForecastKind, Scenario

__all__ = [
    "DILIGENCE_ITEMS",
    "DILIGENCE_KEYS",
    "DiligenceStatus",
    "ForecastKind",
    "OptionKind",
    "RunStatus",
    "Scenario",
    "ScenarioOption",
    "ScenarioRun",
    "SecondaryDiligenceItem",
]
