"""The Market's revision (what its cache and the scenario page's stamp are keyed by) moves with every import that
commits, even when imports run at once (two workers): their stores take turns, so ids grow in commit order."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from django.db import connection

from pricing import selectors, services
from pricing.models import SnapshotStatus
from pricing.services import snapshots
from tests.pricing.conftest import FIXTURES, canonical, run_import

pytestmark = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="scale-out mode only (PostgreSQL)"
)
ROW = "Lambda,neocloud,H100 SXM,8,{offering},us-east-1,on_demand,,{price},USD,2026-11-01,"


def _in_thread(target, results: dict, name: str) -> threading.Thread:
    def run():
        try:
            results[name] = target()
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_import_committing_after_a_later_one_still_moves_the_revision(monkeypatch):
    services.reference_data_load(path=FIXTURES / "reference.json")
    first_storing, first_may_commit = threading.Event(), threading.Event()
    record = snapshots.current_prices_record

    def slow_first(*, observations):
        observations = list(observations)
        if observations and observations[0].offering == "first":
            first_storing.set()
            assert first_may_commit.wait(10)
        return record(observations=observations)

    monkeypatch.setattr(snapshots, "current_prices_record", slow_first)
    results: dict = {}
    first = _in_thread(lambda: run_import(canonical(ROW.format(offering="first", price="3.99"))), results, "first")
    assert first_storing.wait(10)  # the first import has its observations' ids and has not committed
    second = _in_thread(lambda: run_import(canonical(ROW.format(offering="second", price="2.99"))), results, "second")
    second.join(1.5)
    while_first_stores = selectors.market_revision()
    second_done_first = "second" in results
    first_may_commit.set()
    first.join(10)
    second.join(10)
    assert results["first"].status == results["second"].status == SnapshotStatus.IMPORTED
    # Had the second committed while the first stored, the first's commit would add observations with smaller ids
    # than those already visible: MAX(id) would not move, and every page would keep its table without them.
    assert selectors.market_revision() != while_first_stores
    assert not second_done_first  # it waited for the first to commit
    assert {row.offering for row in selectors.latest_prices()} == {"first", "second"}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_same_file_imported_twice_at_once_is_imported_once_and_already_imported_once(monkeypatch):
    services.reference_data_load(path=FIXTURES / "reference.json")
    first_storing, first_may_commit = threading.Event(), threading.Event()
    record = snapshots.current_prices_record

    def slow_first(*, observations):
        observations = list(observations)
        if observations and not first_storing.is_set():
            first_storing.set()
            assert first_may_commit.wait(10)
        return record(observations=observations)

    monkeypatch.setattr(snapshots, "current_prices_record", slow_first)
    content = canonical(ROW.format(offering="same", price="3.99"))
    results: dict = {}
    first = _in_thread(lambda: run_import(content), results, "first")
    assert first_storing.wait(10)  # the first import is storing and has not committed
    second = _in_thread(lambda: run_import(content), results, "second")
    second.join(1.5)  # the second has read and checked the file and waits for its turn to store
    first_may_commit.set()
    first.join(10)
    second.join(10)
    assert results["first"].status == SnapshotStatus.IMPORTED
    assert results["second"].status == SnapshotStatus.DUPLICATE, results["second"].errors
    assert (results["second"].rows_imported, results["second"].rows_unchanged) == (0, 1)
    assert [row.offering for row in selectors.latest_prices()] == ["same"]
