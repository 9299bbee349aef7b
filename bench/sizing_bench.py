"""Sizing speed: 20 traffic buckets x 12 GPU types x 4 tensor-parallel degrees on 2,000 measured rows.

Run from the repository root: ``.venv/bin/python bench/sizing_bench.py`` (``--smoke``: 4 buckets x 3 GPUs on 200
rows, in a second or two). Targets: the whole sizing with the exact cheapest mix (scipy's HiGHS) under 1 s, and
within 20x the single-type sizing of the same document (``size(document, mix=False)``), measured in this run.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tco.engine import size

TARGET_SECONDS = 1.0
TARGET_RATIO = 20.0
TPS = (1, 2, 4, 8)
SHAPES = ((1024, 1024), (1024, 8192), (8192, 1024), (4096, 512), (512, 256), (2048, 2048))
CONCURRENCIES = (1, 4, 8, 16, 32, 64, 128)


def document(buckets: int, gpus: int, rows: int, seed: int = 30) -> dict:
    """Llama-3.1-70B on ``gpus`` GPU types, each measured at tp 1, 2, 4 and 8 over shapes x concurrencies (faster
    per GPU and slower per user as concurrency rises), ``rows`` rows in all; ``buckets`` buckets of other sizes."""
    rng = random.Random(seed)
    types = gpus * len(TPS)
    grid = [(shape, conc) for shape in SHAPES for conc in CONCURRENCIES]
    entries = []
    for g in range(gpus):
        speed = rng.uniform(0.3, 3.0)
        measured = []
        for t, tp in enumerate(TPS):
            count = rows // types + (1 if g * len(TPS) + t < rows % types else 0)
            for (isl, osl), conc in rng.sample(grid, min(count, len(grid))):
                tput = speed * 400 * conc**0.6 / tp**0.15 * (1024 / max(isl, osl)) ** 0.2
                tpot = 1000 * conc / (tput * tp)
                measured.append({"tp": tp, "concurrency": conc, "input_tokens": isl, "output_tokens": osl,
                                 "output_tokens_per_second_per_gpu": tput, "ttft_ms": 50 + isl / (speed * 20),
                                 "tpot_ms": tpot, "source": f"bench gpu {g}"})  # fmt: skip
        price = round(speed * rng.uniform(0.8, 1.6), 2)
        entries.append({"name": f"GPU {g}", "memory_gib": rng.choice([24, 48, 80, 141, 192]),
                        "price_per_gpu_hour": price, "throughput": measured})  # fmt: skip
    traffic = [
        {"requests_per_second": rng.uniform(0.5, 40), "input_tokens": rng.choice([300, 1024, 2500, 6000, 9000]),
         "output_tokens": rng.choice([200, 500, 1024, 3000])}
        for _ in range(buckets)
    ]  # fmt: skip
    model = {"name": "Llama-3.1-70B", "params_billion": 70.55, "layers": 80, "attention_heads": 64, "kv_heads": 8,
             "head_dim": 128}  # fmt: skip
    return {"schema": "tco-sizing/1", "model": model, "weight_bits": 8, "traffic": traffic,
            "slo": {"ttft_ms": 2000, "tpot_ms": 60}, "headroom": 0.1, "gpus": entries}  # fmt: skip


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a small size, in a second or two")
    args = parser.parse_args()
    buckets, gpus, rows, runs = (4, 3, 200, 3) if args.smoke else (20, 12, 2000, 5)
    doc = document(buckets, gpus, rows)
    count = sum(len(g["throughput"]) for g in doc["gpus"])
    result = size(doc)  # warm up imports (scipy) and check the answer is whole
    mix = result["mix"]
    assert mix is not None, "every bucket should have a type that serves it"
    singles = [g["best"]["cost_per_hour"] for g in result["gpus"] if g["best"]]
    assert not singles or mix["cost_per_hour"] <= min(singles) + 1e-9
    single = timed(lambda: size(doc, mix=False), runs)
    whole = timed(lambda: size(doc), runs)
    print(f"{buckets} buckets x {gpus} GPU types x {len(TPS)} tp on {count:,} measured rows")
    print(f"single-type sizing (mix=False): median {single * 1e3:.1f} ms ({runs} runs)")
    print(f"whole sizing with the exact mix: median {whole * 1e3:.1f} ms ({runs} runs)")
    verdict = "meets" if whole < TARGET_SECONDS else "MISSES"
    print(f"the whole sizing takes {whole:.3f} s ({verdict} the < {TARGET_SECONDS:.0f} s target)")
    ratio = whole / single
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(f"the mix costs {ratio:.1f}x the single-type sizing ({verdict} the <= {TARGET_RATIO:.0f}x target)")
    saving = mix["saving_vs_best_single"]
    print(f"mix {mix['cost_per_hour']:.2f}/h on {mix['total_gpus']} GPUs"
          + ("" if saving is None else f", saving {saving:.2f}/h against {mix['best_single']} alone"))  # fmt: skip
    assert math.isfinite(mix["cost_per_hour"])


if __name__ == "__main__":
    main()
