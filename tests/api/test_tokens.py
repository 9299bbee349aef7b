"""Personal API tokens: made once, stored hashed, checked in constant time, revocable, expiring."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from config.models import ApiToken
from config.tokens import TokenError, api_token_check, api_token_create, api_token_revoke


def test_a_token_is_stored_only_as_its_sha256(editor):
    row, token = api_token_create(user=editor, name="notebook", scope="read")
    row.refresh_from_db()
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {str(value) for value in vars(row).values()}
    assert token.startswith(f"gpc_{row.key}_") and len(token) > 40


def test_the_token_checks_and_records_its_use(editor):
    row, token = api_token_create(user=editor, name="notebook", scope="write")
    found = api_token_check(token)
    assert found.pk == row.pk and found.user == editor
    row.refresh_from_db()
    assert row.last_used_at is not None


@pytest.mark.parametrize("mangle", [lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), lambda t: t + "x", str.upper])
def test_a_wrong_secret_with_a_right_key_is_refused(editor, mangle):
    _, token = api_token_create(user=editor, name="notebook", scope="read")
    assert api_token_check(mangle(token)) is None


@pytest.mark.parametrize("text", ["", "gpc_", "gpc_abc", "Bearer x", "gpc__secret", "x" * 500])
def test_malformed_tokens_are_refused(db, text):
    assert api_token_check(text) is None


def test_an_expired_token_is_refused(editor):
    row, token = api_token_create(user=editor, name="ci", scope="read", expires_days=1)
    ApiToken.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api_token_check(token) is None
    row.refresh_from_db()
    assert row.state == "expired"


def test_a_revoked_token_is_refused_and_revoking_twice_changes_nothing(editor):
    row, token = api_token_create(user=editor, name="ci", scope="read")
    assert api_token_revoke(token=row, by=editor) is True
    assert api_token_check(token) is None
    assert api_token_revoke(token=row, by=editor) is False
    row.refresh_from_db()
    assert row.state == "revoked" and row.revoked_by == editor


def test_a_deactivated_users_token_is_refused(editor):
    _, token = api_token_create(user=editor, name="ci", scope="read")
    editor.is_active = False
    editor.save()
    assert api_token_check(token) is None


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": " ", "scope": "read"}, "name"),
        ({"name": "x" * 101, "scope": "read"}, "name"),
        ({"name": "ci", "scope": "admin"}, "scope"),
        ({"name": "ci", "scope": "read", "expires_days": 0}, "expires_days"),
        ({"name": "ci", "scope": "read", "expires_days": 3651}, "expires_days"),
    ],
)
def test_a_token_that_cannot_be_made_says_which_field(editor, fields, field):
    with pytest.raises(TokenError) as raised:
        api_token_create(user=editor, **fields)
    assert raised.value.field == field


def test_the_command_prints_the_token_alone_on_the_last_line(editor):
    out = StringIO()
    call_command("api_token", editor.username, "--scope", "write", "--name", "ci", "--expires-days", "30", stdout=out)
    token = out.getvalue().strip().splitlines()[-1]
    row = api_token_check(token)
    assert row.scope == "write" and row.name == "ci"
    assert timedelta(days=29, hours=23) < row.expires_at - row.created_at <= timedelta(days=30)


def test_the_command_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("api_token", "ghost", stdout=StringIO())


def test_the_page_makes_a_token_and_shows_it_once(editor_client, editor):
    response = editor_client.post("/account/api-tokens/", {"name": "notebook", "scope": "read", "expires_days": "30"})
    assert response.status_code == 200
    token = response.context["new_token"]
    assert token.encode() in response.content
    assert api_token_check(token).user == editor
    again = editor_client.get("/account/api-tokens/")
    assert token.encode() not in again.content and b"notebook" in again.content


def test_the_page_refuses_a_blank_name_with_the_fields_words(editor_client):
    response = editor_client.post("/account/api-tokens/", {"name": "", "scope": "read"})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()
    assert b"This field is required." in response.content


def test_a_user_revokes_their_own_token_but_not_someone_elses(editor_client, editor, viewer):
    own, _ = api_token_create(user=editor, name="mine", scope="read")
    theirs, _ = api_token_create(user=viewer, name="theirs", scope="read")
    assert editor_client.post(f"/account/api-tokens/{theirs.pk}/revoke/").status_code == 404
    assert editor_client.post(f"/account/api-tokens/{own.pk}/revoke/").status_code == 302
    own.refresh_from_db()
    theirs.refresh_from_db()
    assert own.revoked_at is not None and theirs.revoked_at is None
    assert b"theirs" not in editor_client.get("/account/api-tokens/").content


def test_an_admin_sees_and_revokes_any_token(client, django_user_model, viewer):
    root = django_user_model.objects.create_superuser("root", password="pw-for-tests-1")
    row, token = api_token_create(user=viewer, name="viewer notebook", scope="read")
    client.force_login(root)
    listing = client.get("/admin/config/apitoken/")
    assert b"viewer notebook" in listing.content and token.encode() not in listing.content
    client.post("/admin/config/apitoken/", {"action": "revoke", "_selected_action": [row.pk]})
    row.refresh_from_db()
    assert row.revoked_at is not None and row.revoked_by == root


def test_an_editor_who_is_staff_cannot_see_tokens_in_the_admin(client, editor):
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    assert client.get("/admin/config/apitoken/").status_code == 403
