"""The Actuals page of a decided scenario: plan against actual, the verdict, mapping rules, uploads, re-forecast.

Viewers read; editors attach the plan, keep the rules, upload files and re-forecast. An upload is imported
synchronously (files up to UPLOAD_MAX_BYTES; a bigger export goes through ``manage.py import_billing``, which
streams it in bounded memory)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from lib.caching import kept
from tco.models import MappingRule
from tco.selectors.actuals import actuals_stamp, plan_comparison, plan_for, recent_imports
from tco.selectors.decisions import current_decision, is_decided
from tco.services.actuals import (
    UPLOAD_MAX_BYTES,
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
from tco.web.access import can_edit, get_scenario_for_user
from tco.web.inputs import parse_id
from tco.web.viewmodels.actuals import FIGURE_LABELS, breakdown_rows, option_tables, provider_totals, tag_totals

TEMPLATE = "tco/actuals.html"
VIEW_TIMEOUT = 6 * 3600


@require_GET
def scenario_actuals_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk)
    plan = plan_for(scenario)
    decision = current_decision(scenario)
    context = {
        "scenario": scenario,
        "plan": plan,
        "decided": is_decided(decision),
        "decision": decision,
        "can_edit": can_edit(request),
        "figure_labels": FIGURE_LABELS,
        "imports": recent_imports(10),
        "upload_max_mb": UPLOAD_MAX_BYTES // 2**20,
    }
    if plan is not None:
        # Kept in the cache under what it depends on (imports, rules, rates): a 24-month plan over millions of billed
        # rows is worked out once per change, not per view.
        view = kept(f"actuals-view:{actuals_stamp(plan)}", lambda: plan_comparison(plan), timeout=VIEW_TIMEOUT)
        context.update(
            view=view,
            verdict=view.comparison.verdict,
            tables=option_tables(view, plan.document.get("currency", "USD")),
            breakdown=breakdown_rows(view, plan.document.get("currency", "USD")),
            providers=provider_totals(view),
            tags=tag_totals(view),
            rules=list(plan.rules.all()),
            options=[option["name"] for option in plan.document["options"]],
            currency=plan.document.get("currency", "USD"),
        )
    return render(request, TEMPLATE, context)


def _back(pk: int) -> HttpResponse:
    return redirect("tco:scenario_actuals", pk=pk)


@require_POST
def actuals_attach_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    months = parse_id(request.POST.get("months_in_a_row", "3")) or 0
    try:
        actuals_attach(
            scenario=scenario,
            user=request.user,
            start_month=request.POST.get("start_month", ""),
            months_in_a_row=months,
        )
    except ActualsError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "The decided plan is frozen here: actuals are now held against it.")
    return _back(pk)


@require_POST
def actuals_rule_add_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    plan = plan_for(scenario)
    if plan is None:
        messages.error(request, "Attach the decided plan first.")
        return _back(pk)
    fields = {name: request.POST.get(name, "") for name in ("provider", "service", "sku", "resource", "tag")}
    try:
        rule_add(plan=plan, option_name=request.POST.get("option_name", ""), **fields)
        actuals_check(plan=plan)
    except ActualsError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "Rule added.")
    return _back(pk)


@require_POST
def actuals_rule_delete_view(request: HttpRequest, pk: int, rule_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    rule = get_object_or_404(MappingRule, pk=rule_pk, plan__scenario=scenario)
    plan = rule.plan
    rule_delete(rule=rule)
    actuals_check(plan=plan)
    messages.success(request, "Rule removed: its lines are unmapped again unless another rule matches them.")
    return _back(pk)


@require_POST
def actuals_upload_view(request: HttpRequest, pk: int) -> HttpResponse:
    get_scenario_for_user(request, pk, write=True)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a file to upload.")
        return _back(pk)
    too_large = upload_too_large(file_name=upload.name, size=upload.size)
    if too_large:
        messages.error(request, too_large)
        return _back(pk)
    month = request.POST.get("month", "").strip() or None
    currency = (request.POST.get("currency", "") or "USD").strip().upper()
    try:
        outcome = actuals_import(
            stream=upload.file, file_name=upload.name, user=request.user, month=month, currency=currency
        )
    except ActualsImportError as error:
        for text in error.messages[:20]:
            messages.error(request, text)
        return _back(pk)
    record = outcome.record
    if outcome.created:
        note = f" ({len(record.problems)} line(s) skipped: {record.problems[0]})" if record.problems else ""
        messages.success(
            request, f"{upload.name}: {record.rows_read:,} rows imported into {record.lines_kept:,} lines{note}."
        )
    else:
        messages.info(request, f"{upload.name} was imported before: nothing added.")
    plan = plan_for(get_scenario_for_user(request, pk))
    if plan is not None:
        actuals_check(plan=plan)
    return _back(pk)


@require_POST
def actuals_reforecast_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    plan = plan_for(scenario)
    if plan is None:
        messages.error(request, "Attach the decided plan first.")
        return _back(pk)
    try:
        fresh = actuals_reforecast(plan=plan, user=request.user)
    except ActualsError as error:
        messages.error(request, error.message)
        return _back(pk)
    messages.success(
        request,
        f"Re-forecast: version {fresh.version}'s utilization starts from the measured months. "
        "The decided plan on the Actuals page stays as it was decided.",
    )
    return redirect("tco:scenario_detail", pk=pk)
