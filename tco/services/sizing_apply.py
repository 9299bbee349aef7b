"""Apply a sizing to its scenario (docs/money-math.md "Sizing"): the fleet, the workload's throughput, owned GPU
counts and each option's throughput, written in one versioned change with the measured rows they come from, so the
evaluation, break-even, NPV and the brief follow through the normal run."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from lib.errors import AppError
from lib.kinds import OWNED_KINDS, RENTAL_KINDS
from tco.documents import scenario_document
from tco.models import Scenario, ScenarioOption, SizingRun
from tco.services.common import (
    Change,
    claim_version,
    recompute_if_valid,
    refuse_invalid,
    scenario_options,
    set_history_user,
)

# Stored Decimals keep 10 places; a throughput is kept to the thousandth of a token a second.
THROUGHPUT_STEP = Decimal("0.001")


class SizingRefused(AppError, ValueError):
    """Sizing cannot be applied (no run of this version, no GPU type serving the traffic): nothing is written."""


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
        before = scenario_document(fresh, options)
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
        refuse_invalid(before, scenario_document(fresh, options), edited=tuple(edited))
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
