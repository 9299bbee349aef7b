from __future__ import annotations

import copy
import hashlib
import secrets
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tco.models import DecisionLink, DecisionSnapshot, Scenario
from tco.services import scenario_create_from_document
from tests.decisions.conftest import DOCUMENT, create_link

PRIVATE_HEADERS = {
    "X-Robots-Tag": "noindex",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


def _token(path: str) -> str:
    return path.removeprefix("/d/")


# ---- creating and listing links ------------------------------------------------------------------------------


def test_it_shows_the_full_link_once_and_stores_only_its_sha256(editor_client, scenario):
    response, path = create_link(editor_client, scenario, expires_in_days="30", note="for the CFO")

    assert response.status_code == 201
    token = _token(path)
    link = DecisionLink.objects.get()
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    stored = [str(value) for value in DecisionLink.objects.values_list().get()]
    assert not any(token in value for value in stored)
    panel = editor_client.get(reverse("tco:decision_panel", args=[scenario.pk]))
    assert token not in panel.content.decode()


def test_it_expires_a_link_after_30_days_by_default(editor_client, scenario):
    create_link(editor_client, scenario)

    link = DecisionLink.objects.get()
    assert link.expires_at - link.created_at == timedelta(days=30)


def test_it_expires_a_link_after_the_days_asked_for(editor_client, scenario):
    create_link(editor_client, scenario, expires_in_days="7")

    link = DecisionLink.objects.get()
    assert link.expires_at - link.created_at == timedelta(days=7)


@pytest.mark.parametrize(
    ("days", "message"),
    [
        ("0", "1 to 365 days; 0 is outside"),
        ("366", "1 to 365 days; 366 is outside"),
        ("ten", "“ten” is not a whole number of days"),
        ("-3", "“-3” is not a whole number of days"),
    ],
)
def test_it_refuses_an_expiry_outside_1_to_365_days_with_a_clear_message(editor_client, scenario, days, message):
    response, path = create_link(editor_client, scenario, expires_in_days=days)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert path == ""
    assert not DecisionLink.objects.exists()
    assert not DecisionSnapshot.objects.exists()


def test_it_refuses_link_creation_to_viewers(viewer_client, scenario):
    response, path = create_link(viewer_client, scenario)

    assert response.status_code == 403
    assert path == ""
    assert not DecisionLink.objects.exists()


def test_it_lists_links_with_creator_expiry_last_opened_and_open_count(editor_client, scenario, link_path, anon):
    anon.get(link_path)
    anon.get(link_path)

    panel = editor_client.get(reverse("tco:decision_panel", args=[scenario.pk])).content.decode()
    link = DecisionLink.objects.get()
    row = panel[panel.index(f'id="link-{link.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "edna-editor" in row
    assert link.expires_at.strftime("%Y-%m-%d") in row
    assert timezone.localtime(link.last_opened_at).strftime("%Y-%m-%d %H:%M") in row
    assert '<td class="num">2</td>' in row
    assert "active" in row


def test_a_revoked_link_stops_opening_and_is_listed_as_revoked(editor_client, scenario, link_path, anon):
    link = DecisionLink.objects.get()

    response = editor_client.post(reverse("tco:link_revoke", args=[scenario.pk, link.pk]))

    assert response.status_code == 302
    assert anon.get(link_path).status_code == 404
    panel = editor_client.get(reverse("tco:decision_panel", args=[scenario.pk])).content.decode()
    assert "revoked" in panel[panel.index(f'id="link-{link.pk}"') :]


def test_viewers_cannot_revoke_links(viewer, scenario, link_path, anon, client_factory):
    link = DecisionLink.objects.get()
    viewer_client = client_factory()
    viewer_client.force_login(viewer)

    response = viewer_client.post(reverse("tco:link_revoke", args=[scenario.pk, link.pk]))

    assert response.status_code == 403
    assert anon.get(link_path).status_code == 200


def test_a_link_cannot_be_revoked_through_another_scenario(editor_client, editor, scenario, link_path):
    other = scenario_create_from_document(document=copy.deepcopy(DOCUMENT), user=editor)
    link = DecisionLink.objects.get()

    response = editor_client.post(reverse("tco:link_revoke", args=[other.pk, link.pk]))

    assert response.status_code == 404
    assert DecisionLink.objects.get().revoked_at is None


# ---- opening a link ------------------------------------------------------------------------------------------


def test_a_valid_token_opens_the_brief_without_login_and_sends_private_headers(link_path, anon):
    response = anon.get(link_path)

    assert response.status_code == 200
    assert "Decision test: own vs rent" in response.content.decode()
    for header, value in PRIVATE_HEADERS.items():
        assert response[header] == value


def test_a_valid_token_shows_only_its_own_snapshot(editor_client, editor, scenario, link_path, anon):
    document = copy.deepcopy(DOCUMENT) | {"name": "Another team's secret scenario"}
    other = scenario_create_from_document(document=document, user=editor)
    create_link(editor_client, other)

    body = anon.get(link_path).content.decode()

    assert "Decision test: own vs rent" in body
    assert "secret scenario" not in body


def test_the_page_has_no_forms_and_no_htmx_writes(link_path, anon):
    body = anon.get(link_path).content.decode().lower()

    assert "<form" not in body
    for attribute in ("hx-post", "hx-put", "hx-patch", "hx-delete", "hx-get", "csrfmiddlewaretoken"):
        assert attribute not in body


def test_opening_counts_the_opening_and_changes_nothing_else(link_path, anon, scenario):
    snapshot = DecisionSnapshot.objects.get()
    version = Scenario.objects.get(pk=scenario.pk).version
    before = DecisionLink.objects.values().get()

    anon.get(link_path)
    anon.get(link_path)

    after = DecisionLink.objects.values().get()
    assert after["open_count"] == before["open_count"] + 2 == 2
    assert after["last_opened_at"] is not None
    assert {k: v for k, v in after.items() if k not in ("open_count", "last_opened_at")} == {
        k: v for k, v in before.items() if k not in ("open_count", "last_opened_at")
    }
    assert DecisionSnapshot.objects.get().content == snapshot.content
    assert Scenario.objects.get(pk=scenario.pk).version == version


def test_downloads_from_a_link_do_not_count_as_openings(link_path, anon):
    anon.get(f"{link_path}/options.csv")

    assert DecisionLink.objects.get().open_count == 0


@pytest.mark.parametrize("method", ["post", "put", "delete", "options", "head"])
def test_a_link_opens_nothing_with_another_method_and_still_sends_the_private_headers(link_path, method):
    from django.test import Client

    browser_like = Client(enforce_csrf_checks=True)  # a real browser's POST carries no CSRF token here
    response = getattr(browser_like, method)(link_path)

    assert response.status_code == 405
    assert DecisionLink.objects.get().open_count == 0
    for header, value in PRIVATE_HEADERS.items():
        assert response[header] == value


# ---- every dead token looks the same -------------------------------------------------------------------------


def _dead_paths(editor_client, scenario) -> dict[str, str]:
    """One path per way a token can fail to open anything."""
    _, expired = create_link(editor_client, scenario)
    DecisionLink.objects.filter(token_hash=hashlib.sha256(_token(expired).encode()).hexdigest()).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    _, revoked = create_link(editor_client, scenario)
    link = DecisionLink.objects.get(token_hash=hashlib.sha256(_token(revoked).encode()).hexdigest())
    editor_client.post(reverse("tco:link_revoke", args=[scenario.pk, link.pk]))
    return {
        "expired": expired,
        "revoked": revoked,
        "random": "/d/" + secrets.token_urlsafe(32),
        "too short": "/d/abc",
        "bad characters": "/d/" + "%21" * 43,
        "too long": "/d/" + secrets.token_urlsafe(64),
        "trailing slash": revoked + "/",
        "nested": "/d/x/y/z",
        "bare": "/d/",
        "export of a dead token": revoked + "/options.csv",
    }


def test_expired_revoked_malformed_and_random_tokens_get_the_identical_404(editor_client, scenario, anon):
    paths = _dead_paths(editor_client, scenario)

    responses = {name: anon.get(path) for name, path in paths.items()}

    bodies = {response.content for response in responses.values()}
    assert len(bodies) == 1, {name: r.content[:80] for name, r in responses.items()}
    for name, response in responses.items():
        assert response.status_code == 404, name
        for header, value in PRIVATE_HEADERS.items():
            assert response[header] == value, (name, header)
    assert b"not available" in bodies.pop()


def test_an_expired_link_opens_right_up_to_its_expiry(editor_client, scenario, link_path, anon):
    DecisionLink.objects.update(expires_at=timezone.now() + timedelta(minutes=1))

    assert anon.get(link_path).status_code == 200


# ---- a token is not a login ----------------------------------------------------------------------------------


def test_a_token_holder_cannot_reach_the_scenario_its_editing_views_or_the_admin(link_path, anon, scenario):
    assert anon.get(link_path).status_code == 200

    for path in (
        reverse("tco:scenario_detail", args=[scenario.pk]),
        reverse("tco:scenario_list"),
        reverse("tco:decision_panel", args=[scenario.pk]),
        reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"]),
    ):
        response = anon.get(path)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), path
    field = anon.post(reverse("tco:scenario_field", args=[scenario.pk]), {"field": "name", "value": "hacked"})
    assert field.status_code == 302
    assert Scenario.objects.get(pk=scenario.pk).name == "Decision test: own vs rent"
    admin = anon.get("/admin/")
    assert admin.status_code == 302 and "/admin/login/" in admin["Location"]
    assert "_auth_user_id" not in anon.session


def test_anonymous_users_cannot_create_links_or_decide(anon, scenario):
    for name in ("tco:link_create", "tco:decide", "tco:reopen", "tco:brief_update"):
        response = anon.post(reverse(name, args=[scenario.pk]), {"option": "Own 8x H100", "rationale": "x"})
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), name
    assert not DecisionLink.objects.exists()


# ---- rate limit ----------------------------------------------------------------------------------------------


@pytest.fixture
def fixed_minute(rate_clock):
    """Every request falls in the same rate-limit window, however long the test takes."""
    return rate_clock


def test_opening_is_limited_per_client_ip(settings, link_path, client_factory, fixed_minute):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 3
    leader = client_factory(REMOTE_ADDR="203.0.113.7")

    statuses = [leader.get(link_path).status_code for _ in range(4)]

    assert statuses == [200, 200, 200, 429]
    assert DecisionLink.objects.get().open_count == 3


def test_over_the_limit_the_answer_is_a_plain_429_with_private_headers(settings, link_path, anon, fixed_minute):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 1
    anon.get(link_path)

    response = anon.get(link_path)

    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().startswith("Too many requests")
    assert response["Retry-After"] == "60"
    for header, value in PRIVATE_HEADERS.items():
        assert response[header] == value


def test_another_client_is_not_slowed_by_the_first(settings, link_path, client_factory, fixed_minute):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 1
    first, second = client_factory(REMOTE_ADDR="203.0.113.7"), client_factory(REMOTE_ADDR="198.51.100.9")
    first.get(link_path)

    assert first.get(link_path).status_code == 429
    assert second.get(link_path).status_code == 200


def test_guessing_tokens_counts_against_the_limit(settings, link_path, anon, fixed_minute):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 2
    anon.get("/d/" + secrets.token_urlsafe(32))
    anon.get("/d/" + secrets.token_urlsafe(32))

    assert anon.get(link_path).status_code == 429


def test_a_new_minute_starts_a_new_count(settings, link_path, anon, rate_clock):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 1
    anon.get(link_path)
    assert anon.get(link_path).status_code == 429

    rate_clock[0] += 60

    assert anon.get(link_path).status_code == 200


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(settings, link_path, client_factory, fixed_minute):
    settings.DECISION_LINK_OPENS_PER_MINUTE = 1
    settings.TRUSTED_PROXY_HOPS = 1
    proxy = "10.0.0.5"
    first = client_factory(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.7")
    second = client_factory(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="spoofed, 198.51.100.9")
    first.get(link_path)

    assert first.get(link_path).status_code == 429
    assert second.get(link_path).status_code == 200


def test_a_scenario_with_a_live_link_cannot_be_deleted(editor, scenario, link_path, anon):
    from tco.services import ScenarioInUse, scenario_delete

    before = anon.get(link_path).content
    with pytest.raises(ScenarioInUse, match="has 1 live decision link; leaders may be reading them"):
        scenario_delete(scenario=scenario, user=editor)

    assert Scenario.objects.filter(pk=scenario.pk).exists()
    assert anon.get(link_path).content == before


def test_the_delete_page_names_the_live_links_and_refuses(editor_client, scenario, link_path):
    url = reverse("tco:scenario_delete", args=[scenario.pk])

    page = editor_client.get(url).content.decode()
    response = editor_client.post(url)

    assert "1 decision link still opens" in page
    assert 'id="live-links"' in page and "opened 0 times" in page
    assert '<form method="post">' not in page  # no delete button to press
    assert response.status_code == 409
    assert "Revoke them on the scenario page first" in response.content.decode()
    assert Scenario.objects.filter(pk=scenario.pk).exists()


def test_once_its_links_are_revoked_the_scenario_goes_with_its_decisions(editor, editor_client, scenario, link_path):
    from tco.services.decisions import link_revoke

    link_revoke(link=DecisionLink.objects.get(), user=editor)
    url = reverse("tco:scenario_delete", args=[scenario.pk])

    assert "1 revoked or expired decision link with its frozen numbers" in editor_client.get(url).content.decode()
    response = editor_client.post(url)

    assert response.status_code == 302
    assert not Scenario.objects.filter(pk=scenario.pk).exists()
    assert not DecisionLink.objects.exists()
    assert not DecisionSnapshot.objects.exists()


def test_a_link_keeps_working_after_its_creator_account_is_deleted(editor, link_path, anon):
    before = anon.get(link_path).content

    editor.delete()

    assert anon.get(link_path).content == before
