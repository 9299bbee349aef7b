"""Scenarios: list, read, create from a document, and change inputs under the optimistic version check."""

from __future__ import annotations

from datetime import datetime
from decimal import InvalidOperation
from typing import Any, Literal

from django.db import transaction
from django.http import HttpRequest
from ninja import Body, Field, Query, Router, Schema, Status

from config.api.auth import require_write
from config.api.problems import ApiProblem, errors
from tco.api.common import MAX_ID, Id, Paging, page, refused, scenario_for
from tco.api.documents import EXPORTED_DOCUMENT
from tco.checks import document_problems
from tco.documents import FieldProblem, scenario_document, stored_option_value, stored_value
from tco.engine import ScenarioError
from tco.engine.catalogue import OPTION_FIELD, ScenarioField, fields_for_kind, scenario_inputs
from tco.engine.fields import check_number
from tco.models import Scenario, ScenarioOption
from tco.selectors.uncertainty import export_document
from tco.services import EditRefused, VersionConflict, option_update, scenario_create_from_document
from tco.services.scenarios import scenario_update_field

router = Router(tags=["scenarios"])
ORDERINGS = ("name", "-name", "updated_at", "-updated_at", "created_at", "-created_at", "id", "-id")
# The scenario's own inputs by document path (``discount_rate``, ``workload.acceptance_rate``). The currency is
# changed on the scenario page, which asks whether to convert the money inputs or relabel them.
SCENARIO_INPUTS = {entry.path: entry for entry in scenario_inputs() if entry.name != "currency"}


class ScenarioOut(Schema):
    id: int
    name: str
    version: int
    currency: str
    owner: str | None = Field(None, description="The username of who made it.")
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def resolve_owner(scenario: Scenario) -> str | None:
        return scenario.owner.get_username() if scenario.owner_id else None


class ProblemOut(Schema):
    path: str
    message: str
    code: str


class OptionOut(Schema):
    id: int
    position: int
    name: str
    kind: str


class ScenarioDetail(ScenarioOut):
    document: dict[str, Any] = Field(description="The tco-scenario/1 document, as an export writes it.")
    options: list[OptionOut]
    to_complete: list[ProblemOut] = Field(description="What the document still lacks before it can be evaluated.")


class ScenarioPage(Schema):
    count: int
    limit: int
    offset: int
    items: list[ScenarioOut]


class ScenarioQuery(Paging):
    name: str = Field("", max_length=200, description="Part of the name, in any case.")
    owner: str = Field("", max_length=150, description="The owner's username.")
    ordering: Literal[ORDERINGS] = "-updated_at"


class InputsChange(Schema):
    version: int = Field(ge=1, le=MAX_ID, description="The version the change was made from (stale: 409).")
    inputs: dict[str, Any] = Field(
        min_length=1,
        max_length=50,
        description="Values by input: the scenario's by document path (`discount_rate`, `workload.acceptance_rate`), "
        "an option's by name (`capex`); null blanks an input.",
    )


def detail(scenario: Scenario) -> Scenario:
    """The scenario with what ScenarioDetail shows besides its row: its document and what it still lacks."""
    scenario.document = export_document(scenario)
    scenario.to_complete = [
        {"path": p.path, "message": p.message, "code": p.code} for p in document_problems(scenario_document(scenario))
    ]
    return scenario


@router.get("/scenarios", response={200: ScenarioPage, **errors(422)}, summary="List scenarios")
def scenario_list(request: HttpRequest, query: Query[ScenarioQuery]) -> dict:
    rows = Scenario.objects.select_related("owner")
    if query.name:
        rows = rows.filter(name__icontains=query.name)
    if query.owner:
        rows = rows.filter(owner__username=query.owner)
    return page(rows.order_by(query.ordering, "-id" if query.ordering.startswith("-") else "id"), query)


@router.get("/scenarios/{pk}", response={200: ScenarioDetail, **errors(404, 422)}, summary="Read a scenario")
def scenario_read(request: HttpRequest, pk: Id) -> Scenario:
    return detail(scenario_for(request, pk))


@router.post(
    "/scenarios",
    response={201: ScenarioDetail, **errors(403, 422)},
    summary="Create a scenario from a document",
    description="The document (as an export writes it: its input ranges and currency changes may come along) is "
    "checked as a whole; a refused one lists every problem and nothing is stored. Its evaluation is queued.",
    openapi_extra={"x-document-body": EXPORTED_DOCUMENT},
)
def scenario_create(request: HttpRequest, document: Body[dict[str, Any]]) -> Status[Scenario]:
    require_write(request)
    try:
        scenario = scenario_create_from_document(document=document, user=request.user)
    except ScenarioError as error:
        raise refused(error.problems, document, "No scenario was created; each problem is listed.") from None
    return Status(201, detail(Scenario.objects.select_related("owner").get(pk=scenario.pk)))


def _value(check, value_type: str, choices, value: Any, path: str) -> Any:
    """A JSON value read as the page's form reads typed text: checked against its entry, else a 422 naming it."""
    if value is None:
        return None
    message = ""
    if value_type == "choice":
        allowed = [choice for choice, _ in choices]
        message = "" if value in allowed else f"must be one of {', '.join(allowed)}"
    elif value_type == "list":
        message = "" if isinstance(value, list) else "must be a list"
    elif value_type == "text":
        message = "" if isinstance(value, str) else "must be text"
    elif check is not None:
        _, message = check_number(value, check)
    if message:
        raise ApiProblem(422, "Nothing was changed.", errors=[{"path": path, "message": message, "code": "invalid"}])
    return value


def _stored(convert, *args) -> Any:
    problems: list[FieldProblem] = []
    try:
        value = convert(*args, problems)
    except (InvalidOperation, TypeError, ValueError):
        problems.append(FieldProblem(args[-1], "is not a value this input takes"))
    if problems:
        errors = [{"path": p.path, "message": p.message, "code": "invalid"} for p in problems]
        raise ApiProblem(422, "Nothing was changed.", errors=errors)
    return value


def _apply(scenario: Scenario, change: InputsChange, save) -> Scenario:
    """Save each input in turn, each claiming the version the previous one left, all or nothing."""
    version = change.version
    try:
        with transaction.atomic():
            for key, value in change.inputs.items():
                saved = save(key, value, version)
                version = saved.scenario.version
    except VersionConflict as conflict:
        raise ApiProblem(409, conflict.message) from None
    except EditRefused as refusal:
        raise refused(
            refusal.problems, scenario_document(scenario), "Nothing was changed; each problem is listed."
        ) from None
    return Scenario.objects.select_related("owner").get(pk=scenario.pk)


@router.patch(
    "/scenarios/{pk}",
    response={200: ScenarioDetail, **errors(403, 404, 409, 422)},
    summary="Change a scenario's inputs",
    description="Each input is saved as the scenario page saves it (the same checks and messages) and the scenario "
    "is evaluated again. `version` must be the scenario's current version: a stale one is a 409, nothing saved.",
)
def scenario_change(request: HttpRequest, pk: Id, change: InputsChange) -> Scenario:
    scenario = scenario_for(request, pk, write=True)
    unknown = [key for key in change.inputs if key not in SCENARIO_INPUTS]
    if unknown:
        raise ApiProblem(
            422,
            f"Not an input of the scenario: {', '.join(unknown)}; choose among {', '.join(SCENARIO_INPUTS)}.",
            errors=[
                {"path": key, "message": "is not an input of the scenario", "code": "unknown_field"} for key in unknown
            ],
        )

    def save(path: str, value: Any, version: int):
        entry: ScenarioField = SCENARIO_INPUTS[path]
        value = _value(entry.check, entry.value_type, entry.choices, value, path)
        stored = _stored(stored_value, entry, value, path)
        return scenario_update_field(
            scenario=scenario, user=request.user, field=entry.field, value=stored, expected_version=version
        )

    return detail(_apply(scenario, change, save))


@router.patch(
    "/scenarios/{pk}/options/{option_pk}",
    response={200: ScenarioDetail, **errors(403, 404, 409, 422)},
    summary="Change an option's inputs",
    description="As for the scenario's inputs: an option's inputs by name (`capex`, `price_per_gpu_hour`, `name`).",
)
def option_change(request: HttpRequest, pk: Id, option_pk: Id, change: InputsChange) -> Scenario:
    scenario = scenario_for(request, pk, write=True)
    option = ScenarioOption.objects.filter(pk=option_pk, scenario=scenario).first()
    if option is None:
        raise ApiProblem(404, f"Scenario {pk} has no option {option_pk}.")
    allowed = ("name", *fields_for_kind(option.kind))
    unknown = [key for key in change.inputs if key not in allowed]
    if unknown:
        raise ApiProblem(
            422,
            f"Not an input of a {option.kind} option: {', '.join(unknown)}; choose among {', '.join(allowed)}.",
            errors=[
                {"path": key, "message": "is not an input of this option", "code": "unknown_field"} for key in unknown
            ],
        )

    def save(field: str, value: Any, version: int):
        if field == "name":
            if not isinstance(value, str) or not value.strip() or len(value) > 200:
                raise ApiProblem(
                    422,
                    "Nothing was changed.",
                    errors=[{"path": "name", "message": "must be 1 to 200 characters of text", "code": "invalid"}],
                )
            stored = value.strip()
        else:
            entry = OPTION_FIELD[field]
            value = _value(entry.check, entry.value_type, entry.choices, value, field)
            stored = _stored(stored_option_value, field, value, field)
        return option_update(option=option, user=request.user, expected_version=version, field=field, value=stored)

    return detail(_apply(scenario, change, save))
