"""Opening a decision link again serves the snapshot's page from what was computed on the first opening."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tco.models import DecisionLink


def test_a_second_opening_reads_no_snapshot_content_and_shows_the_same_page(link_path, anon):
    first = anon.get(link_path)
    with CaptureQueriesContext(connection) as queries:
        second = anon.get(link_path)

    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    snapshot_reads = [q["sql"] for q in queries if '"tco_decisionsnapshot"' in q["sql"]]
    assert snapshot_reads and all('"content"' not in sql for sql in snapshot_reads)


def test_every_later_opening_costs_the_same_few_queries_and_still_counts(link_path, anon):
    """The frozen part is computed on the first opening only: the second and third take the same queries, read no
    snapshot content, show the same bytes, and each opening is still counted on the link."""
    first = anon.get(link_path)
    later = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            later.append((anon.get(link_path), len(queries), [q["sql"] for q in queries]))
    (second, second_count, _), (third, third_count, third_sql) = later
    assert first.content == second.content == third.content
    assert second_count == third_count
    assert not [sql for sql in third_sql if '"tco_decisionsnapshot"' in sql and '"content"' in sql]
    assert DecisionLink.objects.get().open_count == 3
