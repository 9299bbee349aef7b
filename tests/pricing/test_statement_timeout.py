"""No statement holds a web request for long on PostgreSQL: past DATABASE_STATEMENT_TIMEOUT_MS it is cancelled and
the reader gets a page saying so (503), not a hang or a bare 500. Imports and migrations are not cut short."""

from __future__ import annotations

from unittest import mock

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import pre_migrate
from django.urls import reverse

from pricing import selectors, services
from pricing.models import SnapshotOrigin
from tests.pricing.conftest import canonical

on_postgres = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
)


@pytest.mark.django_db
@on_postgres
def test_the_web_connection_has_the_configured_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'statement_timeout'")
        assert cursor.fetchone()[0] == str(settings.DATABASE_STATEMENT_TIMEOUT_MS)


@on_postgres
def test_a_statement_past_the_timeout_gets_a_page_that_says_so(viewer_client, monkeypatch):
    def slow_prices(**filters):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")

    monkeypatch.setattr(selectors, "latest_prices", slow_prices)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 50")  # as a tiny DATABASE_STATEMENT_TIMEOUT_MS would
    response = viewer_client.get(reverse("pricing:market"), {"term": "spot"})
    html = response.content.decode()
    assert response.status_code == 503
    assert "took too long" in html and "Nothing was changed" in html
    assert "Try again" in html


def _timeout() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


@pytest.mark.usefixtures("reference")
@on_postgres
def test_an_import_is_not_cut_short_by_the_web_timeout():
    row = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,3.99,USD,2026-11-01,"
    content = canonical(row).encode()
    snapshot = services.price_snapshot_create(content=content, origin=SnapshotOrigin.COMMAND, source="test")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 1")  # hardly any statement of an import ends within 1 ms
    seen = []
    record = services.snapshots.current_prices_record

    def recording(**kwargs):
        seen.append(_timeout())
        return record(**kwargs)

    with mock.patch.object(services.snapshots, "current_prices_record", recording):
        snapshot = services.price_snapshot_run(snapshot=snapshot, content=content)
    assert snapshot.status == "imported", snapshot.errors
    assert seen == ["0"]  # no limit while importing
    assert _timeout() == "1ms"  # given back as it was
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")  # for the deferred constraint checks at the test's end


@pytest.mark.django_db
@on_postgres
def test_migrations_are_not_cut_short_by_the_web_timeout():
    seen = []

    def check(**kwargs):
        seen.append(_timeout())

    pre_migrate.connect(check, dispatch_uid="test-timeout")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 1000")
        call_command("migrate", verbosity=0)
    finally:
        pre_migrate.disconnect(dispatch_uid="test-timeout")
    assert seen and set(seen) == {"0"}
    assert _timeout() == "1s"
