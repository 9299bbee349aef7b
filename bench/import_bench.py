"""Price import speed, as a ratio to a bare baseline measured in the same run.

Run from the repository root: `.venv/bin/python bench/import_bench.py`. It sets up Django on a temporary
SQLite database, migrates it and loads the reference data, then for each file times:

- import: `price_snapshot_import`, everything the app does (decode, parse, validate every cell, resolve
  names, check known prices, store the snapshot and the observations);
- baseline: bare `pandas.read_csv` of the same file plus one bulk insert of the parsed rows
  (`bulk_create` with the same batch size, no validation).

Each is run a few times on an empty price table and the best time is kept. Target: import at most 3 times the baseline.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 3.0
REPEATS = 3
GENERATED_ROWS = 100_000


def setup_django(database: Path) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
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
        out.write(",".join(CANONICAL_COLUMNS) + "\n")
        for i in range(rows):
            provider, kind = providers[i % len(providers)]
            gpus_per_instance = (1, 2, 4, 8)[i % 4]
            price = Decimal(50 + i % 4000) / 100 * gpus_per_instance
            observed_on = first + timedelta(days=i % 300)
            region = regions[i % len(regions)]
            out.write(
                f'{provider},{kind},{gpus[i % len(gpus)]},{gpus_per_instance},offer-{i},"{region}",'
                f"{terms[i % len(terms)]},{price},,USD,{observed_on.isoformat()},https://example.com/p/{i % 97}\n"
            )


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
    return elapsed, snapshot.rows_imported


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
            rows = [
                PriceObservation(
                    snapshot=snapshot,
                    provider_id=provider_ids["Lambda"],
                    offering=r.InstanceType,
                    gpu_model_id=any_gpu,
                    gpus_per_instance=int(float(r.AcceleratorCount or 1)),
                    region=r.Region,
                    pricing_term="on_demand",
                    observed_on=date(2026, 11, 1),
                    price_per_instance_hour=r.Price,
                    price_per_gpu_hour=r.Price,
                )
                for r in frame.itertuples(index=False)
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
    return time.perf_counter() - started, len(rows)


def best_of(measure, *args, **kwargs) -> tuple[float, int]:
    results = [measure(*args, **kwargs) for _ in range(REPEATS)]
    return min(r[0] for r in results), results[0][1]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="import-bench-") as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        sample = largest_sample()
        generated = Path(folder) / "generated-100k.csv"
        generate_canonical(generated, GENERATED_ROWS)
        cases = [
            (
                f"SkyPilot {sample.parent.name}/{sample.name}",
                sample,
                True,
                {"format": "skypilot", "provider_name": sample.parent.name, "observed_on": date(2026, 11, 1)},
            ),
            (f"canonical CSV, {GENERATED_ROWS:,} rows", generated, False, {"format": "canonical"}),
        ]
        print(f"{'file':<34} {'bytes':>11} {'rows in':>8} {'import s':>9} {'baseline s':>11} {'ratio':>6}")
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
        verdict = "within" if worst <= TARGET_RATIO else "ABOVE"
        print(f"worst ratio {worst:.2f}x: {verdict} the target of {TARGET_RATIO:.0f}x (best of {REPEATS} runs each)")
        return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
