"""Does the model fit a GPU (docs/money-math.md, "Sizing"): weights, KV cache per token, concurrency per replica.

G = 2^30 bytes. ``weights_gib = params·bits/8 / G``; ``kv_bytes_per_token = 2·layers·kv_heads·head_dim·kv_bits/8``
(latent attention keeps one compressed vector per layer: ``layers·(kv_lora_rank + qk_rope_head_dim)·kv_bits/8``);
``kv_gib(tp) = tp·memory·memory_utilization - weights - activation - tp·runtime(tp)``;
``max_concurrency(tp) = max(0, floor(kv_gib·G / (kv_bytes_per_token·context)))``.
"""

from __future__ import annotations

import math
from typing import Any

from .document import RUNTIME_GIB_PARALLEL, RUNTIME_GIB_SINGLE

GIB = 2.0**30


def weights_gib(doc: dict[str, Any]) -> float:
    return doc["model"]["params_billion"] * 1e9 * doc["weight_bits"] / 8 / GIB


def kv_bytes_per_token(doc: dict[str, Any]) -> float:
    model, kv_bytes = doc["model"], doc["kv_bits"] / 8
    if model["latent"]:
        return model["layers"] * (model["kv_lora_rank"] + model["qk_rope_head_dim"]) * kv_bytes
    return 2 * model["layers"] * model["kv_heads"] * model["head_dim"] * kv_bytes


def valid_tp(doc: dict[str, Any], max_tp: int) -> list[int]:
    """Powers of two up to ``max_tp`` that split the attention heads evenly and either split the KV heads or
    replicate them (``kv_heads % tp == 0`` or ``tp % kv_heads == 0``); latent attention: any that divides the heads."""
    model, tps, tp = doc["model"], [], 1
    while tp <= max_tp:
        if model["attention_heads"] % tp == 0 and (
            model["latent"] or model["kv_heads"] % tp == 0 or tp % model["kv_heads"] == 0
        ):
            tps.append(tp)
        tp *= 2
    return tps


def runtime_gib(doc: dict[str, Any], tp: int) -> float:
    if doc["runtime_gib"] is not None:
        return doc["runtime_gib"]
    return RUNTIME_GIB_SINGLE if tp == 1 else RUNTIME_GIB_PARALLEL


def kv_gib(doc: dict[str, Any], gpu: dict[str, Any], tp: int) -> float:
    usable = tp * gpu["memory_gib"] * doc["memory_utilization"]
    return usable - weights_gib(doc) - doc["activation_gib"] - tp * runtime_gib(doc, tp)


def max_concurrency(doc: dict[str, Any], gpu: dict[str, Any], tp: int) -> int:
    per_request = kv_bytes_per_token(doc) * doc["context_tokens"]
    return max(0, math.floor(kv_gib(doc, gpu, tp) * GIB / per_request))


def memory_needed_gib(doc: dict[str, Any], tp: int) -> float:
    """The usable memory (``tp·memory·memory_utilization``) one replica at ``tp`` needs to hold a single request."""
    one_request = kv_bytes_per_token(doc) * doc["context_tokens"] / GIB
    return weights_gib(doc) + doc["activation_gib"] + tp * runtime_gib(doc, tp) + one_request
