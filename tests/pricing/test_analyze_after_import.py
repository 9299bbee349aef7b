"""After a big import PostgreSQL's statistics are refreshed at once (ANALYZE), not when autovacuum comes by: on stale
statistics a 190,000-row import made the planner choose a nested loop over every observation."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from pricing.services import snapshots
from tests.pricing.conftest import canonical, run_import

pytestmark = [
    pytest.mark.usefixtures("reference"),
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
    ),
]
ROW = "Lambda,neocloud,H100 SXM,8,box-{n},us-east-1,on_demand,,3.99,USD,2026-11-01,"


def _analyzed() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT relname, analyze_count FROM pg_stat_user_tables "
            "WHERE relname IN ('pricing_priceobservation', 'pricing_currentprice', 'pricing_snapshotobservation')"
        )
        return dict(cursor.fetchall())


def test_a_big_import_refreshes_the_statistics_of_the_price_tables(monkeypatch):
    monkeypatch.setattr(snapshots, "ANALYZE_AFTER_ROWS", 3)  # "big" for this test
    before = _analyzed()
    run_import(canonical(ROW.format(n=1), ROW.format(n=2)))
    assert _analyzed() == before  # a small import leaves it to autovacuum
    run_import(canonical(*(ROW.format(n=n) for n in range(3, 6))))
    after = _analyzed()
    assert set(after) == {"pricing_priceobservation", "pricing_currentprice", "pricing_snapshotobservation"}
    assert all(after[table] == before.get(table, 0) + 1 for table in after), (before, after)
