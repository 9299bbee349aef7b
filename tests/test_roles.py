from __future__ import annotations

import datetime

from django.contrib.auth.models import AnonymousUser, Group
from django.contrib.sessions.backends.cached_db import SessionStore
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.roles import is_editor, is_reader


def test_editors_edit_and_read(editor):
    assert is_editor(editor) and is_reader(editor)


def test_viewers_read_but_do_not_edit(viewer):
    assert is_reader(viewer) and not is_editor(viewer)


def test_superusers_edit_without_a_group(django_user_model):
    admin = django_user_model.objects.create_superuser("root", password="pw-for-tests-1")
    assert is_editor(admin) and is_reader(admin)


def test_users_without_a_role_and_anonymous_visitors_get_neither(django_user_model):
    nobody = django_user_model.objects.create_user("nobody", password="pw-for-tests-1")
    for user in (nobody, AnonymousUser()):
        assert not is_reader(user) and not is_editor(user)


def test_roles_are_read_once_per_user_object(editor, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert is_editor(editor) and is_reader(editor) and is_editor(editor)


def test_a_signed_in_request_reads_its_session_from_the_cache_and_its_user_and_roles_with_the_orm(client, editor):
    """Sessions are Django's cached_db store: after the first request no request reads the session table; the user
    and their roles are one ORM query each (no raw SQL over Django's internals, which a Django upgrade may change)."""
    client.force_login(editor)
    assert client.get("/scenarios/").status_code == 200
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/scenarios/").status_code == 200
    tables = [query["sql"] for query in captured.captured_queries]
    assert not [sql for sql in tables if "django_session" in sql]
    assert len([sql for sql in tables if 'FROM "auth_user"' in sql]) == 1
    assert len([sql for sql in tables if '"auth_user_groups"' in sql]) == 1


def test_a_role_taken_away_or_an_account_disabled_counts_at_the_next_request(client, editor):
    client.force_login(editor)
    assert "start from a demo" in client.get("/scenarios/").content.decode().lower()
    editor.groups.clear()
    assert "ask for access" in client.get("/scenarios/").content.decode().lower()
    editor.groups.add(Group.objects.get(name="viewers"))
    page = client.get("/scenarios/").content.decode().lower()
    assert "ask for access" not in page and "start from a demo" not in page  # a viewer: reads, creates nothing
    editor.is_active = False
    editor.save()
    assert client.get("/scenarios/")["Location"].startswith("/accounts/login/")


def _staff(user):
    user.is_staff = True
    user.save()
    return user


def test_staff_editors_keep_reference_data_but_prices_stay_history(client, editor):
    from pricing.models import GpuModel

    client.force_login(_staff(editor))
    gpu = GpuModel.objects.create(name="Test GPU", vendor="NVIDIA", memory_gb=80)

    assert client.get("/admin/pricing/gpumodel/").status_code == 200
    assert client.get(f"/admin/pricing/gpumodel/{gpu.pk}/change/").status_code == 200
    assert client.get("/admin/pricing/gpualias/add/").status_code == 200
    assert client.get("/admin/pricing/importsource/add/").status_code == 200
    assert client.get("/admin/pricing/priceobservation/").status_code == 200
    assert client.get("/admin/pricing/priceobservation/add/").status_code == 403
    assert client.get(f"/admin/pricing/gpumodel/{gpu.pk}/delete/").status_code == 403
    assert client.get("/admin/auth/user/").status_code == 403


def test_staff_viewers_get_no_admin_rights(client, viewer):
    client.force_login(_staff(viewer))

    assert client.get("/admin/pricing/gpumodel/").status_code == 403
    assert client.get("/admin/pricing/gpualias/add/").status_code == 403


def test_even_a_superuser_cannot_add_edit_or_delete_imported_prices(admin_client):
    assert admin_client.get("/admin/pricing/priceobservation/").status_code == 200
    assert admin_client.get("/admin/pricing/priceobservation/add/").status_code == 403
    assert admin_client.get("/admin/pricing/pricesnapshot/add/").status_code == 403


def test_a_session_is_read_until_it_expires_and_not_after(client, editor):
    client.force_login(editor)
    assert client.get("/scenarios/").status_code == 200
    session = Session.objects.get()
    store = SessionStore(session.session_key)
    assert store.load()["_auth_user_id"] == str(editor.pk)
    # Past its expiry, and no longer in the cache (its own timeout): the database row is not read either.
    Session.objects.update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    cache.delete(store.cache_key)
    store = SessionStore(session.session_key)
    assert store.load() == {} and store.session_key is None
    assert client.get("/scenarios/")["Location"].startswith("/accounts/login/")
