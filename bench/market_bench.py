"""Market speed at 1 and 10 million observations on PostgreSQL, as a ratio to a bare indexed SELECT measured in
the same run.

Run from the repository root: `.venv/bin/python bench/market_bench.py [--sizes 1M,10M] [--dates 365]
[--database market_bench] [--server postgres://postgres@127.0.0.1:5432] [--keep]`. Without a reachable PostgreSQL it
says so and exits 0 (so `make bench` skips it).

It creates its own database (dropped at the end), migrates it, loads the reference data and generates a year of
daily catalogs with SQL (`INSERT ... SELECT generate_series`): every offering (36 providers, 20 GPU models, 8
regions, 5 terms, 1 to 8 GPUs) priced once a day, each day its own snapshot recording its rows. The number of
offerings makes each size (1M: ~2,700 offerings x 365 days; 10M: ~27,400). Then the migration that made the
current-price table fills it again from the observations (its own function, as it would on an existing
deployment), ANALYZEs as a big import does, and measures with Django's test client, the cache off (every
request renders and queries):

- baseline: a bare indexed SELECT of one page (one day's on-demand prices of one GPU model, 100 rows);
- the Market page: the default view, each filter, the highest-price sort, page 20 and the last page (the 300 ms
  target);
- the other Market pages: an offering's history, the snapshot list and page, and the diff of two daily
  snapshots (reported; a diff reads both files whole, so its time follows the files' size, not the table's).

Each page is requested 5 times first, then 25 times measured; p50 and p95 are printed with the p95's ratio to
the baseline's. Every statement of one request of each page is then run with EXPLAIN ANALYZE: the slowest is
printed, and any sequential scan of the observations or snapshot-contents table. Exit status 1 when a Market
view's p95 is 300 ms or more, or such a scan appears. `--smoke`: 20,000 observations over 10 days, a few requests a
page, exit 0 whatever the times (that it runs: `make bench-smoke`).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import sys
import time
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 300.0
SMOKE = "--smoke" in sys.argv
WARMUP, REPEATS = (1, 2) if SMOKE else (5, 25)
FIRST_DAY = date(2025, 12, 1)
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-south-1", "ca-central-1", ""]
TERMS = ["on_demand", "spot", "reserved_1y", "reserved_3y", "committed"]
GPUS = [
    "H100 SXM", "H100 PCIe", "H100 NVL", "H200 SXM", "B200", "GH200", "A100 40GB SXM", "A100 80GB SXM",
    "A100 80GB PCIe", "L40S", "L40", "L4", "A10", "A10G", "A40", "RTX A6000", "RTX 6000 Ada", "RTX 4090", "V100 32GB",
    "T4",
]  # fmt: skip
BIG_TABLES = ("pricing_priceobservation", "pricing_snapshotobservation")


def size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


def reachable(server: str) -> str:
    """'' when PostgreSQL answers at `server`, else why not."""
    import psycopg

    try:
        psycopg.connect(f"{server}/postgres", connect_timeout=3).close()
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]
    return ""


def recreate_database(server: str, name: str, *, drop_only: bool = False) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if not drop_only:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def setup_django(url: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)  # the Market's cache is off below; jobs would run in-process
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_REQUEST_LOG"] = "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()


def refill_current_prices() -> None:
    """Empty the current-price table and fill it with the function of the migration that made it (found by name,
    whatever its number), as that migration fills it on an existing deployment."""
    import importlib

    from django.apps import apps
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    from pricing.models import CurrentPrice

    loader = MigrationLoader(connection)
    (name,) = [name for app, name in loader.disk_migrations if app == "pricing" and "current_prices" in name]
    module = importlib.import_module(f"pricing.migrations.{name}")
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {CurrentPrice._meta.db_table}")
    with connection.schema_editor() as editor:
        module.fill_current_prices(apps, editor)


@contextmanager
def timed(label: str):
    started = time.perf_counter()
    yield
    print(f"  {label}: {time.perf_counter() - started:.1f} s", flush=True)


@contextmanager
def without_secondary_indexes(table: str):
    """Drop the table's constraints and indexes but its primary key while rows are bulk-inserted, then build them
    again (much faster than maintaining seven of them row by row)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype <> 'p'",
            [table],
        )
        constraints = cursor.fetchall()
        for name, _ in constraints:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname NOT IN "
            "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
            [table, table],
        )
        indexes = cursor.fetchall()
        for name, _ in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
    yield
    with connection.cursor() as cursor:
        for _, definition in indexes:
            cursor.execute(definition)
        for name, definition in constraints:
            cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def snapshots(dates: int) -> list[int]:
    """One imported snapshot per day (created once, before the first size)."""
    from pricing.models import PriceSnapshot, SnapshotOrigin, SnapshotStatus

    existing = list(PriceSnapshot.objects.order_by("id").values_list("id", flat=True))
    if existing:
        return existing
    made = PriceSnapshot.objects.bulk_create(
        PriceSnapshot(
            source="daily catalog",
            file_name=f"catalog-{FIRST_DAY + timedelta(days=day)}.csv",
            format="canonical",
            sha256=f"{day:064d}",
            status=SnapshotStatus.IMPORTED,
            origin=SnapshotOrigin.SCHEDULE,
        )
        for day in range(dates)
    )
    return [snapshot.pk for snapshot in made]


def generate(first_offering: int, offerings: int, snapshot_ids: list[int]) -> None:
    """Offerings first_offering .. first_offering + offerings - 1, each priced on every day, in day order (as
    daily imports store them), with each day's snapshot recording its rows."""
    from django.db import connection

    from pricing.models import GpuModel, PriceObservation, Provider, SnapshotObservation

    providers = list(Provider.objects.order_by("id").values_list("id", flat=True))
    gpus = list(GpuModel.objects.filter(name__in=GPUS).order_by("id").values_list("id", flat=True))
    observations, contents = PriceObservation._meta.db_table, SnapshotObservation._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM " + observations)
        (last_id,) = cursor.fetchone()
    insert = f"""
        INSERT INTO {observations} (snapshot_id, provider_id, offering, gpu_model_id, gpus_per_instance, region,
            pricing_term, observed_on, price_per_instance_hour, price_per_gpu_hour, currency, source_url)
        SELECT %(snapshot)s, (%(providers)s::bigint[])[1 + o %% %(np)s], 'instance-' || o,
            (%(gpus)s::bigint[])[1 + (o / 3) %% %(ng)s], n, (%(regions)s::text[])[1 + (o / 7) %% 8],
            (%(terms)s::text[])[1 + (o / 11) %% 5], %(day)s, price * n, price,
            CASE WHEN o %% 10 = 0 THEN 'EUR' ELSE 'USD' END, 'https://example.com/prices/' || (o %% 97)
        FROM generate_series(%(start)s, %(stop)s - 1) AS o,
            LATERAL (SELECT (ARRAY[1, 2, 4, 8])[1 + (o / 5) %% 4] AS n,
                round(0.25 + ((o * 37) %% 600) / 100.0 + ((o + %(number)s) %% 13) / 100.0, 6) AS price) AS f
    """
    fixed = {"providers": providers, "np": len(providers), "gpus": gpus, "ng": len(gpus), "regions": REGIONS}
    fixed |= {"terms": TERMS, "start": first_offering, "stop": first_offering + offerings}
    with without_secondary_indexes(observations), without_secondary_indexes(contents), connection.cursor() as cursor:
        for number, snapshot in enumerate(snapshot_ids):  # day by day, as daily imports store them
            day = FIRST_DAY + timedelta(days=number)
            cursor.execute(insert, {**fixed, "snapshot": snapshot, "day": day, "number": number})
        cursor.execute(
            f"INSERT INTO {contents} (snapshot_id, observation_id) "
            f"SELECT snapshot_id, id FROM {observations} WHERE id > %s",
            [last_id],
        )


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def measure(request) -> tuple[float, float]:
    """(p50, p95) in ms of `request()` after a warm-up."""
    for _ in range(WARMUP):
        request()
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        request()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), percentile(times, 0.95)


def explain(request) -> tuple[float, list[str]]:
    """Run one request, then EXPLAIN ANALYZE each of its statements: (the slowest's execution ms, the sequential
    scans of big tables found)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        request()
    slowest, scans = 0.0, []
    with connection.cursor() as cursor:
        for query in queries.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
            (plan,) = cursor.fetchone()[0]
            slowest = max(slowest, plan["Execution Time"])
            scans += [f"{node['Node Type']} on {node['Relation Name']}" for node in _nodes(plan["Plan"])]
    return slowest, sorted(set(scans))


def _nodes(node: dict):
    if node.get("Node Type") == "Seq Scan" and node.get("Relation Name") in BIG_TABLES:
        yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


def pages(client, dates: int) -> tuple[list[tuple[str, object]], list[tuple[str, object]]]:
    """(Market views, other Market pages) as (label, request) pairs."""
    from django.urls import reverse

    from pricing.models import CurrentPrice, GpuModel, PriceSnapshot

    market = reverse("pricing:market")
    h100 = GpuModel.objects.get(name="H100 SXM").pk
    views = [
        ("Market, default view", {}),
        ("Market, GPU model", {"gpu": h100}),
        ("Market, GPU model + term", {"gpu": h100, "term": "spot"}),
        ("Market, provider kind", {"kind": "marketplace"}),
        ("Market, term", {"term": "reserved_1y"}),
        ("Market, region contains", {"region": "eu-"}),
        ("Market, highest price first", {"sort": "-price"}),
        ("Market, page 20", {"page": 20}),
        ("Market, last page", {"page": math.ceil(CurrentPrice.objects.count() / 100)}),
    ]

    def get(url, query=None):
        def request():
            response = client.get(url, query or {})
            if response.status_code != 200:
                raise SystemExit(f"{url} {query}: HTTP {response.status_code}")

        return request

    observation = CurrentPrice.objects.order_by("price_per_gpu_hour", "id").values_list("observation_id", flat=True)[0]
    newest, before = PriceSnapshot.objects.order_by("-id").values_list("id", flat=True)[:2]
    others = [
        (f"price history ({dates} days)", get(reverse("pricing:price_history", args=[observation]))),
        ("snapshot list", get(reverse("pricing:snapshot_list"))),
        ("snapshot page", get(reverse("pricing:snapshot_detail", args=[newest]))),
        ("diff of two daily snapshots", get(reverse("pricing:snapshot_diff"), {"a": before, "b": newest})),
    ]
    return [(label, get(market, query)) for label, query in views], others


def baseline_request():
    """A bare indexed SELECT: one day's on-demand prices of one GPU model, cheapest first, 100 rows."""
    from django.db import connection

    from pricing.models import GpuModel, PriceObservation

    table = PriceObservation._meta.db_table
    gpu = GpuModel.objects.get(name="H100 SXM").pk
    sql = (
        f"SELECT * FROM {table} WHERE gpu_model_id = %s AND pricing_term = 'on_demand' AND observed_on = %s "
        "ORDER BY price_per_gpu_hour LIMIT 100"
    )

    def request():
        with connection.cursor() as cursor:
            cursor.execute(sql, [gpu, FIRST_DAY + timedelta(days=100)])
            cursor.fetchall()

    return request


def report(total: int, offerings: int, dates: int, client) -> bool:
    """Measure and print one size; True when the Market met the target."""
    base_p50, base_p95 = measure(baseline_request())
    views, others = pages(client, dates)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"\n{total:,} observations, {offerings:,} offerings (the current-price table's rows); load average {load}")
    print(f"  {'page':<30} {'p50 ms':>8} {'p95 ms':>8} {'p95 ratio':>10} {'slowest SQL ms':>15}  sequential scans")
    print(f"  {'baseline: indexed SELECT':<30} {base_p50:>8.2f} {base_p95:>8.2f} {1:>9.1f}x")
    met = True
    for number, (label, request) in enumerate(views + others):
        p50, p95 = measure(request)
        slowest, scans = explain(request)
        is_market = number < len(views)
        if is_market and (p95 >= TARGET_MS or scans):
            met = False
        flag = "" if not is_market or p95 < TARGET_MS else "  ABOVE TARGET"
        print(
            f"  {label:<30} {p50:>8.1f} {p95:>8.1f} {p95 / base_p95:>9.0f}x {slowest:>15.1f}  "
            f"{', '.join(scans) or 'none'}{flag}"
        )
    return met


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,10M", help="observation counts to reach in turn (default 1M,10M)")
    parser.add_argument("--dates", type=int, default=365, help="daily catalogs (default 365: a year)")
    parser.add_argument("--database", default="market_bench", help="created here and dropped at the end")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL, no database")
    parser.add_argument("--keep", action="store_true", help="keep the database at the end (to look at plans)")
    parser.add_argument("--smoke", action="store_true", help="a small size in seconds: that it runs, not how fast")
    args = parser.parse_args(argv)
    if args.smoke:
        args.sizes, args.dates = "20K", 10
    sizes = sorted(size(text) for text in args.sizes.split(","))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: still drop the database
    why = reachable(args.server)
    if why:
        print(f"market bench skipped: PostgreSQL is not reachable at {args.server} ({why})")
        return 0
    recreate_database(args.server, args.database)
    try:
        return run(args, sizes)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            recreate_database(args.server, args.database, drop_only=True)


def run(args: argparse.Namespace, sizes: list[int]) -> int:
    setup_django(f"{args.server}/{args.database}")
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client, override_settings

    from pricing.services import reference_data_load

    call_command("migrate", verbosity=0)
    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")  # generating millions of rows takes longer than a request
    snapshot_ids = snapshots(args.dates)
    offerings, met = 0, True
    for total in sizes:
        wanted = total // args.dates
        print(f"\n{wanted * args.dates:,} observations ({wanted:,} offerings x {args.dates} daily catalogs):")
        with timed(f"generated {(wanted - offerings) * args.dates:,} observations and their snapshot contents"):
            generate(offerings, wanted - offerings, snapshot_ids)
        offerings = wanted
        with timed("ANALYZE"):
            analyze()
        with timed("the migration's fill made the current-price table"):
            refill_current_prices()
        with timed("ANALYZE, as after a big import"):
            analyze()
        connection.close()  # measure on a connection as a web request has it (statement_timeout set)
        viewer, _ = User.objects.get_or_create(username="bench-viewer")
        viewer.groups.add(Group.objects.get(name="viewers"))
        client = Client()
        client.force_login(viewer)
        with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}):
            met = report(offerings * args.dates, offerings, args.dates, client) and met
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
    verdict = "met" if met else "MISSED"
    print(f"\ntarget: every Market view's p95 under {TARGET_MS:.0f} ms, no sequential scan of a big table: {verdict}")
    return 0 if met or SMOKE else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
