"""An edit committed before a statement of its page ran out of time (the answer's reads, after the save) is said
to be saved, with its version, not "Nothing was changed"; and the user's next edit, sent with the version the page
still shows, is not a conflict with their own saved edit. In embedded mode the timeout is the error psycopg raises;
in scale-out mode a real PostgreSQL statement_timeout on the real answer's reads, with commits that really happen."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from tco.models import Scenario, ScenarioOption
from tco.web import responses

HTMX = {"HTTP_HX_REQUEST": "true"}


class _Cancelled(Exception):
    sqlstate = "57014"  # what psycopg's QueryCanceled carries


def _slow_answer(real):
    """The workspace's reads, run out of time after the edit committed: a real cancelled statement on PostgreSQL
    (a 50 ms limit, a 5 s sleep), psycopg's error on SQLite."""

    def answer(*args, **kwargs):
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET statement_timeout = 50")
                try:
                    cursor.execute("SELECT pg_sleep(5)")
                finally:
                    cursor.execute(f"SET statement_timeout = {settings.DATABASE_STATEMENT_TIMEOUT_MS}")
        raise OperationalError("canceling statement due to statement timeout") from _Cancelled()

    return answer


@pytest.fixture
def browser(editor) -> Client:
    client = Client(raise_request_exception=False)  # what a browser gets
    client.force_login(editor)
    return client


@pytest.mark.django_db(transaction=True)
def test_an_edit_saved_before_its_answer_timed_out_says_it_was_saved(browser, editor, monkeypatch, example_document):
    from tco.services import scenario_create_from_document

    scenario = scenario_create_from_document(document=example_document, user=editor)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    shown = scenario.version
    monkeypatch.setattr(responses, "workspace_context", _slow_answer(responses.workspace_context))
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    response = browser.post(url, {"capex": "$300,000", "version": shown}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 503
    assert ScenarioOption.objects.get(pk=owned.pk).capex == Decimal("300000")  # it was committed
    assert "Nothing was changed" not in html
    assert f"Your change was saved (version {shown + 1} of “{scenario.name}”)" in html
    assert response["X-Scenario-Version"] == str(shown + 1)

    # The page still shows the old version; the user's next edit is not a conflict with their own saved edit.
    monkeypatch.undo()
    response = browser.post(url, {"power_kw": "11", "version": shown}, **HTMX)
    assert response.status_code == 200
    assert "was not saved" not in response.content.decode()
    saved = ScenarioOption.objects.get(pk=owned.pk)
    assert (saved.capex, saved.power_kw) == (Decimal("300000"), Decimal("11"))
    assert Scenario.objects.get(pk=scenario.pk).version == shown + 2


@pytest.mark.django_db(transaction=True)
def test_another_users_save_in_between_is_still_a_conflict(browser, editor, django_user_model, example_document):
    from tco.services import option_update, scenario_create_from_document

    scenario = scenario_create_from_document(document=example_document, user=editor)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    shown = scenario.version
    other = django_user_model.objects.create_user("other-analyst", password="x")
    option_update(option=owned, user=other, expected_version=shown, field="capex", value=Decimal("310000"))
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    response = browser.post(url, {"power_kw": "11", "version": shown}, **HTMX)
    assert "was not saved" in response.content.decode()
    assert ScenarioOption.objects.get(pk=owned.pk).power_kw != Decimal("11")


@pytest.mark.django_db(transaction=True)
def test_a_timeout_before_anything_was_saved_still_says_nothing_was_changed(
    browser, editor, monkeypatch, example_document
):
    from tco.services import scenario_create_from_document
    from tco.web.views import editing

    scenario = scenario_create_from_document(document=example_document, user=editor)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    monkeypatch.setattr(editing, "option_update", _slow_answer(None))
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    response = browser.post(url, {"capex": "$300,000", "version": scenario.version}, **HTMX)
    assert response.status_code == 503
    assert "Nothing was changed" in response.content.decode()
    assert "X-Scenario-Version" not in response
