"""Evaluate a document (the engine's own answer, nothing stored) and the document's JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router

from config.api.problems import ApiProblem, errors
from tco.api.common import refused
from tco.engine import RESULT_SCHEMA, SCENARIO_SCHEMA, ScenarioError, evaluate
from tco.engine.document_schema import scenario_document_schema

router = Router(tags=["evaluate"])
COMPONENTS = "#/components/schemas/"
SCENARIO_DOCUMENT = "TcoScenario1"  # a document as the engine takes it
EXPORTED_DOCUMENT = "TcoScenario1Exported"  # as an export writes it: with its input ranges and currency changes


def openapi_components() -> dict[str, Any]:
    """The documents' schemas as OpenAPI components, their options' shapes beside them."""
    components: dict[str, Any] = {}
    for name, exported in ((SCENARIO_DOCUMENT, False), (EXPORTED_DOCUMENT, True)):
        schema = scenario_document_schema(exported=exported, ref_root=COMPONENTS)
        components.update(schema.pop("$defs"))
        for key in ("$schema", "$id"):
            schema.pop(key)
        components[name] = schema
    return components


@router.post(
    "/evaluate",
    response={200: dict[str, Any], **errors(422)},
    summary=f"Evaluate a {SCENARIO_SCHEMA} document",
    description=f"The engine's bare `{RESULT_SCHEMA}` answer; nothing is stored. A document the engine refuses is "
    "a 422 listing every problem with its document path and the words the scenario page shows.",
    openapi_extra={"x-document-body": SCENARIO_DOCUMENT},
)
def evaluate_document(request: HttpRequest) -> HttpResponse:
    """The body is read as JSON here and the answer written as the engine gives it: the engine checks the document
    itself, and a validation of either by the framework would only copy them (a third of the request's cost)."""
    document = json_body(request)
    try:
        result = evaluate(document)
    except ScenarioError as error:
        raise refused(error.problems, document, "The document cannot be evaluated; each problem is listed.") from None
    return HttpResponse(json.dumps(result), content_type="application/json")


def json_body(request: HttpRequest) -> Any:
    try:
        return json.loads(request.body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiProblem(422, f"The body must be a JSON document: {error}.") from None


@router.get(
    "/schemas/tco-scenario-1",
    response={200: dict[str, Any], **errors()},
    summary=f"The JSON Schema of {SCENARIO_SCHEMA}",
    description="Derived from the input catalogue: validate a document with it before sending it. `exported=true` "
    "also allows the input ranges and currency changes an export writes.",
    tags=["schemas"],
)
def scenario_schema(request: HttpRequest, exported: bool = False) -> dict[str, Any]:
    return scenario_document_schema(exported=exported)
