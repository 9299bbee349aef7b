"""The database the browser tests share with the live server: on in-memory SQLite a write that meets another
connection's unfinished read of its table waits for it, as it would on a database file, instead of failing at once;
and once the browser runs, a test on committed rows still gets back the rows the migrations made."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections

from tests.test_test_database import assert_the_migrations_rows_come_back_whole

pytestmark = [pytest.mark.browser]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's in-memory database only")
def test_a_write_waits_for_another_connections_unfinished_read_of_its_table(transactional_db):
    User.objects.bulk_create([User(username="reader-1"), User(username="reader-2")])
    reading, read = threading.Event(), threading.Event()

    def read_slowly() -> None:  # a thread of its own opens a connection of its own to the same database
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT id FROM auth_user ORDER BY id")
                cursor.fetchone()  # one row of two: the read is unfinished, its table locked for writes
                reading.set()
                read.wait(5)
        finally:
            connections["default"].close()

    reader = threading.Thread(target=read_slowly)
    reader.start()
    assert reading.wait(5)
    threading.Timer(0.3, read.set).start()
    User.objects.update(first_name="written")
    reader.join(5)
    assert list(User.objects.values_list("first_name", flat=True)) == ["written", "written"]


def test_the_migrations_rows_come_back_on_the_connection_the_tests_use_once_the_browser_runs(
    django_db_setup, browser, transactional_db
):
    """Django restores them, before each test on committed rows, from what it kept on the connection it set the
    database up on (set up before the browser starts, as here); with a new connection in this thread the first such
    test after a flush found no role groups."""
    assert hasattr(connection, "_test_serialized_contents"), "not the connection the database was set up on"
    assert_the_migrations_rows_come_back_whole()
