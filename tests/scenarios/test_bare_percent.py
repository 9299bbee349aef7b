"""A bare "%" (or " % ") in any percent field, range or the forecast is a field message, never a 500.

Through HTTP only, so the test holds whatever form code reads the fields: each view answers 200 with the message
and stores nothing.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tco.documents import scenario_document
from tco.engine.catalogue import fields_for_kind
from tco.forecast import DECIMAL_PARAMETERS, FORM_FIELDS
from tco.models import Scenario
from tco.selectors.uncertainty import SCENARIO_RANGE_PATHS, option_range_fields
from tco.web.inputs import PERCENT_FIELDS
from tco.web.viewmodels.ranges import RATE_RANGE_FIELDS

HTMX = {"HTTP_HX_REQUEST": "true"}
BARE = ["%", " % "]
# Which forecast kind shows each of its decimal parameters.
FORECAST_KIND = {"flat": "flat", "ramp_from": "ramp", "ramp_to": "ramp", "seasonal_base": "seasonal"}
FORECAST_KIND["seasonal_amplitude"] = "seasonal"
MESSAGE = "before the %"


def _state(scenario: Scenario) -> tuple[int, dict]:
    fresh = Scenario.objects.get(pk=scenario.pk)
    return fresh.version, scenario_document(fresh)


def _assert_field_message(response, what) -> None:
    assert response.status_code == 200, (what, response.status_code)
    assert MESSAGE in response.content.decode(), what


@pytest.mark.parametrize("text", BARE)
def test_a_bare_percent_in_a_scenario_percent_field(editor_client, scenario, text):
    before = _state(scenario)
    for field in sorted(PERCENT_FIELDS & {"discount_rate", "workload_acceptance_rate"}):
        url = reverse("tco:scenario_field", args=[scenario.pk])
        response = editor_client.post(url, {field: text, "version": scenario.version}, **HTMX)
        _assert_field_message(response, field)
    assert _state(scenario) == before


@pytest.mark.parametrize("text", BARE)
def test_a_bare_percent_in_every_option_percent_field(editor_client, scenario, text):
    before = _state(scenario)
    seen = set()
    for option in scenario.options.all():
        for field in sorted(PERCENT_FIELDS & set(fields_for_kind(option.kind))):
            url = reverse("tco:option_field", args=[scenario.pk, option.pk])
            response = editor_client.post(url, {field: text, "version": scenario.version}, **HTMX)
            _assert_field_message(response, (option.kind, field))
            seen.add(field)
    assert {"cost_of_capital", "price_change_per_year", "acceptance_rate"} <= seen
    assert _state(scenario) == before


@pytest.mark.parametrize("text", BARE)
def test_a_bare_percent_in_any_bound_of_every_percent_range(editor_client, scenario, text):
    targets = [f"s-{field}" for field in SCENARIO_RANGE_PATHS if field in RATE_RANGE_FIELDS]
    for option in scenario.options.all():
        targets += [f"o{option.pk}-{field}" for field in option_range_fields(option) if field in RATE_RANGE_FIELDS]
    assert "s-utilization" in targets
    before = _state(scenario)
    for target in targets:
        for bound in ("low", "likely", "high"):
            values = {"low": "10%", "likely": "20%", "high": "30%", bound: text}
            response = editor_client.post(
                reverse("tco:input_range", args=[scenario.pk]),
                {"target": target, "version": scenario.version, **values},
                **HTMX,
            )
            _assert_field_message(response, (target, bound))
    assert _state(scenario) == before


@pytest.mark.parametrize("text", BARE)
def test_a_bare_percent_in_every_forecast_parameter_and_the_pasted_column(editor_client, scenario, text):
    before = _state(scenario)
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    assert set(FORECAST_KIND) == set(DECIMAL_PARAMETERS)
    for parameter, kind in FORECAST_KIND.items():
        data = {"forecast_kind": kind, FORM_FIELDS[parameter]: text, "version": scenario.version}
        _assert_field_message(editor_client.post(url, data, **HTMX), parameter)
    data = {"forecast_kind": "pasted", "forecast_pasted": f"50%\n{text}", "version": scenario.version}
    _assert_field_message(editor_client.post(url, data, **HTMX), "pasted")
    assert _state(scenario) == before
