"""Decisions against actuals: attach a decided scenario's plan, upload a bills or GPU-use file, read the plan against
actual and its verdict, keep its mapping rules, re-forecast from the actuals. Thin endpoints over the same services
and selectors as the Actuals page."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, File, Form, Query, Router, Schema, Status, UploadedFile

from config.api.problems import ApiProblem, errors
from lib.caching import kept
from tco.api.common import MAX_ID, Id, Paging, page, refused, scenario_for
from tco.api.scenarios import ScenarioDetail, detail
from tco.documents import scenario_document
from tco.engine.actuals import MONTHS_IN_A_ROW_DEFAULT, Comparison, Figures, month_words
from tco.models import ActualsImport, ActualsKind, ActualsPlan, MappingRule, Scenario
from tco.selectors.actuals import actuals_stamp, plan_comparison, plan_for
from tco.services import EditRefused, VersionConflict
from tco.services.actuals import (
    ActualsError,
    ActualsImportError,
    actuals_attach,
    actuals_check,
    actuals_import,
    actuals_reforecast,
    rule_add,
    rule_delete,
    upload_too_large,
)

router = Router(tags=["actuals"])
VIEW_TIMEOUT = 6 * 3600  # as the page: the comparison is kept under what it depends on (imports, rules, rates)


def _plan(request: HttpRequest, pk: int, *, write: bool = False) -> ActualsPlan:
    scenario = scenario_for(request, pk, write=write)
    plan = plan_for(scenario)
    if plan is None:
        raise ApiProblem(
            404,
            f"Scenario {pk} has no decided plan attached: attach it first (POST /api/v1/scenarios/{pk}/actuals/plan, "
            "or on its Actuals page).",
        )
    return plan


def _refused(error: ActualsError) -> ApiProblem:
    """The service's refusal in its words: of a field the request gave, 422; of the scenario's state (no decision,
    nothing measured, numbers that cannot be computed), 409."""
    if not error.field:
        return ApiProblem(409, error.message)
    return ApiProblem(422, error.message, errors=[{"path": error.field, "message": error.message, "code": "invalid"}])


# --- imports -------------------------------------------------------------------------------------------------------


class ActualsImportOut(Schema):
    id: int
    kind: str = Field(description="focus, owned, dcgm, prometheus or opencost")
    kind_text: str = Field(description="The kind in words.")
    file_name: str
    rows_read: int
    lines_kept: int = Field(description="Grouped billing lines or utilization samples kept.")
    problems: list[str] = Field(description="Lines skipped (a scrape's malformed metric lines), with where they are.")
    imported_at: datetime


class ActualsImportResultOut(ActualsImportOut):
    created: bool = Field(description="False when the same bytes were imported before (nothing was added).")
    message: str = Field(description="What happened, as the Actuals page says it.")


class ActualsImportPage(Schema):
    count: int
    limit: int
    offset: int
    items: list[ActualsImportOut]


class ActualsImportQuery(Paging):
    kind: Literal[("", *ActualsKind.values)] = Field("", description="Only files of this kind.")
    ordering: Literal["-imported_at", "imported_at"] = Field("-imported_at", description="Newest first or oldest.")


def _record(record: ActualsImport) -> dict:
    names = ("id", "kind", "file_name", "rows_read", "lines_kept", "problems", "imported_at")
    return {**{name: getattr(record, name) for name in names}, "kind_text": record.get_kind_display()}


@router.get("/actuals/imports", response={200: ActualsImportPage, **errors(422)}, summary="Actuals imports")
def actuals_import_list(request: HttpRequest, query: Query[ActualsImportQuery]) -> dict:
    """Every bills or GPU-use file imported (they serve every plan: rules map their lines to options)."""
    rows = ActualsImport.objects.all()
    if query.kind:
        rows = rows.filter(kind=query.kind)
    rows = rows.order_by(query.ordering, "-id" if query.ordering.startswith("-") else "id")
    listed = page(rows, query)
    return {**listed, "items": [_record(record) for record in listed["items"]]}


@router.post(
    "/scenarios/{pk}/actuals/imports",
    response={200: ActualsImportResultOut, 201: ActualsImportResultOut, **errors(403, 404, 413, 422)},
    summary="Upload a bills or GPU-use file",
    description="A FOCUS 1.x export (CSV or Parquet), owned costs (CSV), a DCGM or Prometheus scrape or an OpenCost "
    "allocation response, as on the Actuals page: imported at once, all or nothing (201); the same bytes again add "
    "nothing (200). A refused file answers 422 with every problem in words (line and column). `month` (YYYY-MM) dates "
    "a DCGM scrape without timestamps; `currency` is an OpenCost response's.",
)
def actuals_upload(
    request: HttpRequest,
    pk: Id,
    file: File[UploadedFile],
    month: Form[str] = "",
    currency: Form[str] = "USD",
) -> Status[dict]:
    scenario = scenario_for(request, pk, write=True)
    name = file.name or "upload"
    too_large = upload_too_large(file_name=name, size=file.size or 0)
    if too_large:
        raise ApiProblem(413, too_large)
    try:
        outcome = actuals_import(
            stream=file.file,
            file_name=name,
            user=request.user,
            month=month.strip() or None,
            currency=(currency or "USD").strip().upper(),
        )
    except ActualsImportError as error:
        texts = list(error.messages)
        # "<file> was not imported:" heads a list of problems (each with its line and column): the detail, then.
        heading = texts.pop(0).rstrip(":") if len(texts) > 1 and texts[0].endswith(":") else ""
        detail = f"{heading}; each problem is listed." if heading else "Nothing was imported; the problem is listed."
        problems = [{"path": "file", "message": text, "code": "refused"} for text in texts]
        raise ApiProblem(422, detail, errors=problems) from None
    record = outcome.record
    if outcome.created:
        note = f" ({len(record.problems)} line(s) skipped: {record.problems[0]})" if record.problems else ""
        message = f"{name}: {record.rows_read:,} rows imported into {record.lines_kept:,} lines{note}."
    else:
        message = f"{name} was imported before: nothing added."
    plan = plan_for(scenario)
    if plan is not None:
        actuals_check(plan=plan)
    body = {**_record(record), "created": outcome.created, "message": message}
    return Status(201 if outcome.created else 200, body)


# --- plan against actual -------------------------------------------------------------------------------------------


class PlanFiguresOut(Schema):
    cost: float | None = Field(description="In the scenario's currency.")
    busy_gpu_hours: float | None
    utilization: float | None = Field(description="0 to 1.")
    price_per_gpu_hour: float | None = Field(description="Cost per busy GPU-hour.")
    cost_per_accepted_output: float | None = Field(description="Cost per accepted response.")


class PlanMonthOut(Schema):
    month: str = Field(description="YYYY-MM")
    month_text: str = Field(description="The month in words, e.g. January 2027.")
    plan: PlanFiguresOut
    actual: PlanFiguresOut
    variance: PlanFiguresOut = Field(description="Actual minus plan.")
    break_even: float | None = Field(
        description="The decided option only: the utilization at which owning and renting cost the same, at the "
        "price actually paid that month."
    )


class PlanOptionOut(Schema):
    name: str
    kind: str
    chosen: bool = Field(description="The decided option (listed first).")
    months: list[PlanMonthOut]
    plan_to_date: PlanFiguresOut
    actual_to_date: PlanFiguresOut
    variance_to_date: PlanFiguresOut


class PlanVerdictOut(Schema):
    holds: bool
    text: str = Field(description="The verdict in words, as the Actuals page says it.")
    since: str | None = Field(description="The first month of the run that broke the decision.")
    break_even: float | None = Field(description="The latest month's break-even utilization.")
    direction: str = Field(description="below: owning loses below the break-even; above: renting loses above it.")
    months_in_a_row: int


class PlanOut(Schema):
    scenario_id: int
    chosen: str = Field(description="The decided option.")
    currency: str
    start_month: str = Field(description="The plan's month 1 (YYYY-MM).")
    months_in_a_row: int
    verdict: PlanVerdictOut
    options: list[PlanOptionOut]
    break_even_by_month: dict[str, float | None]
    utilization_by_month: dict[str, float | None]
    unmapped_cost: float = Field(description="Cost no rule maps to an option (converted), kept apart, never dropped.")
    unmapped_unconverted: dict[str, float] = Field(description="Unmapped cost without a rate, by currency.")
    missing_rates: list[str]
    rates_used: list[str]
    by_tag: dict[str, float] = Field(description="Cost by tag (key=value) in the scenario's currency.")


def _figures(figures: Figures) -> dict:
    names = ("cost", "busy_gpu_hours", "utilization", "price_per_gpu_hour", "cost_per_accepted_output")
    return {name: getattr(figures, name) for name in names}


def _options(comparison: Comparison) -> list[dict]:
    """The options as the page's tables: the decided one first, a line per month and one to date."""
    return [
        {
            "name": option.name,
            "kind": option.kind,
            "chosen": option.name == comparison.chosen,
            "months": [
                {
                    "month": row.month,
                    "month_text": month_words(row.month),
                    "plan": _figures(row.plan),
                    "actual": _figures(row.actual),
                    "variance": _figures(row.variance),
                    "break_even": comparison.break_even_by_month.get(row.month)
                    if option.name == comparison.chosen
                    else None,
                }
                for row in option.months
            ],
            "plan_to_date": _figures(option.plan_to_date),
            "actual_to_date": _figures(option.actual_to_date),
            "variance_to_date": _figures(option.variance_to_date),
        }
        for option in sorted(comparison.options, key=lambda o: o.name != comparison.chosen)
    ]


@router.get(
    "/scenarios/{pk}/actuals",
    response={200: PlanOut, **errors(404, 422)},
    summary="Plan against actual",
    description="The decided plan against what was billed and measured, per option, per month and to date, the "
    "break-even at the price paid and the verdict in words, as the Actuals page shows them. 404 when no decided plan "
    "is attached.",
)
def actuals_read(request: HttpRequest, pk: Id) -> dict:
    plan = _plan(request, pk)
    view = kept(f"actuals-view:{actuals_stamp(plan)}", lambda: plan_comparison(plan), timeout=VIEW_TIMEOUT)
    comparison = view.comparison
    verdict = comparison.verdict
    return {
        "scenario_id": plan.scenario_id,
        "chosen": comparison.chosen,
        "currency": plan.document.get("currency", "USD"),
        "start_month": plan.start_month,
        "months_in_a_row": plan.months_in_a_row,
        "verdict": {
            "holds": verdict.holds,
            "text": verdict.text,
            "since": verdict.since,
            "break_even": verdict.break_even,
            "direction": verdict.direction,
            "months_in_a_row": verdict.months_in_a_row,
        },
        "options": _options(comparison),
        "break_even_by_month": comparison.break_even_by_month,
        "utilization_by_month": comparison.utilization_by_month,
        "unmapped_cost": view.unmapped_cost,
        "unmapped_unconverted": {code: float(amount) for code, amount in view.unmapped_unconverted.items()},
        "missing_rates": view.missing_rates,
        "rates_used": view.rates_used,
        "by_tag": view.by_tag,
    }


# --- the decided plan: attach it, re-forecast from the actuals -------------------------------------------------------


class PlanIn(Schema):
    start_month: str = Field(
        max_length=20,
        description="The calendar month that is the plan's month 1 (YYYY-MM, e.g. 2027-01).",
        examples=["2027-01"],
    )
    months_in_a_row: int = Field(
        MONTHS_IN_A_ROW_DEFAULT,
        ge=1,
        le=24,
        description="How many months in a row below the break-even turn the verdict.",
    )


class PlanStateOut(Schema):
    scenario_id: int
    scenario_version: int = Field(description="The scenario's version whose document and result were frozen.")
    decided: str = Field(description="The decided option actuals are held against.")
    start_month: str = Field(description="The plan's month 1 (YYYY-MM).")
    months_in_a_row: int
    frozen_at: datetime
    rules: int = Field(description="How many mapping rules the plan has (attaching again keeps them).")
    created: bool = Field(description="False when a plan was attached before: it is frozen again, its rules kept.")
    message: str = Field(description="What happened, as the Actuals page says it.")
    actuals_url: str = Field(description="Plan against actual and the verdict (GET).")
    rules_url: str = Field(description="Its mapping rules (GET, POST).")


@router.post(
    "/scenarios/{pk}/actuals/plan",
    response={200: PlanStateOut, 201: PlanStateOut, **errors(403, 404, 409, 422)},
    summary="Attach the decided plan",
    description="As on the Actuals page: the decided scenario's plan (its document and result now) is frozen and "
    "`start_month` is its month 1, so actuals are held against it (201). Attaching again freezes the current "
    "decision's plan again and keeps the mapping rules (200). 409 when the scenario is not decided or cannot be "
    "computed; 422 for a month not written YYYY-MM.",
)
def actuals_attach_plan(request: HttpRequest, pk: Id, body: PlanIn) -> Status[dict]:
    scenario = scenario_for(request, pk, write=True)
    created = plan_for(scenario) is None
    try:
        plan = actuals_attach(
            scenario=scenario, user=request.user, start_month=body.start_month, months_in_a_row=body.months_in_a_row
        )
    except ActualsError as error:
        raise _refused(error) from None
    state = {
        "scenario_id": scenario.pk,
        "scenario_version": scenario.version,
        "decided": plan.decision.option_name,
        "start_month": plan.start_month,
        "months_in_a_row": plan.months_in_a_row,
        "frozen_at": plan.created_at,
        "rules": plan.rules.count(),
        "created": created,
        "message": "The decided plan is frozen here: actuals are now held against it.",
        "actuals_url": request.build_absolute_uri(reverse("api:actuals_read", args=[pk])),
        "rules_url": request.build_absolute_uri(reverse("api:rule_list", args=[pk])),
    }
    return Status(201 if created else 200, state)


class ReforecastIn(Schema):
    version: int | None = Field(
        None,
        ge=1,
        le=MAX_ID,
        description="The version you read (another one: 409, nothing saved); left out, the current version is "
        "re-forecast, as the Actuals page does.",
    )


class ReforecastOut(ScenarioDetail):
    url: str = Field(description="The scenario in this API (GET); its results at `url` + `/results`.")
    message: str = Field(description="What happened, as the Actuals page says it.")


@router.post(
    "/scenarios/{pk}/actuals/reforecast",
    response={200: ReforecastOut, **errors(403, 404, 409, 422)},
    summary="Re-forecast from the actuals",
    description="One step, as on the Actuals page: a new version of the scenario whose utilization forecast is the "
    "measured utilization of the decided option for the months measured and keeps the forecast for the months "
    "ahead; it is evaluated again. The frozen plan does not change. 404 without an attached plan; 409 when nothing "
    "measured was imported yet, or for a stale `version`.",
)
def actuals_reforecast_plan(request: HttpRequest, pk: Id, body: ReforecastIn | None = None) -> Scenario:
    plan = _plan(request, pk, write=True)
    try:
        scenario = actuals_reforecast(plan=plan, user=request.user, expected_version=body.version if body else None)
    except ActualsError as error:
        raise _refused(error) from None
    except VersionConflict as conflict:
        raise ApiProblem(409, conflict.message) from None
    except EditRefused as refusal:
        detail_text = "The re-forecast does not fit the scenario; nothing was changed, each problem is listed."
        raise refused(refusal.problems, scenario_document(plan.scenario), detail_text, status=409) from None
    fresh = detail(Scenario.objects.select_related("owner").get(pk=scenario.pk))
    fresh.url = request.build_absolute_uri(reverse("api:scenario_read", args=[pk]))
    fresh.message = (
        f"Re-forecast: version {fresh.version}'s utilization starts from the measured months. "
        "The decided plan on the Actuals page stays as it was decided."
    )
    return fresh


# --- mapping rules -------------------------------------------------------------------------------------------------


class MappingRuleOut(Schema):
    id: int
    position: int = Field(description="The first matching rule (by position) wins.")
    option_name: str
    provider: str
    service: str
    sku: str
    resource: str
    tag: str = Field(description="key=value (or a bare key) looked up in a billing line's tags.")


class MappingRulePage(Schema):
    count: int
    limit: int
    offset: int
    items: list[MappingRuleOut]


class MappingRuleQuery(Paging):
    option: str = Field("", max_length=200, description="Only the rules mapping to this option.")
    ordering: Literal["position", "-position"] = Field("position", description="In the order they are tried or not.")


class MappingRuleIn(Schema):
    option_name: str = Field(max_length=200, description="One of the decided scenario's options.")
    provider: str = Field("", max_length=200)
    service: str = Field("", max_length=200)
    sku: str = Field("", max_length=300)
    resource: str = Field("", max_length=500)
    tag: str = Field("", max_length=300)


@router.get(
    "/scenarios/{pk}/actuals/rules", response={200: MappingRulePage, **errors(404, 422)}, summary="List mapping rules"
)
def rule_list(request: HttpRequest, pk: Id, query: Query[MappingRuleQuery]) -> dict:
    rows = _plan(request, pk).rules.all()
    if query.option:
        rows = rows.filter(option_name=query.option)
    rows = rows.order_by(query.ordering, "id" if query.ordering == "position" else "-id")
    return page(rows, query)


@router.post(
    "/scenarios/{pk}/actuals/rules",
    response={201: MappingRuleOut, **errors(403, 404, 422)},
    summary="Add a mapping rule",
    description="Lines matching every given field go to the option; tried after the rules there are. The verdict is "
    "worked out again (its owner is e-mailed once when it turns).",
)
def rule_new(request: HttpRequest, pk: Id, body: MappingRuleIn) -> Status[MappingRule]:
    plan = _plan(request, pk, write=True)
    try:
        rule = rule_add(plan=plan, **body.dict())
    except ActualsError as error:
        problems = [{"path": error.field, "message": error.message, "code": "invalid"}]
        raise ApiProblem(422, error.message, errors=problems) from None
    actuals_check(plan=plan)
    return Status(201, rule)


@router.delete(
    "/scenarios/{pk}/actuals/rules/{rule_pk}",
    response={204: None, **errors(403, 404, 422)},
    summary="Remove a mapping rule",
    description="Its lines are unmapped again unless another rule matches them.",
)
def rule_remove(request: HttpRequest, pk: Id, rule_pk: Id) -> Status[None]:
    plan = _plan(request, pk, write=True)
    rule = plan.rules.filter(pk=rule_pk).first()
    if rule is None:
        raise ApiProblem(404, f"Scenario {pk} has no mapping rule {rule_pk}.")
    rule_delete(rule=rule)
    actuals_check(plan=plan)
    return Status(204, None)
