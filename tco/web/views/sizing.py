"""The sizing page (``/scenarios/<id>/sizing/``): the serving configuration, what each GPU of the catalogue makes
of it, the cheapest mix, and "apply to the scenario". A POST sizes (tco.services.sizing); a GET only reads."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from pricing.models import LanguageModel
from tco.selectors.sizing import latest_sizing
from tco.services import EditRefused, VersionConflict
from tco.services.sizing import serving_update, sizing_run
from tco.services.sizing_apply import SizingRefused, sizing_apply
from tco.serving import ServingError
from tco.web.access import can_edit, get_scenario_for_user
from tco.web.forms import ServingForm
from tco.web.inputs import expected_version
from tco.web.viewmodels.sizing import sizing_context

PAGE = "tco/sizing.html"


def _page(request: HttpRequest, scenario, **context) -> HttpResponse:
    """The page, or its swappable region for htmx."""
    template = f"{PAGE}#sizing" if request.htmx else PAGE
    return render(request, template, sizing_context(scenario, can_edit=can_edit(request), **context))


def _conflict(conflict: VersionConflict) -> str:
    return (
        f"This scenario was changed since you opened it (now version {conflict.scenario.version}, yours was "
        f"{conflict.expected_version}). Nothing was saved; the current values are shown."
    )


@require_GET
def scenario_sizing_view(request: HttpRequest, pk: int) -> HttpResponse:
    return _page(request, get_scenario_for_user(request, pk))


@require_POST
def sizing_serving_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Save the serving configuration as one change and size it."""
    scenario = get_scenario_for_user(request, pk, write=True)
    names = list(LanguageModel.objects.values_list("name", flat=True))
    form = ServingForm(request.POST, model_names=names)
    if not form.is_valid():
        return _page(request, scenario, form=form, message="Nothing was saved: correct the fields marked below.")
    try:
        change, run = serving_update(
            scenario=scenario, user=request.user, expected_version=expected_version(request), values=form.cleaned_data
        )
    except ServingError as error:
        form.add_error(error.field, error.message)
        return _page(request, scenario, form=form, message="Nothing was saved: correct the fields marked below.")
    except VersionConflict as conflict:
        return _page(request, conflict.scenario, message=_conflict(conflict))
    return _page(request, change.scenario, run=run) if request.htmx else redirect("tco:scenario_sizing", pk)


@require_POST
def sizing_run_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Size again as things are now (new measured rows, Market prices, a changed workload)."""
    scenario = get_scenario_for_user(request, pk, write=True)
    run = sizing_run(scenario=scenario, user=request.user)
    return _page(request, scenario, run=run) if request.htmx else redirect("tco:scenario_sizing", pk)


@require_POST
def sizing_apply_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Write the latest sizing's answer into the scenario, then show the scenario with its new answer."""
    scenario = get_scenario_for_user(request, pk, write=True)
    run = latest_sizing(scenario)
    try:
        if run is None:
            raise SizingRefused("Size the serving configuration first.")
        sizing_apply(scenario=scenario, run=run, user=request.user, expected_version=expected_version(request))
    except (SizingRefused, EditRefused) as refused:
        return _page(request, scenario, message=f"Nothing was applied: {refused.message}")
    except VersionConflict as conflict:
        return _page(request, conflict.scenario, message=_conflict(conflict))
    messages.success(request, "Sizing applied: the fleet, GPU counts and throughput now come from measured rows.")
    url = reverse("tco:scenario_detail", args=[scenario.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
