"""A statement cancelled outside a view (the role lookup in middleware) answers the 503 page like one in a view,
and /healthz touches no database at all, signed in or not."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse

from config import middleware

on_postgres = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
)


class _Cancelled(Exception):
    sqlstate = "57014"  # what psycopg's QueryCanceled carries


def _cancelled_role_lookup(user) -> bool:
    """The role lookup as a statement the timeout cancelled: on PostgreSQL a real one, on SQLite its error."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(5)")
    raise OperationalError("canceling statement due to statement timeout") from _Cancelled()


@pytest.fixture
def signed_in(viewer) -> Client:
    client = Client(raise_request_exception=False)  # what a browser gets, not the test client's re-raise
    client.force_login(viewer)
    return client


def test_a_statement_timeout_in_the_role_lookup_answers_the_503_page(signed_in, monkeypatch):
    monkeypatch.setattr(middleware, "is_reader", _cancelled_role_lookup)
    response = signed_in.get(reverse("pricing:market"))
    html = response.content.decode()
    assert response.status_code == 503
    assert "This page took too long" in html and "Nothing was changed" in html
    assert response["Retry-After"] == "30"


@on_postgres
def test_a_real_statement_timeout_in_middleware_answers_the_503_page(signed_in, monkeypatch):
    def slow_role_lookup(user) -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")  # as a tiny DATABASE_STATEMENT_TIMEOUT_MS would
            cursor.execute("SELECT pg_sleep(5)")

    monkeypatch.setattr(middleware, "is_reader", slow_role_lookup)
    response = signed_in.get(reverse("pricing:market"))
    assert response.status_code == 503
    assert "This page took too long" in response.content.decode()


def test_other_errors_outside_a_view_still_answer_the_500_page(signed_in, monkeypatch):
    def broken(user) -> bool:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(middleware, "is_reader", broken)
    response = signed_in.get(reverse("pricing:market"))
    assert response.status_code == 500


@pytest.mark.parametrize("who", ["anonymous", "signed in"])
def test_healthz_touches_no_database(who, signed_in, django_assert_num_queries, monkeypatch):
    client = signed_in if who == "signed in" else Client()
    monkeypatch.setattr(middleware, "is_reader", _cancelled_role_lookup)  # were it asked, it would fail
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})
