"""``size``: a ``tco-sizing/1`` document in, a ``tco-sizing-result/1`` out (docs/money-math.md, "Sizing")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .document import SIZING_RESULT_SCHEMA, read_sizing
from .memory import GIB, kv_bytes_per_token, kv_gib, max_concurrency, memory_needed_gib, valid_tp, weights_gib
from .mix import LOAD_TOLERANCE, ReplicaType, cheapest_mix
from .points import operating_point


def size(document: Mapping[str, Any], *, mix: bool = True) -> dict[str, Any]:
    """Memory fit, operating points, replicas per GPU type and the cheapest mix; raises ``ScenarioError`` only for an
    invalid document. ``mix=False`` leaves the mix out (``"mix": None``): each GPU type alone, without a solver."""
    doc = read_sizing(document)
    gpus, types = [], []
    for gpu in doc["gpus"]:
        result, gpu_types = _gpu(doc, gpu)
        gpus.append(result)
        types += gpu_types
    return {
        "schema": SIZING_RESULT_SCHEMA,
        "weights_gib": weights_gib(doc),
        "kv_bytes_per_token": kv_bytes_per_token(doc),
        "context_tokens": doc["context_tokens"],
        "kv_gib_per_request": kv_bytes_per_token(doc) * doc["context_tokens"] / GIB,
        "gpus": gpus,
        **(_mix(doc, gpus, types) if mix else {"mix": None, "mix_status": None}),
    }


def _gpu(doc: dict[str, Any], gpu: dict[str, Any]) -> tuple[dict[str, Any], list[ReplicaType]]:
    tps = valid_tp(doc, gpu["max_tp"])
    concurrency = {tp: max_concurrency(doc, gpu, tp) for tp in tps}
    min_tp = next((tp for tp in tps if concurrency[tp] >= 1), None)
    types, replica_types = [], []
    for tp in sorted({row["tp"] for row in gpu["throughput"]}):
        rows = [row for row in gpu["throughput"] if row["tp"] == tp]
        entry = _type(doc, gpu, tp, rows)
        types.append(entry)
        capacities = tuple(
            None if p is None else p["output_tokens_per_second_per_gpu"] * tp / b["output_tokens"]
            for p, b in zip(entry["operating_points"], doc["traffic"], strict=True)
        )
        replica_types.append(ReplicaType(gpu["name"], tp, gpu["price_per_gpu_hour"], capacities))
    served = [t for t in types if t["cost_per_hour"] is not None]
    best = min(served, key=lambda t: (t["cost_per_hour"], t["tp"]), default=None)
    result = {
        "name": gpu["name"],
        "valid_tp": tps,
        "min_tp": min_tp,
        "max_concurrency": concurrency,
        "memory_needed_gib": {tp: memory_needed_gib(doc, tp) for tp in tps},
        "memory_usable_gib": {tp: tp * gpu["memory_gib"] * doc["memory_utilization"] for tp in tps},
        "types": types,
        "best": None if best is None else {k: best[k] for k in ("tp", "replicas", "gpus", "cost_per_hour")},
    }
    return result, replica_types


def _type(doc: dict[str, Any], gpu: dict[str, Any], tp: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    estimate = math.floor(kv_gib(doc, gpu, tp) * GIB / (kv_bytes_per_token(doc) * doc["context_tokens"]))
    points, misses = [], []
    for bucket in doc["traffic"]:
        point, missed = operating_point(rows, bucket, doc["slo"], gpu["price_per_gpu_hour"])
        if point is not None:
            # Measurement wins, flagged: no request fits at this tp by the estimate, or more than the estimate's.
            concurrency = point["concurrency"]
            point["above_memory_estimate"] = estimate < 1 or (concurrency is not None and concurrency > estimate)
        points.append(point)
        misses.append(missed)
    entry: dict[str, Any] = {
        "tp": tp,
        "operating_points": points,
        "missed_slo": misses,
        "replicas": None,
        "gpus": None,
        "cost_per_hour": None,
    }
    if all(p is not None for p in points):
        load = sum(
            b["requests_per_second"] * b["output_tokens"] / (p["output_tokens_per_second_per_gpu"] * tp)
            for p, b in zip(points, doc["traffic"], strict=True)
        )
        replicas = math.ceil(load * (1 + doc["headroom"]) - LOAD_TOLERANCE)
        entry.update(replicas=replicas, gpus=replicas * tp, cost_per_hour=replicas * tp * gpu["price_per_gpu_hour"])
    return entry


def _mix(doc: dict[str, Any], gpus: list[dict[str, Any]], types: list[ReplicaType]) -> dict[str, Any]:
    """``mix`` and ``mix_status`` (``solved``, ``unservable``: a bucket no type serves at the target, ``too_large``:
    only a fleet of more than a million GPUs would serve it)."""
    found, status = cheapest_mix(types, [b["requests_per_second"] for b in doc["traffic"]], doc["headroom"])
    if found is None:
        return {"mix": None, "mix_status": status}
    replicas: dict[str, int] = {}
    gpu_counts: dict[str, int] = {}
    shares: list[dict[str, float]] = [{} for _ in doc["traffic"]]
    by_type = []
    for t, (kind, count) in enumerate(zip(types, found.replicas, strict=True)):
        type_shares = [row[t] for row in found.shares]
        if count == 0 and not any(type_shares):
            continue
        replicas[kind.name] = replicas.get(kind.name, 0) + count
        gpu_counts[kind.name] = gpu_counts.get(kind.name, 0) + count * kind.tp
        for b, share in enumerate(type_shares):
            if share:
                shares[b][kind.name] = shares[b].get(kind.name, 0.0) + share
        by_type.append(
            {"name": kind.name, "tp": kind.tp, "replicas": count, "gpus": count * kind.tp, "shares": type_shares}
        )
    cost = found.cost_per_hour(types)
    single = [(g["best"]["cost_per_hour"], g["best"]["gpus"], i) for i, g in enumerate(gpus) if g["best"]]
    best_single = gpus[min(single)[2]] if single else None
    best_cost = best_single["best"]["cost_per_hour"] if best_single else None
    return {
        "mix_status": status,
        "mix": {
            "replicas": replicas,
            "gpus": gpu_counts,
            "total_gpus": sum(gpu_counts.values()),
            "cost_per_hour": cost,
            "shares": shares,
            "types": by_type,
            "best_single": best_single["name"] if best_single else None,
            "best_single_cost_per_hour": best_cost,
            "saving_vs_best_single": None if best_cost is None else best_cost - cost,
        },
    }
