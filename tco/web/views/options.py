"""htmx endpoints for options: add (prefilled), delete, the Market price picker, following the Market's price trend,
the diligence checklist. Each reads its inputs with a Django form and answers with the workspace as it now is."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from lib.kinds import API_KINDS
from pricing.selectors import market_price_count, market_prices
from tco.engine.catalogue import MARKET_PRICE_FIELDS
from tco.models import SecondaryDiligenceItem
from tco.presentation.picker import PICKER_PAGE, own_terms, picker_groups, picker_offset, picker_page
from tco.services import (
    EditRefused,
    PriceChoiceError,
    VersionConflict,
    diligence_update,
    option_add,
    option_adopt_price_trend,
    option_delete,
    option_pick_price,
)
from tco.web.access import get_option_for_user, get_scenario_for_user
from tco.web.forms import DiligenceForm, OptionAddForm, PricePickForm, PriceTrendAdoptForm
from tco.web.inputs import expected_version
from tco.web.responses import conflict_response, workspace_response


def _errors(form) -> str:
    return " ".join(message for messages in form.errors.values() for message in messages)


@require_POST
def option_add_view(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    form = OptionAddForm(request.POST)
    if not form.is_valid():
        message = _errors(form)
        return workspace_response(request, scenario, errors={"options": message}, message=message)
    try:
        _, change = option_add(
            scenario=scenario,
            user=request.user,
            expected_version=expected_version(request),
            kind=form.cleaned_data["kind"],
            gpu_model=form.cleaned_data["gpu_model"],
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, " (adding an option)")
    return workspace_response(request, change=change)


@require_POST
def option_delete_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    option = get_option_for_user(request, pk, option_pk, write=True)
    try:
        change = option_delete(option=option, user=request.user, expected_version=expected_version(request))
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (deleting {option.name})")
    return workspace_response(request, change=change)


@require_GET
def price_picker_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    """Search the Market's latest prices (GPU model or model name, provider, term) for a rental or a managed model
    API option: the option's own term first, cheapest first."""
    option = get_option_for_user(request, pk, option_pk, write=True)
    scenario = option.scenario
    query = {key: request.GET.get(key, "").strip()[:100] for key in ("gpu", "provider", "term")}
    per_token = option.kind in API_KINDS
    first_terms = own_terms(option.billing if option.is_rental else None)
    total = market_price_count(**query, per_token=per_token)  # every currency: another one is converted when picked
    offset = picker_offset(request.GET.get("offset", ""), total)
    rows = market_prices(**query, per_token=per_token, first_terms=first_terms, limit=PICKER_PAGE, offset=offset)
    context = {"scenario": scenario, "option": option, "per_token": per_token, "query": query}
    context |= {"groups": picker_groups(rows, first_terms), "query_string": urlencode(query)}
    context["page"] = picker_page(offset, len(rows), total)
    return render(request, "tco/_price_picker.html", context)


@require_POST
def option_pick_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    option = get_option_for_user(request, pk, option_pk, write=True)
    scenario = option.scenario
    key = f"o{option.pk}-{MARKET_PRICE_FIELDS.get(option.kind, ('price_per_gpu_hour',))[0]}"
    form = PricePickForm(request.POST)
    if not form.is_valid():
        message = _errors(form)
        return workspace_response(request, scenario, errors={key: message}, message=message)
    try:
        change = option_pick_price(
            option=option,
            user=request.user,
            expected_version=expected_version(request),
            observation=form.cleaned_data["observation"],
        )
    except PriceChoiceError as error:
        return workspace_response(request, scenario, errors={key: str(error)}, message=str(error))
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (price for {option.name})")
    return workspace_response(request, change=change)


@require_POST
def option_price_trend_view(request: HttpRequest, pk: int, option_pk: int) -> HttpResponse:
    """Follow the Market's price trend of the option's GPU model and term as its price path."""
    option = get_option_for_user(request, pk, option_pk, write=True)
    scenario = option.scenario
    key = f"o{option.pk}-price_change_per_year"
    form = PriceTrendAdoptForm(request.POST)
    if not form.is_valid():
        message = _errors(form)
        return workspace_response(request, scenario, errors={key: message}, message=message)
    try:
        change = option_adopt_price_trend(
            option=option,
            user=request.user,
            expected_version=expected_version(request),
            months=form.cleaned_data["months"],
        )
    except (PriceChoiceError, EditRefused) as error:
        return workspace_response(request, scenario, errors={key: str(error)}, message=str(error))
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (price path of {option.name})")
    return workspace_response(request, change=change)


@require_POST
def diligence_update_view(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    scenario = get_scenario_for_user(request, pk, write=True)
    item = get_object_or_404(
        SecondaryDiligenceItem.objects.select_related("option"), pk=item_pk, option__scenario=scenario
    )
    form = DiligenceForm(request.POST)
    if not form.is_valid():
        return workspace_response(request, scenario, errors={f"d{item.pk}": form.message}, message=form.message)
    try:
        diligence_update(
            item=item,
            user=request.user,
            expected_version=expected_version(request),
            status=form.cleaned_data["status"],
            note=form.cleaned_data["note"],
            warranty_months=form.cleaned_data["warranty_months"],
        )
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (checklist: {item.get_key_display()})")
    return workspace_response(request, scenario)
