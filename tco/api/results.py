"""Runs (each saved version's evaluation), the current results, and the exports as files."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema

from config.api.problems import ApiProblem, errors
from tco import exports
from tco.api.common import MAX_ID, Id, Paging, page, refused, scenario_for
from tco.api.documents import EXPORTED_DOCUMENT
from tco.documents import scenario_document
from tco.models import RunStatus, ScenarioRun
from tco.presentation.currency import conversion_about
from tco.selectors.uncertainty import current_uncertainty, export_document
from tco.services.evaluation import NotEvaluable, NotReady, current_evaluation, export_evaluation

router = Router(tags=["runs and results"])
RUN_ORDERINGS = ("-id", "id", "-scenario_version", "scenario_version")
DOCUMENT_EXPORT = "document.json"


class RunOut(Schema):
    id: int
    status: str
    scenario_version: int
    engine_version: str
    created_at: datetime
    finished_at: datetime | None
    problems: list[dict[str, Any]]
    error: str


class RunDetail(RunOut):
    document: dict[str, Any]
    result: dict[str, Any] | None = Field(description="The engine's tco-result/1 once the run is done.")


class RunPage(Schema):
    count: int
    limit: int
    offset: int
    items: list[RunOut]


class RunQuery(Paging):
    status: Literal[tuple(RunStatus.values)] | None = None
    ordering: Literal[RUN_ORDERINGS] = "-id"


class ResultsOut(Schema):
    scenario_version: int | None
    engine_version: str
    computed_at: datetime | None
    run_id: int | None = Field(description="The run the numbers come from; null when computed for this answer.")
    result: dict[str, Any] = Field(description="The engine's tco-result/1.")


@router.get("/scenarios/{pk}/runs", response={200: RunPage, **errors(404, 422)}, summary="List a scenario's runs")
def run_list(request: HttpRequest, pk: Id, query: Query[RunQuery]) -> dict:
    scenario = scenario_for(request, pk)
    rows = ScenarioRun.objects.filter(scenario=scenario).defer("figures", "document", "result")
    if query.status:
        rows = rows.filter(status=query.status)
    return page(rows.order_by(query.ordering, "-id"), query)


@router.get("/scenarios/{pk}/runs/{run_pk}", response={200: RunDetail, **errors(404, 422)}, summary="Read a run")
def run_read(request: HttpRequest, pk: Id, run_pk: Id) -> ScenarioRun:
    scenario = scenario_for(request, pk)
    run = ScenarioRun.objects.filter(scenario=scenario, pk=run_pk).defer("figures").first()
    if run is None:
        raise ApiProblem(404, f"Scenario {pk} has no run {run_pk}.")
    return run


@router.get(
    "/scenarios/{pk}/results",
    response={200: ResultsOut, **errors(404, 409, 422)},
    summary="The results of the scenario's current inputs",
    description="A finished run's when it computed exactly today's inputs, otherwise the engine's now (as the "
    "scenario page and its exports do). Inputs that cannot be evaluated yet: 409 listing why.",
)
def results_read(request: HttpRequest, pk: Id) -> dict:
    scenario = scenario_for(request, pk)
    try:
        evaluation = current_evaluation(scenario)
    except NotEvaluable as error:
        raise refused(error.problems, scenario_document(scenario), str(error), status=409) from None
    return {
        "scenario_version": evaluation.scenario_version,
        "engine_version": evaluation.engine_version,
        "computed_at": evaluation.computed_at,
        "run_id": evaluation.run_id,
        "result": evaluation.result,
    }


class ExportQuery(Schema):
    version: int | None = Field(None, ge=1, le=MAX_ID, description="The scenario version (default: the current).")


# The files' media types, each with its schema's component (None: a file of bytes).
FILE_TYPES = {
    exports.CSV_CONTENT_TYPE.split(";")[0]: None,
    exports.XLSX_CONTENT_TYPE: None,
    "application/json": EXPORTED_DOCUMENT,
}


@router.get(
    "/scenarios/{pk}/exports/{what}",
    response={**errors(404, 409, 422)},
    summary="Download an export",
    description="The files the scenario page offers: options.csv, monthly.csv, results.xlsx, simulation.csv, "
    "tornado.csv, and document.json (the scenario's document with its input ranges, for re-import).",
    openapi_extra={"x-file-response": FILE_TYPES},
)
def export_download(
    request: HttpRequest, pk: Id, what: Literal[(*exports.EXPORTS, DOCUMENT_EXPORT)], query: Query[ExportQuery]
) -> HttpResponse:
    scenario = scenario_for(request, pk)
    if what == DOCUMENT_EXPORT:
        content = json.dumps(export_document(scenario), indent=2, ensure_ascii=False)
        return _file(content, exports.export_filename(scenario.name, what), "application/json")
    try:
        evaluation = export_evaluation(scenario, version=query.version)
    except (NotEvaluable, NotReady) as error:
        raise ApiProblem(409, f"Nothing was exported. {error}") from None
    made = exports.export_file(
        evaluation.document,
        evaluation.result,
        scenario.name,
        what,
        about=evaluation.about(scenario.name),
        uncertainty=current_uncertainty(scenario, evaluation.document),
        conversions=conversion_about(scenario.currency_conversions),
    )
    if made is None:
        raise ApiProblem(409, "Nothing was exported: no simulation for these inputs yet; run it on the scenario page.")
    return _file(*made)


def _file(content: str | bytes, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
