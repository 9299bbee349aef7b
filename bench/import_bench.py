"""Price import speed, as a ratio to a bare baseline measured in the same run.

Run from the repository root: `.venv/bin/python bench/import_bench.py [--quick | --feed]` (`--quick` skips the
100,000-row canonical file, `--feed` runs only the EC2 offer file below). It sets up Django on a temporary
SQLite database, migrates it and loads the reference data, then for each file times:

- import: `price_snapshot_import`, everything the app does (decode, parse, validate every cell, resolve
  names, check known prices, store the snapshot and the observations);
- baseline: bare `pandas.read_csv` of the same file plus one bulk insert of the parsed rows
  (`bulk_create` with the same batch size, no validation; for SkyPilot files one row per on-demand and
  one per spot price, as many observations as an import of the file can store at most).

Files: the largest SkyPilot sample, a generated AWS-like SkyPilot file (20,000+ rows: GPU, CPU and
Inferentia instance types, four zones per region, zone-level spot prices, AWS's GpuInfo dictionaries),
the same with GPU names no alias maps (every GPU row held back, with the closest known names) and a
generated canonical CSV. Each is run a few times on an empty price table and the best time is
kept. Target: import at most 3 times the baseline. Peak memory (tracemalloc) of one more, untimed run
of each is printed too.

Then a generated AWS EC2 offer file of 300 MB (`aws-price-list`: products of GPU and CPU instance types in every
operating system, tenancy, capacity status and software variant, in several regions, with their on-demand and
reserved terms, laid out as AWS publishes it) is imported in a child process from the open file, and a bare
streaming parse of it (every `ijson.parse` event of the same file, same backend, nothing built) runs in another.
Each child prints its time and its peak RSS (getrusage). Targets: the import's peak RSS under 500 MB and its time
at most 3 times the bare parse's. The bench exits 1 when any target is missed.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 3.0
SMOKE = "--smoke" in sys.argv  # a small size in a few seconds: that it runs (make bench-smoke), not how fast
REPEATS = 1 if SMOKE else 3
GENERATED_ROWS = 2_000 if SMOKE else 100_000
AWS_LIKE_ZONES = 4
AWS_LIKE_REGIONS = 2 if SMOKE else 64
OFFER_FILE_BYTES = (2 if SMOKE else 300) * 10**6
FEED_PEAK_RSS_MB = 500


def setup_django(database: Path) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    if SMOKE:  # the tables straight from the models, not every migration replayed: seconds, not half a minute
        from django.apps import apps
        from django.conf import settings

        settings.MIGRATION_MODULES = {app.label: None for app in apps.get_app_configs()}
        call_command("migrate", run_syncdb=True, verbosity=0)
    else:
        call_command("migrate", verbosity=0)
    from pricing.services import reference_data_load

    reference_data_load(path=ROOT / "fixtures" / "reference.json")


def largest_sample() -> Path:
    return max((ROOT / "fixtures" / "prices" / "skypilot").glob("*/*.csv"), key=lambda p: p.stat().st_size)


def generate_canonical(path: Path, rows: int) -> None:
    """A valid canonical CSV with `rows` distinct offerings over every reference provider and GPU model."""
    from pricing.importers import CANONICAL_COLUMNS
    from pricing.models import GpuModel, Provider

    providers = list(Provider.objects.values_list("name", "kind"))
    gpus = list(GpuModel.objects.values_list("name", flat=True))
    terms = ["on_demand", "spot", "reserved_1y", "reserved_3y", "committed"]
    regions = ["us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1", "Hafnarfjarðarkaupstaður, IS, EU"]
    first = date(2026, 1, 1)
    with path.open("w", encoding="utf-8", newline="") as out:
        # By column name, so a column the canonical format gains later is written blank rather than shifting the rest.
        writer = csv.DictWriter(out, fieldnames=CANONICAL_COLUMNS, restval="")
        writer.writeheader()
        for i in range(rows):
            provider, kind = providers[i % len(providers)]
            gpus_per_instance = (1, 2, 4, 8)[i % 4]
            writer.writerow(
                {
                    "provider": provider,
                    "provider_kind": kind,
                    "gpu_model": gpus[i % len(gpus)],
                    "gpus_per_instance": gpus_per_instance,
                    "offering": f"offer-{i}",
                    "region": regions[i % len(regions)],
                    "pricing_term": terms[i % len(terms)],
                    "price_per_instance_hour": Decimal(50 + i % 4000) / 100 * gpus_per_instance,
                    "currency": "USD",
                    "observed_on": (first + timedelta(days=i % 300)).isoformat(),
                    "source_url": f"https://example.com/p/{i % 97}",
                }
            )


# (family, accelerator, GPUs at the largest size, MiB per GPU, $/hour of the largest size); None: CPU-only.
AWS_FAMILIES = [
    ("p5", "H100", 8, 81920, "55.04"),
    ("p5e", "H200", 8, 144384, "63.30"),
    ("p4d", "A100", 8, 40960, "21.96"),
    ("p4de", "A100-80GB", 8, 81920, "27.45"),
    ("g6e", "L40S", 8, 45776, "30.13"),
    ("g6", "L4", 8, 23034, "13.35"),
    ("g5", "A10G", 8, 24576, "16.29"),
    ("g4dn", "T4", 8, 16384, "7.82"),
    ("inf2", "Inferentia2", 8, 32768, "12.98"),
    ("m7i", None, 0, 0, "9.68"),
]
AWS_SIZES = [("xlarge", 1), ("2xlarge", 1), ("4xlarge", 1), ("8xlarge", 1), ("12xlarge", 4), ("16xlarge", 1)]
AWS_SIZES += [("24xlarge", 4), ("48xlarge", 8)]


def generate_aws_like(path: Path, regions: int, *, unknown_gpus: bool = False) -> int:
    """A SkyPilot AWS vms.csv look-alike: every family and size in every zone of `regions` regions. With
    `unknown_gpus`, each accelerator has a name no alias maps (`H100-NEXT`): every GPU row is held back."""
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    header += "AvailabilityZone,Arch"
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(header + "\n")
        for region_number in range(regions):
            region = f"xx-region-{region_number}"
            for family, accelerator, most, mib, top_price in AWS_FAMILIES:
                if accelerator and unknown_gpus and accelerator != "Inferentia2":
                    accelerator += "-NEXT"
                for size, gpus in AWS_SIZES:
                    gpus = min(gpus, most)
                    price = (Decimal(top_price) * gpus / 8 * (1 + Decimal(region_number % 7) / 20)).quantize(
                        Decimal("0.00001")
                    )
                    info = (
                        f"\"{{'Gpus': [{{'Name': '{accelerator}', 'Manufacturer': 'NVIDIA', 'Count': {gpus}, "
                        f"'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {mib * gpus}}}\""
                        if accelerator
                        else ""
                    )
                    for zone in range(AWS_LIKE_ZONES):
                        spot = (price * Decimal("0.3") * (1 + Decimal(zone) / 10)).quantize(Decimal("0.0001"))
                        out.write(
                            f"{family}.{size},{accelerator or ''},{float(gpus) if accelerator else ''},96.0,768.0,"
                            f"{info},{price},{spot},{region},{region}-az{zone},x86_64\n"
                        )
                        rows += 1
    return rows


# The offer file's instance types: (family, size, GPUs) with GPUs, then CPU-only families in eight sizes.
OFFER_GPU_TYPES = [
    ("p5", "48xlarge", 8),
    ("p5e", "48xlarge", 8),
    ("p5en", "48xlarge", 8),
    ("p4d", "24xlarge", 8),
    ("p4de", "24xlarge", 8),
    ("g6e", "xlarge", 1),
    ("g6e", "12xlarge", 4),
    ("g6e", "48xlarge", 8),
    ("g6", "xlarge", 1),
    ("g6", "48xlarge", 8),
    ("g5", "xlarge", 1),
    ("g5", "48xlarge", 8),
    ("g4dn", "xlarge", 1),
    ("g4dn", "metal", 8),
    ("p3", "16xlarge", 8),
]
OFFER_CPU_TYPES = [
    (family, size, 0)
    for family in ("m5", "c5", "r5", "m6i", "c6i", "r6i", "m7i", "c7i", "r7i", "m6g", "c6g", "r6g", "m7g", "c7g")
    for size in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge")
]
OFFER_VARIANTS = list(
    itertools.product(
        ("Linux", "Windows", "RHEL", "SUSE"),
        ("Shared", "Dedicated", "Host"),
        ("Used", "UnusedCapacityReservation", "AllocatedCapacityReservation"),
        ("NA", "SQL Web"),
    )
)
RESERVED_OPTIONS = [
    (lease, offering_class, option)
    for lease in ("1yr", "3yr")
    for offering_class in ("standard", "convertible")
    for option in ("No Upfront", "Partial Upfront", "All Upfront")
]


def _offer_product(sku: str, instance: str, gpus: int, region: str, variant: tuple[str, str, str, str]) -> dict:
    operating_system, tenancy, capacity, software = variant
    attributes = {
        "servicecode": "AmazonEC2",
        "location": f"Region {region}",
        "locationType": "AWS Region",
        "instanceType": instance,
        "currentGeneration": "Yes",
        "instanceFamily": "GPU instance" if gpus else "General purpose",
        "vcpu": "96",
        "physicalProcessor": "Intel Xeon Platinum 8488C",
        "clockSpeed": "2.4 GHz",
        "memory": "768 GiB",
        "storage": "EBS only",
        "networkPerformance": "100 Gigabit",
        "processorArchitecture": "64-bit",
        "tenancy": tenancy,
        "operatingSystem": operating_system,
        "licenseModel": "No License required",
        "usagetype": f"BoxUsage:{instance}",
        "operation": "RunInstances",
        "availabilityzone": "NA",
        "capacitystatus": capacity,
        "classicnetworkingsupport": "false",
        "dedicatedEbsThroughput": "Up to 10000 Mbps",
        "ecu": "NA",
        "enhancedNetworkingSupported": "Yes",
        "gpuMemory": "NA",
        "intelAvxAvailable": "Yes",
        "marketoption": "OnDemand",
        "normalizationSizeFactor": "192",
        "preInstalledSw": software,
        "processorFeatures": "Intel AVX; Intel AVX2; Intel AVX512; Intel Turbo",
        "regionCode": region,
        "servicename": "Amazon Elastic Compute Cloud",
        "vpcnetworkingsupport": "true",
    }
    if gpus:
        attributes["gpu"] = str(gpus)
    return {"sku": sku, "productFamily": "Compute Instance", "attributes": attributes}


def _offer_term(sku: str, code: str, hourly: Decimal, upfront: Decimal | None, attributes: dict) -> dict:
    dimensions = {
        f"{sku}.{code}.6YS6EN2CT7": {
            "rateCode": f"{sku}.{code}.6YS6EN2CT7",
            "description": f"${hourly} per Instance Hour",
            "beginRange": "0",
            "endRange": "Inf",
            "unit": "Hrs",
            "pricePerUnit": {"USD": f"{hourly:.10f}"},
            "appliesTo": [],
        }
    }
    if upfront is not None:
        dimensions[f"{sku}.{code}.2TG2D8R56U"] = {
            "rateCode": f"{sku}.{code}.2TG2D8R56U",
            "description": "Upfront Fee",
            "unit": "Quantity",
            "pricePerUnit": {"USD": f"{upfront}"},
            "appliesTo": [],
        }
    term = {
        "offerTermCode": code,
        "sku": sku,
        "effectiveDate": "2026-11-01T00:00:00Z",
        "priceDimensions": dimensions,
        "termAttributes": attributes,
    }
    return {f"{sku}.{code}": term}


def generate_offer_file(path: Path, target_bytes: int) -> int:
    """An EC2 offer file of about `target_bytes`, region after region: products first, then terms.OnDemand and
    terms.Reserved, as AWS lays them out. Returns the number of products."""
    sections = [path.with_suffix(f".{name}") for name in ("products", "ondemand", "reserved")]
    outs = [section.open("w", encoding="utf-8") for section in sections]
    count = 0
    for region_number in itertools.count():
        region = f"xx-region-{region_number}"
        # The smoke run keeps every GPU type and a few CPU-only ones (one whole region is about 40 MB).
        for family, size, gpus in OFFER_GPU_TYPES + OFFER_CPU_TYPES[: 4 if SMOKE else None]:
            base = Decimal(gpus * 5 + 1) * (1 + Decimal(region_number % 5) / 20)
            for variant in OFFER_VARIANTS:
                count += 1
                sku = f"{count:016X}"
                comma = "," if count > 1 else ""
                product = _offer_product(sku, f"{family}.{size}", gpus, region, variant)
                outs[0].write(f"{comma}\n{json.dumps(sku)}:{json.dumps(product)}")
                hourly = (base * (2 if variant[0] != "Linux" else 1)).quantize(Decimal("0.0001"))
                outs[1].write(
                    f"{comma}\n{json.dumps(sku)}:{json.dumps(_offer_term(sku, 'JRTCKXETXF', hourly, None, {}))}"
                )
                reserved = {}
                if variant[2] == "Used":
                    for number, (lease, offering_class, option) in enumerate(RESERVED_OPTIONS):
                        years = 1 if lease == "1yr" else 3
                        upfront = None if option == "No Upfront" else (hourly * 4000 * years).quantize(Decimal(1))
                        rate = hourly / 2 if option != "All Upfront" else Decimal(0)
                        attributes = {
                            "LeaseContractLength": lease,
                            "OfferingClass": offering_class,
                            "PurchaseOption": option,
                        }
                        reserved |= _offer_term(
                            sku, f"R{number:08d}", rate.quantize(Decimal("0.0001")), upfront, attributes
                        )
                outs[2].write(f"{comma}\n{json.dumps(sku)}:{json.dumps(reserved)}")
        if sum(out.tell() for out in outs) >= target_bytes:
            break
    for out in outs:
        out.close()
    with path.open("wb") as offer:
        offer.write(
            b'{"formatVersion":"v1.0","disclaimer":"generated for the import bench","offerCode":"AmazonEC2",'
            b'"version":"20261101000000","publicationDate":"2026-11-01T00:00:00Z","products":{'
        )
        for section, joint in zip(sections, (b'},"terms":{"OnDemand":{', b'},"Reserved":{', b"}}}"), strict=True):
            with section.open("rb") as part:
                shutil.copyfileobj(part, offer, 1 << 20)
            offer.write(joint)
            section.unlink()
    return count


def feed_child(mode: str, path: Path, database: Path) -> int:
    """One measurement in this (fresh) process; prints seconds, peak RSS and what was stored as JSON."""
    if mode == "parse":
        import ijson

        started = time.perf_counter()
        with path.open("rb") as stream:
            events = sum(1 for _ in ijson.parse(stream))
        stored = 0
        elapsed = time.perf_counter() - started
        extra = {"events": events, "backend": ijson.backend}
    else:
        setup_django(database)
        from pricing.models import SnapshotOrigin, SnapshotStatus
        from pricing.services import price_snapshot_import

        started = time.perf_counter()
        with path.open("rb") as stream:
            snapshot = price_snapshot_import(
                content=stream,
                origin=SnapshotOrigin.COMMAND,
                source=path.name,
                file_name=path.name,
                format="aws-price-list",
            )
        elapsed = time.perf_counter() - started
        if snapshot.status != SnapshotStatus.IMPORTED:
            print(json.dumps({"error": f"import ended {snapshot.status}: {snapshot.errors[:3]}"}))
            return 1
        stored = snapshot.prices_new
        extra = {"products": snapshot.rows_total, "skipped": snapshot.rows_skipped}
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": elapsed, "peak_rss_mb": peak_mb, "stored": stored, **extra}))
    return 0


def run_feed_child(mode: str, path: Path, database: Path) -> dict:
    command = [sys.executable, __file__, "--feed-child", mode, str(path), str(database), *(["--smoke"] * SMOKE)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{mode} child failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def feed_bench(folder: Path, database: Path | None = None) -> bool:
    """The offer file's import against a bare streaming parse, each in its own process; True when within targets.
    ``database``: an already migrated one to import into (the smoke run saves a second migration)."""
    path = folder / "ec2-offer.json"
    started = time.perf_counter()
    products = generate_offer_file(path, OFFER_FILE_BYTES)
    size = path.stat().st_size
    print(f"generated an EC2 offer file: {size:,} bytes, {products:,} products ({time.perf_counter() - started:.0f} s)")
    parsed = run_feed_child("parse", path, folder / "unused.sqlite3")
    imported = run_feed_child("import", path, database or folder / "feed.sqlite3")
    path.unlink()
    ratio = imported["seconds"] / parsed["seconds"]
    print(
        f"bare streaming parse ({parsed['backend']}, {parsed['events']:,} events): {parsed['seconds']:.2f} s, "
        f"peak RSS {parsed['peak_rss_mb']:.0f} MB"
    )
    print(
        f"aws-price-list import ({imported['products']:,} products, {imported['skipped']:,} skipped, "
        f"{imported['stored']:,} observations stored): {imported['seconds']:.2f} s, "
        f"peak RSS {imported['peak_rss_mb']:.0f} MB"
    )
    memory_ok = imported["peak_rss_mb"] < FEED_PEAK_RSS_MB
    speed_ok = ratio <= TARGET_RATIO
    print(
        f"offer file: {ratio:.2f}x the bare parse ({'within' if speed_ok else 'ABOVE'} {TARGET_RATIO:.0f}x), "
        f"peak RSS {imported['peak_rss_mb']:.0f} MB ({'under' if memory_ok else 'ABOVE'} {FEED_PEAK_RSS_MB} MB)"
    )
    return memory_ok and speed_ok


def clear_prices() -> None:
    from pricing.models import ImportSource, PriceObservation, PriceSnapshot

    PriceObservation.objects.all().delete()
    ImportSource.objects.all().delete()
    PriceSnapshot.objects.all().delete()


def time_import(path: Path, options: dict) -> tuple[float, int]:
    from pricing.models import SnapshotOrigin, SnapshotStatus
    from pricing.services import price_snapshot_import

    clear_prices()
    started = time.perf_counter()
    snapshot = price_snapshot_import(
        content=path.read_bytes(), origin=SnapshotOrigin.COMMAND, source=path.name, file_name=path.name, **options
    )
    elapsed = time.perf_counter() - started
    if snapshot.status != SnapshotStatus.IMPORTED:
        raise SystemExit(f"{path.name}: import ended {snapshot.status}: {snapshot.errors[:5]}")
    return elapsed, snapshot.prices_new


def time_baseline(path: Path, *, skypilot: bool) -> tuple[float, int]:
    """pandas.read_csv plus one bulk insert of the parsed rows, with no validation at all."""
    import pandas as pd
    from django.db import transaction

    from pricing.models import GpuModel, PriceObservation, PriceSnapshot, Provider
    from pricing.services import BULK_BATCH_SIZE

    clear_prices()
    provider_ids = dict(Provider.objects.values_list("name", "id"))
    gpu_ids = dict(GpuModel.objects.values_list("name", "id"))
    any_gpu = next(iter(gpu_ids.values()))
    started = time.perf_counter()
    frame = pd.read_csv(path, keep_default_na=False)
    with transaction.atomic():
        snapshot = PriceSnapshot.objects.create(source="baseline", format="baseline", sha256="0" * 64)
        if skypilot:
            spot = "SpotPrice" in frame.columns
            rows = [
                PriceObservation(
                    snapshot=snapshot,
                    provider_id=provider_ids["Lambda"],
                    offering=r.InstanceType,
                    gpu_model_id=any_gpu,
                    gpus_per_instance=int(float(r.AcceleratorCount or 1)),
                    region=f"{r.Region} ({getattr(r, 'AvailabilityZone', '')}) {n}",
                    pricing_term=term,
                    observed_on=date(2026, 11, 1),
                    price_per_instance_hour=price,
                    price_per_gpu_hour=price,
                )
                for n, r in enumerate(frame.itertuples(index=False))
                for term, price in (("on_demand", r.Price), ("spot", r.SpotPrice if spot else ""))
                if price != ""
            ]
        else:
            rows = [
                PriceObservation(
                    snapshot=snapshot,
                    provider_id=provider_ids[r.provider],
                    offering=r.offering,
                    gpu_model_id=gpu_ids[r.gpu_model],
                    gpus_per_instance=r.gpus_per_instance,
                    region=r.region,
                    pricing_term=r.pricing_term,
                    observed_on=r.observed_on,
                    price_per_instance_hour=r.price_per_instance_hour,
                    price_per_gpu_hour=r.price_per_instance_hour / r.gpus_per_instance,
                    currency=r.currency,
                    source_url=r.source_url,
                )
                for r in frame.itertuples(index=False)
            ]
        PriceObservation.objects.bulk_create(rows, batch_size=BULK_BATCH_SIZE)
    return time.perf_counter() - started, len(frame)


def best_of(measure, *args, **kwargs) -> tuple[float, int]:
    results = [measure(*args, **kwargs) for _ in range(REPEATS)]
    return min(r[0] for r in results), results[0][1]


def peak_mib(measure, *args, **kwargs) -> float:
    """Peak memory Python allocated during one untimed run (tracemalloc slows the run down, so it is apart)."""
    tracemalloc.start()
    try:
        measure(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--feed-child"]:
        return feed_child(argv[1], Path(argv[2]), Path(argv[3]))
    if "--feed" in argv:
        with tempfile.TemporaryDirectory(prefix="import-bench-") as folder:
            return 0 if feed_bench(Path(folder)) else 1
    quick = "--quick" in argv  # skip the 100,000-row canonical file (minutes on a busy machine)
    with tempfile.TemporaryDirectory(prefix="import-bench-") as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        sample = largest_sample()
        generated = Path(folder) / "generated-canonical.csv"
        generate_canonical(generated, GENERATED_ROWS)
        aws_like = Path(folder) / "aws-like-vms.csv"
        aws_rows = generate_aws_like(aws_like, regions=AWS_LIKE_REGIONS)
        held_back = Path(folder) / "aws-like-unknown-gpus-vms.csv"
        generate_aws_like(held_back, regions=AWS_LIKE_REGIONS, unknown_gpus=True)
        cases = [
            (
                f"SkyPilot {sample.parent.name}/{sample.name}",
                sample,
                True,
                {"format": "skypilot", "provider_name": sample.parent.name, "observed_on": date(2026, 11, 1)},
            ),
            (
                f"SkyPilot AWS-like, {aws_rows:,} rows",
                aws_like,
                True,
                {"format": "skypilot", "provider_name": "aws", "observed_on": date(2026, 11, 1)},
            ),
            (
                f"AWS-like, {aws_rows:,} rows, held back",
                held_back,
                True,
                {"format": "skypilot", "provider_name": "aws", "observed_on": date(2026, 11, 1)},
            ),
            (f"canonical CSV, {GENERATED_ROWS:,} rows", generated, False, {"format": "canonical"}),
        ]
        if quick:
            cases = cases[:-1]
        print(f"{'file':<34} {'bytes':>11} {'rows in':>8} {'import s':>9} {'baseline s':>11} {'ratio':>6}")
        peaks = []
        worst = 0.0
        for label, path, skypilot, options in cases:
            imported, stored = best_of(time_import, path, options)
            baseline, parsed = best_of(time_baseline, path, skypilot=skypilot)
            ratio = imported / baseline
            worst = max(worst, ratio)
            print(
                f"{label:<34} {path.stat().st_size:>11,} {parsed:>8,} {imported:>9.3f} {baseline:>11.3f} "
                f"{ratio:>5.2f}x   ({stored:,} observations stored)"
            )
            if not SMOKE:  # memory peaks say something at the full sizes only
                peaks.append(
                    (label, peak_mib(time_import, path, options), peak_mib(time_baseline, path, skypilot=skypilot))
                )
        for label, imported_peak, baseline_peak in peaks:
            print(f"peak memory {label:<34} import {imported_peak:7.1f} MiB, baseline {baseline_peak:7.1f} MiB")
        verdict = "within" if worst <= TARGET_RATIO else "ABOVE"
        print(f"worst ratio {worst:.2f}x: {verdict} the target of {TARGET_RATIO:.0f}x (best of {REPEATS} runs each)")
        feed_ok = feed_bench(Path(folder), Path(folder) / "bench.sqlite3" if SMOKE else None)
        return 0 if SMOKE or (worst <= TARGET_RATIO and feed_ok) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
