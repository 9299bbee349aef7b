"""Compare scenarios: pick two to four and see their answers, NPVs, break-even and cumulative cost side by side."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from tco.charts import snapshot as snapshot_output
from tco.checks import DecisionError
from tco.models import Scenario
from tco.services.comparison import MAX_SCENARIOS, MIN_SCENARIOS, ComparisonError, scenario_comparison
from tco.web.access import require_role
from tco.web.inputs import parse_id


@require_GET
def scenario_compare_view(request: HttpRequest) -> HttpResponse:
    require_role(request, write=False)
    picked = [parse_id(text) for text in request.GET.getlist("s")]
    ids = list(dict.fromkeys(pk for pk in picked if pk is not None))
    scenarios = list(Scenario.objects.order_by("name", "id"))
    by_id = {scenario.pk: scenario for scenario in scenarios}
    chosen = [by_id[pk] for pk in ids if pk in by_id]
    currency = request.GET.get("currency", "").strip().upper()
    context = {
        "scenarios": scenarios,
        "chosen_ids": [s.pk for s in chosen],
        "currencies": list(dict.fromkeys(s.currency_code for s in chosen)),
        "currency": currency or (chosen[0].currency_code if chosen else ""),
        "data": None,
        "error": "",
    }
    if len(picked) != len([pk for pk in picked if pk in by_id]):
        context["error"] = "Some picked scenarios do not exist (any more); pick again."
    elif ids:
        try:
            context["data"] = scenario_comparison(
                scenarios=chosen, compose=snapshot_output.comparison, currency=currency
            )
        except ComparisonError as error:
            context["error"] = str(error)
    context["limits"] = (MIN_SCENARIOS, MAX_SCENARIOS)
    return render(request, "tco/compare.html", context, status=200)


def compare_choice(scenario: Scenario, texts: list[str]) -> list[Scenario]:
    """The other scenarios picked to compare ``scenario`` with (unknown ids and itself are refused)."""
    ids = list(dict.fromkeys(parse_id(text) for text in texts if text.strip()))
    if not ids:
        return []
    found = Scenario.objects.in_bulk([pk for pk in ids if pk is not None and pk != scenario.pk])
    if len(found) != len(ids):
        raise DecisionError("Pick other existing scenarios to compare with.", field="compare_with")
    if len(ids) > MAX_SCENARIOS - 1:
        raise DecisionError(f"Compare with at most {MAX_SCENARIOS - 1} other scenarios.", field="compare_with")
    return [found[pk] for pk in ids]
