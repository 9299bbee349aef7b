"""Each snapshot records every row of its file, new or already known, so diffs and exports see whole files."""

from __future__ import annotations

import csv
import importlib
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing import selectors
from pricing.models import (
    GpuModel,
    PriceObservation,
    PriceSnapshot,
    Provider,
    SnapshotObservation,
    SnapshotStatus,
)
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

X = "Lambda,neocloud,H100 SXM,8,offer-x,us-east-1,on_demand,23.92,,USD,{date},"
Y = "Lambda,neocloud,H100 SXM,8,offer-y,us-east-1,on_demand,24.00,,USD,{date},"
Z = "Lambda,neocloud,H100 SXM,8,offer-z,us-east-1,on_demand,25.60,,USD,{date},"
DAY = "2026-11-01"


def _offerings(changes) -> list[str]:
    return [change.offering for change in changes]


def _export(snapshot: PriceSnapshot) -> list[dict]:
    out = io.StringIO()
    call_command("export_prices", "--snapshot", str(snapshot.pk), stdout=out)
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def test_rows_a_file_shares_with_an_earlier_import_are_unchanged_not_removed():
    a = run_import(canonical(X.format(date=DAY), Y.format(date=DAY)))
    b = run_import(canonical(X.format(date=DAY), Y.format(date=DAY), Z.format(date=DAY)))
    assert (b.status, b.rows_imported, b.rows_unchanged) == (SnapshotStatus.IMPORTED, 1, 2)
    diff = selectors.snapshot_diff(old=a, new=b)
    assert _offerings(diff.removed) == []
    assert diff.unchanged == 2
    assert _offerings(diff.added) == ["offer-z"]
    assert _offerings(diff.changed) == []


def test_export_of_a_snapshot_writes_every_row_of_its_file():
    run_import(canonical(X.format(date=DAY), Y.format(date=DAY)))
    b = run_import(canonical(X.format(date=DAY), Y.format(date=DAY), Z.format(date=DAY)))
    rows = _export(b)
    assert sorted(row["offering"] for row in rows) == ["offer-x", "offer-y", "offer-z"]
    assert {row["price_per_instance_hour"] for row in rows} == {"23.92", "24", "25.6"}


def test_the_import_records_known_and_new_rows_as_the_snapshots_contents():
    a = run_import(canonical(X.format(date=DAY), Y.format(date=DAY)))
    b = run_import(canonical(Y.format(date=DAY), Z.format(date=DAY)))
    y = PriceObservation.objects.get(offering="offer-y")
    assert y.snapshot == a  # the import that first recorded the price stays its owner
    contained = set(SnapshotObservation.objects.filter(snapshot=b).values_list("observation__offering", flat=True))
    assert contained == {"offer-y", "offer-z"}
    assert SnapshotObservation.objects.filter(snapshot=a).count() == 2


def test_a_new_price_on_a_new_date_is_a_change_and_a_shared_row_is_unchanged():
    a = run_import(canonical(X.format(date="2026-10-01"), Y.format(date="2026-10-01")))
    b = run_import(canonical(X.format(date=DAY).replace("23.92", "25.60"), Y.format(date="2026-10-01")))
    diff = selectors.snapshot_diff(old=a, new=b)
    assert [(c.offering, c.old_price_per_gpu_hour, c.new_price_per_gpu_hour) for c in diff.changed] == [
        ("offer-x", Decimal("2.99"), Decimal("3.2"))
    ]
    assert (diff.added, diff.removed, diff.unchanged) == ([], [], 1)


def test_an_offering_listed_on_two_dates_in_one_file_compares_at_its_latest_price():
    a = run_import(canonical(X.format(date="2026-10-01")))
    b = run_import(canonical(X.format(date="2026-10-01"), X.format(date=DAY).replace("23.92", "25.60")))
    diff = selectors.snapshot_diff(old=a, new=b)
    assert [(c.old_price_per_gpu_hour, c.new_price_per_gpu_hour) for c in diff.changed] == [
        (Decimal("2.99"), Decimal("3.2"))
    ]


def test_a_duplicate_file_can_be_diffed_like_any_import(viewer_client):
    a = run_import(canonical(X.format(date=DAY), Y.format(date=DAY)))
    again = run_import(canonical(X.format(date=DAY), Y.format(date=DAY)))
    later = run_import(canonical(Y.format(date=DAY), Z.format(date=DAY)))
    assert again.status == SnapshotStatus.DUPLICATE
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": a.pk, "b": again.pk})
    diff = response.context["diff"]
    assert (diff.added, diff.removed, diff.changed, diff.unchanged) == ([], [], [], 2)
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": again.pk, "b": later.pk})
    diff = response.context["diff"]
    assert (_offerings(diff.added), _offerings(diff.removed), diff.unchanged) == (["offer-z"], ["offer-x"], 1)
    assert "already imported" in response.content.decode()


def test_a_rejected_file_records_no_contents():
    run_import(canonical(X.format(date=DAY)))
    conflicting = run_import(canonical(X.format(date=DAY).replace("23.92", "30.00"), Z.format(date=DAY)))
    invalid = run_import(canonical(Y.format(date=DAY), Z.format(date=DAY).replace("25.60", "-1")))
    assert conflicting.status == invalid.status == SnapshotStatus.REJECTED
    assert SnapshotObservation.objects.filter(snapshot__in=[conflicting, invalid]).count() == 0
    assert list(PriceObservation.objects.values_list("offering", flat=True)) == ["offer-x"]
    assert _export(conflicting) == []


def test_an_import_that_fails_while_recording_its_contents_stores_nothing(monkeypatch):
    run_import(canonical(X.format(date=DAY)))

    def collide(*args, **kwargs):
        raise IntegrityError("simulated concurrent import")

    monkeypatch.setattr(SnapshotObservation.objects, "bulk_create", collide)
    snapshot = run_import(canonical(X.format(date=DAY), Z.format(date=DAY)))
    assert snapshot.status == SnapshotStatus.FAILED
    assert list(PriceObservation.objects.values_list("offering", flat=True)) == ["offer-x"]
    assert not SnapshotObservation.objects.filter(snapshot=snapshot).exists()


def _observations(snapshot: PriceSnapshot, count: int, prefix: str = "box") -> list[PriceObservation]:
    provider, gpu = Provider.objects.get(name="Lambda"), GpuModel.objects.get(name="H100 SXM")
    return [
        PriceObservation(
            snapshot=snapshot,
            provider=provider,
            offering=f"{prefix}-{i}",
            gpu_model=gpu,
            gpus_per_instance=8,
            region="us-east-1",
            pricing_term="on_demand",
            observed_on=date(2026, 11, 1) - timedelta(days=i % 3),
            price_per_instance_hour=Decimal(20) + i % 7,
            price_per_gpu_hour=(Decimal(20) + i % 7) / 8,
        )
        for i in range(count)
    ]


def _snapshot_with_contents(count: int, prefix: str) -> PriceSnapshot:
    snapshot = PriceSnapshot.objects.create(
        source="bulk", format="canonical-csv", sha256="0" * 64, status=SnapshotStatus.IMPORTED
    )
    created = PriceObservation.objects.bulk_create(_observations(snapshot, count, prefix), batch_size=2000)
    SnapshotObservation.objects.bulk_create(
        [SnapshotObservation(snapshot=snapshot, observation_id=o.pk) for o in created], batch_size=2000
    )
    return snapshot


def test_the_diff_page_makes_as_many_queries_for_5_000_rows_as_for_10(viewer_client):
    old = _snapshot_with_contents(10, "few")
    new = run_import(canonical(Z.format(date=DAY)))
    with CaptureQueriesContext(connection) as few:
        viewer_client.get(reverse("pricing:snapshot_diff"), {"a": old.pk, "b": new.pk})
    old = _snapshot_with_contents(5_000, "many")
    with CaptureQueriesContext(connection) as many:
        response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": old.pk, "b": new.pk})
    assert len(response.context["diff"].removed) == 5_000
    assert len(many) == len(few)


def test_the_diff_warns_about_a_snapshot_imported_before_contents_were_recorded(viewer_client):
    a = run_import(canonical(X.format(date=DAY)))
    b = run_import(canonical(X.format(date=DAY), Z.format(date=DAY)))
    PriceSnapshot.objects.filter(pk=b.pk).update(contents_recorded=False)
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": a.pk, "b": b.pk})
    assert [s.pk for s in response.context["diff"].partly_known] == [b.pk]
    assert f"Snapshot #{b.pk} was imported before snapshots recorded every row" in response.content.decode()


def _legacy(**fields) -> PriceSnapshot:
    """A finished snapshot as the import made them before contents were recorded."""
    fields.setdefault("status", SnapshotStatus.IMPORTED)
    return PriceSnapshot.objects.create(source="legacy", format="canonical-csv", **fields)


def test_the_backfill_records_what_each_earlier_snapshot_is_known_to_contain():
    backfill = importlib.import_module("pricing.migrations.0003_snapshot_membership").backfill_membership
    first = _legacy(sha256="a" * 64, rows_imported=3)
    first_rows = PriceObservation.objects.bulk_create(_observations(first, 3))
    again = _legacy(sha256="a" * 64, status=SnapshotStatus.DUPLICATE, rows_unchanged=3)
    partial = _legacy(sha256="b" * 64, rows_imported=1, rows_unchanged=2)
    (partial_row,) = PriceObservation.objects.bulk_create(
        [o for o in _observations(partial, 4) if o.offering == "box-3"]
    )
    other_duplicate = _legacy(sha256="c" * 64, status=SnapshotStatus.DUPLICATE, rows_unchanged=1)

    backfill(apps, None)

    def contents(snapshot: PriceSnapshot) -> set[int]:
        return set(SnapshotObservation.objects.filter(snapshot=snapshot).values_list("observation_id", flat=True))

    assert contents(first) == contents(again) == {o.pk for o in first_rows}
    assert contents(partial) == {partial_row.pk}
    assert contents(other_duplicate) == set()
    recorded = dict(PriceSnapshot.objects.values_list("pk", "contents_recorded"))
    assert recorded == {first.pk: True, again.pk: True, partial.pk: False, other_duplicate.pk: False}
