"""The scenario page of an unchanged scenario is served from Django's cache (tco.web.page_cache), yet every change
shows at once, every reader gets their own name, role and CSRF token (never another's), and messages show once."""

from __future__ import annotations

import datetime
import re
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing.models import GpuModel, Provider
from tco.models import RunStatus, Scenario, ScenarioRun
from tco.services import option_pick_price, scenario_update_field
from tco.tasks import scenario_evaluate
from tco.web.viewmodels.workspace import workspace_context
from tests.scenarios import factories
from tests.scenarios.workspace_html import Workspace

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ANY_TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")


def _page(client, scenario) -> str:
    response = client.get(reverse("tco:scenario_detail", args=[scenario.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _signed_in(username: str, group: str, **flags) -> Client:
    user = User.objects.create_user(username=username, password="pw-for-tests-1", **flags)
    user.groups.add(Group.objects.get(name=group))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def test_a_repeat_view_is_the_sign_in_queries_and_one_stamp_query_and_renders_nothing_again(editor_client, scenario):
    first = _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as queries:
        second = _page(editor_client, scenario)
    # the user, their roles (the session comes from the cache), the scenario's stamp: no read the workspace needs
    assert len(queries) == 3, [q["sql"][:80] for q in queries]
    assert not [q for q in queries if "figures" in q["sql"]]
    assert ANY_TOKEN.sub("", first) == ANY_TOKEN.sub("", second)  # the same page, but for the token


def test_each_reader_gets_their_own_name_and_a_csrf_token_that_works(db, scenario):
    first = _signed_in("ann-editor", "editors")
    second = _signed_in("bob-editor", "editors", is_staff=True)
    _page(first, scenario)
    html = _page(second, scenario)

    assert '<span class="who">bob-editor</span>' in html and "ann-editor" not in html
    assert ">Admin</a>" in html  # bob is staff; ann's shell is not reused
    assert ">Admin</a>" not in _page(first, scenario)
    token = TOKEN.search(html).group(1)
    assert f'"X-CSRFToken": "{token}"' in html  # one token per response, as Django's own pages have
    clone = second.post(reverse("tco:scenario_clone", args=[scenario.pk]), {"csrfmiddlewaretoken": token})
    assert clone.status_code == 302 and Scenario.objects.count() == 2


def test_no_reader_ever_gets_another_readers_name_or_csrf_token(db, scenario):
    readers = [_signed_in(f"reader-{n}", "editors") for n in range(3)]
    pages = [_page(reader, scenario) for reader in readers]
    tokens = [TOKEN.search(html).group(1) for html in pages]
    assert len(set(tokens)) == 3
    for n, html in enumerate(pages):
        others = [f"reader-{m}" for m in range(3) if m != n]
        assert not any(f">{name}<" in html for name in others)
        assert not any(token in html for m, token in enumerate(tokens) if m != n)
        assert set(ANY_TOKEN.findall(html)) == {tokens[n]}  # the one token in the page is the reader's own


def test_the_workspace_posts_its_edits_with_the_readers_header_token(db, scenario):
    """The kept workspace holds no token: its forms post through htmx, with the token of the page around it."""
    reader = _signed_in("ann-editor", "editors")
    html = _page(reader, scenario)
    token = re.search(r'"X-CSRFToken": "([^"]+)"', html).group(1)
    url = reverse("tco:scenario_field", args=[scenario.pk])
    response = reader.post(url, {"fleet_gpus": "9", "version": 1}, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200 and Scenario.objects.get(pk=scenario.pk).fleet_gpus == 9


def test_a_viewer_never_gets_the_editors_page_nor_the_other_way_round(db, scenario):
    editor, viewer = _signed_in("ann-editor", "editors"), _signed_in("val-viewer", "viewers")
    clone = reverse("tco:scenario_clone", args=[scenario.pk])
    assert clone in _page(editor, scenario)
    html = _page(viewer, scenario)
    assert clone not in html and "editing needs the editor role" in html and 'id="add-gpu"' not in html
    assert clone in _page(editor, scenario)


def test_a_message_shows_once_on_a_page_served_from_memory(editor_client, scenario):
    _page(editor_client, scenario)
    response = editor_client.post(reverse("tco:scenario_clone", args=[scenario.pk]), follow=True)
    assert response.status_code == 200
    copy = Scenario.objects.exclude(pk=scenario.pk).get()
    assert 'class="messages"' in response.content.decode()
    _page(editor_client, copy)
    assert 'class="messages"' not in _page(editor_client, copy)


def test_an_edit_and_its_run_show_at_once(editor_client, scenario, run_jobs):
    _page(editor_client, scenario)
    scenario_update_field(scenario=scenario, user=None, expected_version=None, field="name", value="Edited plan")
    run = ScenarioRun.objects.filter(scenario=scenario).latest("id")
    assert run.status == RunStatus.PENDING
    queued = _page(editor_client, scenario)
    assert "Edited plan" in queued and "Recomputing" in queued
    scenario_evaluate.delay(run.pk)  # in-process in tests
    done = _page(editor_client, scenario)
    assert "Recomputing" not in done and f"fig-annual_cost-{run.pk}" in done


def test_a_newer_market_price_a_provider_rename_and_a_gpu_model_change_show_at_once(
    editor_client, scenario, editor, run_jobs
):
    rental = scenario.options.get(kind="neocloud")
    with run_jobs():
        picked = factories.observation(price="3.99")
        option_pick_price(option=rental, user=editor, expected_version=1, observation=picked)
    assert not ScenarioRun.objects.exclude(status=RunStatus.DONE).exists()  # settled: the page is cached
    assert f'id="newer-price-{rental.pk}"' not in _page(editor_client, scenario)

    factories.observation(price="2.99", observed_on=datetime.date(2026, 11, 1))
    assert f'id="newer-price-{rental.pk}"' in _page(editor_client, scenario)

    provider = Provider.objects.get(name="Lambda")
    provider.name = "Lambda Labs"
    provider.save()  # as the admin does
    assert "for Lambda Labs · 8-GPU instance" in _page(editor_client, scenario)

    GpuModel.objects.create(name="B300", memory_gb=288)
    assert ">B300</option>" in _page(editor_client, scenario)
    model = GpuModel.objects.get(name="H100 SXM")
    model.name = "H100 SXM5"
    model.save()
    assert ">H100 SXM5</option>" in _page(editor_client, scenario)
    GpuModel.objects.filter(name="B300").delete()  # not the latest edited: only the count tells
    assert ">B300</option>" not in _page(editor_client, scenario)


def test_a_page_rendered_while_the_scenario_changed_is_rendered_again_on_the_next_view(editor_client, scenario):
    def saved_meanwhile(request, scenario, **options):
        context = workspace_context(request, scenario, **options)
        Scenario.objects.filter(pk=scenario.pk).update(version=F("version") + 1)  # another request's save
        return context

    with mock.patch("tco.web.views.scenarios.workspace_context", side_effect=saved_meanwhile):
        _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as rendered_again:
        html = _page(editor_client, scenario)
    with CaptureQueriesContext(connection) as kept:
        again = _page(editor_client, scenario)
    assert Workspace(html).version == Workspace(again).version == 2  # the first was not kept: rendered anew
    assert len(rendered_again) > len(kept) == 3  # then kept: the sign-in queries and the stamp


def test_a_scenario_deleted_while_its_page_is_asked_for_is_a_404(editor_client, scenario):
    with mock.patch("tco.web.views.scenarios.scenario_with_options", side_effect=Scenario.DoesNotExist):
        response = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk]))
    assert response.status_code == 404


@pytest.mark.parametrize("name", ["{page-content-placeholder}", "{csrf-token-placeholder}", "{{ body }} & <b>"])
def test_a_scenario_name_that_looks_like_a_placeholder_is_shown_as_typed(editor_client, scenario, name):
    scenario_update_field(scenario=scenario, user=None, expected_version=None, field="name", value=name)
    for _ in range(2):
        html = _page(editor_client, scenario)
        assert html.count("<main>") == 1 and html.count("</html>") == 1
        assert html.count('id="results"') == 1
        assert Workspace(html).text("scenario-title") == name


@pytest.mark.parametrize("redis_state", ["down", "frozen"])
def test_the_page_and_an_edit_work_at_once_while_the_cache_is_down_or_frozen(
    editor_client, scenario, settings, caplog, redis_state
):
    import logging
    import socket
    import time

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    if redis_state == "frozen":
        server.listen(64)  # connections complete; nothing ever answers
    port = server.getsockname()[1]
    if redis_state == "down":
        server.close()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    try:
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="lib.caching"):
            html = _page(editor_client, scenario)
            edit = editor_client.post(
                reverse("tco:scenario_field", args=[scenario.pk]),
                {"fleet_gpus": "9", "version": 1},
                HTTP_HX_REQUEST="true",
            )
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert "Up to date" in html and Workspace(edit.content.decode()).version == 2
    assert elapsed < 2.0, f"waited {elapsed:.1f} s for the cache"
    assert any("cache unavailable" in record.getMessage() for record in caplog.records)
