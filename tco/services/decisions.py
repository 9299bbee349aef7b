"""Write services for decisions: the brief, decision records, frozen snapshots and decision links."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from lib.users import signed_in_user
from tco.checks import LINK_DAYS_DEFAULT, LINK_DAYS_MAX, LINK_DAYS_MIN, DecisionError
from tco.models import (
    BRIEF_KEYS,
    DecisionAction,
    DecisionLink,
    DecisionRecord,
    Scenario,
    ScenarioBrief,
)
from tco.selectors.decisions import current_decision, is_decided, token_hash
from tco.selectors.scenarios import answered_version
from tco.services.comparison import ComparisonError
from tco.services.decision_snapshots import SnapshotOutput, snapshot_freeze
from tco.services.evaluation import NotEvaluable

NOTE_MAX = 200
QUESTION_MAX = 300
TEXT_MAX = 4000
RATIONALE_MAX = 4000


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
        changed = rows.update(
            **fields, version=F("version") + 1, updated_by=signed_in_user(user), updated_at=timezone.now()
        )
        fresh = ScenarioBrief.objects.select_related("updated_by").get(pk=brief.pk)
        if not changed:
            raise BriefConflict(fresh, expected_version or 0)
    return fresh


def decision_record(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    option_name: str,
    rationale: str,
    confirm_older: bool = False,
) -> DecisionRecord:
    """Mark the scenario decided for one of its options, with the reason. Appends; earlier records stay.

    Refused when no finished run has computed the current inputs (an input waiting to be filled in, a run still
    queued), unless ``confirm_older``: the user was told the numbers are older than the inputs and decides anyway.
    The record names the version whose numbers the decision rests on: the current one, or the older one confirmed
    (so the panel and every later link say the inputs changed after it)."""
    names = {option.name: option.kind for option in scenario.options.all()}
    if option_name not in names:
        listed = ", ".join(f"“{name}”" for name in names) or "none yet"
        raise DecisionError(f"Choose one of the scenario's options ({listed}); got “{option_name}”.", field="option")
    rationale = _check_length(rationale, RATIONALE_MAX, "rationale", "The rationale")
    if not rationale:
        raise DecisionError("Write a short rationale: why this option?", field="rationale")
    numbers_version, current = answered_version(scenario)
    if not confirm_older and not current:
        raise DecisionError(
            "The numbers shown are older than the inputs (they have not been computed since the last change): "
            "tick “Record it anyway” to decide on them, or complete the inputs first.",
            field="confirm_older",
        )
    version = Scenario.objects.values_list("version", flat=True).get(pk=scenario.pk)
    if not current and numbers_version is not None:
        version = numbers_version
    return DecisionRecord.objects.create(
        scenario=scenario,
        action=DecisionAction.DECIDED,
        option_name=option_name,
        option_kind=names[option_name],
        rationale=rationale,
        scenario_version=version,
        created_by=signed_in_user(user),
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
        created_by=signed_in_user(user),
    )


def link_create(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    output: SnapshotOutput,
    expires_in_days: int = LINK_DAYS_DEFAULT,
    note: str = "",
    map_rental: str = "",
    compare_with: Sequence[Scenario] = (),
) -> tuple[DecisionLink, str]:
    """Freeze a snapshot and make a link to it. Returns the link and its token, which is never stored or shown
    again (only its SHA-256 is kept). ``map_rental`` names the rental the frozen break-even map varies;
    ``compare_with`` (up to three other scenarios) freezes a side-by-side comparison too; ``output`` draws and
    words what the snapshot freezes beside the numbers (``tco.charts.snapshot``)."""
    if not LINK_DAYS_MIN <= expires_in_days <= LINK_DAYS_MAX:
        raise DecisionError(
            f"A link can last {LINK_DAYS_MIN} to {LINK_DAYS_MAX} days; {expires_in_days} is outside that.",
            field="expires_in_days",
        )
    note = _check_length(note, NOTE_MAX, "note", "The note")
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        try:
            snapshot = snapshot_freeze(
                scenario=scenario, user=user, output=output, map_rental=map_rental, compare_with=compare_with
            )
        except NotEvaluable as error:
            raise DecisionError(f"No link was created. {error}") from None
        except ComparisonError as error:
            raise DecisionError(f"No link was created. {error}", field="compare_with") from None
        link = DecisionLink.objects.create(
            scenario=scenario,
            snapshot=snapshot,
            token_hash=token_hash(token),
            note=note,
            created_by=signed_in_user(user),
            created_at=snapshot.created_at,
            expires_at=snapshot.created_at + timedelta(days=expires_in_days),
        )
    return link, token


def link_revoke(*, link: DecisionLink, user: AbstractBaseUser | None) -> bool:
    """Revoke a link for good. False when it was already revoked (nothing changes then)."""
    revoked = DecisionLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=signed_in_user(user)
    )
    return bool(revoked)


def link_record_open(*, link: DecisionLink) -> None:
    """Count one opening; a single UPDATE, so concurrent openings are all counted."""
    DecisionLink.objects.filter(pk=link.pk).update(open_count=F("open_count") + 1, last_opened_at=timezone.now())
