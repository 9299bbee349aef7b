"""A scenario's history as the page shows it: its changes (tco.selectors.history) in words
(tco.presentation.history)."""

from __future__ import annotations

from tco.models import Scenario
from tco.presentation.history import HistoryLine, history_lines
from tco.selectors.history import HISTORY_PAGE, scenario_changes, scenario_changes_page


def scenario_history(scenario: Scenario, *, limit: int = HISTORY_PAGE) -> list[HistoryLine]:
    """The latest ``limit`` changes to the scenario, newest first, as lines."""
    return history_lines(scenario_changes(scenario, limit=limit))


def scenario_history_page(scenario: Scenario, page: int = 1) -> tuple[list[HistoryLine], bool]:
    """Page ``page`` (1: the newest) of the history, and whether older lines exist."""
    changes, older = scenario_changes_page(scenario, page)
    return history_lines(changes), older
