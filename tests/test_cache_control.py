"""Every answer to a signed-in user says ``Cache-Control: private`` (pages, htmx fragments, errors, the admin),
exports and downloads ``no-store`` too; public decision links and static files keep their own
(a shared cache must never hand one user's page to another).

The URL names come from the URL conf itself, so a view added later is covered (or this test names its argument).
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.cache import get_max_age

from tco.charts import snapshot as snapshot_output
from tco.services.decisions import link_create

HTMX = {"HTTP_HX_REQUEST": "true"}


def _url_names(resolver: URLResolver = None, namespace: str = "") -> list[tuple[str, list[str]]]:
    """(name, its URL arguments) of every named pattern, namespaces included."""
    found = []
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found += [(name, [*pattern.pattern.regex.groupindex, *args]) for name, args in _url_names(pattern, inner)]
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((f"{namespace}{pattern.name}", list(pattern.pattern.regex.groupindex)))
    return found


def _cache_control(response) -> set[str]:
    return {part.strip().split("=")[0] for part in response.get("Cache-Control", "").split(",") if part.strip()}


@pytest.fixture
def arguments(scenario, editor, run_jobs) -> dict[str, object]:
    option = scenario.options.first()
    link, token = link_create(scenario=scenario, user=editor, output=snapshot_output)
    return {
        "pk": scenario.pk,
        "option_pk": option.pk,
        "run_pk": scenario.runs.first().pk,
        "link_pk": link.pk,
        "item_pk": 1,
        "rule_pk": 1,
        "token": token,
        "what": "options.csv",
        "app_label": "pricing",
        "object_id": "1",
        "id": "1",
        "content_type_id": "1",
        "url": "nothing-here",
        "uidb64": "x",
        "stamp": 1,
    }


def test_every_url_answers_a_signed_in_user_privately(editor_client, arguments):
    names = _url_names()
    assert len(names) > 60 and "tco:scenario_detail" in dict(names)
    checked = []
    for name, args in names:
        missing = [arg for arg in args if arg not in arguments]
        assert not missing, f"{name} takes {missing}: give this test a value for it"
        url = reverse(name, kwargs={arg: arguments[arg] for arg in args})
        for extra in ({}, HTMX):
            response = editor_client.get(url, **extra)
            if name in ("decision_page", "decision_export"):
                continue  # public: its own headers, checked below
            assert "private" in _cache_control(response), (
                name,
                url,
                response.status_code,
                response.get("Cache-Control"),
            )
            checked.append(name)
    assert "tco:scenario_export" in checked and "admin:index" in checked


@pytest.mark.parametrize(
    "url",
    [
        "/scenarios/{pk}/export/",
        "/scenarios/{pk}/export/options.csv",
        "/scenarios/{pk}/export/monthly.csv",
        "/scenarios/{pk}/export/results.xlsx",
        "/market/import/template.csv",
    ],
)
def test_exports_are_not_stored_either(editor_client, arguments, url):
    response = editor_client.get(url.format(**arguments))
    assert response.status_code == 200, url
    assert response["Content-Disposition"].startswith("attachment")
    assert {"private", "no-store"} <= _cache_control(response)


def test_an_htmx_edit_answers_privately(editor_client, scenario):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    response = editor_client.post(url, {"discount_rate": "9%", "version": scenario.version}, **HTMX)
    assert response.status_code == 200
    assert "private" in _cache_control(response)


def test_public_answers_keep_their_own_headers(client, editor_client, arguments):
    link = f"/d/{arguments['token']}"
    for reader in (client, editor_client):
        assert reader.get(link)["Cache-Control"] == "private, no-store"
        assert reader.get(f"{link}/snapshot.json")["Cache-Control"] == "private, no-store"
    static = editor_client.get("/static/css/app.css")
    assert static.status_code == 200
    assert "private" not in _cache_control(static) and get_max_age(static)
