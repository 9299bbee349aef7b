"""The break-even map varies a rental the analyst picks above it; a decision link freezes that choice."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from tco.models import DecisionSnapshot, ScenarioRun
from tco.services import scenario_create_from_document

LAMBDA, GCP = "Lambda 8x H100 SXM", "GCP A3 High"
GCP_PRICE = 11.06
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def scenario(db, editor, example_document, django_capture_on_commit_callbacks):
    """The example document with a second on-demand rental, evaluated."""
    example_document["options"].append(
        {"name": GCP, "kind": "hyperscaler", "price_per_gpu_hour": GCP_PRICE, "billing": "on_demand"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        return scenario_create_from_document(document=example_document, user=editor)


def _map_url(scenario, run=None) -> str:
    run = run or ScenarioRun.objects.filter(scenario=scenario).latest("id")
    return reverse("tco:break_even_map", args=[scenario.pk, run.pk])


def _map_figure(html: str) -> dict:
    script = re.search(r'<script id="fig-break_even_map-\d+" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(script.group(1))


def _selected(html: str) -> list[str]:
    return re.findall(r'<option value="([^"]+)" selected>', html)


def test_the_page_offers_every_on_demand_rental_and_starts_with_the_first(editor_client, scenario):
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()

    choices = re.search(r'<select id="map-rental".*?</select>', html, re.S).group(0)
    assert re.findall(r'<option value="([^"]+)"', choices) == [LAMBDA, GCP]
    assert _selected(choices) == [LAMBDA]
    assert _map_figure(html)["layout"]["title"]["text"] == f"Cheapest option by utilization and {LAMBDA} price"


def test_picking_another_rental_redraws_the_map_against_its_price(editor_client, scenario):
    response = editor_client.get(_map_url(scenario), {"map_rental": GCP}, **HTMX)

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<figure class="chart-box" id="chart-box-break_even_map">')
    figure = _map_figure(html)
    assert figure["layout"]["title"]["text"] == f"Cheapest option by utilization and {GCP} price"
    prices = figure["data"][0]["y"]
    assert prices[0] == pytest.approx(GCP_PRICE * 0.25) and prices[-1] == pytest.approx(GCP_PRICE * 2.5)
    assert _selected(html) == [GCP]


def test_an_unknown_rental_draws_the_first_one(editor_client, scenario):
    html = editor_client.get(_map_url(scenario), {"map_rental": "No such rental"}).content.decode()

    assert _map_figure(html)["layout"]["title"]["text"] == f"Cheapest option by utilization and {LAMBDA} price"
    assert _selected(html) == [LAMBDA]


def test_viewers_may_explore_the_map_but_not_other_scenarios_runs(client, viewer, editor, scenario, example_document):
    other = scenario_create_from_document(document=example_document | {"name": "Other"}, user=editor)
    other_run = ScenarioRun.objects.create(scenario=other, scenario_version=1, document={}, status="done")
    client.force_login(viewer)

    assert client.get(_map_url(scenario), {"map_rental": GCP}).status_code == 200
    assert client.get(_map_url(scenario, other_run)).status_code == 404
    client.logout()
    assert client.get(_map_url(scenario)).status_code == 302  # to the login page


def test_a_decision_link_freezes_the_map_for_the_rental_picked(editor_client, scenario):
    url = reverse("tco:link_create", args=[scenario.pk])
    editor_client.post(url, {"expires_in_days": "30", "map_rental": GCP})
    editor_client.post(url, {"expires_in_days": "30"})

    snapshots = DecisionSnapshot.objects.order_by("id")
    chosen, default = (snapshot.data["figures"]["break_even_map"] for snapshot in snapshots)
    assert chosen["layout"]["title"]["text"] == f"Cheapest option by utilization and {GCP} price"
    assert default["layout"]["title"]["text"] == f"Cheapest option by utilization and {LAMBDA} price"


def test_the_map_varies_the_cheapest_on_demand_rental_not_the_first_listed(
    editor_client, editor, example_document, run_jobs
):
    example_document["options"].insert(
        1, {"name": GCP, "kind": "hyperscaler", "price_per_gpu_hour": GCP_PRICE, "billing": "on_demand"}
    )  # listed before Lambda, dearer than it (11.06 vs 3.99 per GPU-hour)
    with run_jobs():
        created = scenario_create_from_document(document=example_document, user=editor)
    html = editor_client.get(reverse("tco:scenario_detail", args=[created.pk])).content.decode()
    choices = re.search(r'<select id="map-rental".*?</select>', html, re.S).group(0)
    assert re.findall(r'<option value="([^"]+)"', choices) == [GCP, LAMBDA]
    assert _selected(choices) == [LAMBDA]
    assert _map_figure(html)["layout"]["title"]["text"] == f"Cheapest option by utilization and {LAMBDA} price"
