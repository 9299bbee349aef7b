"""Every statement the Market's pages run finds its rows of the big tables (observations, snapshot contents) through an
index condition, so they stay fast at 10 million observations (bench/market_bench.py measures it). PostgreSQL only:
each statement is EXPLAINed with sequential scans discouraged, as they would be on a big table; a scan that has no
index matching it then still shows as a sequential scan or as an index scan without a condition."""

from __future__ import annotations

from functools import partial

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing import selectors
from pricing.models import (
    CurrentPrice,
    GpuModel,
    PriceObservation,
    PriceSnapshot,
    Provider,
    SnapshotObservation,
    SnapshotStatus,
)
from tests.pricing.conftest import canonical, run_import

pytestmark = [
    pytest.mark.usefixtures("reference"),
    pytest.mark.skipif(
        "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
    ),
]
BIG_TABLES = {"pricing_priceobservation", "pricing_snapshotobservation"}
ROW = "{provider},{kind},{gpu},8,box-{n},{region},{term},,{price},USD,2026-11-{day:02d},"


def _whole_table_reads(plan: dict) -> list[str]:
    """Scans of a big table that do not look rows up by an index condition."""
    found = []
    relation = plan.get("Relation Name")
    if relation in BIG_TABLES:
        conditions = [plan, *plan.get("Plans", [])] if plan["Node Type"] == "Bitmap Heap Scan" else [plan]
        indexed = any("Index Cond" in node for node in conditions)
        if not indexed:
            found.append(f"{plan['Node Type']} on {relation}")
    for child in plan.get("Plans", []):
        found += _whole_table_reads(child)
    return found


def _catalogs() -> list[PriceSnapshot]:
    snapshots = []
    for day in (1, 2, 3):
        rows = [
            ROW.format(
                provider=provider, kind=kind, gpu=gpu, n=n, region=region, term=term, price=2 + n / 10 + day, day=day
            )
            for n in range(4)
            for provider, kind in (("Lambda", "neocloud"), ("AWS", "hyperscaler"))
            for gpu in ("H100 SXM", "L40S")
            for region in ("us-east-1", "eu-west-1")
            for term in ("on_demand", "spot")
        ]
        snapshots.append(run_import(canonical(*rows), source=f"day {day}"))
    _older_history(rows=20_000)
    with connection.cursor() as cursor:
        # Statistics of the tables as they now are: left to autovacuum, they may say "empty" (analysed between two
        # tests), and the planner then reads a small table's whole index with a filter, not the plan a big one gets.
        cursor.execute(f"ANALYZE {', '.join(sorted(BIG_TABLES | {CurrentPrice._meta.db_table}))}")
    return snapshots


def test_every_market_page_reads_the_big_tables_through_an_index(viewer_client):
    first, _, last = _catalogs()
    h100 = GpuModel.objects.get(name="H100 SXM")
    observation = PriceObservation.objects.filter(snapshot=last).first()
    pages = [
        (reverse("pricing:market"), {}),
        (reverse("pricing:market"), {"gpu": h100.pk}),
        (reverse("pricing:market"), {"gpu": h100.pk, "term": "spot"}),
        (reverse("pricing:market"), {"kind": "hyperscaler"}),
        (reverse("pricing:market"), {"term": "spot", "sort": "-price"}),
        (reverse("pricing:market"), {"region": "eu", "page": "2"}),
        (reverse("pricing:price_history", args=[observation.pk]), {}),
        (reverse("pricing:snapshot_list"), {}),
        (reverse("pricing:snapshot_detail", args=[last.pk]), {}),
        (reverse("pricing:snapshot_diff"), {"a": first.pk, "b": last.pk}),
    ]
    problems = []
    for url, query in pages:
        problems += [(url, query, *problem) for problem in _problems(partial(_ok, viewer_client, url, query))]
    assert problems == []


def test_the_price_picker_and_the_newer_price_notices_read_through_an_index():
    _, _, last = _catalogs()
    picked = list(PriceObservation.objects.filter(snapshot=last).values_list("pk", flat=True)[:5])

    def reads():
        assert list(selectors.market_prices(gpu="h100", provider="lam", term="on_demand"))
        assert list(selectors.market_prices(offset=5))
        assert selectors.market_price_count(gpu="h100", provider="lam", term="on_demand") > 0
        assert selectors.market_price_count() > 0
        selectors.newer_observations(picked)

    assert _problems(reads) == []


def _older_history(*, rows: int) -> None:
    """An older catalog of `rows` other offerings, so that the tables hold far more than the pages read, as a year
    of daily imports does (one SQL statement; bench/market_bench.py builds millions the same way)."""
    snapshot = PriceSnapshot.objects.create(
        source="last month", file_name="old.csv", format="canonical", sha256="0" * 64, status=SnapshotStatus.IMPORTED
    )
    provider, gpu = Provider.objects.get(name="Lambda"), GpuModel.objects.get(name="L40S")
    with connection.cursor() as cursor:
        cursor.execute(
            f"""INSERT INTO {PriceObservation._meta.db_table} (snapshot_id, provider_id, offering, gpu_model_id,
                gpus_per_instance, region, pricing_term, observed_on, price_per_instance_hour, price_per_gpu_hour,
                currency, source_url)
            SELECT %s, %s, 'old-' || o, %s, 1, 'us-east-1', 'on_demand', '2026-10-01', 1, 1, 'USD', ''
            FROM generate_series(1, %s) AS o""",
            [snapshot.pk, provider.pk, gpu.pk, rows],
        )
        cursor.execute(
            f"INSERT INTO {SnapshotObservation._meta.db_table} (snapshot_id, observation_id) "
            f"SELECT snapshot_id, id FROM {PriceObservation._meta.db_table} WHERE snapshot_id = %s",
            [snapshot.pk],
        )


def _ok(client, url: str, query: dict) -> None:
    assert client.get(url, query).status_code == 200


def _problems(reads) -> list[tuple]:
    """Each whole-table read of a big table among the statements `reads()` runs, with the statement."""
    with CaptureQueriesContext(connection) as queries:
        reads()
    problems = []
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for sql in (q["sql"] for q in queries if q["sql"].startswith("SELECT")):
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            (plan,) = cursor.fetchone()[0]
            problems += [(scan, sql[:200]) for scan in _whole_table_reads(plan["Plan"])]
    return problems
