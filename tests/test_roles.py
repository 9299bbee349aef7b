from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

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
