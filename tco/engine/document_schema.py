"""The JSON Schemas of a ``tco-scenario/1`` and a ``tco-sizing/1`` document, derived from the input catalogue and the
sizing's tables (never written by hand).

Each input's entry gives its type (a count is an integer, a choice an enum), its bounds (its ``NumberField``), its
label, unit and help, and whether the engine requires it; the kinds' option shapes come from ``option_fields``. A
notebook validates a document against it before sending it; the API shows it as the body of evaluate and create.
The engine's own checks still decide (the schema cannot say "a burst price once demand exceeds capacity").
"""

from __future__ import annotations

from typing import Any

from lib.kinds import KIND_LABELS, KINDS, RENTAL_KINDS
from lib.throughput_bounds import MAX_SOURCE_LENGTH

from .catalogue import (
    PRICE_PATH_SOURCE_COUNTS,
    PRICE_PATH_SOURCE_DATES,
    PRICE_PATH_SOURCE_TEXT,
    PRICE_SOURCE_FX,
    PRICE_SOURCE_IDS,
    PRICE_SOURCE_KINDS,
    PRICE_SOURCE_TEXT,
    UTILIZATION,
    OptionField,
    ScenarioField,
    option_fields,
    scenario_fields,
)
from .checker import MAX_NAME_LENGTH
from .constants import SCENARIO_SCHEMA
from .fields import NumberField

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
TEXT_MAX = 200  # names are stored in 200 characters


def number_schema(check: NumberField) -> dict[str, Any]:
    """A number input's JSON type and bounds, as its check reads it."""
    schema: dict[str, Any] = {"type": "integer" if check.integer else "number"}
    if check.lo is not None:
        schema["exclusiveMinimum" if check.lo_open else "minimum"] = check.lo
    if check.hi is not None:
        schema["exclusiveMaximum" if check.hi_open else "maximum"] = check.hi
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """An optional input may be null: the engine reads null as left out (its default applies)."""
    if "enum" in schema:
        return {**schema, "enum": [*schema["enum"], None]}
    kind = schema["type"]
    return {**schema, "type": [kind, "null"]}


def _described(schema: dict[str, Any], entry: OptionField | ScenarioField) -> dict[str, Any]:
    unit = entry.unit.replace("{c}", "the scenario's currency")
    words = [f"In {unit}." if unit else "", entry.help, f"Blank: {entry.default_text}." if entry.default_text else ""]
    described = {"title": entry.label, **schema}
    description = " ".join(word for word in words if word)
    if description:
        described["description"] = description
    if entry.default is not None:
        described["default"] = entry.default
    return described


LIST_SCHEMA = {
    "type": "array",
    "maxItems": 240,
    "items": {"anyOf": [{"type": "number"}, {"type": "array", "items": {"type": "number"}, "maxItems": 2}]},
}


def _input_schema(entry: OptionField | ScenarioField) -> dict[str, Any]:
    if entry.value_type == "choice":
        schema: dict[str, Any] = {"enum": [value for value, _ in entry.choices]}
    elif entry.value_type == "list":
        schema = dict(LIST_SCHEMA)
    elif entry.value_type == "text":
        schema = {"type": "string", "maxLength": TEXT_MAX}
    else:
        schema = number_schema(entry.check)
    required = entry.check is not None and entry.check.required
    return _described(schema if required else _nullable(schema), entry)


def _provenance(text: tuple[str, ...], whole: tuple[str, ...], dates: tuple[str, ...]) -> dict[str, Any]:
    """Where a picked price or price path came from: known keys only, each text or a whole number, kept as given."""
    properties: dict[str, Any] = {key: {"type": ["string", "null"], "maxLength": TEXT_MAX} for key in text}
    properties.update({key: {"type": ["string", "null"], "format": "date"} for key in dates})
    properties.update({key: {"type": ["integer", "null"]} for key in whole})
    return {"type": ["object", "null"], "properties": properties, "additionalProperties": False}


PRICE_SOURCE = _provenance((*PRICE_SOURCE_TEXT[:4], "source_url", *PRICE_SOURCE_FX), PRICE_SOURCE_IDS, ())
PRICE_SOURCE["properties"].update(
    {key: {"type": ["string", "null"], "format": "date"} for key in ("observed_on", "fx_rate_date")}
)
PRICE_PATH_SOURCE = _provenance(PRICE_PATH_SOURCE_TEXT, PRICE_PATH_SOURCE_COUNTS, PRICE_PATH_SOURCE_DATES)


def option_schema(kind: str) -> dict[str, Any]:
    """One option of ``kind``: its name, its kind and the inputs the catalogue gives that kind."""
    entries = option_fields(kind)
    properties: dict[str, Any] = {
        "name": {"type": "string", "minLength": 1, "maxLength": TEXT_MAX, "title": "Option name"},
        "kind": {"const": kind, "title": "Kind", "description": KIND_LABELS[kind]},
        **{entry.name: _input_schema(entry) for entry in entries},
    }
    if kind in PRICE_SOURCE_KINDS:
        properties["price_source"] = PRICE_SOURCE
    if kind in RENTAL_KINDS:
        properties["price_path_source"] = PRICE_PATH_SOURCE
    required = ["name", "kind", *(e.name for e in entries if e.check is not None and e.check.required and not e.when)]
    return {
        "title": KIND_LABELS[kind],
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def option_schema_name(kind: str) -> str:
    return f"option_{kind}"


def scenario_document_schema(*, exported: bool = False, ref_root: str = "#/$defs/") -> dict[str, Any]:
    """The JSON Schema of a ``tco-scenario/1`` document. ``exported`` also allows what an export adds and an
    import reads back: the input ranges (``uncertainty``) and the record of currency changes. The options' shapes
    are in ``$defs``, referred to under ``ref_root`` (another root when they are moved, as into an OpenAPI
    description's components)."""
    properties: dict[str, Any] = {"schema": {"const": SCENARIO_SCHEMA}}
    required = ["schema", "name", "utilization", "options"]
    for entry in scenario_fields("scenario"):
        if not entry.stored:
            continue
        properties[entry.name] = _input_schema(entry)
        if entry.check is not None and entry.check.required:
            required.append(entry.name)
    properties["name"] = {"type": "string", "minLength": 1, "maxLength": TEXT_MAX, "title": "Name"}
    properties["currency"] = {**properties["currency"], "pattern": "^[A-Za-z]{3}$", "maxLength": 3}
    properties["utilization"] = {
        "title": "Utilization",
        "description": "One value for a flat forecast, or one per month of the horizon (0.55 means 55%).",
        "type": "array",
        "minItems": 1,
        "maxItems": 240,
        "items": number_schema(UTILIZATION),
    }
    properties["workload"] = {
        "title": "Workload",
        "description": "Tokens served, for comparing with a managed model API; optional.",
        "type": ["object", "null"],
        "properties": {entry.name: _input_schema(entry) for entry in scenario_fields("workload")},
        "additionalProperties": False,
    }
    properties["options"] = {
        "title": "Options",
        "type": "array",
        "maxItems": 50,
        "items": {"oneOf": [{"$ref": f"{ref_root}{option_schema_name(kind)}"} for kind in KINDS]},
    }
    if exported:
        properties["uncertainty"] = {
            "title": "Input ranges",
            "description": "Low, likely and high values by document path, as an export writes them.",
            "type": ["object", "null"],
            "additionalProperties": {"type": "object"},
        }
        properties["currency_conversions"] = {
            "title": "Currency changes",
            "type": ["array", "null"],
            "maxItems": 100,
            "items": {"type": "object", "additionalProperties": {"type": "string", "maxLength": TEXT_MAX}},
        }
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": SCENARIO_SCHEMA,
        "title": SCENARIO_SCHEMA,
        "description": "A scenario: its own inputs, its utilization forecast, an optional workload and its options.",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        "$defs": {option_schema_name(kind): option_schema(kind) for kind in KINDS},
    }


def _numbers(table: dict[str, NumberField]) -> dict[str, Any]:
    """A table of number checks (the sizing document's) as JSON Schema properties: bounds, label, unit, default."""
    properties = {}
    for name, check in table.items():
        schema = number_schema(check)
        described: dict[str, Any] = {"title": check.label, **(schema if check.required else _nullable(schema))}
        if check.unit:
            described["description"] = f"In {check.unit}."
        if check.default is not None:
            described["default"] = check.default
        properties[name] = described
    return properties


def _required(table: dict[str, NumberField]) -> list[str]:
    return [name for name, check in table.items() if check.required]


def _section(title: str, properties: dict[str, Any], required: list[str], *, nullable: bool = False) -> dict:
    return {
        "title": title,
        "type": ["object", "null"] if nullable else "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def sizing_document_schema() -> dict[str, Any]:
    """The JSON Schema of a ``tco-sizing/1`` document, derived from the sizing's own tables of fields and checks
    (``tco.engine.sizing.document``): the model, the precisions, the traffic buckets, the latency target and the
    GPUs with their measured throughput."""
    from .sizing import document as sizing

    name = {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH}
    row = _section(
        "A measured row",
        {
            **_numbers(sizing.ROW_NUMBERS),
            "source": {"type": "string", "minLength": 1, "maxLength": MAX_SOURCE_LENGTH, "title": "Source"},
            "id": {"type": ["integer", "string", "null"], "title": "The stored measurement's id"},
        },
        [*_required(sizing.ROW_NUMBERS), "source"],
    )
    gpu = _section(
        "A GPU",
        {
            "name": {**name, "title": "GPU name"},
            **_numbers(sizing.GPU_NUMBERS),
            "throughput": {"title": "Measured throughput", "type": ["array", "null"], "items": row, "maxItems": 1000},
        },
        ["name", *_required(sizing.GPU_NUMBERS)],
    )
    properties: dict[str, Any] = {
        "schema": {"const": sizing.SIZING_SCHEMA},
        "model": _section(
            "Model",
            {"name": {**name, "title": "Model name"}, **_numbers(sizing.MODEL_NUMBERS)},
            ["name", *_required(sizing.MODEL_NUMBERS)],
        ),
        "weight_bits": {"title": "Weight precision (bits)", "enum": list(sizing.WEIGHT_BITS)},
        "kv_bits": {"title": "KV cache precision (bits)", "enum": [*sizing.KV_BITS, None], "default": 16},
        "traffic": {
            "title": "Traffic buckets",
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": _section("A traffic bucket", _numbers(sizing.BUCKET_NUMBERS), _required(sizing.BUCKET_NUMBERS)),
        },
        "slo": _section(
            "Latency target",
            {**_numbers(sizing.SLO_NUMBERS), "statistic": {"enum": [*sizing.STATISTICS, None], "default": "median"}},
            [],
            nullable=True,
        ),
        **_numbers(sizing.TOP_NUMBERS),
        "gpus": {"title": "GPUs", "type": "array", "minItems": 1, "maxItems": 50, "items": gpu},
    }
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": sizing.SIZING_SCHEMA,
        "title": sizing.SIZING_SCHEMA,
        "description": "A serving workload to size: model, precisions, traffic, latency target, GPUs measured.",
        "type": "object",
        "properties": properties,
        "required": ["schema", "model", "weight_bits", "traffic", "gpus"],
        "additionalProperties": False,
    }
