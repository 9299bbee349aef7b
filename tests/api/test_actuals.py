"""The actuals endpoints: attach the decided plan, upload a bills file, read plan against actual and the verdict, keep
mapping rules, re-forecast from the actuals; roles and scopes as the other writes; every write in the audit log with
the token's name."""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from tco.documents import scenario_document
from tco.models import ActualsImport, ActualsPlan, MappingRule, Scenario
from tco.selectors.actuals import plan_comparison
from tco.services.actuals import actuals_import
from tests.actuals import conftest as actuals_fixtures
from tests.actuals.story import MEASURED, MONTHS, OWN, RENT, dcgm_scrape

FOCUS = Path(__file__).parent.parent / "actuals" / "samples" / "focus-1.0-sample-excerpt.csv"
owner, plan = actuals_fixtures.owner, actuals_fixtures.plan  # the decided scenario with actuals attached
SEPTEMBER = pytest.mark.parametrize("plan", ["2024-09"], indirect=True)


def _focus_total() -> float:
    rows = csv.DictReader(io.StringIO(FOCUS.read_text()))
    return sum(float(row["BilledCost"]) for row in rows if row["BilledCost"] != "NULL")


def _writes(caplog) -> list[tuple[str, str, int]]:
    events = [json.loads(record.getMessage()) for record in caplog.records if record.name == "config.audit"]
    return [(event["token"], event["method"], event["status"]) for event in events if event["event"] == "api_write"]


def _upload(api, pk: int, data: bytes, name: str, **form):
    upload = io.BytesIO(data)
    upload.name = name
    return api.post(f"/api/v1/scenarios/{pk}/actuals/imports", data={"file": upload, **form})


@pytest.fixture
def owner_api(make_api, owner):
    return make_api(owner, "write")


def test_without_a_token_nothing_is_read_or_written(client, plan):
    assert client.get(f"/api/v1/scenarios/{plan.scenario_id}/actuals").status_code == 401
    upload = io.BytesIO(FOCUS.read_bytes())
    upload.name = FOCUS.name
    response = client.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/imports", {"file": upload})
    assert response.status_code == 401
    assert not ActualsImport.objects.exists()


def test_a_read_token_and_a_viewer_read_but_cannot_write(make_api, owner, viewer, plan):
    for api in (make_api(owner, "read"), make_api(viewer, "write")):
        assert api.get(f"/api/v1/scenarios/{plan.scenario_id}/actuals").status_code == 200
        response = _upload(api, plan.scenario_id, FOCUS.read_bytes(), FOCUS.name)
        assert response.status_code == 403
        assert response["Content-Type"] == "application/problem+json"
        rule = {"option_name": OWN, "provider": "AWS"}
        assert api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules", rule).status_code == 403
        first = plan.rules.first()
        assert api.delete(f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules/{first.pk}").status_code == 403
    assert not ActualsImport.objects.exists()
    assert plan.rules.count() == 2


@SEPTEMBER
def test_the_focus_sample_uploads_once_and_the_variance_is_the_selectors(owner_api, plan, caplog):
    caplog.set_level(logging.INFO, logger="config.audit")
    owner_api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules", {"option_name": RENT, "provider": "AWS"})
    response = _upload(owner_api, plan.scenario_id, FOCUS.read_bytes(), FOCUS.name)
    assert response.status_code == 201, response.content
    body = response.json()
    record = ActualsImport.objects.get()
    assert body["id"] == record.pk and body["created"] is True and body["kind"] == "focus"
    assert body["rows_read"] == 272  # the sample's data lines (273 with its header)
    assert body["message"].startswith(f"{FOCUS.name}: 272 rows imported into {record.lines_kept:,} lines")
    again = _upload(owner_api, plan.scenario_id, FOCUS.read_bytes(), FOCUS.name)
    assert again.status_code == 200 and again.json()["created"] is False
    assert ActualsImport.objects.count() == 1

    read = owner_api.get(f"/api/v1/scenarios/{plan.scenario_id}/actuals").json()
    view = plan_comparison(plan)
    comparison = view.comparison
    assert read["chosen"] == OWN == comparison.chosen
    assert [option["name"] for option in read["options"]] == [
        OWN,
        *(o.name for o in comparison.options if o.name != OWN),
    ]
    assert read["verdict"]["text"] == comparison.verdict.text and read["verdict"]["holds"] == comparison.verdict.holds
    for option in comparison.options:
        shown = next(item for item in read["options"] if item["name"] == option.name)
        assert shown["chosen"] is (option.name == OWN)
        for row, month in zip(option.months, shown["months"], strict=True):
            assert month["month"] == row.month
            for name in ("cost", "busy_gpu_hours", "utilization", "price_per_gpu_hour", "cost_per_accepted_output"):
                for side in ("plan", "actual", "variance"):
                    assert month[side][name] == pytest.approx(getattr(getattr(row, side), name)), (side, name)
            expected = comparison.break_even_by_month.get(row.month) if option.name == OWN else None
            assert month["break_even"] == pytest.approx(expected)
        assert shown["actual_to_date"]["cost"] == pytest.approx(option.actual_to_date.cost)
    rent = next(item for item in read["options"] if item["name"] == RENT)
    september = rent["months"][0]
    assert september["month"] == "2024-09" and september["month_text"] == "September 2024"
    # Every AWS row goes to the rental; what the sample bills from other providers stays unmapped, never dropped.
    assert september["actual"]["cost"] + read["unmapped_cost"] == pytest.approx(_focus_total())
    assert read["unmapped_cost"] == pytest.approx(view.unmapped_cost)
    assert read["unmapped_cost"] > 0

    listed = owner_api.get("/api/v1/actuals/imports", {"kind": "focus"}).json()
    assert listed["count"] == 1 and listed["items"][0]["file_name"] == FOCUS.name
    assert owner_api.get("/api/v1/actuals/imports", {"kind": "dcgm"}).json()["count"] == 0
    token = "write token of olga-owner"
    assert _writes(caplog) == [(token, "POST", 201), (token, "POST", 201), (token, "POST", 200)]  # reads are not logged


def test_a_refused_file_answers_a_problem_naming_what_is_wrong(owner_api, plan):
    response = _upload(owner_api, plan.scenario_id, b"hello,world\n1,2\n", "notes.csv")
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["detail"] == "Nothing was imported; the problem is listed."
    assert [(error["path"], error["code"]) for error in problem["errors"]] == [("file", "refused")]
    assert problem["errors"][0]["message"].startswith("notes.csv was not imported")
    assert not ActualsImport.objects.exists()


def test_a_bad_focus_row_is_refused_with_its_line_and_column(owner_api, plan):
    header = FOCUS.read_text().splitlines()[0]
    row = next(csv.reader([FOCUS.read_text().splitlines()[1]]))
    columns = next(csv.reader([header]))
    row[columns.index("BilledCost")] = "lots"
    out = io.StringIO()
    csv.writer(out).writerow(row)
    response = _upload(owner_api, plan.scenario_id, f"{header}\n{out.getvalue()}".encode(), "bad.csv")
    assert response.status_code == 422
    problem = response.json()
    assert problem["detail"] == "bad.csv was not imported; each problem is listed."
    assert [error["message"] for error in problem["errors"]] == ["Line 2, column BilledCost: 'lots' is not a number."]
    assert not ActualsImport.objects.exists()


def test_a_month_not_written_yyyy_mm_is_refused(owner_api, plan):
    response = _upload(owner_api, plan.scenario_id, FOCUS.read_bytes(), FOCUS.name, month="Sept")
    assert response.status_code == 422
    assert "YYYY-MM" in response.json()["errors"][0]["message"]


def test_a_mapping_rule_round_trip(owner_api, plan, caplog):
    caplog.set_level(logging.INFO, logger="config.audit")
    base = f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules"
    made = owner_api.post(base, {"option_name": RENT, "provider": " AWS ", "sku": "4GQWNPC9K2PZAY97"})
    assert made.status_code == 201, made.content
    rule = made.json()
    assert rule["provider"] == "AWS" and rule["option_name"] == RENT and rule["position"] == 3
    listed = owner_api.get(base).json()
    assert listed["count"] == 3 and [item["position"] for item in listed["items"]] == [1, 2, 3]
    assert [item["id"] for item in owner_api.get(base, {"ordering": "-position", "limit": 1}).json()["items"]] == [
        rule["id"]
    ]
    assert owner_api.get(base, {"option": RENT}).json()["count"] == 1
    assert owner_api.delete(f"{base}/{rule['id']}").status_code == 204
    assert not MappingRule.objects.filter(pk=rule["id"]).exists()
    assert owner_api.delete(f"{base}/{rule['id']}").status_code == 404
    token = "write token of olga-owner"
    assert _writes(caplog) == [(token, "POST", 201), (token, "DELETE", 204), (token, "DELETE", 404)]


def test_a_rule_the_service_refuses_answers_its_words(owner_api, plan):
    base = f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules"
    response = owner_api.post(base, {"option_name": "Nobody", "provider": "AWS"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "option_name"
    assert "one of the decided scenario's options" in response.json()["detail"]
    response = owner_api.post(base, {"option_name": OWN})
    assert response.status_code == 422 and "at least one" in response.json()["detail"]
    assert plan.rules.count() == 2


def test_an_unknown_scenario_or_one_without_a_plan_is_not_found(owner_api, plan, scenario):
    assert owner_api.get("/api/v1/scenarios/999999/actuals").status_code == 404
    assert _upload(owner_api, 999999, FOCUS.read_bytes(), FOCUS.name).status_code == 404
    response = owner_api.get(f"/api/v1/scenarios/{scenario.pk}/actuals")
    assert response.status_code == 404 and "no decided plan" in response.json()["detail"]
    assert owner_api.get(f"/api/v1/scenarios/{scenario.pk}/actuals/rules").status_code == 404
    other_rule = plan.rules.first()
    assert owner_api.delete(f"/api/v1/scenarios/{scenario.pk}/actuals/rules/{other_rule.pk}").status_code == 404
    assert MappingRule.objects.filter(pk=other_rule.pk).exists()


def test_a_file_over_the_pages_limit_is_refused_with_the_pages_words(owner_api, plan, monkeypatch):
    monkeypatch.setattr("tco.services.actuals.UPLOAD_MAX_BYTES", 2**20)  # 1 MB, so a small file is over it
    response = _upload(owner_api, plan.scenario_id, b"x" * (2**20 + 1), "big.csv")
    assert response.status_code == 413
    assert response.json()["detail"] == (
        "big.csv is larger than 1 MB: import it with `manage.py import_billing PATH` (or import_utilization), "
        "which streams any size."
    )
    assert not ActualsImport.objects.exists()


# --- attach the decided plan, re-forecast from the actuals ---------------------------------------------------------


def _measured() -> None:
    """Nine months of the decided option's GPU use (the end-to-end story: 75 % busy for six months, then 40 %)."""
    for month, share in zip(MONTHS, MEASURED, strict=True):
        actuals_import(stream=io.BytesIO(dcgm_scrape(share)), file_name=f"dcgm-{month}.prom", month=month)


def _as_the_page_does(user, name: str, pk: int, form: dict | None = None):
    """What the Actuals page's form ``name`` leaves behind (the plan, the scenario's document), then undone."""
    page = Client()
    page.force_login(user)
    with transaction.atomic():
        response = page.post(reverse(f"tco:{name}", args=[pk]), form or {})
        assert response.status_code == 302
        made = ActualsPlan.objects.get(scenario_id=pk)
        left = (_frozen(made), scenario_document(Scenario.objects.get(pk=pk)))
        transaction.set_rollback(True)
    return left


def _frozen(plan: ActualsPlan) -> tuple:
    return plan.decision_id, plan.start_month, plan.months_in_a_row, plan.document, plan.result


def test_attaching_the_plan_freezes_what_the_page_freezes(owner_api, owner, plan, caplog):
    caplog.set_level(logging.INFO, logger="config.audit")
    pk = plan.scenario_id
    plan.delete()
    expected, _ = _as_the_page_does(owner, "actuals_attach", pk, {"start_month": "2027-03", "months_in_a_row": "4"})
    assert not ActualsPlan.objects.exists()  # the page's plan was undone

    response = owner_api.post(f"/api/v1/scenarios/{pk}/actuals/plan", {"start_month": "2027-03", "months_in_a_row": 4})
    assert response.status_code == 201, response.content
    body = response.json()
    attached = ActualsPlan.objects.get(scenario_id=pk)
    assert _frozen(attached) == expected
    assert body["scenario_id"] == pk and body["scenario_version"] == attached.scenario.version
    assert body["decided"] == OWN and body["start_month"] == "2027-03" and body["months_in_a_row"] == 4
    assert body["created"] is True and body["rules"] == 0
    assert body["message"] == "The decided plan is frozen here: actuals are now held against it."
    assert body["actuals_url"] == f"http://testserver/api/v1/scenarios/{pk}/actuals"
    assert body["rules_url"] == f"http://testserver/api/v1/scenarios/{pk}/actuals/rules"
    read = owner_api.get(body["actuals_url"])
    assert read.status_code == 200 and read.json()["start_month"] == "2027-03"
    assert _writes(caplog) == [("write token of olga-owner", "POST", 201)]


def test_attaching_again_freezes_the_plan_again_and_keeps_the_rules(owner_api, plan):
    response = owner_api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/plan", {"start_month": "2027-02"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["created"] is False and body["rules"] == 2 and body["months_in_a_row"] == 3
    plan.refresh_from_db()
    assert plan.start_month == "2027-02" and plan.rules.count() == 2


def test_a_scenario_not_decided_has_no_plan_to_attach(owner_api, scenario):
    response = owner_api.post(f"/api/v1/scenarios/{scenario.pk}/actuals/plan", {"start_month": "2027-01"})
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == "Decide the scenario first: actuals are held against a decision."
    assert not ActualsPlan.objects.filter(scenario=scenario).exists()


def test_a_month_the_plan_cannot_start_in_is_refused_in_the_pages_words(owner_api, plan):
    base = f"/api/v1/scenarios/{plan.scenario_id}/actuals/plan"
    response = owner_api.post(base, {"start_month": "March"})
    assert response.status_code == 422
    problem = response.json()
    assert problem["detail"] == "Write the month as YYYY-MM (e.g. 2027-01); got 'March'."
    assert [(error["path"], error["code"]) for error in problem["errors"]] == [("start_month", "invalid")]
    response = owner_api.post(base, {"start_month": "2027-02", "months_in_a_row": 25})
    assert response.status_code == 422 and response.json()["errors"][0]["path"] == "body.months_in_a_row"
    plan.refresh_from_db()
    assert plan.start_month == "2027-01" and plan.months_in_a_row == 3


def test_a_read_token_and_a_viewer_can_neither_attach_nor_reforecast(make_api, owner, viewer, plan):
    _measured()
    version = plan.scenario.version
    for api in (make_api(owner, "read"), make_api(viewer, "write")):
        attach = api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/plan", {"start_month": "2027-05"})
        reforecast = api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/reforecast", {})
        for response in (attach, reforecast):
            assert response.status_code == 403
            assert response["Content-Type"] == "application/problem+json"
    plan.refresh_from_db()
    assert plan.start_month == "2027-01"
    assert Scenario.objects.get(pk=plan.scenario_id).version == version


def test_the_reforecast_is_the_pages_and_starts_from_the_measured_months(owner_api, owner, plan, caplog):
    caplog.set_level(logging.INFO, logger="config.audit")
    _measured()
    pk = plan.scenario_id
    before = Scenario.objects.get(pk=pk).version
    _, expected = _as_the_page_does(owner, "actuals_reforecast", pk)
    assert Scenario.objects.get(pk=pk).version == before  # the page's re-forecast was undone

    response = owner_api.post(f"/api/v1/scenarios/{pk}/actuals/reforecast", {"version": before})
    assert response.status_code == 200, response.content
    body = response.json()
    fresh = Scenario.objects.get(pk=pk)
    assert scenario_document(fresh) == expected
    assert body["id"] == pk and body["version"] == fresh.version == before + 1
    assert body["url"] == f"http://testserver/api/v1/scenarios/{pk}"
    assert body["message"].startswith(f"Re-forecast: version {before + 1}'s utilization starts from the measured")
    assert body["document"]["utilization"][:9] == pytest.approx(MEASURED)
    assert body["document"]["utilization"][9:] == pytest.approx([0.75] * 15)  # the months ahead keep the forecast
    assert owner_api.get(body["url"]).json()["version"] == before + 1
    plan.refresh_from_db()
    assert plan.document["utilization"] == [0.75]  # what was decided stays frozen
    assert _writes(caplog) == [("write token of olga-owner", "POST", 200)]


def test_a_reforecast_without_a_version_reforecasts_the_current_one(owner_api, plan):
    _measured()
    before = Scenario.objects.get(pk=plan.scenario_id).version
    path = f"/api/v1/scenarios/{plan.scenario_id}/actuals/reforecast"
    response = owner_api.post(path, {})
    assert response.status_code == 200, response.content
    assert response.json()["version"] == before + 1
    # No body at all (`curl -X POST`) is the same: the version is optional.
    bare = owner_api.client.generic("POST", path, b"", headers={"Authorization": f"Bearer {owner_api.token}"})
    assert bare.status_code == 200, bare.content
    assert bare.json()["version"] == before + 2


def test_a_reforecast_from_a_stale_version_is_a_409_and_nothing_is_saved(owner_api, editor_api, plan):
    _measured()
    pk = plan.scenario_id
    stale = Scenario.objects.get(pk=pk).version
    changed = editor_api.patch(f"/api/v1/scenarios/{pk}", {"version": stale, "inputs": {"discount_rate": 0.06}})
    assert changed.status_code == 200, changed.content
    response = owner_api.post(f"/api/v1/scenarios/{pk}/actuals/reforecast", {"version": stale})
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert f"you edited version {stale}" in response.json()["detail"]
    scenario = Scenario.objects.get(pk=pk)
    assert scenario.version == stale + 1 and scenario.forecast_kind != "pasted"


def test_nothing_measured_yet_or_no_plan_is_refused_saying_so(owner_api, plan, scenario):
    before = Scenario.objects.get(pk=plan.scenario_id).version
    response = owner_api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/reforecast", {})
    assert response.status_code == 409
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == ("No measured utilization yet: import GPU use (or bills with GPU-hours) first.")
    assert Scenario.objects.get(pk=plan.scenario_id).version == before
    response = owner_api.post(f"/api/v1/scenarios/{scenario.pk}/actuals/reforecast", {})
    assert response.status_code == 404
    assert response.json()["detail"].startswith(f"Scenario {scenario.pk} has no decided plan attached: attach it")
    assert owner_api.post("/api/v1/scenarios/999999/actuals/reforecast", {}).status_code == 404


def test_a_reforecast_the_scenario_refuses_is_a_409_listing_why(owner_api, plan, monkeypatch):
    _measured()
    before = Scenario.objects.get(pk=plan.scenario_id).version
    # A measured share no forecast takes (the scrapes cannot give one): the scenario's own check refuses it.
    monkeypatch.setattr("tco.services.actuals.reforecast_utilization", lambda *args: [1.5] * 24)
    response = owner_api.post(f"/api/v1/scenarios/{plan.scenario_id}/actuals/reforecast", {})
    assert response.status_code == 409, response.content
    problem = response.json()
    assert (
        problem["detail"] == "The re-forecast does not fit the scenario; nothing was changed, each problem is listed."
    )
    assert problem["errors"] and all(error["path"].startswith("utilization") for error in problem["errors"])
    assert Scenario.objects.get(pk=plan.scenario_id).version == before


@pytest.mark.parametrize("data", [{}, {"option_name": RENT, "provider": "AWS"}])
def test_a_json_operation_sent_a_form_answers_a_415_problem_not_a_500(owner_api, plan, data):
    base = f"/api/v1/scenarios/{plan.scenario_id}/actuals/rules"
    response = owner_api.post(base, data=data)  # multipart, as a form would send it
    assert response.status_code == 415, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert "application/json" in response.json()["detail"]
    assert not MappingRule.objects.filter(provider="AWS", option_name=RENT, position=3).exists()
