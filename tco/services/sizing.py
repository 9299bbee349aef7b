"""Write services for sizing (docs/money-math.md "Sizing"): save the serving configuration and size it (build the
``tco-sizing/1`` document, run ``tco.engine.size``, store a ``SizingRun``); ``tco.services.sizing_apply`` writes the
answer into the scenario.

Sizing is sub-second, so it runs in the request that asks for it and is stored: the sizing page only reads runs.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from lib.users import signed_in_user
from tco.documents import scenario_document
from tco.engine import ScenarioError
from tco.engine.catalogue import SCENARIO_FIELD, scenario_fields
from tco.engine.fields import check_number
from tco.engine.sizing import SIZING_SCHEMA, size
from tco.models import Scenario, ScenarioOption, SizingRun
from tco.selectors.sizing import SizingInputs, options_with_gpus, sizing_inputs
from tco.services.common import (
    Change,
    claim_version,
    recompute_if_valid,
    set_history_user,
)
from tco.serving import ServingError, workload_bucket

SERVING_FIELDS = tuple(entry.field for entry in scenario_fields("serving"))


def serving_update(
    *, scenario: Scenario, user: AbstractBaseUser | None, expected_version: int | None, values: dict[str, Any]
) -> tuple[Change, SizingRun]:
    """Save the whole serving configuration (already parsed, one value per ``serving_*`` field), bump the version,
    then size it. Raises ServingError naming the first field a value is wrong at; nothing is saved then."""
    unknown = set(values) - set(SERVING_FIELDS)
    if unknown:
        raise ValueError(f"{', '.join(sorted(unknown))}: not serving inputs")
    for name, value in values.items():
        entry = SCENARIO_FIELD[name]
        if entry.value_type == "choice" and value not in dict(entry.choices):
            choose = ", ".join(label for _, label in entry.choices)
            raise ServingError(name, f"{entry.label}: choose {choose}")
        if entry.check is not None and value is not None:
            _, message = check_number(value, entry.check)
            if message:
                raise ServingError(name, message)
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version)
        for name, value in values.items():
            setattr(fresh, name, [] if name == "serving_traffic" and value is None else value)
        set_history_user(fresh, user)
        fresh.save()
        change = recompute_if_valid(scenario=fresh, user=user)
        run = sizing_run(scenario=fresh, user=user)
    return change, run


def sizing_document(
    scenario: Scenario, options: list[ScenarioOption], inputs: SizingInputs
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[dict[str, str]]]:
    """The ``tco-sizing/1`` document of the scenario's serving configuration, each sized GPU's provenance (its
    model id, where its price comes from) in the document's order, and the problems that keep it from being built
    (each {path, message}, the path a serving field)."""
    problems: list[dict[str, str]] = []
    model = inputs.language_model
    name = (scenario.serving_language_model or "").strip()
    label = SCENARIO_FIELD["serving_language_model"].label
    if not name:
        problems.append({"path": "serving_language_model", "message": f"{label}: choose a model to size."})
    elif model is None:
        problems.append(
            {"path": "serving_language_model", "message": f"{label}: {name} is not in the model catalogue."}
        )
    traffic = [list(bucket) for bucket in scenario.serving_traffic or ()]
    if not traffic:
        bucket, how = workload_bucket(scenario_document(scenario, options))
        if bucket is None:
            problems.append({"path": "serving_traffic", "message": f"{SCENARIO_FIELD['serving_traffic'].label}: {how}"})
        else:
            traffic = [list(bucket)]
    gpus = [gpu for gpu in inputs.gpus if gpu.pk in inputs.prices]
    if not gpus:
        problems.append(
            {
                "path": "gpus",
                "message": "No GPU of the GPU catalogue has a price: add a rental option on a GPU, or import "
                f"on-demand Market prices in {scenario.currency_code}.",
            }
        )
    if problems:
        return None, [], problems
    slo = {"statistic": scenario.serving_statistic}
    for key in ("ttft_ms", "tpot_ms"):
        value = getattr(scenario, f"serving_{key}")
        if value is not None:
            slo[key] = float(value)
    document: dict[str, Any] = {
        "schema": SIZING_SCHEMA,
        "model": _model(model),
        "weight_bits": int(scenario.serving_weight_bits),
        "kv_bits": int(scenario.serving_kv_bits),
        "traffic": [
            {"requests_per_second": float(rate), "input_tokens": int(tokens_in), "output_tokens": int(tokens_out)}
            for rate, tokens_in, tokens_out in traffic
        ],
        "slo": slo,
        "headroom": float(scenario.serving_headroom or 0),
        "gpus": [
            {
                "name": gpu.name,
                "memory_gib": float(gpu.memory_gib),
                "price_per_gpu_hour": inputs.prices[gpu.pk].price_per_gpu_hour,
                "max_tp": gpu.gpus_per_node,
                "throughput": inputs.rows.get(gpu.pk, []),
            }
            for gpu in gpus
        ],
    }
    if scenario.serving_context_tokens is not None:
        document["context_tokens"] = int(scenario.serving_context_tokens)
    provenance = [{"gpu_model_id": gpu.pk, "price_source": inputs.prices[gpu.pk].source} for gpu in gpus]
    return document, provenance, []


def _model(model: Any) -> dict[str, Any]:
    shape: dict[str, Any] = {"name": model.name, "params_billion": float(model.params_billion)}
    for key in ("layers", "attention_heads", "kv_heads", "head_dim", "kv_lora_rank", "qk_rope_head_dim"):
        value = getattr(model, key)
        if value is not None:
            shape[key] = int(value)
    return shape


def sizing_run(*, scenario: Scenario, user: AbstractBaseUser | None) -> SizingRun:
    """Size the scenario's serving configuration as it is now and store the run: its document and result, or the
    problems that kept it from being sized (a missing model or traffic, the engine's refusal of a value)."""
    options = options_with_gpus(scenario)
    inputs = sizing_inputs(scenario, options)
    document, provenance, problems = sizing_document(scenario, options, inputs)
    result = None
    if document is not None:
        try:
            result = size(document)
            if _typed_rows(document, provenance, result, options):
                result = size(document)
        except ScenarioError as error:
            problems = [{"path": problem.path, "message": problem.message} for problem in error.problems]
    return SizingRun.objects.create(
        scenario=scenario,
        scenario_version=scenario.version,
        document=document or {},
        result=_json(result) if result is not None else None,
        problems=problems,
        gpus=provenance,
        requested_by=signed_in_user(user),
    )


def _typed_rows(
    document: dict[str, Any], provenance: list[dict], result: dict[str, Any], options: list[ScenarioOption]
) -> bool:
    """Give a GPU without any measured row the throughput typed on one of the scenario's options on that GPU, as one
    row per bucket at the smallest tensor-parallel degree the model fits (no latencies: it meets no latency target).
    Returns whether any GPU got one, so the document is sized again."""
    typed: dict[int, ScenarioOption] = {}
    for option in options:
        if option.gpu_model_id and option.tokens_per_second_per_gpu and option.throughput_source is None:
            typed.setdefault(option.gpu_model_id, option)
    added = False
    for gpu, item, sized in zip(document["gpus"], provenance, result["gpus"], strict=True):
        option = typed.get(item["gpu_model_id"])
        if gpu["throughput"] or option is None or sized["min_tp"] is None:
            continue
        tp = sized["min_tp"]
        gpu["throughput"] = [
            {
                "tp": tp,
                "concurrency": max(1, sized["max_concurrency"][tp]),
                "input_tokens": bucket["input_tokens"],
                "output_tokens": bucket["output_tokens"],
                "output_tokens_per_second_per_gpu": float(option.tokens_per_second_per_gpu),
                "ttft_ms": None,
                "tpot_ms": None,
                "source": f"typed on the option “{option.name}”",
            }
            for bucket in document["traffic"]
        ]
        item["typed_from"] = option.name
        added = True
    return added


def _json(value: Any) -> Any:
    """The result as JSON stores it (tp keys as text), so a fresh run reads the same as one read back."""
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
