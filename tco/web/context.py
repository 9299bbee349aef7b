"""Template context for the scenario page and its partials (no writes)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from pricing.models import GpuModel
from tco.charts import utilization_forecast
from tco.engine.fields import TOP_NUMBERS
from tco.forecast import DECIMAL_PARAMETERS, FORM_FIELDS, mean_utilization
from tco.models import DiligenceStatus, ForecastKind, OptionKind, Scenario
from tco.selectors.history import scenario_history
from tco.selectors.scenarios import RunState, run_state
from tco.services import Change, document_problems
from tco.web.access import can_edit
from tco.web.answers import answer_for
from tco.web.fields import SCENARIO_BASICS, WORKLOAD_FIELDS, error_map, input_text, option_views, scenario_field
from tco.web.ranges import attach_ranges

SECTION_KEYS = ("general", "options", "forecast", "workload")


def results_context(scenario: Scenario, document: dict, state: RunState, problems: list) -> dict[str, Any]:
    done = state.done
    return {
        "scenario": scenario,
        "state": state,
        "polling": state.polling,
        "stale": done is not None and (done.document != document or bool(problems)),
        "has_problems": bool(problems),
        "answer": answer_for(done),
    }


def forecast_context(
    scenario: Scenario, errors: dict[str, str], values: dict[str, str] | None = None, *, preview: bool = True
) -> dict:
    """The forecast editor: current parameters (or the user's rejected input) and a small preview chart
    (built only when the editor is rendered: the page itself or a forecast edit)."""
    utilization = scenario.utilization_values()
    chart = None
    if (
        preview
        and 1 <= scenario.horizon_months <= TOP_NUMBERS["horizon_months"].hi
        and utilization
        and (len(utilization) in (1, scenario.horizon_months))
        and all(0 <= u <= 1 for u in utilization)
    ):
        chart = utilization_forecast(utilization, scenario.horizon_months, compact=True)
    forecast = scenario.forecast
    texts = {
        field: input_text(getattr(forecast, name), "percent" if name in DECIMAL_PARAMETERS else "")
        for name, field in FORM_FIELDS.items()
        if name != "pasted"
    }
    texts[FORM_FIELDS["pasted"]] = "\n".join(repr(float(v)) for v in forecast.pasted)
    texts["forecast_kind"] = forecast.kind
    texts.update(values or {})
    return {
        "forecast": texts,
        "forecast_kinds": ForecastKind.choices,
        "forecast_error": errors.get("forecast", ""),
        "forecast_preview": chart,
        "forecast_mean": mean_utilization(utilization),
        "forecast_months": len(utilization),
    }


def workspace_context(
    request: HttpRequest,
    scenario: Scenario,
    *,
    extra_errors: dict[str, str] | None = None,
    forecast_values: dict[str, str] | None = None,
    conflict: str = "",
    with_history: bool = True,
    with_forecast_preview: bool = True,
    change: Change | None = None,
) -> dict[str, Any]:
    """Everything the scenario page renders. Query count is independent of the number of options."""
    if change is not None and change.options is not None:  # reuse what the save just computed
        options, document, problems = change.options, change.document, list(change.problems)
    else:
        options = list(scenario.options.all())
        document = scenario.to_document(options)
        problems = document_problems(document)
    state = run_state(scenario)
    if not problems and state.failed is not None and state.failed.document == document:
        problems = state.failed.problems
    errors = error_map(problems, [option.pk for option in options])
    errors.update(extra_errors or {})
    basics = [scenario_field(scenario, name, errors) for name in SCENARIO_BASICS]
    workload = [scenario_field(scenario, name, errors) for name in WORKLOAD_FIELDS]
    name_field = scenario_field(scenario, "name", errors)
    views = option_views(scenario, options, errors)
    known = {f.key for f in [*basics, *workload, name_field]} | set(SECTION_KEYS)
    for view in views:
        known |= {view.key, view.name_field.key, *(f.key for f in view.fields), *(f"d{i.pk}" for i in view.diligence)}
    context = {
        "scenario": scenario,
        "document": document,
        "can_edit": can_edit(request),
        "basics": basics,
        "workload": workload,
        "name_field": name_field,
        "option_views": views,
        "field_errors": {key: message for key, message in errors.items() if key in known and key != "general"},
        "general_errors": [message for key, message in errors.items() if key not in known or key == "general"],
        "section_errors": {key: errors.get(key, "") for key in SECTION_KEYS},
        "conflict": conflict,
        "option_kinds": OptionKind.choices,
        "diligence_statuses": DiligenceStatus.choices,
        **forecast_context(scenario, errors, forecast_values, preview=with_forecast_preview),
        **results_context(scenario, document, state, problems),
    }
    attach_ranges(context, scenario)
    if with_history:
        context["history"] = scenario_history(scenario)
    return context


def gpu_models() -> list:
    return list(GpuModel.objects.only("id", "name", "tdp_watts", "typical_server_capex_per_gpu").order_by("name"))
