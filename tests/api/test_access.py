"""Who reaches the API and what they may do: bearer tokens (none or bad: 401), scopes and roles exactly as the pages
hold them, limits per token (429 with Retry-After), problems as application/problem+json, writes in the audit log."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from config.models import ApiToken
from config.tokens import api_token_create, api_token_revoke
from tests.api.conftest import ApiClient

PROBLEM = "application/problem+json"


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = json.loads(response.content)
    assert body["status"] == status and body["title"] and body["detail"] and isinstance(body["errors"], list)
    return body


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nonsense", "Basic dXNlcjpwYXNz", "Token gpc_x_y"])
def test_no_token_or_a_bad_one_is_a_401_problem(client, db, header):
    headers = {"Authorization": header} if header else {}
    response = client.get("/api/v1/scenarios", headers=headers)
    _problem(response, 401)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_signed_in_browser_session_is_not_an_api_token(editor_client):
    _problem(editor_client.get("/api/v1/scenarios"), 401)


def test_an_expired_token_is_a_401(client, editor):
    row, token = api_token_create(user=editor, name="ci", scope="read", expires_days=1)
    ApiToken.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    _problem(ApiClient(client, token).get("/api/v1/scenarios"), 401)


def test_a_revoked_token_is_a_401_from_the_next_request(client, editor):
    row, token = api_token_create(user=editor, name="ci", scope="read")
    api = ApiClient(client, token)
    assert api.get("/api/v1/scenarios").status_code == 200
    api_token_revoke(token=row, by=editor)
    _problem(api.get("/api/v1/scenarios"), 401)


def test_a_token_records_its_last_use(reader_api):
    reader_api.get("/api/v1/scenarios")
    assert ApiToken.objects.get().last_used_at is not None


def test_a_user_without_a_role_is_refused_with_a_403(make_api, django_user_model):
    nobody = django_user_model.objects.create_user("nobody", password="pw-for-tests-1")
    body = _problem(make_api(nobody, "write").get("/api/v1/scenarios"), 403)
    assert "no role" in body["detail"]


def test_viewers_and_editors_read_with_either_scope(make_api, editor, viewer, scenario):
    for user in (editor, viewer):
        for scope in ("read", "write"):
            assert make_api(user, scope).get(f"/api/v1/scenarios/{scenario.pk}").status_code == 200


def test_a_read_token_cannot_write_even_an_editors(reader_api, example_document):
    body = _problem(reader_api.post("/api/v1/scenarios", example_document), 403)
    assert "read scope" in body["detail"]


def test_a_viewers_token_cannot_write_even_with_write_scope(viewer_api, scenario):
    change = {"version": scenario.version, "inputs": {"discount_rate": 0.07}}
    body = _problem(viewer_api.patch(f"/api/v1/scenarios/{scenario.pk}", change), 403)
    assert "editor role" in body["detail"]


def test_a_viewer_made_editor_writes_with_the_same_token(viewer_api, viewer, scenario):
    viewer.groups.add(Group.objects.get(name="editors"))
    change = {"version": scenario.version, "inputs": {"discount_rate": 0.07}}
    assert viewer_api.patch(f"/api/v1/scenarios/{scenario.pk}", change).status_code == 200


@pytest.mark.parametrize("path", ["/admin/", "/admin/config/apitoken/", "/admin/tco/scenario/"])
def test_a_token_never_reaches_the_admin(client, django_user_model, path):
    root = django_user_model.objects.create_superuser("root", password="pw-for-tests-1")
    _, token = api_token_create(user=root, name="root token", scope="write")
    response = client.get(path, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_token_does_not_sign_in_the_pages(client, editor):
    _, token = api_token_create(user=editor, name="ci", scope="write")
    response = client.get("/scenarios/", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_requests_past_the_limit_get_a_429_with_retry_after(reader_api, settings, rate_clock):
    settings.API_REQUESTS_PER_MINUTE = 3
    for _ in range(3):
        assert reader_api.get("/api/v1/scenarios").status_code == 200
    response = reader_api.get("/api/v1/scenarios")
    body = _problem(response, 429)
    assert 1 <= int(response["Retry-After"]) <= 60 and "3 requests" in body["detail"]
    rate_clock[0] += 61
    assert reader_api.get("/api/v1/scenarios").status_code == 200


def test_the_limit_is_per_token(make_api, editor, settings, rate_clock):
    settings.API_REQUESTS_PER_MINUTE = 1
    first, second = make_api(editor), make_api(editor)
    assert first.get("/api/v1/scenarios").status_code == 200
    assert first.get("/api/v1/scenarios").status_code == 429
    assert second.get("/api/v1/scenarios").status_code == 200


def test_a_request_shape_problem_lists_each_field(editor_api, scenario):
    response = editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", {"version": "x", "inputs": {}})
    body = _problem(response, 422)
    assert {"version", "inputs"} <= {error["path"].split(".")[-1] for error in body["errors"]}


def test_an_unknown_scenario_is_a_404_problem(reader_api, db):
    _problem(reader_api.get("/api/v1/scenarios/999999"), 404)


def test_paths_have_no_trailing_slash(reader_api, db):
    assert reader_api.get("/api/v1/scenarios").status_code == 200
    assert reader_api.get("/api/v1/scenarios/").status_code == 404


def test_every_write_is_in_the_audit_log_with_the_tokens_name(editor_api, scenario, caplog):
    with caplog.at_level(logging.INFO, logger="config.audit"):
        editor_api.patch(f"/api/v1/scenarios/{scenario.pk}", {"version": scenario.version, "inputs": {"fleet_gpus": 9}})
        editor_api.get(f"/api/v1/scenarios/{scenario.pk}")
    events = [json.loads(record.getMessage()) for record in caplog.records if record.name == "config.audit"]
    assert len(events) == 1
    event = events[0]
    assert event["event"] == "api_write" and event["token"] == "write token of edna-editor"
    assert event["method"] == "PATCH" and event["status"] == 200 and event["username"] == "edna-editor"


def test_a_refused_write_is_in_the_audit_log_too(reader_api, example_document, caplog):
    with caplog.at_level(logging.INFO, logger="config.audit"):
        reader_api.post("/api/v1/scenarios", example_document)
    events = [json.loads(record.getMessage()) for record in caplog.records if record.name == "config.audit"]
    assert [(event["event"], event["status"]) for event in events] == [("api_write", 403)]


def test_the_description_and_the_docs_are_open_and_the_docs_load_nothing_from_elsewhere(client, db):
    description = client.get("/api/v1/openapi.json")
    assert description.status_code == 200 and json.loads(description.content)["openapi"].startswith("3.1")
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html and "cdn" not in html.lower()
    assert "<script>" not in html.replace(" ", "")  # no inline script: the Content-Security-Policy forbids it
    assert "script-src 'self'" in docs["Content-Security-Policy"]
    assert client.get("/static/ninja/swagger-ui-bundle.js").status_code == 200


def test_evaluating_a_document_stores_nothing_and_is_not_logged_as_a_write(reader_api, example_document, caplog):
    with caplog.at_level(logging.INFO, logger="config.audit"):
        assert reader_api.post("/api/v1/evaluate", example_document).status_code == 200
    assert not [record for record in caplog.records if record.name == "config.audit"]


def test_every_answer_is_private_to_its_client(reader_api, scenario, client):
    for response in (reader_api.get(f"/api/v1/scenarios/{scenario.pk}"), client.get("/api/v1/scenarios")):
        assert "private" in response["Cache-Control"]
    download = reader_api.get(f"/api/v1/scenarios/{scenario.pk}/exports/options.csv")
    assert "no-store" in download["Cache-Control"] and "private" in download["Cache-Control"]


def test_the_api_root_says_where_to_start_without_a_token(client, db):
    response = client.get("/api/v1/")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    index = json.loads(response.content)
    assert index["version"] == "1"
    assert json.loads(client.get(index["openapi"]).content)["info"]["version"] == "1"  # each link leads somewhere
    assert client.get(index["docs"]).status_code == 200
    assert client.get(index["tokens"]).status_code in (200, 302)  # the token page (sign-in first)


@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api/v2/scenarios", "/api/"])
def test_an_unknown_api_address_is_a_404_problem_not_the_site_s_page(client, db, path):
    body = _problem(client.get(path), 404)
    assert path in body["detail"] and "/api/v1/docs" in body["detail"]
