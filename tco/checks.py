"""The checks a write relies on and a page shows, reading nothing and writing nothing: what a scenario document
still lacks (a gap) or holds wrong (a problem), and how long a decision link may last. Services refuse a write with
them; views and view models show what they find."""

from __future__ import annotations

import re
from typing import Any

from lib.errors import AppError
from tco.engine import Problem, ScenarioError, validate

LINK_DAYS_DEFAULT = 30
LINK_DAYS_MIN = 1
LINK_DAYS_MAX = 365


class DecisionError(AppError, ValueError):
    """Something the user asked for that cannot be done as asked; `field` names the form field at fault."""


def document_problems(document: dict) -> list[Problem]:
    """Every problem the engine finds in a document (empty when it can be evaluated)."""
    try:
        validate(document)
    except ScenarioError as error:
        return list(error.problems)
    return []


def document_gaps(document: dict) -> list[Problem]:
    """The problems of a document that are inputs it does not have yet (see ``is_gap``)."""
    return [problem for problem in document_problems(document) if is_gap(problem, document)]


_PATH_STEP = re.compile(r"\.?(\w+)|\[(\d+)\]")
_ABSENT = object()


def is_gap(problem: Problem, document: dict) -> bool:
    """True when the problem is about a value the document does not hold: the engine names an absent path only when
    the value is needed ("Output tokens per response is required", "Options are required", a burst price for
    demand above capacity, a workload for an API option). A value that is there and wrong is not a gap."""
    if not problem.path:
        return False
    node: Any = document
    for name, index in _PATH_STEP.findall(problem.path):
        if index:
            node = node[int(index)] if isinstance(node, list) and int(index) < len(node) else _ABSENT
        else:
            node = node.get(name, _ABSENT) if isinstance(node, dict) else _ABSENT
        if node is _ABSENT:
            return True
    return node is None or node == "" or (isinstance(node, list | dict) and not node)


def parse_expires_in_days(text: str | None) -> int:
    """The form's `expires_in_days`: blank means the default (30); otherwise a whole number of days 1..365."""
    raw = (text or "").strip()
    if not raw:
        return LINK_DAYS_DEFAULT
    if not (raw.isascii() and raw.isdigit()):  # isdigit() alone accepts '²', which int() refuses
        raise DecisionError(
            f"Expiry “{raw}” is not a whole number of days: enter {LINK_DAYS_MIN} to {LINK_DAYS_MAX}.",
            field="expires_in_days",
        )
    if len(raw) > 9:  # far outside the range, and int() refuses more than 4,300 digits
        raise DecisionError(
            f"A link can last {LINK_DAYS_MIN} to {LINK_DAYS_MAX} days; {len(raw):,} digits is far outside that.",
            field="expires_in_days",
        )
    return int(raw)
