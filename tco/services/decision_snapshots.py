"""Decision snapshots: everything a decision link shows, frozen as canonical JSON with its SHA-256."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from lib.currencies import currency_of
from lib.users import signed_in_user
from pricing.models import PriceObservation
from tco.engine.catalogue import PRICE_SOURCE_FX
from tco.models import DecisionRecord, DecisionSnapshot, Scenario, ScenarioBrief
from tco.selectors.decisions import DEFAULT_QUESTION, brief_for, brief_questions, current_decision
from tco.selectors.uncertainty import current_uncertainty
from tco.services.comparison import scenario_comparison
from tco.services.evaluation import Evaluation, current_evaluation

SNAPSHOT_SCHEMA = "tco-decision/1"


class SnapshotOutput(Protocol):
    """What a snapshot freezes besides rows and numbers, drawn and worded by the caller (``tco.charts.snapshot``)."""

    def figures(self, document: dict, result: dict, stored: dict | None, map_rental: str) -> dict: ...

    def comparison(self, entries: list[dict], currency: str) -> dict: ...

    def conversions(self, entries: list[dict] | None) -> list[dict]: ...

    def lanes(self, plan: dict, load_profile: list[float]) -> list[dict]: ...


def _username(user: AbstractBaseUser | None) -> str:
    return user.get_username() if user is not None else "system"


def canonical_json(content: Any) -> str:
    """One text per value: sorted keys, no spaces, UTF-8 kept, NaN refused. What snapshots store and hash."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


PROVENANCE_KEYS = (
    "provider",
    "offering",
    "region",
    "pricing_term",
    "observed_on",
    "source_url",
    "price_observation_id",
    "snapshot_id",
)


def _price_entry(option: dict, quantity: str, price: float, currency: str) -> dict:
    source = option.get("price_source") or {}
    entry = {
        "option": option["name"],
        "kind": option["kind"],
        "quantity": quantity,
        "price": price,
        "currency": currency,
        "origin": "market" if source.get("provider") else "typed",
    }
    entry.update({key: source.get(key) for key in PROVENANCE_KEYS})
    if source.get("original_currency"):  # converted from another currency: the original and the rate, frozen
        entry.update({key: source.get(key) for key in PRICE_SOURCE_FX})
    if quantity == "GPU-hour" and option.get("price_path_source"):  # the price path taken from the Market's trend
        entry["price_path"] = dict(option["price_path_source"])
    return entry


def prices_used(document: dict) -> list[dict]:
    """Every price the numbers rest on, with its provenance copied as data (later imports cannot change it).

    One entry per priced quantity: rentals per GPU-hour, APIs per million input and output tokens, and the
    scenario's burst price. Typed-in prices have origin "typed" and no provider.
    """
    currency = currency_of(document)
    entries = []
    for option in document["options"]:
        if "price_per_gpu_hour" in option:
            entries.append(_price_entry(option, "GPU-hour", option["price_per_gpu_hour"], currency))
        if "price_per_million_input_tokens" in option:
            entries.append(
                _price_entry(option, "million input tokens", option["price_per_million_input_tokens"], currency)
            )
        if "price_per_million_output_tokens" in option:
            entries.append(
                _price_entry(option, "million output tokens", option["price_per_million_output_tokens"], currency)
            )
    if document.get("burst_price_per_gpu_hour") is not None:
        burst = {"name": "Burst capacity (demand above owned or committed GPUs)", "kind": "burst"}
        entries.append(_price_entry(burst, "GPU-hour", document["burst_price_per_gpu_hour"], currency))
    _add_gpu_models(entries)
    return entries


def _add_gpu_models(entries: list[dict]) -> None:
    """Name the GPU of each Market price whose observation still exists with the same price (one query)."""
    ids = {entry["price_observation_id"] for entry in entries if isinstance(entry["price_observation_id"], int)}
    rows = PriceObservation.objects.filter(pk__in=ids).values_list("pk", "gpu_model__name", "price_per_gpu_hour")
    found = {pk: (gpu, price) for pk, gpu, price in rows}
    for entry in entries:
        gpu, price = found.get(entry["price_observation_id"], (None, None))
        picked = entry.get("original_price_per_gpu_hour") or entry["price"]  # a converted price: its original
        same_price = price is not None and entry["quantity"] == "GPU-hour" and float(price) == float(picked)
        entry["gpu_model"] = gpu if same_price else None


def _decision_content(record: DecisionRecord | None) -> dict:
    if record is None:
        return {"status": "open"}
    return {
        "status": record.action,
        "option": record.option_name,
        "option_kind": record.option_kind,
        "rationale": record.rationale,
        "by": _username(record.created_by),
        "at": record.created_at.isoformat(timespec="seconds"),
        "scenario_version": record.scenario_version,
    }


def _brief_content(brief: ScenarioBrief) -> dict:
    return {
        "question": brief.question.strip() or DEFAULT_QUESTION,
        "workload_brief": brief.workload_brief.strip(),
        "questions": brief_questions(brief),
    }


def frozen_uncertainty(scenario: Scenario, document: dict, output: SnapshotOutput) -> dict | None:
    """The scenario's simulation, tornado and fleet plan for exactly ``document`` and its current ranges (None
    when there is none): the run's data with the fleet plan's budget lanes computed, the hourly profile left out."""
    data = current_uncertainty(scenario, document)
    if data is None:
        return None
    plan = data["result"].get("fleet_plan")
    data["lanes"] = output.lanes(plan, data["load_profile"]) if plan else []
    data["load_profile_hours"] = len(data.pop("load_profile"))
    return data


def snapshot_content(
    *,
    scenario: Scenario,
    evaluation: Evaluation,
    user: AbstractBaseUser | None,
    frozen_at: Any,
    output: SnapshotOutput,
    uncertainty: dict | None = None,
    comparison: dict | None = None,
) -> dict:
    """Everything a decision page shows, as plain JSON data (no references into rows that may change); it is public,
    so it names no one who froze it (the snapshot row keeps ``created_by``). A scenario
    whose money inputs went through an exchange rate adds its ``currency_conversions`` (rate, date, source, in
    words); one never converted says nothing about it."""
    content = {
        "uncertainty": uncertainty,
        "comparison": comparison,
        "schema": SNAPSHOT_SCHEMA,
        "frozen_at": frozen_at.isoformat(timespec="seconds"),
        "scenario": {"id": scenario.pk, "name": scenario.name, "version": scenario.version},
        "run_id": evaluation.run_id,
        "engine_version": evaluation.engine_version,
        "document": evaluation.document,
        "result": evaluation.result,
        "figures": evaluation.figures or {},
        "prices": prices_used(evaluation.document),
        "decision": _decision_content(current_decision(scenario)),
        "brief": _brief_content(brief_for(scenario)),
    }
    if conversions := output.conversions(scenario.currency_conversions):
        content["currency_conversions"] = conversions
    return content


def snapshot_freeze(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    output: SnapshotOutput,
    map_rental: str = "",
    compare_with: Sequence[Scenario] = (),
) -> DecisionSnapshot:
    """Freeze the scenario's current numbers, prices, decision and brief, its simulation (when one belongs to
    its current inputs and ranges) and, with ``compare_with``, its comparison with those scenarios; ``output``
    draws and words what is frozen beside the numbers (``tco.charts.snapshot``). Raises
    NotEvaluable when the engine refuses the current inputs, ComparisonError when the comparison cannot be
    made (nothing is written then)."""
    scenario = Scenario.objects.get(pk=scenario.pk)
    evaluation = current_evaluation(
        scenario, figures_of=lambda document, result, stored: output.figures(document, result, stored, map_rental)
    )
    compared = (
        scenario_comparison(scenarios=[scenario, *compare_with], compose=output.comparison) if compare_with else None
    )
    frozen_at = timezone.now().replace(microsecond=0)
    content = canonical_json(
        snapshot_content(
            scenario=scenario,
            evaluation=evaluation,
            user=user,
            frozen_at=frozen_at,
            output=output,
            uncertainty=frozen_uncertainty(scenario, evaluation.document, output),
            comparison=compared,
        )
    )
    return DecisionSnapshot.objects.create(
        scenario=scenario,
        content=content,
        content_hash=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        engine_version=evaluation.engine_version,
        scenario_version=scenario.version,
        created_by=signed_in_user(user),
        created_at=frozen_at,
    )
