"""Reads for decisions: the current numbers of a scenario, its brief, decision records and links, and token look-up."""

from __future__ import annotations

import hashlib
import re

from tco.models import (
    BRIEF_QUESTIONS,
    DecisionAction,
    DecisionLink,
    DecisionRecord,
    Scenario,
    ScenarioBrief,
)

# secrets.token_urlsafe(32): 32 random bytes in unpadded URL-safe base64 are exactly 43 characters.
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")
DEFAULT_QUESTION = "Which option should we choose?"


def token_hash(token: str) -> str:
    """What the database keeps of a link's token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def active_link_for_token(token: str) -> DecisionLink | None:
    """The link a token opens, with its snapshot (its content is read on first use: the page's context is cached per
    snapshot); None for malformed, unknown, revoked and expired tokens alike."""
    if not TOKEN_PATTERN.fullmatch(token):
        return None
    links = DecisionLink.objects.live().select_related("snapshot").defer("snapshot__content")
    return links.filter(token_hash=token_hash(token)).first()


def live_links(scenario: Scenario):
    """The scenario's links that still open (neither revoked nor expired), newest first."""
    return scenario.decision_links.live()


def brief_for(scenario: Scenario) -> ScenarioBrief:
    """The scenario's brief, or a blank unsaved one (version 1) when nobody has written it yet."""
    return ScenarioBrief.objects.filter(scenario=scenario).first() or ScenarioBrief(scenario=scenario)


def brief_questions(brief: ScenarioBrief) -> list[dict]:
    """The seven questions in order with their answers ("" = still open)."""
    return [
        {"key": key, "label": label, "question": question, "covers": covers, "answer": brief.answer(key).strip()}
        for key, label, question, covers in BRIEF_QUESTIONS
    ]


def decision_history(scenario: Scenario, *, limit: int = 20) -> list[DecisionRecord]:
    """Decisions and re-openings, newest first."""
    return list(DecisionRecord.objects.filter(scenario=scenario).select_related("created_by")[:limit])


def current_decision(scenario: Scenario) -> DecisionRecord | None:
    """The latest record: a decision in force (action decided) or a re-opening; None when never decided."""
    return DecisionRecord.objects.filter(scenario=scenario).select_related("created_by").first()


def is_decided(record: DecisionRecord | None) -> bool:
    return record is not None and record.action == DecisionAction.DECIDED


def scenario_links(scenario: Scenario) -> list[DecisionLink]:
    """Every link of the scenario, newest first, with who made and revoked it."""
    return list(
        DecisionLink.objects.filter(scenario=scenario)
        .select_related("created_by", "revoked_by", "snapshot")
        .only(
            "id",
            "scenario_id",
            "snapshot_id",
            "note",
            "created_at",
            "expires_at",
            "revoked_at",
            "open_count",
            "last_opened_at",
            "created_by__username",
            "revoked_by__username",
            "snapshot__content_hash",
            "snapshot__scenario_version",
        )
    )
