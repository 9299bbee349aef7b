"""The sizing page's context: the serving form, the latest stored sizing in rows and words, and its chart. Reads
only: the engine never runs on a view (a POST sizes and stores a run, tco.services.sizing)."""

from __future__ import annotations

from typing import Any

from pricing.models import GpuModel, LanguageModel
from tco.charts.sizing import throughput_vs_interactivity
from tco.models import Scenario, SizingRun
from tco.presentation.sizing import sizing_view
from tco.selectors.sizing import latest_sizing
from tco.web.forms import ServingForm


def sizing_context(
    scenario: Scenario, *, can_edit: bool, form: Any = None, message: str = "", run: SizingRun | None = None
) -> dict[str, Any]:
    names = list(LanguageModel.objects.order_by("name").values_list("name", flat=True))
    if form is None:
        form = ServingForm(initial=ServingForm.initial_from(scenario), model_names=names, read_only=not can_edit)
    run = run or latest_sizing(scenario)
    view = figure = None
    unpriced: list[str] = []
    if run is not None and run.result is not None:
        view = sizing_view(run.document, run.result, run.gpus, scenario.currency_code)
        figure = throughput_vs_interactivity(run.document, run.result, scenario.currency_code)
        sized = [item["gpu_model_id"] for item in run.gpus]
        catalogue = GpuModel.objects.filter(memory_gib__isnull=False).exclude(pk__in=sized).order_by("name")
        unpriced = list(catalogue.values_list("name", flat=True))
    return {
        "scenario": scenario,
        "form": form,
        "can_edit": can_edit,
        "run": run,
        "view": view,
        "figure": figure,
        "stale": run is not None and run.scenario_version != scenario.version,
        "message": message,
        "models_known": bool(names),
        "unpriced": unpriced,
    }
