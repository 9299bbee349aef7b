"""The scenario endpoints do what the pages do, through the same services: evaluate, create, change (with the
version check), runs and results, exports, decision links."""

from __future__ import annotations

import copy
import io
import json
from decimal import Decimal

import openpyxl
import pytest

from tco.engine import evaluate
from tco.models import Scenario, ScenarioRun

PROBLEM = "application/problem+json"


def test_evaluate_answers_the_bare_result_the_engine_gives(reader_api, example_document):
    response = reader_api.post("/api/v1/evaluate", example_document)
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    answered = json.loads(response.content)
    expected = json.loads(json.dumps(evaluate(copy.deepcopy(example_document))))
    assert answered == expected
    assert not Scenario.objects.exists()  # nothing stored


def test_evaluate_lists_every_problem_with_its_path_and_the_pages_words(reader_api, example_document):
    example_document["options"][0]["capex"] = -1
    example_document["horizon_months"] = 0
    response = reader_api.post("/api/v1/evaluate", example_document)
    assert response.status_code == 422 and response["Content-Type"] == PROBLEM
    errors = {error["path"]: error for error in json.loads(response.content)["errors"]}
    assert errors["options[0].capex"]["message"].startswith("Own 8x H100 (new) → Capex")
    assert "negative" in errors["options[0].capex"]["message"]
    assert errors["horizon_months"]["message"].startswith("Horizon")
    assert all(error["code"] for error in errors.values())


def test_evaluate_refuses_a_body_that_is_not_an_object(reader_api, db):
    response = reader_api.post("/api/v1/evaluate", [1, 2])
    assert response.status_code == 422 and response["Content-Type"] == PROBLEM


def test_create_from_a_document_stores_it_and_reads_back_the_same_document(editor_api, example_document, run_jobs):
    with run_jobs():
        response = editor_api.post("/api/v1/scenarios", example_document)
    assert response.status_code == 201
    created = json.loads(response.content)
    assert created["version"] == 1 and created["owner"] == "edna-editor" and created["to_complete"] == []
    assert created["document"] == example_document
    assert [option["name"] for option in created["options"]] == [o["name"] for o in example_document["options"]]
    assert ScenarioRun.objects.get(scenario_id=created["id"]).status == "done"


def test_create_refuses_a_wrong_document_and_stores_nothing(editor_api, example_document):
    example_document["options"][1]["price_per_gpu_hour"] = "cheap"
    response = editor_api.post("/api/v1/scenarios", example_document)
    assert response.status_code == 422
    paths = [error["path"] for error in json.loads(response.content)["errors"]]
    assert "options[1].price_per_gpu_hour" in paths
    assert not Scenario.objects.exists()


def test_list_is_paginated_filtered_and_ordered(editor_api, editor, db):
    from tco.services import scenario_create

    for name in ("Gamma", "alpha", "Beta", "alphabet"):
        scenario_create(user=editor, name=name)
    page = json.loads(editor_api.get("/api/v1/scenarios", {"ordering": "name", "limit": 2}).content)
    assert page["count"] == 4 and page["limit"] == 2 and page["offset"] == 0
    assert [item["name"] for item in page["items"]] == ["Beta", "Gamma"]  # as the database orders text
    rest = json.loads(editor_api.get("/api/v1/scenarios", {"ordering": "name", "limit": 2, "offset": 2}).content)
    assert [item["name"] for item in rest["items"]] == ["alpha", "alphabet"]
    found = json.loads(editor_api.get("/api/v1/scenarios", {"name": "ALPHA", "ordering": "-name"}).content)
    assert [item["name"] for item in found["items"]] == ["alphabet", "alpha"]
    assert editor_api.get("/api/v1/scenarios", {"limit": 1001}).status_code == 422
    assert editor_api.get("/api/v1/scenarios", {"ordering": "password"}).status_code == 422


def test_a_change_saves_each_input_as_the_page_does_and_bumps_the_version(editor_api, scenario, run_jobs):
    change = {"version": scenario.version, "inputs": {"discount_rate": 0.06, "workload.acceptance_rate": 0.8}}
    with run_jobs():
        response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", change)
    assert response.status_code == 200
    body = json.loads(response.content)
    assert body["version"] == scenario.version + 2
    assert body["document"]["discount_rate"] == 0.06 and body["document"]["workload"]["acceptance_rate"] == 0.8
    scenario.refresh_from_db()
    assert scenario.discount_rate == Decimal("0.06")


def test_a_stale_version_is_a_409_and_nothing_is_saved(editor_api, scenario):
    stale = scenario.version
    first = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", {"version": stale, "inputs": {"fleet_gpus": 9}})
    assert first.status_code == 200
    response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", {"version": stale, "inputs": {"fleet_gpus": 10}})
    assert response.status_code == 409 and response["Content-Type"] == PROBLEM
    assert "changed by someone else" in json.loads(response.content)["detail"]
    scenario.refresh_from_db()
    assert scenario.fleet_gpus == 9 and scenario.version == stale + 1


def test_a_change_is_all_or_nothing(editor_api, scenario):
    change = {"version": scenario.version, "inputs": {"fleet_gpus": 9, "horizon_months": 0}}
    response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", change)
    assert response.status_code == 422
    assert json.loads(response.content)["errors"][0]["path"] == "horizon_months"
    scenario.refresh_from_db()
    assert scenario.fleet_gpus == 8 and scenario.version == 1


@pytest.mark.parametrize(
    ("inputs", "path"),
    [({"capex": 1}, "capex"), ({"currency": "EUR"}, "currency"), ({"fleet_gpus": "many"}, "fleet_gpus")],
)
def test_a_change_names_the_input_it_refuses(editor_api, scenario, inputs, path):
    response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", {"version": scenario.version, "inputs": inputs})
    assert response.status_code == 422
    assert [error["path"] for error in json.loads(response.content)["errors"]] == [path]


def test_an_option_change_goes_through_the_option_service(editor_api, scenario):
    option = scenario.options.get(kind="owned")
    change = {"version": scenario.version, "inputs": {"capex": 300000, "name": "Own 8x H100 (quoted)"}}
    response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}/options/{option.pk}", change)
    assert response.status_code == 200
    owned = json.loads(response.content)["document"]["options"][0]
    assert owned["capex"] == 300000 and owned["name"] == "Own 8x H100 (quoted)"
    refused = editor_api.patch(
        f"/api/v1/scenarios/{scenario.pk}/options/{option.pk}",
        {"version": scenario.version + 2, "inputs": {"capex": -5}},
    )
    assert refused.status_code == 422
    assert "Capex" in json.loads(refused.content)["errors"][0]["message"]


def test_runs_and_results(reader_api, scenario):
    runs = json.loads(reader_api.get(f"/api/v1/scenarios/{scenario.pk}/runs").content)
    assert runs["count"] == 1 and runs["items"][0]["status"] == "done"
    run = json.loads(reader_api.get(f"/api/v1/scenarios/{scenario.pk}/runs/{runs['items'][0]['id']}").content)
    assert run["result"]["schema"] == "tco-result/1"
    results = json.loads(reader_api.get(f"/api/v1/scenarios/{scenario.pk}/results").content)
    assert results["run_id"] == run["id"] and results["result"] == run["result"]
    assert reader_api.get(f"/api/v1/scenarios/{scenario.pk}/runs", {"status": "failed"}).json()["count"] == 0


def test_results_of_inputs_that_cannot_be_evaluated_are_a_409_saying_why(reader_api, editor):
    from tco.services import scenario_create

    blank = scenario_create(user=editor, name="Blank")
    response = reader_api.get(f"/api/v1/scenarios/{blank.pk}/results")
    assert response.status_code == 409 and json.loads(response.content)["errors"]


@pytest.mark.parametrize("what", ["options.csv", "monthly.csv"])
def test_csv_exports_are_the_pages_files(reader_api, editor_client, scenario, what):
    response = reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/{what}")
    page = editor_client.get(f"/scenarios/{scenario.pk}/export/{what}")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response.content == page.content


def test_the_workbook_and_the_document_export(reader_api, scenario, example_document):
    workbook = reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/results.xlsx")
    assert workbook.status_code == 200
    assert workbook["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert len(openpyxl.load_workbook(io.BytesIO(workbook.content)).sheetnames) > 1
    document = reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/document.json")
    assert json.loads(document.content) == example_document


def test_a_simulation_export_without_a_simulation_is_a_409(reader_api, scenario):
    response = reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/simulation.csv")
    assert response.status_code == 409 and "no simulation" in json.loads(response.content)["detail"]


def test_an_unknown_export_is_refused(reader_api, scenario):
    assert reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/passwords.csv").status_code == 422


def test_decision_links_are_created_listed_and_revoked(editor_api, client, scenario):
    created = editor_api.post(f"/api/v1/scenarios/{scenario.pk}/links", {"expires_in_days": 7, "note": "board"})
    assert created.status_code == 201
    link = json.loads(created.content)
    path = link["url"].removeprefix("http://testserver")
    assert client.get(path).status_code == 200
    listed = json.loads(editor_api.get(f"/api/v1/scenarios/{scenario.pk}/links").content)
    assert [(item["id"], item["status"], item["note"]) for item in listed] == [(link["id"], "active", "board")]
    assert "url" not in listed[0]  # the token is shown once
    revoked = editor_api.delete(f"/api/v1/scenarios/{scenario.pk}/links/{link['id']}")
    assert revoked.status_code == 200 and json.loads(revoked.content)["status"] == "revoked"
    assert client.get(path).status_code == 404


def test_a_link_outside_1_to_365_days_is_refused(editor_api, scenario):
    response = editor_api.post(f"/api/v1/scenarios/{scenario.pk}/links", {"expires_in_days": 366})
    assert response.status_code == 422


def test_a_viewer_lists_links_but_cannot_make_or_revoke_one(viewer_api, scenario):
    assert viewer_api.get(f"/api/v1/scenarios/{scenario.pk}/links").status_code == 200
    assert viewer_api.post(f"/api/v1/scenarios/{scenario.pk}/links", {}).status_code == 403
    assert viewer_api.delete(f"/api/v1/scenarios/{scenario.pk}/links/1").status_code == 403


def test_the_published_schema_accepts_the_example_and_refuses_an_unknown_field(reader_api, example_document):
    import jsonschema_rs

    schema = json.loads(reader_api.get("/api/v1/schemas/tco-scenario-1").content)
    validator = jsonschema_rs.validator_for(schema)
    assert validator.is_valid(example_document)
    example_document["options"][0]["colour"] = "red"
    assert not validator.is_valid(example_document)
