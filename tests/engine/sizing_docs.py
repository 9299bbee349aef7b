"""Small ``tco-sizing/1`` documents for the sizing tests."""

from __future__ import annotations

# Llama-3.1-70B's published configuration (config.json): 80 layers, 64 heads, 8 KV heads, head dim 128.
LLAMA_70B = {
    "name": "Llama-3.1-70B",
    "params_billion": 70.55,
    "layers": 80,
    "attention_heads": 64,
    "kv_heads": 8,
    "head_dim": 128,
}
SMALL_MODEL = {"name": "tiny", "params_billion": 1, "layers": 1, "attention_heads": 8, "kv_heads": 8, "head_dim": 64}


def row(
    tp=1,
    concurrency=8,
    input_tokens=1000,
    output_tokens=100,
    throughput=1000.0,
    ttft_ms=100.0,
    tpot_ms=20.0,
    source="measured",
):
    return {
        "tp": tp,
        "concurrency": concurrency,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "output_tokens_per_second_per_gpu": throughput,
        "ttft_ms": ttft_ms,
        "tpot_ms": tpot_ms,
        "source": source,
    }


def bucket(requests_per_second, input_tokens=1000, output_tokens=100):
    return {"requests_per_second": requests_per_second, "input_tokens": input_tokens, "output_tokens": output_tokens}


def gpu(name, price, rows=(), memory_gib=80.0, **extra):
    return {"name": name, "memory_gib": memory_gib, "price_per_gpu_hour": price, "throughput": list(rows), **extra}


def sizing(traffic, gpus, model=SMALL_MODEL, **extra):
    return {
        "schema": "tco-sizing/1",
        "model": dict(model),
        "weight_bits": 16,
        "traffic": traffic,
        "gpus": gpus,
        **extra,
    }


SLOW_TPOT_MS = 999.0  # a row this slow misses the target ``CAPACITY_SLO``: its type cannot serve that bucket
CAPACITY_SLO = {"tpot_ms": 50.0}


def capacity_rows(capacities, output_tokens=100, tp=1):
    """One row per bucket shape (input tokens 1000·(b+1)) giving a replica ``capacities[b]`` requests per second;
    None: a row that misses ``CAPACITY_SLO``, so the type cannot serve that bucket."""
    return [
        row(tp=tp, input_tokens=1000 * (b + 1), output_tokens=output_tokens, throughput=1.0, tpot_ms=SLOW_TPOT_MS)
        if c is None
        else row(tp=tp, input_tokens=1000 * (b + 1), output_tokens=output_tokens, throughput=c * output_tokens / tp)
        for b, c in enumerate(capacities)
    ]


def capacity_traffic(rates, output_tokens=100):
    return [bucket(r, input_tokens=1000 * (b + 1), output_tokens=output_tokens) for b, r in enumerate(rates)]
