"""Changing the scenario's currency: ask whether the money inputs are converted at a named rate or relabelled."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from lib.currencies import DEFAULT_CURRENCY, currency_problem
from pricing.fx import Rate
from pricing.selectors import exchange_rate
from tco.models import Scenario
from tco.presentation.currency import too_large_words
from tco.services import CurrencyChangeError, VersionConflict, money_inputs, scenario_change_currency
from tco.services.currency import TooLargeToConvert
from tco.web.access import get_scenario_for_user
from tco.web.inputs import expected_version
from tco.web.responses import conflict_response
from tco.web.viewmodels.fields import scenario_field

QUESTION = "tco/_currency_change.html"


def currency_question(request: HttpRequest, scenario: Scenario, currency: str) -> HttpResponse | None:
    """The question in place of the currency field, or None when there is nothing to ask (same currency, or no
    money input holds a value yet): then the change is saved like any other input."""
    currency = currency or DEFAULT_CURRENCY  # a blank currency means the engine's default
    if currency == scenario.currency_code:
        return None
    count = money_inputs(scenario, list(scenario.options.all()))
    if not count:
        return None
    return _question(request, scenario, currency, count)


def _question(request: HttpRequest, scenario: Scenario, currency: str, count: int, error: str = "") -> HttpResponse:
    field = scenario_field(scenario, "currency", {})
    field.text = currency
    context = {
        "scenario": scenario,
        "f": field,
        "old": scenario.currency_code,
        "new": currency,
        "count": count,
        "rate": exchange_rate(scenario.currency_code, currency),
        "error": error,
    }
    return render(request, QUESTION, context)


@require_POST
def scenario_currency_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The answer: `convert` at the rate named in the question (refused if it is no longer the latest), or
    `relabel` (the inputs were already in the new currency)."""
    scenario = get_scenario_for_user(request, pk, write=True)
    currency, mode = request.POST.get("currency", "").strip().upper(), request.POST.get("mode", "")
    problem = currency_problem(currency)
    if problem:  # only a tampered form gets here: the question always posts a checked code
        return HttpResponseBadRequest(problem)
    rate: Rate | None = None
    if mode == "convert":
        rate = exchange_rate(scenario.currency_code, currency)
        named = (request.POST.get("rate", ""), request.POST.get("rate_date", ""), request.POST.get("rate_source", ""))
        if rate is None or named != _named(rate):
            count = money_inputs(scenario, list(scenario.options.all()))
            return _question(request, scenario, currency, count, "The latest rate changed: check it and choose again.")
    elif mode != "relabel":
        return _question(request, scenario, currency, 0, "Choose to convert the inputs or to keep them as they are.")
    try:
        scenario_change_currency(
            scenario=scenario,
            user=request.user,
            expected_version=expected_version(request),
            currency=currency,
            rate=rate,
        )
    except CurrencyChangeError as error:
        count = money_inputs(scenario, list(scenario.options.all()))
        words = str(error)
        if isinstance(error, TooLargeToConvert):  # each input in the page's words
            words = too_large_words(error.rate, error.too_large, error.limit)
        return _question(request, scenario, currency, count, words)
    except VersionConflict as conflict:
        return conflict_response(request, conflict, f" (currency → {currency})")
    return HttpResponseClientRefresh()  # every money label on the page names the currency


def _named(rate: Rate) -> tuple[str, str, str]:
    return (rate.rate_text, rate.rate_date.isoformat() if rate.rate_date else "", rate.source)
