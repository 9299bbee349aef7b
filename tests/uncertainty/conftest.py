from __future__ import annotations

import copy

import pytest

from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE


@pytest.fixture
def scenario(db, editor, django_capture_on_commit_callbacks):
    """DESIGN 5.1's example (owned, Lambda on demand, an API), evaluated."""
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=copy.deepcopy(DESIGN_EXAMPLE), user=editor)
    created.refresh_from_db()
    return created


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):
    """Run the on-commit job queueing (delay_on_commit) inside a test transaction, jobs in-process."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture
