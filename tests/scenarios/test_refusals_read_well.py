"""What a refusal says back is short enough to read: a posted value of 100,000 characters is cut with an ellipsis
(and its length said), not echoed whole into the page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tco.models import Scenario, ScenarioOption

HTMX = {"HTTP_HX_REQUEST": "true"}
LONG = "lease" + "x" * 100_000


def _version(scenario) -> int:
    return Scenario.objects.get(pk=scenario.pk).version


@pytest.mark.parametrize("field", ["financing", "lease_payment_interval_months"])
def test_a_refused_option_choice_echoes_a_short_value(editor_client, scenario, field):
    owned = ScenarioOption.objects.filter(scenario=scenario).order_by("position", "id").first()
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    response = editor_client.post(url, {field: LONG, "version": _version(scenario)}, **HTMX)
    html = response.content.decode()
    assert "x" * 200 not in html
    assert "leasexxxx" in html and "…" in html and "100,005 characters" in html
    assert Scenario.objects.get(pk=scenario.pk).version == scenario.version  # nothing saved


def test_a_refused_scenario_choice_echoes_a_short_value(editor_client, scenario):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    response = editor_client.post(url, {"refresh_policy": LONG, "version": _version(scenario)}, **HTMX)
    html = response.content.decode()
    assert "x" * 200 not in html
    assert "100,005 characters" in html


def test_a_refused_option_kind_echoes_a_short_value(editor_client, scenario):
    url = reverse("tco:option_add", args=[scenario.pk])
    response = editor_client.post(url, {"kind": LONG, "version": _version(scenario)}, **HTMX)
    html = response.content.decode()
    assert "x" * 200 not in html
    assert "100,005 characters" in html
