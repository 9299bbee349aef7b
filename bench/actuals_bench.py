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

Targets (the full size): the import under 120 s and under 500 MB peak RSS, and at most 3x the baseline's time. The
bench exits 1 when a target is missed (the smoke size checks only that both run).
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


def run_child(mode: str, path: Path, database: Path) -> dict:
    command = [sys.executable, __file__, "--child", mode, str(path), str(database)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{mode} child failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        mode, path, database = argv[1], Path(argv[2]), Path(argv[3])
        sys.path.insert(0, str(ROOT))
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
    if imported["rows"] != rows:
        print(f"the import read {imported['rows']:,} rows of {rows:,}")
        return 1
    if smoke:
        return 0
    return 0 if time_ok and memory_ok and ratio_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
