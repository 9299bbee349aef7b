"""Size a serving workload (``tco-sizing/1`` in, the engine's ``tco-sizing-result/1`` out) and the sizing document's
JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router

from config.api.problems import errors
from tco.api.common import refused
from tco.api.documents import json_body
from tco.engine import ScenarioError
from tco.engine.document_schema import sizing_document_schema
from tco.engine.sizing import SIZING_RESULT_SCHEMA, SIZING_SCHEMA, size

router = Router(tags=["sizing"])
SIZING_DOCUMENT = "TcoSizing1"


def openapi_components() -> dict[str, Any]:
    schema = sizing_document_schema()
    for key in ("$schema", "$id"):
        schema.pop(key)
    return {SIZING_DOCUMENT: schema}


@router.post(
    "/size",
    response={200: dict[str, Any], **errors(422)},
    summary=f"Size a workload ({SIZING_SCHEMA})",
    description=f"The engine's bare `{SIZING_RESULT_SCHEMA}` answer (memory fit, operating points, replicas per GPU "
    "type, the cheapest mix); nothing is stored. A refused document lists every problem with its path.",
    openapi_extra={"x-document-body": SIZING_DOCUMENT},
)
def size_document(request: HttpRequest) -> HttpResponse:
    document = json_body(request)
    try:
        result = size(document)
    except ScenarioError as error:
        raise refused(error.problems, document, "The workload cannot be sized; each problem is listed.") from None
    return HttpResponse(json.dumps(result), content_type="application/json")


@router.get(
    "/schemas/tco-sizing-1",
    response={200: dict[str, Any], **errors()},
    summary=f"The JSON Schema of {SIZING_SCHEMA}",
    description="Derived from the sizing's own tables of fields and checks: validate a document before sending it.",
    tags=["schemas"],
)
def sizing_schema(request: HttpRequest) -> dict[str, Any]:
    return sizing_document_schema()
