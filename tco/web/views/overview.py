"""The Overview page: recent scenarios with their answer, the latest import per source, failed imports."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from pricing.selectors import failed_snapshots, latest_snapshot_per_source
from tco.selectors.actuals import turned_plans
from tco.selectors.scenarios import scenarios_with_latest_results
from tco.web.access import can_read
from tco.web.viewmodels.scenario_list import scenario_rows


@require_GET
def home_view(request: HttpRequest) -> HttpResponse:
    context = {
        "scenario_rows": scenario_rows(scenarios_with_latest_results(limit=5)) if can_read(request) else None,
        "latest_snapshots": latest_snapshot_per_source().select_related("created_by")[:10],
        "failed_snapshots": failed_snapshots(limit=5),
        "turned_decisions": turned_plans() if can_read(request) else [],
    }
    return render(request, "tco/home.html", context)
