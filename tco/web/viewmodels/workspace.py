"""Template context of the scenario page's workspace (no writes): everything it shows, read once per response.

The page view, every edit and the results poll all render the one ``workspace`` region from ``workspace_context``,
so no part of the page can show another version than the rest: the inputs, what is still to complete, the
results, the uncertainty panel, the decision panel (its stale-decision notice and exports) and the history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string

from pricing.forms import TREND_WINDOWS
from pricing.models import GpuModel
from tco.charts import utilization_forecast
from tco.checks import document_problems, is_gap
from tco.documents import scenario_document
from tco.engine import Problem
from tco.engine.catalogue import SCENARIO_FIELD, scenario_fields
from tco.forecast import FORM_FIELDS, mean_utilization, starting_parameters
from tco.models import DiligenceStatus, ForecastKind, OptionKind, Scenario
from tco.presentation.inputs import path_label, path_words
from tco.selectors.scenarios import RunState, run_state
from tco.selectors.uncertainty import scenario_ranges
from tco.services import Change
from tco.services.common import Cleared
from tco.web.access import can_edit
from tco.web.viewmodels.answers import answer_for
from tco.web.viewmodels.decisions import panel_context
from tco.web.viewmodels.fields import (
    SCENARIO_FINANCE_HELP,
    SECTION_LABELS,
    FieldView,
    Fold,
    OptionView,
    error_map,
    input_text,
    option_views,
    problem_key,
    scenario_field,
    scenario_finance_section,
    scenario_sections,
    scenario_training_section,
    style_of,
)
from tco.web.viewmodels.history import scenario_history_page
from tco.web.viewmodels.ranges import attach_ranges
from tco.web.viewmodels.uncertainty import uncertainty_context

SECTION_KEYS = ("general", "options", "forecast", "workload")
WORKSPACE = "tco/scenario_detail.html#workspace"
DECISION_PANEL = "decisions/panel.html#panel"


@dataclass(frozen=True)
class Missing:
    """One input the scenario still lacks, in the page's own words ("Workload → Output tokens per response")."""

    where: str
    reason: str  # what the engine says beyond "is required" ("" when nothing)
    anchor: str  # the id of the input (or section) to go to


def results_context(
    scenario: Scenario, document: dict, state: RunState, problems: list, missing: list[Missing], map_rental: str = ""
) -> dict[str, Any]:
    done = state.done
    return {
        "scenario": scenario,
        "state": state,
        "polling": state.polling,
        "stale": done is not None and (done.document != document or bool(problems)),
        "has_problems": bool(problems),
        "waiting_for": missing,
        "answer": answer_for(done, map_rental=map_rental),
    }


def forecast_context(
    scenario: Scenario, error: str = "", values: dict[str, str] | None = None, *, preview: bool = True
) -> dict:
    """The forecast editor: current parameters (or the user's refused input) and a small preview chart."""
    utilization = scenario.utilization_values()
    chart = None
    if (
        preview
        and 1 <= scenario.horizon_months <= SCENARIO_FIELD["horizon_months"].check.hi
        and utilization
        and (len(utilization) in (1, scenario.horizon_months))
        and all(0 <= u <= 1 for u in utilization)
    ):
        chart = utilization_forecast(utilization, scenario.horizon_months, compact=True)
    return {
        "forecast": {**forecast_texts(scenario), **(values or {})},
        "forecast_kinds": ForecastKind.choices,
        "forecast_labels": {entry.field: entry.label for entry in scenario_fields("forecast")},
        "forecast_error": error,
        "forecast_refused": bool(error),
        "forecast_preview": chart,
        "forecast_mean": mean_utilization(utilization),
        "forecast_months": len(utilization),
    }


def forecast_texts(scenario: Scenario) -> dict[str, str]:
    """The stored forecast as the editor's inputs show it (percentages, one pasted value per line)."""
    forecast = scenario.forecast
    texts = {
        field: input_text(getattr(forecast, name), style_of(SCENARIO_FIELD[field]))
        for name, field in FORM_FIELDS.items()
        if name != "pasted"
    }
    texts[FORM_FIELDS["pasted"]] = "\n".join(repr(float(v)) for v in forecast.pasted)
    texts["forecast_kind"] = forecast.kind
    return texts


def forecast_starting_texts(scenario: Scenario, kind: str) -> dict[str, str]:
    """Switching to ``kind``: its saved parameters where it has them, else values that reproduce today's forecast."""
    texts = forecast_texts(scenario)
    starting = starting_parameters(
        kind=kind, current=scenario.utilization_values(), horizon_months=scenario.horizon_months
    )
    return {name: texts.get(name) or text for name, text in starting.items()}


def workspace_context(
    request: HttpRequest | None,
    scenario: Scenario,
    *,
    editor: bool | None = None,
    change: Change | None = None,
    refused: dict[str, tuple[str, str]] | None = None,
    errors: dict[str, str] | None = None,
    forecast_error: str = "",
    forecast_values: dict[str, str] | None = None,
    conflict: str = "",
    decision_panel: bool = False,
    map_rental: str = "",
) -> dict[str, Any]:
    """Everything the workspace region renders, in a number of queries independent of the number of options.

    ``refused`` maps an input's key to (the text typed, why it was not saved): that input shows both, marked "not
    saved", beside the stored value. ``errors`` are other messages by key (a section, a checklist row). With
    ``decision_panel`` the decision panel is rendered in place (a response to an edit); without, the page loads it
    (the page's region is kept per version, and the panel also changes with decisions and links). ``map_rental`` is
    the rental the page's break-even map varies (kept across edits while the run's map can vary it).
    """
    editor = can_edit(request) if editor is None else editor
    if change is not None and change.options is not None:  # reuse what the save just computed
        options, document, problems = change.options, change.document, list(change.problems)
    else:
        options = list(scenario.options.all())
        document = scenario_document(scenario, options)
        problems = document_problems(document)
    ranges = change.ranges if change is not None and change.ranges is not None else scenario_ranges(scenario)
    # An edit that queued a run shows that new run, whose answer panel is built now from its figures.
    state = run_state(scenario, figures=change is not None and change.run is not None)
    invalid = problems  # what the engine's validation finds (a failed run's problems may be added below)
    if not problems and state.failed is not None and state.failed.document == document:
        problems = [Problem(**p) for p in state.failed.problems]
    wrong = [problem for problem in problems if not is_gap(problem, document)]
    option_ids = [option.pk for option in options]
    field_errors = error_map(wrong, option_ids)
    field_errors.update(errors or {})
    for key, (_, message) in (refused or {}).items():  # a refused input is shown, even one that does not apply
        field_errors.setdefault(key, message)
    basics, workload = scenario_sections(scenario, field_errors)
    finance = scenario_finance_section(scenario, field_errors)
    training = scenario_training_section(scenario, field_errors)
    name_field = scenario_field(scenario, "name", field_errors)
    views = option_views(scenario, options, field_errors)
    fields = {f.key: f for f in _all_fields([*basics, *finance, *training], workload, name_field, views)}
    for key, (text, message) in (refused or {}).items():
        if key in fields:
            fields[key].refuse(text, message)
    gaps = [problem for problem in problems if is_gap(problem, document)]
    missing = [_missing(problem, fields, views, option_ids, editor) for problem in gaps]
    for problem in gaps:  # an input still to fill in is never left in a closed group
        if (gap := fields.get(problem_key(problem.path, option_ids))) is not None:
            gap.missing = True
    known = set(fields) | set(SECTION_KEYS)
    for view in views:
        known |= {view.key, *(f"d{item.pk}" for item in view.diligence)}
        for item in view.diligence:
            item.error = field_errors.get(f"d{item.pk}", "")
    context = {
        "scenario": scenario,
        "document": document,
        "can_edit": editor,
        "basics": basics,
        "finance": finance,
        "finance_fold": Fold("finance", finance, SCENARIO_FINANCE_HELP),
        "training": training,
        "workload": workload,
        "name_field": name_field,
        "option_views": views,
        "to_complete": missing,
        "field_errors": {key: message for key, message in field_errors.items() if key in known and key != "general"},
        "general_errors": [message for key, message in field_errors.items() if key not in known or key == "general"],
        "section_errors": {key: field_errors.get(key, "") for key in SECTION_KEYS},
        "conflict": conflict,
        "cleared": cleared_notice(change.cleared, document) if change is not None and change.cleared else None,
        "option_kinds": OptionKind.choices,
        "diligence_statuses": DiligenceStatus.choices,
        "trend_windows": TREND_WINDOWS,
        "gpu_models": gpu_models() if editor else [],
        "training_peaks": training_peaks(options) if editor else [],
        **_history(scenario),
        **forecast_context(scenario, forecast_error, forecast_values),
        **results_context(scenario, document, state, problems, missing, map_rental),
        **uncertainty_context(scenario, can_edit=editor, document=document, ranges=ranges),
    }
    attach_ranges(context, scenario, ranges)
    if decision_panel:
        context["decision_panel"] = render_to_string(
            DECISION_PANEL,
            panel_context(request, scenario, state=state, document=document, problems=invalid),
            request=request,
        )
    return context


@dataclass(frozen=True)
class ClearedNotice:
    """What an edit cleared, in words, and what its Restore button posts."""

    option_id: int
    text: str
    fields: str  # the inputs to put back, comma-separated: the edited one first


def cleared_notice(cleared: Cleared, document: dict) -> ClearedNotice:
    """ "Own 8x H100 (new): Financing → Cash cleared Loan APR 7% per year, Loan term 36 months (they no longer
    apply)." The values are those before the edit, in the page's words."""
    before, index = cleared.before, cleared.index
    option = (document.get("options") or [{}])[index] if index < len(document.get("options") or []) else {}
    edited = f"options[{index}].{cleared.field}"
    now = path_words(document, edited, option.get(cleared.field))
    words = [
        f"{path_label(before, f'options[{index}].{name}').split(': ', 1)[-1]} "
        f"{path_words(before, f'options[{index}].{name}', before['options'][index].get(name))}"
        for name in cleared.names
    ]
    label = path_label(document, edited)
    they = "it no longer applies" if len(words) == 1 else "they no longer apply"
    text = f"{label} → {now} cleared {', '.join(words)} ({they})."
    return ClearedNotice(cleared.option_id, text, ",".join((cleared.field, *cleared.names)))


def _history(scenario: Scenario) -> dict[str, Any]:
    lines, older = scenario_history_page(scenario)
    return {"history": lines, "history_next_page": 2 if older else None}


def _all_fields(
    basics: list[FieldView], workload: list[FieldView], name_field: FieldView, views: list[OptionView]
) -> list[FieldView]:
    fields = [*basics, *workload, name_field]
    for view in views:
        fields += [view.name_field, *view.fields, *view.finance_fields]
    return fields


def _missing(
    problem: Problem, fields: dict[str, FieldView], views: list[OptionView], option_ids: list[int], editor: bool
) -> Missing:
    """A gap as the page names it: its section (or option) and the input's own label, and where to go."""
    key = problem_key(problem.path, option_ids)
    reason = problem.reason if problem.code == "required" else problem.message
    field = fields.get(key)
    if field is not None:
        return Missing(f"{_section(key, views)} → {field.label}", reason, f"{field.dom_id}-input")
    if key == "options":  # the engine's words are about an empty list
        reason = "add at least one way to own or rent capacity"
        return Missing(SECTION_LABELS["options"], reason, "add-kind" if editor else "options-title")
    if key == "forecast":
        return Missing(SECTION_LABELS["forecast"], reason, "forecast")
    if key == "workload":
        return Missing(SECTION_LABELS["workload"], reason, "workload-title")
    view = next((v for v in views if v.key == key), None)
    return Missing(view.option.name if view else SECTION_LABELS["basics"], reason, f"option-{key[1:]}")


def _section(key: str, views: list[OptionView]) -> str:
    if key.startswith("s-workload_"):
        return SECTION_LABELS["workload"]
    if key.startswith("s-training_"):
        return SECTION_LABELS["training"]
    if key.startswith("s-"):
        entry = SCENARIO_FIELD.get(key[2:])
        return SECTION_LABELS["finance" if entry is not None and entry.finance else "basics"]
    view = next((v for v in views if key.startswith(f"{v.key}-")), None)
    return view.option.name if view else SECTION_LABELS["options"]


# The GPU catalogue's peak dense TFLOPs, by the precision a run trains at.
PEAK_PRECISIONS = (
    ("peak_dense_tflops_fp16", "16-bit (BF16/FP16)"),
    ("peak_dense_tflops_fp8", "FP8"),
    ("peak_dense_tflops_fp4", "FP4"),
)


def training_peaks(options: list) -> list[tuple[str, str]]:
    """``(value, label)`` for the training plan's GPU peak, from the GPU catalogue entry of each option that names its
    GPU: "989 TFLOPS: H100 SXM at 16-bit (BF16/FP16), the GPU of Own 8x H100"; each GPU and precision once. One
    query, and none when no option names its GPU."""
    ids = {option.gpu_model_id for option in options if option.gpu_model_id is not None}
    gpus = GpuModel.objects.in_bulk(ids) if ids else {}
    choices: dict[tuple[int, str], tuple[str, str]] = {}
    for option in options:
        gpu = gpus.get(option.gpu_model_id)
        for field, precision in PEAK_PRECISIONS if gpu is not None else ():
            peak = getattr(gpu, field)
            if peak is not None:
                value = format(peak.normalize(), "f")
                label = f"{value} TFLOPS: {gpu.name} at {precision}, the GPU of {option.name}"
                choices.setdefault((gpu.pk, field), (value, label))
    return list(choices.values())


def gpu_models() -> list:
    return list(GpuModel.objects.only("id", "name", "tdp_watts", "typical_server_capex_per_gpu").order_by("name"))
