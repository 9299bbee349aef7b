"""The in-memory SQLite database the live server and the tests share: a write that meets another connection's
unfinished read of its table waits for it, as it would on a database file, instead of failing at once."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections

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
