"""Write services for sizing (docs/money-math.md "Sizing"): save the serving configuration, size it (build the
``tco-sizing/1`` document, run ``tco.engine.size``, store a ``SizingRun``) and apply the answer to the scenario.

Sizing is sub-second, so it runs in the request that asks for it and is stored: the sizing page only reads runs.
Applying writes ordinary scenario inputs (the fleet, owned GPU counts, each option's throughput) with their
provenance, so the evaluation, break-even, NPV and the brief follow through the normal run.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from lib.errors import AppError
from lib.kinds import OWNED_KINDS, RENTAL_KINDS
from lib.users import signed_in_user
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
    refuse_invalid,
    scenario_options,
    set_history_user,
)
from tco.serving import ServingError, workload_bucket

SERVING_FIELDS = tuple(entry.field for entry in scenario_fields("serving"))
# Stored Decimals keep 10 places; a throughput is kept to the thousandth of a token a second.
THROUGHPUT_STEP = Decimal("0.001")


class SizingRefused(AppError, ValueError):
    """Sizing cannot be applied (no run of this version, no GPU type serving the traffic): nothing is written."""


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
        bucket, how = workload_bucket(scenario.to_document(options))
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


# --- Applying the answer ------------------------------------------------------------------------------------------


def effective_throughput(result_gpu: dict[str, Any], traffic: list[dict[str, Any]]) -> tuple[float, dict] | None:
    """A GPU's best type's output tokens per second per GPU over the whole traffic, and that type: each bucket's
    output tokens at its operating point's throughput, so GPU-seconds add up (one bucket: its operating point)."""
    best = result_gpu.get("best")
    if not best:
        return None
    kind = next(t for t in result_gpu["types"] if t["tp"] == best["tp"])
    tokens = sum(b["requests_per_second"] * b["output_tokens"] for b in traffic)
    seconds = sum(
        b["requests_per_second"] * b["output_tokens"] / point["output_tokens_per_second_per_gpu"]
        for b, point in zip(traffic, kind["operating_points"], strict=True)
    )
    return tokens / seconds, kind


def _provenance(run: SizingRun, gpu: dict[str, Any], kind: dict[str, Any], throughput: float) -> dict[str, Any]:
    points = kind["operating_points"]
    return {
        "from": "sizing",
        "sizing_run": run.pk,
        "gpu": gpu["name"],
        "tp": kind["tp"],
        "gpus": gpu["best"]["gpus"],
        "replicas": gpu["best"]["replicas"],
        "tokens_per_second_per_gpu": throughput,
        "language_model": run.document["model"]["name"],
        "rows": [
            {
                "id": point.get("row_id"),
                "source": point["source"],
                "concurrency": point["concurrency"],
                "output_tokens_per_second_per_gpu": point["output_tokens_per_second_per_gpu"],
                "nearest_shape": bool(point.get("nearest_shape")),
                "above_memory_estimate": bool(point.get("above_memory_estimate")),
            }
            for point in points
        ],
        "at": timezone.now().isoformat(timespec="seconds"),
    }


def _rounded(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(THROUGHPUT_STEP)


def sizing_apply(
    *, scenario: Scenario, run: SizingRun, user: AbstractBaseUser | None, expected_version: int | None
) -> Change:
    """Write a sizing's answer into the scenario in one versioned step: the fleet is the best single GPU type's GPU
    count and the workload's throughput that type's, over the whole traffic (with its mean request size); each
    option on a sized GPU gets that GPU's throughput, and an owned one its GPU count, each with the measured rows
    it comes from (``throughput_source``). Options on a GPU that cannot serve the traffic keep their figures.

    Refused (SizingRefused, nothing written) when the run is not of the scenario's current version or no GPU type
    serves the traffic; EditRefused when a figure would leave the scenario wrong (a GPU count past its bounds);
    VersionConflict when the scenario changed since the page was shown."""
    if run.scenario_id != scenario.pk or run.result is None:
        raise SizingRefused("This sizing has no answer to apply: size the serving configuration first.")
    result, traffic = run.result, run.document["traffic"]
    by_name = {gpu["name"]: gpu for gpu in result["gpus"]}
    best_name = (result.get("mix") or {}).get("best_single") or _cheapest(result["gpus"])
    if best_name is None:
        raise SizingRefused("No GPU type serves this traffic at the target: there is nothing to apply.")
    model_ids = {item["gpu_model_id"]: gpu["name"] for item, gpu in zip(run.gpus, result["gpus"], strict=True)}
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version)
        if run.scenario_version != expected_version and expected_version is not None:
            raise SizingRefused("The scenario changed after this sizing: size it again, then apply.")
        options = scenario_options(fresh)
        before = fresh.to_document(options)
        best = by_name[best_name]
        throughput, kind = effective_throughput(best, traffic)
        fresh.fleet_gpus = best["best"]["gpus"]
        fresh.workload_tokens_per_second_per_gpu = _rounded(throughput)
        requests = sum(b["requests_per_second"] for b in traffic)
        fresh.workload_output_tokens_per_response = _rounded(
            sum(b["requests_per_second"] * b["output_tokens"] for b in traffic) / requests
        )
        fresh.workload_input_tokens_per_response = _rounded(
            sum(b["requests_per_second"] * b["input_tokens"] for b in traffic) / requests
        )
        if not fresh.serving_traffic:  # taken from the workload: kept as typed, so sizing again sizes the same
            fresh.serving_traffic = [[b["requests_per_second"], b["input_tokens"], b["output_tokens"]] for b in traffic]
        applied: list[ScenarioOption] = []
        edited = ["fleet_gpus", "workload"]
        for index, option in enumerate(options):
            gpu = by_name.get(model_ids.get(option.gpu_model_id, ""))
            if option.kind not in OWNED_KINDS + RENTAL_KINDS or gpu is None or not gpu.get("best"):
                continue
            option_throughput, option_kind = effective_throughput(gpu, traffic)
            option.tokens_per_second_per_gpu = _rounded(option_throughput)
            if option.kind in OWNED_KINDS:
                option.gpu_count = gpu["best"]["gpus"]
            option.throughput_source = _provenance(run, gpu, option_kind, option_throughput)
            applied.append(option)
            edited += [f"options[{index}].tokens_per_second_per_gpu", f"options[{index}].gpu_count"]
        # Written whole or not at all: a figure the scenario cannot hold (a GPU count past its bounds) refuses it.
        refuse_invalid(before, fresh.to_document(options), edited=tuple(edited))
        for option in applied:
            set_history_user(option, user)
            option.save()
        applied_options = [option.name for option in applied]
        fresh.sizing_applied = {
            **_provenance(run, best, kind, throughput),
            "fleet_gpus": best["best"]["gpus"],
            "options": applied_options,
        }
        set_history_user(fresh, user)
        fresh.save()
        return recompute_if_valid(scenario=fresh, user=user)


def _cheapest(gpus: list[dict[str, Any]]) -> str | None:
    served = [(gpu["best"]["cost_per_hour"], gpu["best"]["gpus"], i) for i, gpu in enumerate(gpus) if gpu.get("best")]
    return gpus[min(served)[2]]["name"] if served else None
