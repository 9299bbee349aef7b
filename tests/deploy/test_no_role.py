"""A signed-in user with no role (neither `viewers` nor `editors`) sees only a page asking for access, on every
named URL of the project, admin included; the public views (login, probes, decision links) stay public."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.views.defaults import server_error

from pricing.models import PriceObservation, PriceSnapshot
from tco.models import DecisionLink, Scenario, ScenarioRun, SecondaryDiligenceItem

ASK_FOR_ACCESS = 'id="no-role"'
PUBLIC = {
    "login",
    "logout",
    "healthz",
    "readyz",
    "admin:login",
    "admin:logout",
    "decision_page",
    "decision_export",
    "decision_not_found",
}
# Open to all, they hold no data (ninja also names the root address "api-root"; the index answers it).
API_DESCRIPTION = {"api:openapi-json", "api:openapi-view", "api:index", "api:api-root"}


def _named_patterns(patterns=None, namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _named_patterns(pattern.url_patterns, inner)
        elif pattern.name:
            yield f"{namespace}{pattern.name}", pattern


@pytest.fixture(scope="module")
def _demo_data(django_db_setup, django_db_blocker) -> Iterator[None]:
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("seed_demo", stdout=io.StringIO())
        yield
        transaction.set_rollback(True)


@pytest.fixture
def argument_values(_demo_data, db) -> dict[str, str]:
    """A real object for every URL argument, so a page that let the user through would show its data."""
    scenario = Scenario.objects.filter(options__kind="secondary").first()
    return {
        "scenario": str(scenario.pk),
        "observation": str(PriceObservation.objects.first().pk),
        "snapshot": str(PriceSnapshot.objects.first().pk),
        "run_pk": str(ScenarioRun.objects.filter(scenario=scenario).latest("id").pk),
        "option_pk": str(scenario.options.first().pk),
        "item_pk": str(SecondaryDiligenceItem.objects.filter(option__scenario=scenario).first().pk),
        "link_pk": str(DecisionLink.objects.first().pk if DecisionLink.objects.exists() else 1),
        "rule_pk": "1",
        "token": "not-a-token",
        "what": "options.csv",
        "stamp": "0",
        "app_label": "auth",
        "object_id": "1",
        "content_type_id": "1",
        "id": "1",
        "url": "nothing-here",
    }


def _url(name: str, pattern: URLPattern, values: dict[str, str]) -> str:
    names = list(getattr(pattern.pattern, "converters", {}) or pattern.pattern.regex.groupindex)
    kwargs = {}
    for argument in names:
        if argument == "pk":
            key = "observation" if name == "pricing:price_history" else "snapshot"
            kwargs[argument] = values["scenario" if name.startswith("tco:") else key]
        else:
            kwargs[argument] = values[argument]
    return reverse(name, kwargs=kwargs)


@pytest.fixture
def nobody(db) -> Client:
    user = User.objects.create_user("no-role-nora", password="pw-for-tests-1")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_every_named_url_shows_a_user_without_a_role_only_the_ask_for_access_page(nobody, argument_values):
    demo_names = list(Scenario.objects.values_list("name", flat=True))
    assert demo_names
    checked, problems = 0, []
    for name, pattern in _named_patterns():
        url = _url(name, pattern, argument_values)
        for method in ("get", "post"):
            if name in {"logout", "admin:logout"} and method == "post":
                continue  # logging out works for everyone; checked below
            response = getattr(nobody, method)(url)
            body = response.content.decode(errors="replace")
            if name.startswith("api:"):  # the API signs in by token only: a session, with a role or not, gets 401
                if name not in API_DESCRIPTION and response.status_code not in (401, 405):
                    problems.append(f"{method.upper()} {url} ({name}) answered {response.status_code}, not 401")
                if any(scenario_name in body for scenario_name in demo_names):
                    problems.append(f"{method.upper()} {url} ({name}) shows a scenario's name")
                checked += 1
                continue
            public = name in PUBLIC
            if public and ASK_FOR_ACCESS in body:
                problems.append(f"{method.upper()} {url} ({name}) is public but asked for access")
            if not public and (response.status_code != 403 or ASK_FOR_ACCESS not in body):
                problems.append(f"{method.upper()} {url} ({name}) answered {response.status_code} without asking")
            if any(scenario_name in body for scenario_name in demo_names):
                problems.append(f"{method.upper()} {url} ({name}) shows a scenario's name")
            checked += 1
    assert problems == []
    assert checked > 150  # the project's pages and the admin's


def test_the_ask_for_access_page_offers_no_navigation_but_logging_out(nobody, argument_values):
    response = nobody.get(reverse("pricing:market"))
    body = response.content.decode()
    assert "no role yet" in body
    assert reverse("pricing:market") not in body and reverse("tco:scenario_list") not in body
    assert nobody.post(reverse("logout")).status_code == 302
    assert "_auth_user_id" not in nobody.session


def test_viewers_and_editors_are_not_asked(viewer_client, argument_values):
    response = viewer_client.get(reverse("pricing:market"))
    assert response.status_code == 200
    assert ASK_FOR_ACCESS not in response.content.decode()


def test_a_missing_page_is_branded(editor_client):
    response = editor_client.get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Not found" in body and "GPU build vs rent" in body and 'href="/"' in body


def test_a_refused_action_is_branded_and_says_why(viewer_client, argument_values):
    response = viewer_client.post(reverse("tco:scenario_clone", args=[argument_values["scenario"]]))
    assert response.status_code == 403
    body = response.content.decode()
    assert "Not allowed" in body and "GPU build vs rent" in body


def test_the_server_error_page_needs_no_database_and_no_request_context():
    """No `db` fixture: any query raises. Django renders 500.html with an empty context."""
    response = server_error(RequestFactory().get("/"))
    body = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong" in body and "GPU build vs rent" in body and "/static/css/app.css" in body
