"""Scenarios, their options and forecasts, secondary-hardware diligence, evaluation and sizing runs."""

from __future__ import annotations

from tco.models.actuals import (
    ActualsImport,
    ActualsKind,
    ActualsPlan,
    BillingLine,
    MappingRule,
    UtilizationSample,
)
from tco.models.decision import (
    BRIEF_KEYS,
    BRIEF_QUESTIONS,
    DecisionAction,
    DecisionLink,
    DecisionRecord,
    DecisionSnapshot,
    ImmutableRowError,
    ScenarioBrief,
)
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
from tco.models.sizing import SizingRun
from tco.models.uncertainty import InputRange, UncertaintyRun, UncertaintyStatus

__all__ = [
    "BRIEF_KEYS",
    "BRIEF_QUESTIONS",
    "DILIGENCE_ITEMS",
    "DILIGENCE_KEYS",
    "ActualsImport",
    "ActualsKind",
    "ActualsPlan",
    "BillingLine",
    "DecisionAction",
    "DecisionLink",
    "DecisionRecord",
    "DecisionSnapshot",
    "DiligenceStatus",
    "ForecastKind",
    "ImmutableRowError",
    "InputRange",
    "MappingRule",
    "OptionKind",
    "RunStatus",
    "Scenario",
    "ScenarioBrief",
    "ScenarioOption",
    "ScenarioRun",
    "SecondaryDiligenceItem",
    "SizingRun",
    "UncertaintyRun",
    "UncertaintyStatus",
    "UtilizationSample",
]
