"""Reads for decisions: the current numbers of a scenario, its brief, decision records and links, and token look-up."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from tco.charts import build_figures, with_map_rental
from tco.engine import ENGINE_VERSION, Problem, ScenarioError, evaluate
from tco.models import (
    BRIEF_QUESTIONS,
    DecisionAction,
    DecisionLink,
    DecisionRecord,
    RunStatus,
    Scenario,
    ScenarioBrief,
    ScenarioRun,
)

# secrets.token_urlsafe(32): 32 random bytes in unpadded URL-safe base64 are exactly 43 characters.
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")
DEFAULT_QUESTION = "Which option should we choose?"


def token_hash(token: str) -> str:
    """What the database keeps of a link's token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def active_link_for_token(token: str) -> DecisionLink | None:
    """The link a token opens, with its snapshot; None for malformed, unknown, revoked and expired tokens alike."""
    if not TOKEN_PATTERN.fullmatch(token):
        return None
    return DecisionLink.objects.live().select_related("snapshot").filter(token_hash=token_hash(token)).first()


def live_links(scenario: Scenario):
    """The scenario's links that still open (neither revoked nor expired), newest first."""
    return scenario.decision_links.live()


class NotEvaluable(Exception):
    """The scenario's inputs cannot be evaluated right now; the message lists every problem."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        listed = "; ".join(f"{problem.path or 'scenario'}: {problem.message}" for problem in problems)
        super().__init__(f"The scenario cannot be evaluated until its inputs are fixed ({listed}).")


@dataclass(frozen=True)
class Evaluation:
    """A document with its result (and figures), from a finished run or computed on the spot."""

    document: dict
    result: dict
    figures: dict | None
    engine_version: str
    run_id: int | None


def current_evaluation(scenario: Scenario, *, with_figures: bool, map_rental: str = "") -> Evaluation:
    """The numbers for the scenario's current inputs.

    The latest finished run is reused when it was computed from exactly today's document; otherwise (edits not
    yet evaluated, a job still queued) the engine runs here, synchronously, so nobody shares or exports numbers
    that belong to other inputs. Raises NotEvaluable when the engine refuses the inputs. Writes nothing.
    ``map_rental`` picks the rental the break-even map varies (default: the first on-demand rental).
    """
    document = scenario.to_document()
    run = ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE).order_by("-id").first()
    if run is not None and run.document == document and run.result and (run.figures or not with_figures):
        figures = with_map_rental(document, run.result, run.figures, map_rental) if with_figures else run.figures
        return Evaluation(document, run.result, figures, run.engine_version or ENGINE_VERSION, run.pk)
    try:
        result = evaluate(document)
    except ScenarioError as error:
        raise NotEvaluable(list(error.problems)) from None
    figures = None
    if with_figures:
        figures = build_figures(document, result, map_rental=map_rental)
    return Evaluation(document, result, figures, ENGINE_VERSION, None)


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
