"""Throughput import speed, as a ratio to a bare baseline measured in the same run.

Run from the repository root: `.venv/bin/python bench/throughput_import_bench.py [--smoke]`. It sets up Django on
a temporary SQLite database, migrates it and loads the reference data, generates an InferenceX `agg_bmk.json` of
10,000 records (`--smoke`: 500) over six GPUs, two precisions, four tensor-parallel degrees, many concurrencies
and three request shapes (each record gives a median and a p99 measurement), then times:

- import: `throughput_import`, everything the app does (decode, detect, parse and check every record, resolve GPU
  and model names, compute each measurement's key, look the keys up, store the new measurements);
- baseline: a bare `json.load` of the same bytes plus one `bulk_create` of the same measurements (same batch
  size, GPU ids from a dict, no checks, no keys computed).

Each runs a few times on an empty measurement table and the best time is kept. Target: the import within 3 times
the baseline. The bench exits 1 when the target is missed (`--smoke` runs at a small size and only reports).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 3.0
REPEATS = 3
RECORDS = 10_000
SMOKE_RECORDS = 500
GPUS = ("b200", "h200", "h100", "mi300x", "mi325x", "mi355x")
MODELS = ("deepseek-ai/DeepSeek-R1-0528", "nvidia/DeepSeek-R1-0528-FP4-V2", "meta-llama/Llama-3.3-70B-Instruct")
SHAPES = ((1024, 1024), (1024, 8192), (8192, 1024))


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


def generate(records: int) -> bytes:
    """An InferenceX agg_bmk.json of `records` distinct records, laid out as the project publishes them."""
    out = []
    kinds = list(itertools.product(GPUS, MODELS, ("fp8", "fp4"), (1, 2, 4, 8), SHAPES))
    for n in range(records):
        hw, model, precision, tp, (isl, osl) = kinds[n % len(kinds)]
        conc = 4 * (1 + n // len(kinds))
        tpot = 0.01 + conc / 20_000
        ttft = 0.2 + conc / 500
        out.append(
            {
                "hw": hw,
                "conc": conc,
                "image": "lmsysorg/sglang:v0.5.6-cu129-amd64",
                "model": model,
                "framework": "sglang",
                "precision": precision,
                "spec_decoding": "none",
                "disagg": False,
                "isl": isl,
                "osl": osl,
                "is_multinode": False,
                "tp": tp,
                "ep": tp,
                "dp_attention": "false",
                "tput_per_gpu": 2.0 * conc / tpot / tp,
                "output_tput_per_gpu": conc / tpot / tp,
                "input_tput_per_gpu": conc / tpot / tp,
                "median_ttft": ttft,
                "p99_ttft": ttft * 3,
                "median_tpot": tpot,
                "p99_tpot": tpot * 1.4,
                "median_intvty": 1 / tpot,
                "p99_intvty": 1 / (tpot * 1.4),
            }
        )
    return json.dumps(out).encode("utf-8")


def time_import(content: bytes) -> tuple[float, int]:
    from pricing.models import ThroughputImport, ThroughputMeasurement
    from pricing.services import throughput_import

    best, stored = float("inf"), 0
    for _ in range(REPEATS):
        ThroughputMeasurement.objects.all().delete()
        ThroughputImport.objects.all().delete()
        started = time.perf_counter()
        record = throughput_import(content=content, file_name="agg_bmk.json")
        best = min(best, time.perf_counter() - started)
        stored = record.rows_new
    return best, stored


def time_baseline(content: bytes) -> tuple[float, int]:
    """`json.load` of the bytes and one bulk insert of the same measurements, nothing checked or resolved."""
    from pricing.models import GpuModel, ThroughputImport, ThroughputMeasurement
    from pricing.services.throughput import BULK_BATCH_SIZE

    gpu_ids = {
        "b200": "B200",
        "h200": "H200 SXM",
        "h100": "H100 SXM",
        "mi300x": "MI300X",
        "mi325x": "MI325X",
        "mi355x": "MI355X",
    }
    ids = dict(GpuModel.objects.filter(name__in=gpu_ids.values()).values_list("name", "id"))
    best, stored = float("inf"), 0
    for _ in range(REPEATS):
        ThroughputMeasurement.objects.all().delete()
        ThroughputImport.objects.all().delete()
        started = time.perf_counter()
        record = ThroughputImport.objects.create(format="inferencex", sha256="")
        rows = []
        for line, r in enumerate(json.loads(content), start=1):
            for statistic in ("median", "p99"):
                rows.append(
                    ThroughputMeasurement(
                        gpu_model_id=ids[gpu_ids[r["hw"]]],
                        model_name=r["model"],
                        precision=r["precision"],
                        weight_bits=8,
                        tp=r["tp"],
                        concurrency=r["conc"],
                        input_tokens=r["isl"],
                        output_tokens=r["osl"],
                        output_tokens_per_second_per_gpu=r["output_tput_per_gpu"],
                        ttft_ms=r[f"{statistic}_ttft"] * 1000,
                        tpot_ms=r[f"{statistic}_tpot"] * 1000,
                        statistic=statistic,
                        source="agg_bmk.json",
                        throughput_import=record,
                        row_key=f"{line}-{statistic}",
                    )
                )
        ThroughputMeasurement.objects.bulk_create(rows, batch_size=BULK_BATCH_SIZE)
        best = min(best, time.perf_counter() - started)
        stored = len(rows)
    return best, stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help=f"{SMOKE_RECORDS} records; report only")
    smoke = parser.parse_args().smoke
    records = SMOKE_RECORDS if smoke else RECORDS
    with tempfile.TemporaryDirectory() as folder:
        setup_django(Path(folder) / "bench.sqlite3")
        content = generate(records)
        imported, stored = time_import(content)
        baseline, inserted = time_baseline(content)
    if stored != inserted:
        print(f"the import stored {stored} measurements, the baseline {inserted}: not the same work")
        return 1
    ratio = imported / baseline
    met = ratio <= TARGET_RATIO
    print(f"InferenceX file of {records:,} records ({len(content) / 1e6:.1f} MB, {stored:,} measurements)")
    print(f"import:   {imported * 1e3:8.0f} ms (best of {REPEATS})")
    print(f"baseline: {baseline * 1e3:8.0f} ms (json.load + bulk_create of the same rows)")
    verdict = "meets" if met else "misses"
    print(f"the import costs {ratio:.2f}x the baseline ({verdict} the <= {TARGET_RATIO:.0f}x target)")
    if smoke:
        print("(smoke size: the target is only reported)")
        return 0
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
