"""The snapshot pages stay small however big the files and however many the imports: a diff lists the first rows of
each kind and counts the rest, the snapshot pickers offer the latest imports, and a listed snapshot is read without
the row lists it keeps for its own page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing import views
from pricing.models import PriceSnapshot, SnapshotOrigin, SnapshotStatus
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")
ROW = "Lambda,neocloud,H100 SXM,8,box-{n},us-east-1,on_demand,,{price},USD,2026-11-{day:02d},"


def test_a_diff_of_big_files_lists_the_first_rows_of_each_kind_and_counts_the_rest(viewer_client, monkeypatch):
    monkeypatch.setattr(views, "DIFF_ROWS_SHOWN", 20)
    old = run_import(canonical(*(ROW.format(n=n, price="3.00", day=1) for n in range(50))))
    new = run_import(canonical(*(ROW.format(n=n, price="2.50", day=2) for n in range(10, 80))))
    html = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": old.pk, "b": new.pk}).content.decode()
    assert "40 changed, 30 added, 10 removed, 0 unchanged." in html
    assert html.count("→ $2.50") == 20  # changed rows shown
    assert "The first 20 of 40 changed offerings are listed" in html
    assert "The first 20 of 30 added offerings are listed" in html
    assert "of 10 removed" not in html  # all of them fit
    assert "export_prices --snapshot" in html


def test_the_snapshot_pickers_offer_the_latest_imports_and_accept_any(viewer_client, monkeypatch):
    monkeypatch.setattr(views, "SNAPSHOTS_OFFERED", 5)
    made = [
        PriceSnapshot.objects.create(
            source=f"s{n}", format="canonical", sha256=f"{n:064d}", status=SnapshotStatus.IMPORTED,
            origin=SnapshotOrigin.COMMAND,
        )
        for n in range(8)
    ]  # fmt: skip
    html = viewer_client.get(reverse("pricing:snapshot_list")).content.decode()
    assert html.count(f'<option value="{made[-1].pk}"') == 2 and f'<option value="{made[2].pk}"' not in html
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": made[0].pk, "b": made[1].pk})
    assert response.context["diff"] is not None  # an older one is still accepted by number


def test_the_snapshot_list_reads_no_row_lists(viewer_client):
    run_import(canonical(ROW.format(n=1, price="3.00", day=1)))
    with CaptureQueriesContext(connection) as queries:
        assert viewer_client.get(reverse("pricing:snapshot_list")).status_code == 200
    snapshot_reads = [q["sql"] for q in queries if 'FROM "pricing_pricesnapshot"' in q["sql"]]
    assert snapshot_reads and not [sql for sql in snapshot_reads if '"held_back"' in sql or '"merged"' in sql]
