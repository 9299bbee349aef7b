"""Scenario rows ⇄ tco-scenario/1 documents (docs/import-formats.md, scenario JSON).

Null inputs are left out of the document so the engine applies its defaults, and a document
imported and exported again comes back equal (numbers keep their value; integral ones become ints).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from lib.kinds import OWNED_KINDS, RENTAL_KINDS
from tco.engine.catalogue import PRICE_SOURCE_KINDS, ScenarioField, fields_for_kind, fields_of_type, scenario_fields
from tco.engine.fields import check_number
from tco.forecast import Forecast
from tco.models.fields import DECIMAL_PLACES, SIGNIFICANT_DIGITS, STORED_LIMIT
from tco.models.option import ScenarioOption
from tco.models.scenario import SCHEMA, ForecastKind, Scenario
from tco.serving import ServingError, parse_traffic, traffic_text

INTEGER_OPTION_FIELDS = fields_of_type("count")
TEXT_OPTION_FIELDS = fields_of_type("choice")
LIST_OPTION_FIELDS = fields_of_type("list")  # kept as the JSON lists of numbers they are
_QUANTUM = Decimal(1).scaleb(-DECIMAL_PLACES)


def number(value: Decimal | int | None) -> int | float | None:
    """A stored Decimal as a JSON number: int when integral (320000), float otherwise (0.08)."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    if value == value.to_integral_value():
        return int(value)
    return float(value)


def option_to_document(option: ScenarioOption) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": option.name, "kind": option.kind}
    for field in fields_for_kind(option.kind):
        value = getattr(option, field)
        if value is None or value == "":
            continue
        entry[field] = value if field in TEXT_OPTION_FIELDS | LIST_OPTION_FIELDS else number(value)
    if option.price_source is not None and option.kind not in OWNED_KINDS:
        entry["price_source"] = dict(option.price_source)
    if option.price_path_source is not None and option.kind in RENTAL_KINDS:
        entry["price_path_source"] = dict(option.price_path_source)
    return entry


def scenario_document(scenario: Scenario, options: Iterable[ScenarioOption] | None = None) -> dict[str, Any]:
    """The scenario's tco-scenario/1 document (its options read when not given); omitted (null) inputs are left out
    for the engine's defaults. The conversion lives here, above the models: a row does not know its document."""
    return scenario_to_document(scenario, list(scenario.options.all()) if options is None else options)


def scenario_to_document(scenario: Scenario, options: Iterable[ScenarioOption]) -> dict[str, Any]:
    """The document's scenario and workload inputs in catalogue order (blank ones left out), its training plan (when
    it has one), then its options."""
    document: dict[str, Any] = {"schema": SCHEMA}
    workload: dict[str, Any] = {}
    for entry in scenario_fields("scenario", "workload"):
        if not entry.stored:  # the utilization forecast's expansion
            document[entry.name] = scenario.utilization_values()
            continue
        value = getattr(scenario, entry.field)
        if value is None or value == "":
            continue
        (workload if entry.scope == "workload" else document)[entry.name] = (
            value if entry.value_type in ("text", "choice") else number(value)
        )
    if workload:
        document["workload"] = workload
    training = training_to_document(scenario)
    if training:
        document["training"] = training
    document["options"] = [option_to_document(option) for option in options]
    return document


def training_to_document(scenario: Scenario) -> dict[str, Any]:
    """The scenario's training plan as the document's ``training`` (its given inputs; empty when there is none)."""
    plan: dict[str, Any] = {}
    for entry in scenario_fields("training"):
        value = getattr(scenario, entry.field)
        if value is not None:
            plan[entry.name] = number(value)
    return plan


@dataclass(frozen=True)
class FieldProblem:
    """Same shape as the engine's Problem: a document path and a message."""

    path: str
    message: str


def to_decimal(value: Any, path: str, problems: list[FieldProblem]) -> Decimal | None:
    """A JSON number as a Decimal that the database stores exactly, or a problem saying why not."""
    if value is None:
        return None
    try:
        decimal = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        problems.append(FieldProblem(path, f"must be a number, got {value!r}"))
        return None
    if abs(decimal) >= STORED_LIMIT:
        problems.append(FieldProblem(path, f"{value} is too large to store (at most {STORED_LIMIT - 1:,.0f})"))
        return None
    if decimal != decimal.quantize(_QUANTUM) or len(decimal.normalize().as_tuple().digits) > SIGNIFICANT_DIGITS:
        problems.append(
            FieldProblem(
                path,
                f"{value} has more precision than can be stored "
                f"(at most {DECIMAL_PLACES} decimal places and {SIGNIFICANT_DIGITS} significant digits)",
            )
        )
        return None
    return decimal


def document_to_fields(document: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]], list[FieldProblem]]:
    """Model field values for a scenario and its options, from an engine-validated document.

    Returns (scenario fields, option fields in order, storage problems). Storage problems are
    values the engine accepts but the database could not hold exactly (too many digits, too long).
    """
    problems: list[FieldProblem] = []
    name = document["name"]
    if len(name) > Scenario._meta.get_field("name").max_length:
        problems.append(FieldProblem("name", "must be at most 200 characters"))
    scenario: dict[str, Any] = {}
    workload = document.get("workload") or {}
    for entry in scenario_fields("scenario", "workload"):
        if entry.stored:
            source = workload if entry.scope == "workload" else document
            scenario[entry.field] = stored_value(entry, source.get(entry.name), entry.path, problems)
    training = document.get("training") or {}
    for entry in scenario_fields("training"):
        scenario[entry.field] = stored_value(entry, training.get(entry.name), entry.path, problems)
    scenario.update(_forecast_fields(list(document["utilization"])))

    options = []
    for index, entry in enumerate(document["options"]):
        path = f"options[{index}]"
        kind = entry["kind"]
        if len(entry["name"]) > ScenarioOption._meta.get_field("name").max_length:
            problems.append(FieldProblem(f"{path}.name", "must be at most 200 characters"))
        fields: dict[str, Any] = {"position": index, "kind": kind, "name": entry["name"]}
        for field in fields_for_kind(kind):
            fields[field] = stored_option_value(field, entry.get(field), f"{path}.{field}", problems)
        if "price_source" in entry and kind in PRICE_SOURCE_KINDS:
            fields["price_source"] = None if entry["price_source"] is None else dict(entry["price_source"])
        if entry.get("price_path_source") is not None and kind in RENTAL_KINDS:
            fields["price_path_source"] = dict(entry["price_path_source"])
        options.append(fields)
    return scenario, options, problems


def stored_option_value(field: str, value: Any, path: str, problems: list[FieldProblem]) -> Any:
    """An engine-validated option input as its model field stores it (choices blank rather than null)."""
    if field in TEXT_OPTION_FIELDS:
        return value or ""
    if field in LIST_OPTION_FIELDS:
        return None if value is None else _stored_list(value)
    if field in INTEGER_OPTION_FIELDS:
        return None if value is None else int(value)
    return to_decimal(value, path, problems)


def stored_value(entry: ScenarioField, value: Any, path: str, problems: list[FieldProblem]) -> Any:
    """A document value as its model field stores it (text and choices blank rather than null)."""
    if entry.value_type in ("text", "choice"):
        return value or ""
    if entry.is_integer:
        return None if value is None else int(value)
    return to_decimal(value, path, problems)


def _stored_list(value: list) -> list:
    """A list input as JSON keeps it: numbers as int or float, nested lists (a curve's points) as lists."""
    return [_stored_list(item) if isinstance(item, list | tuple) else number(Decimal(repr(item))) for item in value]


def _forecast_fields(utilization: list[Any]) -> dict[str, Any]:
    """One value becomes a flat forecast (when it stores exactly); several are kept as pasted."""
    if len(utilization) == 1:
        scratch: list[FieldProblem] = []
        flat = to_decimal(utilization[0], "utilization[0]", scratch)
        if not scratch and flat is not None:
            return Forecast(kind=ForecastKind.FLAT, flat=flat).model_fields()
    return Forecast(kind=ForecastKind.PASTED, pasted=tuple(utilization)).model_fields()


# --- The serving configuration beside the document ------------------------------------------------------------------

SERVING_KEY = "serving"  # an exported document's serving configuration: not part of tco-scenario/1


def serving_to_document(scenario: Scenario) -> dict[str, Any] | None:
    """The scenario's serving configuration as an export writes it beside the document (``{"language_model":
    "Llama-3.1-70B", "weight_bits": 8, "traffic": [[2.5, 1200, 350]], ...}``), blank inputs left out; None when no
    model and no traffic were ever given (the precisions' starting values alone say nothing)."""
    values: dict[str, Any] = {}
    for entry in scenario_fields("serving"):
        value = getattr(scenario, entry.field)
        if value is None or value == "" or value == []:
            continue
        if entry.value_type == "choice":
            values[entry.name] = int(value) if value.isdigit() else value
        elif entry.value_type == "list":  # a bucket's rate as the document writes a number: 2, not 2.0
            values[entry.name] = [[number(Decimal(str(rate))), *sizes] for rate, *sizes in value]
        elif entry.value_type == "text":
            values[entry.name] = value
        else:
            values[entry.name] = number(value)
    return values if values.get("language_model") or values.get("traffic") else None


def serving_fields(serving: Any) -> tuple[dict[str, Any], list[FieldProblem]]:
    """The model fields of an imported ``serving`` configuration, each value checked as the sizing page checks it
    (problems named ``serving.<input>``)."""
    if serving is None:
        return {}, []
    if not isinstance(serving, dict):
        return {}, [FieldProblem(SERVING_KEY, "must be an object of serving inputs, as an export writes it")]
    entries = {entry.name: entry for entry in scenario_fields("serving")}
    problems = [FieldProblem(f"{SERVING_KEY}.{key}", "is not a serving input") for key in serving if key not in entries]
    fields: dict[str, Any] = {}
    for name, value in serving.items():
        entry, path = entries.get(name), f"{SERVING_KEY}.{name}"
        if entry is None:
            continue
        if entry.value_type == "choice":
            text = str(value)
            if text not in dict(entry.choices):
                problems.append(FieldProblem(path, f"must be one of {', '.join(dict(entry.choices))}"))
            fields[entry.field] = text
        elif entry.value_type == "text":
            if not isinstance(value, str) or len(value) > Scenario._meta.get_field(entry.field).max_length:
                problems.append(FieldProblem(path, "must be a model's name of at most 100 characters"))
            fields[entry.field] = str(value)[:100]
        elif entry.value_type == "list":
            try:
                fields[entry.field] = parse_traffic(traffic_text(value) if isinstance(value, list) else "x")
            except (ServingError, TypeError, ValueError) as error:
                problems.append(FieldProblem(path, getattr(error, "message", "must be a list of buckets")))
        else:
            stored = to_decimal(value, path, problems)
            if stored is not None and entry.check is not None:
                _, message = check_number(stored, entry.check)
                if message:
                    problems.append(FieldProblem(path, message))
            fields[entry.field] = int(stored) if stored is not None and entry.is_integer else stored
    return fields, problems
