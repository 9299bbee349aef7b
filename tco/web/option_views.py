"""htmx endpoints for options: add (prefilled), delete, the Market price picker, the diligence checklist."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from pricing.models import GpuModel, PriceObservation
from pricing.selectors import market_price_count, market_prices
from tco.models import DiligenceStatus, OptionKind, ScenarioOption, SecondaryDiligenceItem
from tco.presentation.picker import PICKER_PAGE, picker_offset, picker_page
from tco.services import (
    PriceChoiceError,
    VersionConflict,
    diligence_update,
    option_add,
    option_delete,
    option_pick_price,
)
from tco.web.access import get_scenario_for_user
from tco.web.inputs import InputError, expected_version, parse_id, parse_integer
from tco.web.responses import conflict_response, edit_response

OPTIONS = "tco/scenario_detail.html#options"
OPTION = "tco/scenario_detail.html#option"


@require_POST
def option_add_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    kind = request.POST.get("kind", "")
    if kind not in OptionKind.values:
        return edit_response(
            request, scenario, OPTIONS, extra_errors={"options": f"Choose a kind of option ({kind!r}?)."}
        )
    gpu_model_id = parse_id(request.POST.get("gpu_model", ""))
    gpu_model = GpuModel.objects.filter(pk=gpu_model_id).first() if gpu_model_id is not None else None
    try:
        option_add(
            scenario=scenario,
            user=request.user,
            expected_version=expected_version(request),
            kind=kind,
            gpu_model=gpu_model,
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, " (adding an option)")
    return edit_response(request, scenario, OPTIONS)


@require_POST
def option_delete_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    option = get_object_or_404(ScenarioOption, pk=option_pk, scenario=scenario)
    try:
        option_delete(option=option, user=request.user, expected_version=expected_version(request))
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (deleting {option.name})")
    return edit_response(request, scenario, OPTIONS)


@require_GET
def price_picker_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    """Search the Market's latest prices (GPU model, provider, term) for a rental option."""
    scenario = get_scenario_for_user(request, pk, write=True)
    option = get_object_or_404(ScenarioOption, pk=option_pk, scenario=scenario)
    query = {key: request.GET.get(key, "").strip()[:100] for key in ("gpu", "provider", "term")}
    total = market_price_count(**query)  # every currency: a price in another one is converted when picked
    offset = picker_offset(request.GET.get("offset", ""), total)
    rows = list(market_prices(**query, limit=PICKER_PAGE, offset=offset))
    context = {"scenario": scenario, "option": option, "rows": rows, "query": query, "query_string": urlencode(query)}
    context["page"] = picker_page(offset, len(rows), total)
    return render(request, "tco/_price_picker.html", context)


@require_POST
def option_pick_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    option = get_object_or_404(ScenarioOption, pk=option_pk, scenario=scenario)
    observation_id = parse_id(request.POST.get("observation", ""))
    observation = (
        PriceObservation.objects.select_related("provider").filter(pk=observation_id).first()
        if observation_id is not None
        else None
    )
    key = f"o{option.pk}-price_per_gpu_hour"
    if observation is None:
        return edit_response(request, scenario, OPTIONS, extra_errors={key: "That Market price no longer exists."})
    try:
        option_pick_price(
            option=option, user=request.user, expected_version=expected_version(request), observation=observation
        )
    except PriceChoiceError as error:
        return edit_response(request, scenario, OPTIONS, extra_errors={key: str(error)})
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (price for {option.name})")
    return edit_response(request, scenario, OPTIONS)


@require_POST
def diligence_view(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    item = get_object_or_404(
        SecondaryDiligenceItem.objects.select_related("option"), pk=item_pk, option__scenario=scenario
    )
    status = request.POST.get("status", "")
    errors = {}
    if status not in DiligenceStatus.values:
        errors[f"d{item.pk}"] = f"Choose a status ({status!r} is not one)."
    try:
        months = parse_integer("warranty_months", request.POST.get("warranty_months", ""))
    except InputError as error:
        errors[f"d{item.pk}"] = f"Warranty months: {error.message}"
        months = None
    if errors:
        return edit_response(request, scenario, OPTIONS, extra_errors=errors)
    try:
        diligence_update(
            item=item,
            user=request.user,
            expected_version=expected_version(request),
            status=status,
            note=request.POST.get("note", "")[:2000],
            warranty_months=months,
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (checklist: {item.get_key_display()})")
    return edit_response(request, scenario, OPTIONS)
