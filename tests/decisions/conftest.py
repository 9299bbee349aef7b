from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from django.urls import reverse

from pricing import services as pricing_services
from pricing.models import PriceObservation, SnapshotOrigin
from tco.models import Scenario
from tco.services import option_pick_price, run_queue, scenario_create_from_document

REPO = Path(__file__).resolve().parents[2]
PRICES_HEADER = (
    "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
    "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
)
LAMBDA_ROW = (
    "Lambda,neocloud,H100 SXM,8,8-GPU instance,us-east-1,on_demand,,3.99,USD,2026-09-01,https://lambda.ai/pricing"
)

# Inputs chosen so the headline numbers can be worked out by hand from docs/money-math.md.
DOCUMENT = {
    "schema": "tco-scenario/1",
    "name": "Decision test: own vs rent",
    "currency": "USD",
    "horizon_months": 12,
    "discount_rate": 0.08,
    "fleet_gpus": 8,
    "utilization": [0.6],
    "workload": {
        "tokens_per_second_per_gpu": 850,
        "output_tokens_per_response": 350,
        "input_tokens_per_response": 1200,
        "acceptance_rate": 0.9,
    },
    "options": [
        {
            "name": "Own 8x H100",
            "kind": "owned",
            "gpu_count": 8,
            "capex": 300000,
            "residual_value": 30000,
            "useful_life_years": 5,
            "cost_of_capital": 0.08,
            "power_kw": 10.2,
            "idle_power_kw": 2.5,
            "pue": 1.4,
            "electricity_per_kwh": 0.12,
            "facility_per_year": 24000,
            "support_per_year": 30000,
            "operations_per_year": 54000,
        },
        {"name": "Lambda rental", "kind": "neocloud", "price_per_gpu_hour": 4.5, "billing": "on_demand"},
    ],
}


def import_prices(*rows: str) -> None:
    content = (PRICES_HEADER + "".join(row + "\n" for row in rows)).encode("utf-8")
    pricing_services.price_snapshot_import(content=content, origin=SnapshotOrigin.COMMAND, source="test")


@pytest.fixture
def reference(db) -> None:
    pricing_services.reference_data_load(path=REPO / "fixtures" / "reference.json")


@pytest.fixture
def lambda_price(reference) -> PriceObservation:
    import_prices(LAMBDA_ROW)
    return PriceObservation.objects.select_related("provider").get(provider__name="Lambda")


@pytest.fixture
def scenario(editor, lambda_price) -> Scenario:
    """Own vs rent, the rental's price picked from the Market (Lambda, $3.99 per GPU-hour)."""
    created = scenario_create_from_document(document=copy.deepcopy(DOCUMENT), user=editor)
    rental = created.options.get(name="Lambda rental")
    option_pick_price(option=rental, user=editor, expected_version=None, observation=lambda_price)
    return Scenario.objects.get(pk=created.pk)


@pytest.fixture
def computed(scenario, run_jobs) -> Scenario:
    """The scenario with its numbers computed, as the embedded mode computes every version when it is saved."""
    with run_jobs():
        run_queue(scenario=scenario)
    return scenario


@pytest.fixture
def client_factory():
    """Fresh logged-out clients (each with its own cookies), like a leader opening a link."""
    from django.test import Client

    return lambda **defaults: Client(**defaults)


TOKEN_IN_PAGE = re.compile(r'value="https?://[^"/]+(/d/[A-Za-z0-9_-]{43})"')


def create_link(client, scenario: Scenario, **data) -> tuple[object, str]:
    """POST the share form; returns the response and the link's path (/d/<token>) shown once in it."""
    response = client.post(reverse("tco:link_create", args=[scenario.pk]), data)
    found = TOKEN_IN_PAGE.search(response.content.decode())
    return response, found.group(1) if found else ""


@pytest.fixture
def link_path(editor_client, scenario) -> str:
    response, path = create_link(editor_client, scenario)
    assert response.status_code == 201, response.content.decode()[:500]
    return path


@pytest.fixture
def anon():
    """A logged-out client of its own (the `client` fixture is the one editor_client logs in)."""
    from django.test import Client

    return Client()
