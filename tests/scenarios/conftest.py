from __future__ import annotations

import copy

import pytest

from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE


@pytest.fixture
def example_document() -> dict:
    return copy.deepcopy(DESIGN_EXAMPLE)


@pytest.fixture
def scenario(db, editor, example_document, django_capture_on_commit_callbacks):
    """The example scenario, evaluated (its first run is done)."""
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=example_document, user=editor)
    created.refresh_from_db()
    return created


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):
    """Run the on-commit job queueing (delay_on_commit) inside a test transaction, jobs in-process."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture
