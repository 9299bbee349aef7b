from __future__ import annotations

import copy
import hashlib
import json
from decimal import Decimal

import pytest
from django.urls import reverse

from pricing.models import PriceObservation
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.models import DecisionRecord, DecisionSnapshot, ImmutableRowError, RunStatus, ScenarioRun
from tco.services import (
    option_add,
    option_pick_price,
    option_update,
    run_queue,
    scenario_create_from_document,
    scenario_update_field,
)
from tco.services.decisions import brief_update, decision_record
from tests.decisions.conftest import DOCUMENT, create_link, import_prices


def test_the_link_is_byte_for_byte_unchanged_after_edits_new_prices_and_a_rerun(
    editor, editor_client, scenario, link_path, anon, django_capture_on_commit_callbacks
):
    before = anon.get(link_path)
    before_csv = anon.get(f"{link_path}/options.csv").content

    # The burst price first: without it 16 GPUs of demand overflow the 8 owned ones and the fleet edit is refused.
    scenario_update_field(
        scenario=scenario, user=editor, field="burst_price_per_gpu_hour", value=Decimal("6.16"), expected_version=None
    )
    scenario_update_field(scenario=scenario, user=editor, field="fleet_gpus", value=16, expected_version=None)
    owned = scenario.options.get(kind="owned")
    option_update(option=owned, user=editor, expected_version=None, field="capex", value=Decimal("250000"))
    import_prices(
        "Lambda,neocloud,H100 SXM,8,8-GPU instance,us-east-1,on_demand,,2.49,USD,2026-10-01,https://lambda.ai/pricing",
        "Nebius,neocloud,H100 SXM,8,HGX H100,eu-north1,on_demand,,2.95,USD,2026-10-01,https://nebius.com/prices",
    )
    cheaper = PriceObservation.objects.get(provider__name="Lambda", observed_on="2026-10-01")
    rental = scenario.options.get(kind="neocloud")
    option_pick_price(option=rental, user=editor, expected_version=None, observation=cheaper)
    decision_record(
        scenario=scenario, user=editor, option_name="Own 8x H100", rationale="Steady load all year.", confirm_older=True
    )
    brief_update(
        scenario=scenario, user=editor, expected_version=None, question="Own or rent?", workload_brief="", answers={}
    )
    scenario.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        run = run_queue(scenario=scenario, user=editor)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    assert run.document["fleet_gpus"] == 16
    assert run.result != json.loads(DecisionSnapshot.objects.get().content)["result"]  # the numbers did move

    after = anon.get(link_path)

    assert after.status_code == before.status_code == 200
    assert after.content == before.content
    assert anon.get(f"{link_path}/options.csv").content == before_csv


def test_the_page_is_identical_on_every_opening(link_path, anon, client_factory):
    first = anon.get(link_path).content

    assert client_factory(REMOTE_ADDR="198.51.100.1").get(link_path).content == first
    assert anon.get(link_path).content == first


def test_saving_an_existing_snapshot_raises(link_path):
    snapshot = DecisionSnapshot.objects.get()
    snapshot.content = "{}"

    with pytest.raises(ImmutableRowError):
        snapshot.save()

    assert DecisionSnapshot.objects.get().content != "{}"


def test_snapshots_have_no_bulk_update_path(link_path):
    with pytest.raises(ImmutableRowError):
        DecisionSnapshot.objects.update(content="{}")


def test_decision_records_are_append_only(editor, computed):
    scenario = computed
    record = decision_record(scenario=scenario, user=editor, option_name="Own 8x H100", rationale="Steady load.")
    record.rationale = "rewritten"

    with pytest.raises(ImmutableRowError):
        record.save()
    with pytest.raises(ImmutableRowError):
        DecisionRecord.objects.filter(pk=record.pk).update(rationale="rewritten")


def test_the_content_hash_is_the_sha256_of_the_frozen_json_and_is_on_the_page(link_path, anon):
    snapshot = DecisionSnapshot.objects.get()
    frozen = anon.get(f"{link_path}/snapshot.json").content

    assert snapshot.content_hash == hashlib.sha256(frozen).hexdigest()
    assert frozen == json.dumps(json.loads(frozen), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )
    assert snapshot.content_hash in anon.get(link_path).content.decode()


def test_the_snapshot_freezes_document_result_figures_prices_engine_and_brief(link_path, scenario):
    frozen = json.loads(DecisionSnapshot.objects.get().content)

    assert frozen["document"] == scenario_document(scenario)
    assert frozen["result"] == evaluate(scenario_document(scenario))
    assert {"annual_cost", "cumulative", "cost_per_output", "forecast", "break_even_map"} <= set(frozen["figures"])
    assert frozen["engine_version"] == frozen["result"]["engine_version"]
    assert frozen["decision"] == {"status": "open"}
    assert [question["key"] for question in frozen["brief"]["questions"]] == [
        "requirements",
        "utilization",
        "data_location",
        "infrastructure",
        "time_to_capacity",
        "support",
        "economics",
    ]


def test_the_snapshot_copies_each_price_with_its_provenance_as_data(link_path, lambda_price):
    prices = json.loads(DecisionSnapshot.objects.get().content)["prices"]

    assert prices == [
        {
            "option": "Lambda rental",
            "kind": "neocloud",
            "quantity": "GPU-hour",
            "price": 3.99,
            "currency": "USD",
            "origin": "market",
            "provider": "Lambda",
            "offering": "8-GPU instance",
            "region": "us-east-1",
            "pricing_term": "on_demand",
            "observed_on": "2026-09-01",
            "source_url": "https://lambda.ai/pricing",
            "price_observation_id": lambda_price.pk,
            "snapshot_id": lambda_price.snapshot_id,
            "gpu_model": "H100 SXM",
        }
    ]


def test_the_page_lists_every_price_with_provider_as_of_date_and_source(link_path, anon):
    body = anon.get(link_path).content.decode()
    table = body[body.index('id="prices-table"') : body.index("</table>", body.index('id="prices-table"'))]

    for text in ("Lambda", "8-GPU instance", "$3.99", "2026-09-01", "https://lambda.ai/pricing", "us-east-1"):
        assert text in table


def test_a_finished_run_of_the_same_inputs_is_reused(
    editor, editor_client, scenario, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = run_queue(scenario=scenario, user=editor)

    create_link(editor_client, scenario)

    frozen = json.loads(DecisionSnapshot.objects.get().content)
    run.refresh_from_db()
    assert frozen["run_id"] == run.pk
    assert frozen["result"] == run.result
    assert frozen["figures"] == run.figures


def test_without_a_finished_run_the_link_is_evaluated_on_the_spot(editor_client, scenario):
    assert not ScenarioRun.objects.filter(status=RunStatus.DONE).exists()

    create_link(editor_client, scenario)

    frozen = json.loads(DecisionSnapshot.objects.get().content)
    assert frozen["run_id"] is None
    assert frozen["result"] == evaluate(scenario_document(scenario))


def test_a_finished_run_of_older_inputs_is_not_used(
    editor, editor_client, scenario, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        old_run = run_queue(scenario=scenario, user=editor)
    scenario_update_field(
        scenario=scenario, user=editor, field="discount_rate", value=Decimal("0.12"), expected_version=None
    )

    create_link(editor_client, scenario)

    frozen = json.loads(DecisionSnapshot.objects.get().content)
    assert frozen["run_id"] != old_run.pk
    assert frozen["document"]["discount_rate"] == 0.12
    assert frozen["result"] == evaluate(frozen["document"])


def test_a_scenario_the_engine_refuses_cannot_be_shared(editor, editor_client, scenario):
    option_add(scenario=scenario, user=editor, expected_version=None, kind="neocloud")  # its price still blank

    response, path = create_link(editor_client, scenario)

    assert response.status_code == 400
    assert "No link was created" in response.content.decode()
    assert "Neocloud rental → Price (USD per GPU-hour) is required" in response.content.decode()
    assert "options[" not in response.content.decode()
    assert path == ""
    assert not DecisionSnapshot.objects.exists()


def test_the_share_form_answers_htmx_with_the_panel(editor_client, scenario):
    response = editor_client.post(reverse("tco:link_create", args=[scenario.pk]), {}, HTTP_HX_REQUEST="true")

    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<section id="decision-panel"')
    assert "/d/" in body


def test_a_source_url_that_is_not_http_is_shown_as_text_not_as_a_link(editor, editor_client, anon):
    document = copy.deepcopy(DOCUMENT)
    document["options"][1]["price_source"] = {"provider": "Mallory", "source_url": "javascript:alert(document.cookie)"}
    scenario = scenario_create_from_document(document=document, user=editor)
    _, path = create_link(editor_client, scenario)

    body = anon.get(path).content.decode()

    assert 'href="javascript:' not in body
    assert "javascript:alert(document.cookie)" in body


def test_a_converted_price_is_frozen_with_its_original_and_rate_and_shown_beside_the_price(
    editor, editor_client, scenario, reference, anon
):
    from decimal import Decimal

    from pricing.models import ExchangeRate, PriceObservation
    from tco.services import option_pick_price
    from tests.decisions.conftest import create_link, import_prices

    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date="2026-08-31", source="ECB euro reference rates"
    )
    import_prices("Nebius,neocloud,H100 SXM,8,8-GPU EU,eu-north1,on_demand,,2.75,EUR,2026-09-01,")
    euro = PriceObservation.objects.select_related("provider").get(currency="EUR")
    option_pick_price(
        option=scenario.options.get(name="Lambda rental"), user=editor, expected_version=None, observation=euro
    )
    _response, path = create_link(editor_client, scenario)

    price = json.loads(DecisionSnapshot.objects.get().content)["prices"][0]
    assert (price["price"], price["currency"], price["gpu_model"]) == (2.97, "USD", "H100 SXM")
    assert {key: price[key] for key in ("original_price_per_gpu_hour", "original_currency", "fx_rate")} == {
        "original_price_per_gpu_hour": "2.75",
        "original_currency": "EUR",
        "fx_rate": "1.08",
    }
    body = anon.get(path).content.decode()
    assert "converted from EUR 2.75 at 1 EUR = 1.08 USD (ECB euro reference rates" in body
    assert '<time datetime="2026-08-31">2026-08-31</time>' in body
