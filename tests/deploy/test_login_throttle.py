"""Failed sign-ins are throttled per account and per client address, and logged; so are admin changes."""

from __future__ import annotations

import json
import logging

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from config import ratelimit

PASSWORD = "pw-for-tests-1"


@pytest.fixture
def limits(settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 5
    settings.LOGIN_FAILURES_PER_ADDRESS = 8
    settings.LOGIN_THROTTLE_WINDOW_SECONDS = 900
    return settings


@pytest.fixture
def finance(db) -> User:
    return User.objects.create_user("fin-user", password=PASSWORD)


def _login(client, username: str, password: str, address: str = "203.0.113.7", url: str | None = None):
    return client.post(url or reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_the_sixth_wrong_password_for_an_account_is_refused_without_checking_it(client, limits, finance):
    answers = [_login(client, "fin-user", f"guess-{n}") for n in range(5)]
    assert [answer.status_code for answer in answers] == [200] * 5
    assert "Please enter a correct username and password" in answers[-1].content.decode()

    refused = _login(client, "fin-user", PASSWORD)  # even the right password, while throttled

    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 900
    assert "Too many failed sign-ins" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_account_limit_at_an_address_holds_across_spelling(client, limits, finance):
    for n in range(5):
        _login(client, "fin-user" if n % 2 else " FIN-USER", "wrong", address="198.51.100.4")
    assert _login(client, "fin-user", PASSWORD, address="198.51.100.4").status_code == 429


def test_an_attacker_cannot_lock_an_editor_out_from_another_address(client, limits, finance, django_user_model):
    """A lock-out attack: address A fails N times for the account; its owner signs in from B with the right password,
    and A stays throttled for that account (even with the right password)."""
    attacker, owner = "203.0.113.66", "192.0.2.10"
    for n in range(5):
        assert _login(client, "fin-user", f"guess-{n}", address=attacker).status_code == 200
    assert _login(client, "fin-user", "guess-6", address=attacker).status_code == 429

    signed_in = _login(client, "fin-user", PASSWORD, address=owner)

    assert signed_in.status_code == 302
    assert int(client.session["_auth_user_id"]) == finance.pk
    client.logout()
    assert _login(client, "fin-user", PASSWORD, address=attacker).status_code == 429
    assert "_auth_user_id" not in client.session
    # A wrong password from the owner's address is still only a wrong password there.
    assert _login(client, "fin-user", "typo", address=owner).status_code == 200


def test_failures_spread_over_addresses_do_not_lock_the_account(client, limits, finance):
    for n in range(12):
        _login(client, "fin-user", "wrong", address=f"198.51.100.{n}")
    assert _login(client, "fin-user", PASSWORD, address="192.0.2.200").status_code == 302


def test_the_address_limit_holds_across_accounts(client, limits, finance):
    for n in range(8):
        assert _login(client, f"someone-{n}", "wrong").status_code == 200
    assert _login(client, "fin-user", PASSWORD).status_code == 429
    # Another address signs in to the same account at once.
    assert _login(client, "fin-user", PASSWORD, address="192.0.2.9").status_code == 302


def test_sign_ins_are_allowed_again_when_the_window_has_passed(client, limits, finance, rate_clock):
    for _ in range(5):
        _login(client, "fin-user", "wrong")
    refused = _login(client, "fin-user", PASSWORD)
    assert refused.status_code == 429
    rate_clock[0] += int(refused["Retry-After"])
    assert _login(client, "fin-user", PASSWORD).status_code == 302


def test_a_correct_password_below_the_limit_signs_in(client, limits, finance):
    for _ in range(4):
        _login(client, "fin-user", "wrong")
    assert _login(client, "fin-user", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(client, limits, db):
    User.objects.create_superuser("root-admin", password=PASSWORD)
    admin_login = reverse("admin:login")
    for _ in range(5):
        _login(client, "root-admin", "wrong", url=admin_login)
    response = _login(client, "root-admin", PASSWORD, url=admin_login)
    assert "Too many failed sign-ins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_when_the_cache_is_down_sign_ins_go_on(client, limits, finance, monkeypatch, caplog):
    def down(*args, **kwargs):
        raise ConnectionError("redis down")

    monkeypatch.setattr(ratelimit, "usage", down)
    with caplog.at_level(logging.ERROR, logger="config.audit"):
        assert _login(client, "fin-user", "wrong").status_code == 200
        assert _login(client, "fin-user", PASSWORD).status_code == 302
    assert "login throttle: could not" in caplog.text


def _audit(caplog) -> list[dict]:
    return [
        json.loads(record.getMessage())
        for record in caplog.records
        if record.name == "config.audit" and record.getMessage().startswith("{")
    ]


def test_failed_and_throttled_sign_ins_are_logged_without_the_password(client, limits, finance, caplog):
    with caplog.at_level(logging.INFO, logger="config.audit"):
        for _ in range(5):
            _login(client, "fin-user", "hunter2-secret")
        _login(client, "fin-user", "hunter2-secret")
    events = _audit(caplog)
    assert [event["event"] for event in events] == ["login_failed"] * 5 + ["login_throttled"]
    assert {(event["username"], event["client_ip"]) for event in events} == {("fin-user", "203.0.113.7")}
    assert all(event["request_id"] for event in events)
    assert "hunter2-secret" not in caplog.text


def test_a_successful_sign_in_is_logged(client, limits, finance, caplog):
    with caplog.at_level(logging.INFO, logger="config.audit"):
        _login(client, "fin-user", PASSWORD)
    assert [(e["event"], e["user_id"]) for e in _audit(caplog)] == [("login", finance.pk)]


def test_admin_changes_are_logged_including_bulk_deletes(admin_client, admin_user, caplog):
    from django.contrib.auth.models import Group

    with caplog.at_level(logging.INFO, logger="config.audit"):
        admin_client.post(reverse("admin:auth_group_add"), {"name": "auditors"})
        first, second = Group.objects.create(name="temp-a"), Group.objects.create(name="temp-b")
        admin_client.post(
            reverse("admin:auth_group_changelist"),
            {"action": "delete_selected", "_selected_action": [first.pk, second.pk], "post": "yes"},
        )
    changes = [
        (e["action"], e["model"], e["object"], e["user_id"]) for e in _audit(caplog) if e["event"] == "admin_change"
    ]
    assert changes == [
        ("added", "auth.group", "auditors", admin_user.pk),
        ("deleted", "auth.group", "temp-a", admin_user.pk),
        ("deleted", "auth.group", "temp-b", admin_user.pk),
    ]
