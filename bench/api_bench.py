"""The API's cost against what it stands on, measured side by side in one run.

Run from the repository root: ``.venv/bin/python bench/api_bench.py [--smoke]``. It sets up Django on a temporary
SQLite database (jobs in-process, as in the embedded mode), migrates it, loads the reference data and imports a
canonical price file of 1,000 current prices (H100 SXM offerings over the reference providers), makes an editor
with a read token, then through Django's test client (every request accepts gzip, as a browser or `requests` does):

- evaluate: ``POST /api/v1/evaluate`` of the first demo document (H100 inference: own vs rent), against the
  engine's own ``evaluate`` of the same document plus the login page's GET (the cost of any request through the
  site: middleware, session, template). Target: p50 at most 1.5x that sum;
- prices: ``GET /api/v1/prices?limit=1000`` (every row in one answer), against the Market page showing the same
  prices (searched by region, so that it is rendered each time rather than read from its cache; 100 rows a page
  and the comparison chart). Target: p50 at most 2x the Market page's.

Each is run ``ROUNDS`` times after a warm-up, interleaved; p50 and p95 in ms are printed with the ratios. Exit status
1 when a target is missed (``--smoke``: 100 prices and a few rounds, to check the script runs; ratios printed, never
failed on).
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALUATE_TARGET = 1.5
PRICES_TARGET = 2.0
PROVIDERS = [("CoreWeave", "neocloud"), ("Lambda", "neocloud"), ("Nebius", "neocloud"), ("AWS", "hyperscaler")]
HEADER = (
    "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
    "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
)


def setup_django(database: Path) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)  # jobs in-process
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ.setdefault("DJANGO_REQUEST_LOG", "0")
    os.environ.setdefault("API_REQUESTS_PER_MINUTE", "1000000")  # the limit is counted, never reached
    warnings.filterwarnings("ignore", message="No directory at")
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    logging.getLogger("config.audit").setLevel(logging.WARNING)  # a sign-in line would interleave with the figures
    call_command("migrate", verbosity=0)
    from pricing.services import reference_data_load

    reference_data_load(path=ROOT / "fixtures" / "reference.json")


def price_file(rows: int) -> bytes:
    """``rows`` distinct offerings, each one current price; every region contains "bench" (the Market's search)."""
    lines = [HEADER]
    for i in range(rows):
        provider, kind = PROVIDERS[i % len(PROVIDERS)]
        gpu_hour = 2 + (i % 500) / 100
        lines.append(
            f"{provider},{kind},H100 SXM,8,bench offering {i},bench-region-{i % 40},on_demand,"
            f"{gpu_hour * 8:.2f},{gpu_hour:.2f},USD,2026-11-01,\n"
        )
    return "".join(lines).encode()


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def report(label: str, samples: list[float]) -> float:
    p50 = statistics.median(samples)
    print(f"  {label:<44} p50 {p50:8.2f} ms   p95 {percentile(samples, 0.95):8.2f} ms")
    return p50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="100 prices, a few rounds: check that it runs")
    options = parser.parse_args()
    rows, rounds, warmup = (100, 5, 1) if options.smoke else (1000, 60, 5)
    with tempfile.TemporaryDirectory() as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        from django.contrib.auth.models import Group, User
        from django.test import Client

        from config.tokens import api_token_create
        from pricing.models import CurrentPrice, SnapshotOrigin
        from pricing.services import price_snapshot_import
        from tco.documents import SERVING_KEY
        from tco.engine import evaluate

        editor = User.objects.create_user("bench-editor", password="bench-password-1")
        editor.groups.add(Group.objects.get(name="editors"))
        _, token = api_token_create(user=editor, name="bench", scope="read")
        price_snapshot_import(content=price_file(rows), origin=SnapshotOrigin.COMMAND, source="bench")
        assert CurrentPrice.objects.count() == rows, CurrentPrice.objects.count()
        exported = json.loads((ROOT / "fixtures" / "scenarios" / "01-h100-inference-own-vs-rent.json").read_text())
        demo = {key: value for key, value in exported.items() if key != SERVING_KEY}  # the tco-scenario/1 document

        gzip_ok = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
        api = Client(HTTP_AUTHORIZATION=f"Bearer {token}", **gzip_ok)
        visitor = Client(**gzip_ok)
        browser = Client(**gzip_ok)
        browser.force_login(editor)
        body = json.dumps(demo)

        def api_evaluate() -> None:
            response = api.post("/api/v1/evaluate", body, content_type="application/json")
            assert response.status_code == 200, response.content[:300]

        def engine() -> None:
            evaluate(copy.deepcopy(demo))  # the view reads a fresh document from the body each time too

        def login_page() -> None:
            assert visitor.get("/accounts/login/").status_code == 200

        def api_prices() -> None:
            response = api.get("/api/v1/prices", {"limit": 1000})
            assert response.status_code == 200

        def market() -> None:
            response = browser.get("/market/", {"region": "bench"})
            assert response.status_code == 200

        measures = {"engine": engine, "login": login_page, "evaluate": api_evaluate, "prices": api_prices}
        measures["market"] = market
        samples: dict[str, list[float]] = {name: [] for name in measures}
        for round_number in range(warmup + rounds):
            for name, call in measures.items():
                elapsed = timed(call)
                if round_number >= warmup:
                    samples[name].append(elapsed)

        print(f"API bench ({rows} prices, {rounds} rounds{', smoke' if options.smoke else ''}):")
        engine_ms = report("engine evaluate (baseline)", samples["engine"])
        login_ms = report("login page GET (baseline)", samples["login"])
        evaluate_ms = report("POST /api/v1/evaluate", samples["evaluate"])
        market_ms = report("Market page, region search (baseline)", samples["market"])
        prices_ms = report(f"GET /api/v1/prices, {rows} rows", samples["prices"])
        evaluate_ratio = evaluate_ms / (engine_ms + login_ms)
        prices_ratio = prices_ms / market_ms
        print(f"  evaluate / (engine + login page): {evaluate_ratio:.2f}x (target <= {EVALUATE_TARGET}x)")
        print(f"  price listing / Market page:      {prices_ratio:.2f}x (target <= {PRICES_TARGET}x)")
        if options.smoke:
            return 0
        missed = evaluate_ratio > EVALUATE_TARGET or prices_ratio > PRICES_TARGET
        return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
