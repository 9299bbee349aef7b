"""One application error family (lib.errors.AppError): every error a user can cause carries its words the same way."""

from __future__ import annotations

import importlib
import inspect
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from lib.errors import AppError
from lib.numbers import NumberTextError
from pricing.fetch import FetchError
from pricing.importers.fields import CellError
from tco.checks import DecisionError
from tco.engine import Problem
from tco.forecast import ForecastError
from tco.load_profiles import LoadProfileError
from tco.services.common import EditRefused, VersionConflict
from tco.services.comparison import ComparisonError
from tco.services.currency import CurrencyChangeError
from tco.services.decisions import BriefConflict
from tco.services.evaluation import NotEvaluable, NotReady
from tco.services.options import PriceChoiceError
from tco.services.scenarios import ScenarioInUse
from tco.services.uncertainty import RangeError
from tco.web.inputs import InputError

ROOT = Path(__file__).resolve().parents[2]

# Raised and caught inside the code, never shown as they are: flow control, a programming error, the engine's
# own error (framework-free, it imports nothing of the apps or lib; its problems carry a path and a message each).
INTERNAL = {
    "config.api.problems.ApiProblem",  # an API answer in waiting: the API's handler turns it into problem+json
    "pricing.importers.feeds.NotTheFeed",  # caught by the feed parsers: the file is refused with its reason
    "pricing.importers.base.RowRefused",  # caught by the JSON price lists' entry loops (LiteLLM, OpenRouter)
    "pricing.importers.gpuhunt._BadCell",  # caught by the row loop, as SkyPilot's
    "pricing.importers.skypilot._BadCell",
    "tco.actuals.focus._NotANumber",  # caught by the FOCUS reader, which names the line and column
    "tco.engine.errors.ScenarioError",
    "tco.models.decision.ImmutableRowError",
    "tco.services.uncertainty.RunCancelled",
}


def _exception_classes():
    for package in ("config", "lib", "pricing", "tco"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts or "management" in path.parts:
                continue
            module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
            for name, value in vars(module).items():
                if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == module.__name__:
                    yield f"{module.__name__}.{name}", value


def test_every_error_a_user_can_cause_is_an_app_error():
    found = dict(_exception_classes())
    assert len(found) > 15
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, AppError) and name not in INTERNAL)
    assert outside == []
    assert set(found) >= INTERNAL  # the list above names classes that exist


def _examples():
    scenario = SimpleNamespace(name="H100 inference", version=4)
    brief = SimpleNamespace(updated_by_id=None, version=3, updated_by=None)
    document = {"options": [{"name": "Own 8 H100", "kind": "owned"}]}
    problems = [Problem("options[0].capex", "must not be negative; got -1"), Problem("fleet_gpus", "must be whole")]
    return {
        "VersionConflict": VersionConflict(scenario=scenario, expected_version=3),
        "EditRefused": EditRefused(problems, document),
        "NotEvaluable": NotEvaluable(problems, document),
        "NotReady": NotReady("Version 9 does not exist; the scenario is at version 4."),
        "ScenarioInUse": ScenarioInUse("“H100 inference” has 1 live decision link."),
        "CurrencyChangeError": CurrencyChangeError("XYZ is not a currency code."),
        "RangeError": RangeError("fleet_gpus does not take a range"),
        "DecisionError": DecisionError("Write a short rationale: why this option?", field="rationale"),
        "BriefConflict": BriefConflict(brief, 2),
        "ComparisonError": ComparisonError("Pick 2 to 4 scenarios to compare; got 1."),
        "PriceChoiceError": PriceChoiceError("That price is in EUR; the scenario is in USD."),
        "InputError": InputError("capex", "'12x' is not a number"),
        "ForecastError": ForecastError("forecast_pasted", "paste at least one number"),
        "LoadProfileError": LoadProfileError(("Line 2: gpus_busy must be a number", "Line 3: hour must be 1")),
        "CellError": CellError("price must be a number"),
        "FetchError": FetchError(f"'{date(2026, 1, 1)}.csv': no such file.", not_found=True),
        "NumberTextError": NumberTextError("'12x' is not a number"),
    }


@pytest.mark.parametrize("name", sorted(_examples()))
def test_each_carries_its_words_as_messages_and_one_message_which_str_repeats(name):
    error = _examples()[name]
    assert isinstance(error, AppError)
    assert error.messages and all(isinstance(text, str) and text for text in error.messages)
    assert error.message == " ".join(error.messages)
    assert str(error) == error.message


def test_an_input_error_names_its_field_apart_from_its_message():
    typed, forecast = InputError("capex", "'12x' is not a number"), ForecastError("forecast_kind", "choose flat")
    assert (typed.field, typed.message) == ("capex", "'12x' is not a number")
    assert (forecast.field, str(forecast)) == ("forecast_kind", "choose flat")


def test_an_edit_refused_lists_each_problem_once_in_words():
    problem = Problem("options[0].capex", "must not be negative; got -1")
    error = EditRefused([problem, problem], {"options": [{"name": "Own 8 H100", "kind": "owned"}]})
    assert len(error.messages) == 1 and "Own 8 H100" in error.message and "options[0]" not in error.message
