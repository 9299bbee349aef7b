"""Opening a decision link again serves the snapshot's page from what was computed on the first opening."""

from __future__ import annotations

from unittest import mock

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tco.web.viewmodels import decisions as decision_context


def test_a_second_opening_reads_no_snapshot_content_and_shows_the_same_page(link_path, anon):
    first = anon.get(link_path)
    with CaptureQueriesContext(connection) as queries:
        second = anon.get(link_path)

    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    snapshot_reads = [q["sql"] for q in queries if '"tco_decisionsnapshot"' in q["sql"]]
    assert snapshot_reads and all('"content"' not in sql for sql in snapshot_reads)


def test_the_snapshot_part_of_the_page_is_computed_once(link_path, anon):
    with mock.patch.object(decision_context, "_frozen_context", wraps=decision_context._frozen_context) as computed:
        for _ in range(3):
            assert anon.get(link_path).status_code == 200
    assert computed.call_count == 1
