"""Template context for the decision panel (scenario page) and the frozen decision page (no writes)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from lib.caching import kept
from lib.currencies import currency_of
from lib.formatting import format_money, format_unit_money
from lib.kinds import kind_label
from lib.terms import term_label
from tco.charts import FIGURE_ORDER
from tco.checks import LINK_DAYS_DEFAULT, LINK_DAYS_MAX, LINK_DAYS_MIN
from tco.documents import scenario_document
from tco.models import BRIEF_KEYS, DecisionSnapshot, Scenario, ScenarioBrief
from tco.presentation import break_even_rows, headline, option_rows
from tco.presentation.finance import compared_months, finance_answers
from tco.presentation.inputs import input_groups
from tco.selectors.actuals import actuals_notice
from tco.selectors.decisions import (
    DEFAULT_QUESTION,
    brief_for,
    brief_questions,
    decision_history,
    is_decided,
    scenario_links,
)
from tco.selectors.scenarios import RunState, run_state
from tco.services.evaluation import export_state
from tco.web.access import can_edit
from tco.web.viewmodels.uncertainty import frozen_uncertainty_context

BRIEF_ERROR_KEYS = ("question", "workload_brief", "brief", *(f"answer_{key}" for key in BRIEF_KEYS))
STATUS_WORDS = {"decided": "Decided", "reopened": "Re-opened, no decision in force", "open": "Open, not decided yet"}


def panel_context(
    request: HttpRequest,
    scenario: Scenario,
    *,
    errors: dict[str, str] | None = None,
    notice: str = "",
    new_link: Any = None,
    new_link_url: str = "",
    brief: ScenarioBrief | None = None,
    form: dict[str, str] | None = None,
    state: RunState | None = None,
    document: dict | None = None,
    problems: list | None = None,
) -> dict[str, Any]:
    """The decision panel: status, decision form, brief, links (and a new link's URL, once), exports, history.
    ``state`` is the scenario's runs, ``document`` and ``problems`` its document and what the engine finds in it,
    when the caller has read them already (the scenario page's workspace)."""
    brief = brief or brief_for(scenario)
    history = decision_history(scenario)
    current = history[0] if history else None  # the latest record (current_decision)
    state = state or run_state(scenario)
    document = scenario_document(scenario) if document is None else document
    # The latest answer is the current inputs' only when its run evaluated exactly today's document.
    answer_is_current = state.done is not None and state.done.document == document
    errors = errors or {}
    questions = [
        {**question, "error": errors.get(f"answer_{question['key']}", "")} for question in brief_questions(brief)
    ]
    return {
        "scenario": scenario,
        "can_edit": can_edit(request),
        "current": current,
        "decided": is_decided(current),
        # A decision made on an earlier version: the inputs have changed since (DecisionRecord.scenario_version).
        "decision_is_stale": is_decided(current) and current.scenario_version < scenario.version,
        "history": history,
        "option_names": [option.name for option in scenario.options.all()],
        "cheapest_option": state.done.result.get("cheapest", "") if answer_is_current else "",
        "answer_is_current": answer_is_current,
        "answer_version": state.done.scenario_version if state.done is not None else None,
        "brief": brief,
        "brief_questions": questions,
        "open_questions": sum(1 for question in questions if not question["answer"]),
        "brief_open": any(key in errors for key in BRIEF_ERROR_KEYS),
        "default_question": DEFAULT_QUESTION,
        "links": scenario_links(scenario),
        "export": export_state(document=document, problems=problems, done=state.done),
        "new_link": new_link,
        "new_link_url": new_link_url,
        "errors": errors,
        "notice": notice,
        "form": form or {},
        "days_default": LINK_DAYS_DEFAULT,
        "days_min": LINK_DAYS_MIN,
        "days_max": LINK_DAYS_MAX,
        "compare_choices": list(Scenario.objects.exclude(pk=scenario.pk).order_by("name").values_list("pk", "name")),
        "actuals_notice": actuals_notice(scenario),
    }


def _web_link(url: object) -> str | None:
    """A source URL safe to put in an href: http(s) only (a document's provenance is free text)."""
    if isinstance(url, str) and url.lower().startswith(("https://", "http://")):
        return url
    return None


def _price_rows(prices: list[dict]) -> list[dict]:
    rows = []
    for entry in prices:
        per_unit = entry["quantity"] == "GPU-hour"
        text = format_money(entry["price"], entry["currency"], places=2) if per_unit else None
        rows.append(
            {
                **entry,
                "kind_label": kind_label(entry["kind"]) if entry["kind"] != "burst" else "Burst",
                "price_text": text or format_unit_money(entry["price"], entry["currency"]),
                "source_link": _web_link(entry.get("source_url")),
                "term_text": term_label(entry["pricing_term"]) if entry["pricing_term"] else "",
            }
        )
    return rows


FROZEN_TIMEOUT = 24 * 3600  # seconds; a snapshot never changes, this only bounds what the cache keeps


def frozen_page_context(snapshot: DecisionSnapshot, *, expires_at: Any) -> dict[str, Any]:
    """Everything the decision page shows, computed only from the snapshot's frozen content. A snapshot never
    changes, so its part is computed once and kept in Django's cache (keyed by id and content hash)."""
    key = f"decision-page:{snapshot.pk}:{snapshot.content_hash}"
    frozen = kept(key, lambda: _frozen_context(snapshot), timeout=FROZEN_TIMEOUT)
    return {**frozen, "expires_on": expires_at.date().isoformat()}


def _frozen_context(snapshot: DecisionSnapshot) -> dict[str, Any]:
    data = snapshot.data
    document, result = data["document"], data["result"]
    figures = data.get("figures") or {}
    decision = data["decision"]
    return {
        "data": data,
        "scenario_name": data["scenario"]["name"],
        "brief": data["brief"],
        "open_questions": sum(1 for question in data["brief"]["questions"] if not question["answer"]),
        "decision": decision,
        "decision_status_text": STATUS_WORDS.get(decision["status"], decision["status"]),
        "decided_on_other_version": decision.get("scenario_version") not in (None, data["scenario"]["version"]),
        "decision_is_stale": decision["status"] == "decided"
        and decision.get("scenario_version") is not None
        and decision["scenario_version"] < data["scenario"]["version"],
        "headline": headline(document, result),
        "options": option_rows(document, result),
        "break_even": break_even_rows(document, result),
        "finance": finance_answers(document, result),
        "figures": [(key, f"fig-{key}", figures[key]) for key in FIGURE_ORDER if key in figures],
        "inputs": input_groups(document),
        "prices": _price_rows(data["prices"]),
        "currency": currency_of(result),
        "horizon_months": compared_months(result),
        "content_hash": snapshot.content_hash,
        "engine_version": data["engine_version"],
        "frozen_at": data["frozen_at"],
        **frozen_uncertainty_context(data),
    }
