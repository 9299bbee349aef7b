"""Edit latency vs page latency in the scenario workspace, measured side by side in one run.

Run from the repository root: ``.venv/bin/python bench/edit_bench.py``. It sets up Django on a temporary
SQLite database (jobs run in-process, as in the embedded mode), migrates it, loads the reference data and
the first demo scenario (H100 inference: own vs rent), then through the real views with django.test.Client:

- edit: what the browser does for one change. POST one input (the Lambda price per GPU-hour, a new value
  each time): read it with the option's form, save, queue and run the evaluation (engine + figures), answer with
  the whole workspace rendered once (inputs, results, uncertainty and decision panels, history). When the run has
  not finished by then (a real worker), the page polls; the bench then GETs the poll until it answers the
  workspace (204 until then), timed as part of the edit. In-process the POST's own answer already carries the
  finished results. The figures are not in the answer: the browser fetches them once per run from their URL, and
  so does the bench (timed too);
- page: the same scenario page loaded right after the edit, as a user would reload it, until it is whole: the GET
  of the shell with the workspace region of the new version (rendered, then kept in the cache: every edit makes a
  new version, so the region is never read from the cache here), then the request the page makes as it loads for
  its decision panel (brief, links and exports), timed together as the edit's figures are. The browser has the
  run's figures already (their URL is immutable). The GET alone is printed too.

Every request says it accepts gzip, as a browser does (the server's compressing is timed too). Both are run 200
times, interleaved; p50 and p95 in ms are printed, then the queries and bytes of one edit (its answer: the POST and
its polls; its figures; and what was sent compressed), measured apart. Target: edit p95 <= 1.5x the p95 of the
page until whole; the ratio to its GET alone is printed too.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMOKE = "--smoke" in sys.argv  # a small size in a few seconds: that it runs (make bench-smoke), not how fast
ROUNDS = 3 if SMOKE else 200
WARMUP = 1 if SMOKE else 10
TARGET_RATIO = 1.5
FIGURES = re.compile(r'data-figure-src="([^"#]+)#')
ON_LOAD = re.compile(r'hx-get="([^"]+)" hx-trigger="load"')  # what the page fetches as soon as it is shown


def setup_django(database: Path) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)  # jobs in-process
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    os.environ.setdefault("DJANGO_REQUEST_LOG", "0")  # one JSON line per request would bury the figures
    warnings.filterwarnings("ignore", message="No directory at")
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from pricing.services import reference_data_load

    reference_data_load(path=ROOT / "fixtures" / "reference.json")


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        from django.contrib.auth.models import Group, User
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.urls import reverse

        from tco.models import Scenario
        from tco.services import scenario_create_from_document

        editor = User.objects.create_user("bench-editor", password="bench-password-1")
        editor.groups.add(Group.objects.get(name="editors"))
        demo = json.loads((ROOT / "fixtures" / "scenarios" / "01-h100-inference-own-vs-rent.json").read_text())
        scenario = scenario_create_from_document(document=demo, user=editor)
        option = scenario.options.get(name="Lambda 8\u00d7 H100 SXM")
        client = Client()
        client.force_login(editor)
        page_url = reverse("tco:scenario_detail", args=[scenario.pk])
        field_url = reverse("tco:option_field", args=[scenario.pk, option.pk])
        results_url = reverse("tco:scenario_results", args=[scenario.pk])
        browser = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}  # answers travel compressed, as to a browser
        htmx = {"HTTP_HX_REQUEST": "true", **browser}

        def body(response) -> bytes:
            return gzip.decompress(response.content) if response.get("Content-Encoding") == "gzip" else response.content

        def edit(round_number: int, counted: dict | None = None) -> float:
            """ms of one change: the POST, the polls until the run is done, the new run's figures. With ``counted``,
            its queries and bytes go there (apart: counting makes the database calls slower)."""
            version = Scenario.objects.values_list("version", flat=True).get(pk=scenario.pk)
            price = f"{3.0 + round_number / 1000:.3f}"  # 3.000, 3.001, ...: a new document every time
            count = (lambda: CaptureQueriesContext(connection)) if counted is not None else contextlib.nullcontext
            with count() as answer_queries:
                started = time.perf_counter()
                saved = client.post(field_url, {"price_per_gpu_hour": price, "version": version}, **htmx)
                shown = body(saved)
                sent, answer_bytes = len(saved.content), len(shown)
                while b'hx-trigger="every 1s"' in shown:  # still computing: poll like the page does
                    polled = client.get(results_url, {"version": version + 1}, **htmx)
                    sent, answer_bytes = sent + len(polled.content), answer_bytes + len(body(polled))
                    shown = body(polled) if polled.status_code == 200 else shown
                    if polled.status_code == 204:
                        time.sleep(0.01)
            with count() as figure_queries:
                figures = client.get(FIGURES.search(shown.decode()).group(1), **browser)
            elapsed = time.perf_counter() - started
            assert saved.status_code == 200, saved.status_code
            assert b"Up to date" in shown and b'data-figure="fig-annual_cost' in shown
            if counted is not None:
                counted.update(
                    answer_queries=len(answer_queries),
                    figure_queries=len(figure_queries),
                    answer_bytes=answer_bytes,
                    figure_bytes=len(body(figures)),
                    sent=sent + len(figures.content),
                )
            return elapsed * 1000

        def page() -> tuple[float, float]:
            """ms of the GET alone, and of the page until whole (the GET, then what it fetches as it loads)."""
            started = time.perf_counter()
            response = client.get(page_url, **browser)
            shell = time.perf_counter() - started
            later = ON_LOAD.findall(body(response).decode())
            assert response.status_code == 200 and later, "the page no longer fetches its decision panel on load?"
            for url in later:
                assert client.get(url, **htmx).status_code == 200, url
            return shell * 1000, (time.perf_counter() - started) * 1000

        for number in range(WARMUP):
            edit(number)
            page()
        edits, shells, pages = [], [], []
        for number in range(ROUNDS):
            edits.append(edit(WARMUP + number))
            shell, whole = page()
            shells.append(shell)
            pages.append(whole)
        counted: dict = {}
        edit(WARMUP + ROUNDS, counted)

        print(f"{'request':<42} {'n':>4} {'p50 ms':>8} {'p95 ms':>8}")
        print(
            f"{'edit (save + evaluate + workspace)':<42} {ROUNDS:>4} "
            f"{statistics.median(edits):>8.1f} {percentile(edits, 0.95):>8.1f}"
        )
        for label, samples in (("page until whole (GET + decision panel)", pages), ("  of which the GET", shells)):
            print(f"{label:<42} {ROUNDS:>4} {statistics.median(samples):>8.1f} {percentile(samples, 0.95):>8.1f}")
        queries = counted["answer_queries"] + counted["figure_queries"]
        size = counted["answer_bytes"] + counted["figure_bytes"]
        print(
            f"one edit: {queries} queries (its answer {counted['answer_queries']}, the evaluation's own included; "
            f"its figures {counted['figure_queries']}), {size / 1000:.1f} kB (its answer "
            f"{counted['answer_bytes'] / 1000:.1f}, its figures {counted['figure_bytes'] / 1000:.1f}); "
            f"{counted['sent'] / 1000:.1f} kB sent compressed"
        )
        ratio = percentile(edits, 0.95) / percentile(pages, 0.95)
        verdict = "within" if ratio <= TARGET_RATIO else "ABOVE"
        print(f"edit p95 / page p95 = {ratio:.2f}x: {verdict} the target of {TARGET_RATIO}x")
        print(f"edit p95 / p95 of the page's GET alone = {percentile(edits, 0.95) / percentile(shells, 0.95):.2f}x")
        return 0 if SMOKE or ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
