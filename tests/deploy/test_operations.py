"""What the load balancer and the operator rely on: probes, request logs, security headers, no inline scripts."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from django.db import OperationalError
from django.urls import reverse

from config import health
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_answers_without_login_or_database(client):
    response = client.get("/healthz")  # no `db` fixture: any query would raise
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_in_embedded_mode_needs_only_the_database(client, db, settings):
    settings.REDIS_URL = ""
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "down": [], "database": "ok", "broker": "not needed"}


def test_readyz_names_an_unreachable_broker(client, db, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "down", "down": ["broker"], "database": "ok", "broker": "down"}


def test_readyz_names_an_unreachable_database(client, db, settings, monkeypatch, caplog):
    settings.REDIS_URL = ""

    class Unreachable:
        def cursor(self):
            raise OperationalError("connection refused")

    monkeypatch.setattr(health, "connection", Unreachable())
    with caplog.at_level(logging.WARNING, logger="config.health"):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["down"] == ["database"]
    assert "connection refused" not in response.content.decode()  # details go to the log only
    assert "database is down: connection refused" in caplog.text


def _request_lines(caplog) -> list[dict]:
    return [json.loads(record.getMessage()) for record in caplog.records if record.name == "config.requests"]


def test_every_request_logs_one_line_with_its_id(editor_client, editor, caplog):
    with caplog.at_level(logging.INFO, logger="config.requests"):
        response = editor_client.get(reverse("tco:scenario_list"))
    [line] = _request_lines(caplog)
    assert re.fullmatch(r"[0-9a-f]{32}", line["request_id"])
    assert response["X-Request-ID"] == line["request_id"]
    assert {k: line[k] for k in ("method", "path", "status", "user_id")} == {
        "method": "GET",
        "path": "/scenarios/",
        "status": 200,
        "user_id": editor.pk,
    }
    assert isinstance(line["duration_ms"], float)
    assert line["duration_ms"] >= 0


@pytest.mark.parametrize(
    "incoming, kept",
    [("lb-7f3a.91:2", True), ("a" * 128, True), ("a" * 129, False), ("bad id", False), ("x\nforged", False)],
)
def test_an_incoming_request_id_is_kept_only_when_sane(client, db, caplog, incoming, kept):
    with caplog.at_level(logging.INFO, logger="config.requests"):
        response = client.get("/healthz", HTTP_X_REQUEST_ID=incoming)
    [line] = _request_lines(caplog)
    assert (line["request_id"] == incoming) is kept
    assert response["X-Request-ID"] == line["request_id"]
    assert line["user_id"] is None


def test_decision_link_tokens_are_masked_in_the_log(client, db, caplog):
    with caplog.at_level(logging.INFO, logger="config.requests"):
        client.get("/d/secret-token-value")
    [line] = _request_lines(caplog)
    assert line["path"] == "/d/<token>"
    assert line["status"] == 404


POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",  # only the app's own scripts: no inline script, no handler attributes, no eval
    "style-src": "'self' 'unsafe-inline'",  # plotly.js injects its stylesheet
    "img-src": "'self' data: blob:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


@pytest.mark.parametrize("path", ["/accounts/login/", "/d/" + "x" * 43, "/healthz", "/no-such-page/"])
def test_every_answer_carries_the_security_policies(client, db, path):
    response = client.get(path)
    policy = dict(part.split(" ", 1) for part in response["Content-Security-Policy"].split("; "))
    assert policy == POLICY
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]


SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
HANDLER_ATTRIBUTE = re.compile(r"<[^>]*\s(on[a-z]+|hx-on[:-][^=\s]*)\s*=", re.IGNORECASE)


def _inline_script_problems(html: str) -> list[str]:
    problems = []
    for attributes in SCRIPT_TAG.findall(html):
        if 'type="application/json"' in attributes:
            continue  # json_script data: not executed
        if not re.search(r'\ssrc="(/static/|\{% static )', attributes):  # templates hold the {% static %} tag
            problems.append(f"<script{attributes}> is inline or not from /static/")
    problems += [f"handler attribute {name}" for name in HANDLER_ATTRIBUTE.findall(html)]
    if "javascript:" in html.lower():
        problems.append("javascript: URL")
    return problems


def test_no_template_has_inline_scripts_or_handlers():
    problems = {
        str(path.relative_to(ROOT)): _inline_script_problems(path.read_text())
        for path in (ROOT / "templates").rglob("*.html")
    }
    assert {path: found for path, found in problems.items() if found} == {}


def test_rendered_pages_load_only_static_scripts(editor_client, editor):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=editor)
    for url in (
        reverse("tco:home"),
        reverse("tco:scenario_list"),
        reverse("tco:scenario_detail", args=[scenario.pk]),
        reverse("pricing:market"),
        reverse("pricing:snapshot_list"),
    ):
        html = editor_client.get(url).content.decode()
        assert _inline_script_problems(html) == [], url
        assert SCRIPT_TAG.search(html), url
