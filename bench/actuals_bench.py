"""FOCUS billing import speed and memory, as a ratio to a bare streaming read + group-by measured in the same run.

Run from the repository root: ``.venv/bin/python bench/actuals_bench.py [--smoke]`` (``--smoke``: 20,000 rows, a
few seconds). It generates a FOCUS 1.0 CSV of 1,000,000 rows laid out as the FinOps Foundation's sample (its 44
columns, the literal NULL, zone-less timestamps, JSON tags; hourly usage of a few thousand resources across AWS,
Microsoft and Oracle, GPU instance types among them, plus purchases, credits and taxes), then in two child
processes, each printing its time and its peak RSS (getrusage):

- baseline: the library chosen for the import (pyarrow) reading the same file streaming in blocks
  (``pyarrow.csv.open_csv``, the same block size) and grouping each block by month, provider, service and SKU with
  the billed cost summed; nothing else;
- import: ``tco.services.actuals.actuals_import`` on a temporary SQLite database: the file's SHA-256, the streaming
  parse (NULLs, UTC months, every cost checked, GPU rows recognised, GPU-hours), the grouping by month, provider,
  service, SKU, resource, tags, category, currency and GPU, and the atomic insert of the billing lines.

Then the Actuals page of a 24-month decision (the first demo scenario, decided for owning, plan month 1 = January
2026) with 24 months of bills behind it, 10,000,000 rows in all (``--smoke``: 200,000): an import groups rows by
month, provider, service, SKU, resource, tags and GPU, so the page reads the grouped billing lines (3,000 resources a
month, as the file above has) and a DCGM month per GPU; they are written straight into a third child's database. The
page (GET, signed in) and the scenario page (GET, and the decision panel it fetches as it loads) are each loaded 10
times after 2 warm-ups; the medians are printed. Like the scenario page's workspace, the Actuals page's numbers are
kept in the cache until an import, a rule or a rate changes them: the first view after such a change is printed
apart.

Targets (the full size): the import under 120 s and under 500 MB peak RSS, and at most 3x the baseline's time; the
Actuals page at most 2x the scenario page. The bench exits 1 when a target is missed (the smoke size checks only that
everything runs).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FULL_ROWS = 1_000_000
SMOKE_ROWS = 20_000
TARGET_SECONDS = 120.0
TARGET_RSS_MB = 500.0
TARGET_RATIO = 3.0
PAGE_ROWS = 10_000_000
PAGE_SMOKE_ROWS = 200_000
PAGE_RATIO = 2.0

COLUMNS = [
    "AvailabilityZone",
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountStatus",
    "CommitmentDiscountType",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "ListUnitPrice",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "RegionId",
    "RegionName",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "ServiceCategory",
    "Id",
    "ServiceName",
    "SkuId",
    "SkuPriceId",
    "SubAccountId",
    "SubAccountName",
    "Tags",
]
PRODUCTS = (
    # provider, service, description, unit price, unit, sku
    (
        "AWS",
        "Amazon Elastic Compute Cloud",
        "$1.624 per On Demand Linux g5.4xlarge Instance Hour",
        1.624,
        "Hours",
        "4GQWNPC9K2PZAY97",
    ),
    (
        "AWS",
        "Amazon Elastic Compute Cloud",
        "$32.77 per On Demand Linux p4d.24xlarge Instance Hour",
        32.77,
        "Hours",
        "P4DSKU000000001",
    ),
    (
        "AWS",
        "Amazon Elastic Compute Cloud",
        "$0.192 per On Demand Linux m5.xlarge Instance Hour",
        0.192,
        "Hours",
        "M5SKU0000000001",
    ),
    ("AWS", "Amazon Simple Storage Service", "$0.023 per GB-Month of storage", 0.023, "GB-Mo", "S3SKU0000000001"),
    ("Microsoft", "Virtual Machines", "NC24ads A100 v4", 3.673, "1 Hour", "AZNC24SKU000001"),
    ("Microsoft", "Storage", "Hot LRS Data Stored", 0.0184, "1 GB/Month", "AZSTORSKU000001"),
    ("Oracle", "Compute", "GPU.A10 Standard", 2.0, "Hours", "ORAA10SKU000001"),
)
CATEGORIES = ("Usage",) * 96 + ("Purchase", "Credit", "Tax", "Adjustment")
TAGS = (
    "NULL",
    '"{""application"": ""BrightPathMatrix"", ""environment"": ""dev""}"',
    '"{""application"": ""LLMServe"", ""environment"": ""prod"", ""team"": ""inference""}"',
)


def generate(path: Path, rows: int) -> int:
    """A FOCUS 1.0 CSV of ``rows`` hourly charges in September 2027 (zone-less timestamps, NULLs, JSON tags)."""
    rng = random.Random(7)
    resources = [(f"i-{index:012x}", rng.randrange(len(PRODUCTS)), rng.randrange(len(TAGS))) for index in range(3000)]
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(",".join(f'"{column}"' for column in COLUMNS) + "\n")
        lines = []
        for row in range(rows):
            resource_id, product, tag = resources[row % len(resources)]
            provider, service, description, price, unit, sku = PRODUCTS[product]
            hour = (row // len(resources)) % 720
            day, hh = divmod(hour, 24)
            start = f"2027-09-{day + 1:02d} {hh:02d}:00:00"
            end = f"2027-09-{day + 1:02d} {hh:02d}:59:59"
            quantity = 1.0 if row % 7 else 0.5
            category = CATEGORIES[row % len(CATEGORIES)]
            cost = price * quantity * (-1 if category == "Credit" else 1)
            lines.append(
                f'NULL,{cost:.11f},"1234567890123","SunBird","USD","2027-10-01 00:00:00","2027-09-01 00:00:00",'
                f'"{category}",NULL,"{description}","Usage-Based","{end}","{start}",NULL,NULL,NULL,NULL,NULL,'
                f'{quantity:.15f},"{unit}",{cost:.11f},{price},{cost:.11f},"{provider}",{cost:.11f},"{price}",'
                f'"Standard",{quantity:.11f},"{unit}","{provider}","{provider}","us-east-1","US East",'
                f'"{resource_id}",NULL,"instance","Compute",{row},"{service}","{sku}","{sku}.X","11353890204",'
                f'"Atlas",{TAGS[tag]}\n'
            )
            if len(lines) == 10000:
                out.write("".join(lines))
                lines = []
        out.write("".join(lines))
    return path.stat().st_size


def child_baseline(path: Path) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    from tco.actuals.focus import BLOCK_BYTES

    started = time.perf_counter()
    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(block_size=BLOCK_BYTES),
        convert_options=pacsv.ConvertOptions(
            include_columns=["ChargePeriodStart", "ProviderName", "ServiceName", "SkuId", "BilledCost"],
            column_types={"ChargePeriodStart": pa.string(), "BilledCost": pa.float64()},
            null_values=["NULL"],
        ),
    )
    totals: dict[tuple, float] = {}
    rows = 0
    for batch in reader:
        rows += batch.num_rows
        table = pa.table(
            {
                "month": pc.utf8_slice_codeunits(batch.column("ChargePeriodStart"), 0, 7),
                "provider": batch.column("ProviderName"),
                "service": batch.column("ServiceName"),
                "sku": batch.column("SkuId"),
                "cost": batch.column("BilledCost"),
            }
        )
        for row in table.group_by(["month", "provider", "service", "sku"]).aggregate([("cost", "sum")]).to_pylist():
            key = (row["month"], row["provider"], row["service"], row["sku"])
            totals[key] = totals.get(key, 0.0) + row["cost_sum"]
    return {"seconds": time.perf_counter() - started, "rows": rows, "groups": len(totals)}


def child_import(path: Path, database: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_REQUEST_LOG", "0")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from tco.models import BillingLine
    from tco.services.actuals import actuals_import_path

    started = time.perf_counter()
    outcome = actuals_import_path(path=path)
    elapsed = time.perf_counter() - started
    gpu_hours = sum(BillingLine.objects.values_list("gpu_hours", flat=True))
    return {
        "seconds": elapsed,
        "rows": outcome.record.rows_read,
        "groups": outcome.record.lines_kept,
        "gpu_hours": gpu_hours,
    }


def child_pages(database: Path, rows: int) -> dict:
    import statistics
    from decimal import Decimal

    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_REQUEST_LOG", "0")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.contrib.auth.models import Group, User
    from django.test import Client
    from django.urls import reverse

    from pricing.services import reference_data_load
    from tco.models import ActualsImport, ActualsKind, BillingLine, UtilizationSample
    from tco.services import scenario_create_from_document
    from tco.services.actuals import actuals_attach, rule_add
    from tco.services.decisions import decision_record

    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    editor = User.objects.create_user("bench-editor", password="bench-password-1")
    editor.groups.add(Group.objects.get(name="editors"))
    demo = json.loads((ROOT / "fixtures" / "scenarios" / "01-h100-inference-own-vs-rent.json").read_text())
    demo["horizon_months"] = 24
    scenario = scenario_create_from_document(document=demo, user=editor)
    owned = next(option["name"] for option in demo["options"] if option["kind"] == "owned")
    decision_record(scenario=scenario, user=editor, option_name=owned, rationale="bench", confirm_older=True)
    plan = actuals_attach(scenario=scenario, user=editor, start_month="2026-01")
    rule_add(plan=plan, option_name=owned, provider="Owned")
    rule_add(plan=plan, option_name=owned, provider="DCGM")
    record = ActualsImport.objects.create(kind=ActualsKind.FOCUS, file_name="bench", sha256="0" * 64)
    months = [f"{2026 + i // 12}-{i % 12 + 1:02d}" for i in range(24)]
    resources = 3000 if rows >= PAGE_ROWS else 300
    per_line = max(rows // (24 * resources), 1)
    lines = []
    for month in months:
        for index in range(resources):
            provider, service, _, price, _, sku = PRODUCTS[index % len(PRODUCTS)]
            lines.append(
                BillingLine(
                    source=record,
                    month=month,
                    provider=provider,
                    service=service,
                    sku=sku,
                    resource=f"i-{index:012x}",
                    tags=TAGS[index % len(TAGS)].strip('"').replace('""', '"'),
                    charge_category="Usage",
                    currency="USD",
                    billed_cost=Decimal(str(round(price * per_line, 6))),
                    effective_cost=Decimal(str(round(price * per_line, 6))),
                    gpu_hours=float(per_line),
                    row_count=per_line,
                )
            )
        lines.append(
            BillingLine(
                source=record,
                month=month,
                provider="Owned",
                service="energy",
                currency="USD",
                billed_cost=Decimal("812.40"),
                effective_cost=Decimal("812.40"),
            )
        )
    BillingLine.objects.bulk_create(lines, batch_size=5000)
    UtilizationSample.objects.bulk_create(
        UtilizationSample(
            source=record,
            month=month,
            provider="DCGM",
            resource="gpu-server-1",
            gpu=f"GPU-{g}",
            busy_gpu_hours=0.6 * 730,
            gpu_hours=730.0,
        )
        for month in months
        for g in range(8)
    )
    client = Client()
    client.force_login(editor)
    actuals_url = reverse("tco:scenario_actuals", args=[scenario.pk])
    scenario_url = reverse("tco:scenario_detail", args=[scenario.pk])
    panel_url = reverse("tco:decision_panel", args=[scenario.pk])

    def timed(*urls: str) -> float:
        started = time.perf_counter()
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
        return (time.perf_counter() - started) * 1000

    first_ms = timed(actuals_url)  # the first view after the bills changed: worked out, then kept
    for _ in range(2):
        timed(actuals_url)
        timed(scenario_url, panel_url)
    actuals_ms = statistics.median(timed(actuals_url) for _ in range(10))
    scenario_ms = statistics.median(timed(scenario_url, panel_url) for _ in range(10))
    return {
        "actuals_ms": actuals_ms,
        "first_ms": first_ms,
        "scenario_ms": scenario_ms,
        "lines": BillingLine.objects.count(),
        "rows": sum(BillingLine.objects.values_list("row_count", flat=True)),
    }


def run_child(mode: str, path: Path, database: Path, *extra: str) -> dict:
    command = [sys.executable, __file__, "--child", mode, str(path), str(database), *extra]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{mode} child failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        mode, path, database = argv[1], Path(argv[2]), Path(argv[3])
        sys.path.insert(0, str(ROOT))
        if mode == "pages":
            result = child_pages(database, int(argv[4]))
        else:
            result = child_baseline(path) if mode == "baseline" else child_import(path, database)
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps(result))
        return 0
    smoke = "--smoke" in argv
    rows = SMOKE_ROWS if smoke else FULL_ROWS
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "focus.csv"
        started = time.perf_counter()
        size = generate(path, rows)
        print(
            f"generated a FOCUS 1.0 CSV: {rows:,} rows, {size / 2**20:,.0f} MB ({time.perf_counter() - started:.1f} s)"
        )
        baseline = run_child("baseline", path, Path(folder) / "unused.sqlite3")
        imported = run_child("import", path, Path(folder) / "bench.sqlite3")
        pages = run_child("pages", path, Path(folder) / "pages.sqlite3", str(PAGE_SMOKE_ROWS if smoke else PAGE_ROWS))
    print(
        f"baseline: pyarrow streaming read + group-by (month, provider, service, SKU): {baseline['seconds']:.2f} s, "
        f"{baseline['groups']:,} groups, peak RSS {baseline['peak_rss_mb']:.0f} MB"
    )
    print(
        f"import: {imported['rows']:,} rows into {imported['groups']:,} billing lines, "
        f"{imported['gpu_hours']:,.1f} GPU-hours: {imported['seconds']:.2f} s, "
        f"peak RSS {imported['peak_rss_mb']:.0f} MB"
    )
    ratio = imported["seconds"] / baseline["seconds"]
    time_ok = imported["seconds"] < TARGET_SECONDS
    memory_ok = imported["peak_rss_mb"] < TARGET_RSS_MB
    ratio_ok = ratio <= TARGET_RATIO
    print(
        f"import {ratio:.2f}x the baseline ({'within' if ratio_ok else 'ABOVE'} {TARGET_RATIO:.0f}x), "
        f"{imported['seconds']:.1f} s ({'under' if time_ok else 'ABOVE'} {TARGET_SECONDS:.0f} s), "
        f"peak RSS {imported['peak_rss_mb']:.0f} MB ({'under' if memory_ok else 'ABOVE'} {TARGET_RSS_MB:.0f} MB)"
    )
    page_ratio = pages["actuals_ms"] / pages["scenario_ms"]
    page_ok = page_ratio <= PAGE_RATIO
    print(
        f"Actuals page of a 24-month decision ({pages['rows']:,} billed rows in {pages['lines']:,} billing lines): "
        f"{pages['actuals_ms']:.0f} ms (the first view after an import, uncached: {pages['first_ms']:.0f} ms); "
        f"the scenario page with its decision panel: {pages['scenario_ms']:.0f} ms; "
        f"{page_ratio:.2f}x ({'within' if page_ok else 'ABOVE'} {PAGE_RATIO:.0f}x)"
    )
    if imported["rows"] != rows:
        print(f"the import read {imported['rows']:,} rows of {rows:,}")
        return 1
    if smoke:
        return 0
    return 0 if time_ok and memory_ok and ratio_ok and page_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
