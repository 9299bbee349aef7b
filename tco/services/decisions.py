"""Write services for decisions: the brief, decision records, frozen snapshots and decision links."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from tco.models import (
    BRIEF_KEYS,
    DecisionAction,
    DecisionLink,
    DecisionRecord,
    DecisionSnapshot,
    Scenario,
    ScenarioBrief,
)
from tco.selectors_decisions import (
    DEFAULT_QUESTION,
    Evaluation,
    NotEvaluable,
    brief_for,
    brief_questions,
    current_decision,
    current_evaluation,
    is_decided,
    token_hash,
)

SNAPSHOT_SCHEMA = "tco-decision/1"
LINK_DAYS_DEFAULT = 30
LINK_DAYS_MIN = 1
LINK_DAYS_MAX = 365
NOTE_MAX = 200
QUESTION_MAX = 300
TEXT_MAX = 4000
RATIONALE_MAX = 4000


class DecisionError(ValueError):
    """Something the user asked for that cannot be done as asked; `field` names the form field at fault."""

    def __init__(self, message: str, *, field: str = ""):
        self.field = field
        super().__init__(message)


class BriefConflict(DecisionError):
    """Someone else saved the brief since this form was rendered; nothing was written."""

    def __init__(self, brief: ScenarioBrief, expected_version: int):
        self.brief = brief
        who = brief.updated_by.get_username() if brief.updated_by_id else "someone else"
        super().__init__(
            f"The brief was changed by {who} (now version {brief.version}, you edited version {expected_version}); "
            "your text was not saved. Their version is shown below: copy your changes in again.",
            field="brief",
        )


def _user(user: AbstractBaseUser | None) -> AbstractBaseUser | None:
    return user if user is not None and user.is_authenticated else None


def _username(user: AbstractBaseUser | None) -> str:
    return user.get_username() if user is not None else "system"


def _check_length(value: str, limit: int, field: str, label: str) -> str:
    value = value.strip()
    if len(value) > limit:
        raise DecisionError(f"{label} is {len(value):,} characters long; at most {limit:,} fit.", field=field)
    return value


def brief_update(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    question: str,
    workload_brief: str,
    answers: Mapping[str, str],
) -> ScenarioBrief:
    """Save the question, the workload brief and the seven answers (blank = open) in one go.

    Refuses (BriefConflict) when the brief changed since `expected_version`; None skips the check.
    """
    fields: dict[str, Any] = {
        "question": _check_length(question, QUESTION_MAX, "question", "The decision question"),
        "workload_brief": _check_length(workload_brief, TEXT_MAX, "workload_brief", "The workload brief"),
    }
    unknown = set(answers) - set(BRIEF_KEYS)
    if unknown:
        raise DecisionError(f"Unknown brief question(s): {', '.join(sorted(unknown))}.")
    for key in BRIEF_KEYS:
        fields[f"answer_{key}"] = _check_length(answers.get(key, ""), TEXT_MAX, f"answer_{key}", "An answer")
    with transaction.atomic():
        brief, _ = ScenarioBrief.objects.get_or_create(scenario=scenario)
        rows = ScenarioBrief.objects.filter(pk=brief.pk)
        if expected_version is not None:
            rows = rows.filter(version=expected_version)
        changed = rows.update(**fields, version=F("version") + 1, updated_by=_user(user), updated_at=timezone.now())
        fresh = ScenarioBrief.objects.select_related("updated_by").get(pk=brief.pk)
        if not changed:
            raise BriefConflict(fresh, expected_version or 0)
    return fresh


def decision_record(
    *, scenario: Scenario, user: AbstractBaseUser | None, option_name: str, rationale: str
) -> DecisionRecord:
    """Mark the scenario decided for one of its options, with the reason. Appends; earlier records stay."""
    names = {option.name: option.kind for option in scenario.options.all()}
    if option_name not in names:
        listed = ", ".join(f"“{name}”" for name in names) or "none yet"
        raise DecisionError(f"Choose one of the scenario's options ({listed}); got “{option_name}”.", field="option")
    rationale = _check_length(rationale, RATIONALE_MAX, "rationale", "The rationale")
    if not rationale:
        raise DecisionError("Write a short rationale: why this option?", field="rationale")
    version = Scenario.objects.values_list("version", flat=True).get(pk=scenario.pk)
    return DecisionRecord.objects.create(
        scenario=scenario,
        action=DecisionAction.DECIDED,
        option_name=option_name,
        option_kind=names[option_name],
        rationale=rationale,
        scenario_version=version,
        created_by=_user(user),
    )


def decision_reopen(*, scenario: Scenario, user: AbstractBaseUser | None, reason: str = "") -> DecisionRecord:
    """Re-open a decided scenario (the decision stays in the history)."""
    current = current_decision(scenario)
    if not is_decided(current):
        raise DecisionError("This scenario is not decided, so there is nothing to re-open.")
    reason = _check_length(reason, RATIONALE_MAX, "reason", "The reason")
    version = Scenario.objects.values_list("version", flat=True).get(pk=scenario.pk)
    return DecisionRecord.objects.create(
        scenario=scenario,
        action=DecisionAction.REOPENED,
        option_name=current.option_name,
        option_kind=current.option_kind,
        rationale=reason,
        scenario_version=version,
        created_by=_user(user),
    )


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
    return entry


def prices_used(document: dict) -> list[dict]:
    """Every price the numbers rest on, with its provenance copied as data (later imports cannot change it).

    One entry per priced quantity: rentals per GPU-hour, APIs per million input and output tokens, and the
    scenario's burst price. Typed-in prices have origin "typed" and no provider.
    """
    currency = document.get("currency", "USD")
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
    from pricing.models import PriceObservation

    ids = {entry["price_observation_id"] for entry in entries if isinstance(entry["price_observation_id"], int)}
    rows = PriceObservation.objects.filter(pk__in=ids).values_list("pk", "gpu_model__name", "price_per_gpu_hour")
    found = {pk: (gpu, price) for pk, gpu, price in rows}
    for entry in entries:
        gpu, price = found.get(entry["price_observation_id"], (None, None))
        same_price = price is not None and entry["quantity"] == "GPU-hour" and float(price) == float(entry["price"])
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


def snapshot_content(
    *, scenario: Scenario, evaluation: Evaluation, user: AbstractBaseUser | None, frozen_at: Any
) -> dict:
    """Everything a decision page shows, as plain JSON data (no references into rows that may change)."""
    return {
        "schema": SNAPSHOT_SCHEMA,
        "frozen_at": frozen_at.isoformat(timespec="seconds"),
        "frozen_by": _username(_user(user)),
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


def snapshot_freeze(*, scenario: Scenario, user: AbstractBaseUser | None) -> DecisionSnapshot:
    """Freeze the scenario's current numbers, prices, decision and brief. Refuses when it cannot be evaluated."""
    scenario = Scenario.objects.get(pk=scenario.pk)
    try:
        evaluation = current_evaluation(scenario, with_figures=True)
    except NotEvaluable as error:
        raise DecisionError(f"No link was created. {error}") from None
    frozen_at = timezone.now().replace(microsecond=0)
    content = canonical_json(snapshot_content(scenario=scenario, evaluation=evaluation, user=user, frozen_at=frozen_at))
    return DecisionSnapshot.objects.create(
        scenario=scenario,
        content=content,
        content_hash=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        engine_version=evaluation.engine_version,
        scenario_version=scenario.version,
        created_by=_user(user),
        created_at=frozen_at,
    )


def parse_expires_in_days(text: str | None) -> int:
    """The form's `expires_in_days`: blank means the default (30); otherwise a whole number of days 1..365."""
    raw = (text or "").strip()
    if not raw:
        return LINK_DAYS_DEFAULT
    if not raw.isdigit():
        raise DecisionError(
            f"Expiry “{raw}” is not a whole number of days: enter {LINK_DAYS_MIN} to {LINK_DAYS_MAX}.",
            field="expires_in_days",
        )
    return int(raw)


def link_create(
    *, scenario: Scenario, user: AbstractBaseUser | None, expires_in_days: int = LINK_DAYS_DEFAULT, note: str = ""
) -> tuple[DecisionLink, str]:
    """Freeze a snapshot and make a link to it. Returns the link and its token, which is never stored or shown
    again (only its SHA-256 is kept)."""
    if not LINK_DAYS_MIN <= expires_in_days <= LINK_DAYS_MAX:
        raise DecisionError(
            f"A link can last {LINK_DAYS_MIN} to {LINK_DAYS_MAX} days; {expires_in_days} is outside that.",
            field="expires_in_days",
        )
    note = _check_length(note, NOTE_MAX, "note", "The note")
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        snapshot = snapshot_freeze(scenario=scenario, user=user)
        link = DecisionLink.objects.create(
            scenario=scenario,
            snapshot=snapshot,
            token_hash=token_hash(token),
            note=note,
            created_by=_user(user),
            created_at=snapshot.created_at,
            expires_at=snapshot.created_at + timedelta(days=expires_in_days),
        )
    return link, token


def link_revoke(*, link: DecisionLink, user: AbstractBaseUser | None) -> bool:
    """Revoke a link for good. False when it was already revoked (nothing changes then)."""
    revoked = DecisionLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=_user(user)
    )
    return bool(revoked)


def link_record_open(*, link: DecisionLink) -> None:
    """Count one opening; a single UPDATE, so concurrent openings are all counted."""
    DecisionLink.objects.filter(pk=link.pk).update(open_count=F("open_count") + 1, last_opened_at=timezone.now())
