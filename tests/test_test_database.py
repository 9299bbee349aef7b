"""The tests' database between tests on committed rows: emptied, then given back the rows the migrations made."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection


def _migrated_rows() -> tuple:
    groups = sorted(Group.objects.values_list("id", "name"))
    links = sorted(Group.permissions.through.objects.values_list("group_id", "permission_id"))
    types = sorted(ContentType.objects.values_list("id", "app_label", "model"))
    permissions = sorted(Permission.objects.values_list("id", "content_type_id", "codename", "name"))
    return groups, links, types, permissions


def assert_the_migrations_rows_come_back_whole() -> None:
    """Emptied as after a test on committed rows, then restored from what Django kept on the tests' connection (as
    before the next such test): the same rows, and a second restore (as after a rollback) leaves them so."""
    migrated = _migrated_rows()
    assert migrated[0] and migrated[1] and migrated[3]  # role groups with permissions: something to lose

    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=True)
    assert _migrated_rows() == ([], [], [], [])
    connection.creation.deserialize_db_from_string(connection._test_serialized_contents)
    assert _migrated_rows() == migrated

    connection.creation.deserialize_db_from_string(connection._test_serialized_contents)  # as after a rollback
    assert _migrated_rows() == migrated


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_migrations_rows_come_back_whole_after_a_flush_and_stay_whole_when_already_there():
    assert_the_migrations_rows_come_back_whole()
