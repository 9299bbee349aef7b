from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import FIXTURES, canonical, import_sample, run_import

pytestmark = pytest.mark.usefixtures("reference")

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,{date},"


def test_the_same_file_twice_adds_nothing_and_says_so():
    first = import_sample("lambda/vms.csv", "Lambda")
    second = import_sample("lambda/vms.csv", "Lambda")
    assert first.status == SnapshotStatus.IMPORTED
    assert second.status == SnapshotStatus.DUPLICATE
    assert (second.rows_imported, second.rows_unchanged) == (0, 340)
    assert second.summary.startswith("0 new, 340 already known")
    assert PriceObservation.objects.count() == 340


def test_a_price_observed_again_on_a_new_date_is_a_new_observation():
    run_import(canonical(ROW.format(date="2026-10-01")))
    snapshot = run_import(canonical(ROW.format(date="2026-11-01")))
    assert (snapshot.status, snapshot.rows_imported) == (SnapshotStatus.IMPORTED, 1)
    dates = PriceObservation.objects.values_list("observed_on", flat=True).order_by("observed_on")
    assert list(dates) == [date(2026, 10, 1), date(2026, 11, 1)]


def test_a_different_price_for_a_known_offering_and_date_is_rejected_not_overwritten():
    run_import(canonical(ROW.format(date="2026-10-01")))
    snapshot = run_import(canonical(ROW.format(date="2026-10-01").replace("23.92", "24.00")))
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "already recorded at 2.990000 per GPU-hour on 2026-10-01" in snapshot.errors[0]["reason"]
    assert PriceObservation.objects.get().price_per_instance_hour == Decimal("23.92")


def test_a_file_with_known_and_new_rows_stores_only_the_new_ones():
    run_import(canonical(ROW.format(date="2026-10-01")))
    snapshot = run_import(canonical(ROW.format(date="2026-10-01"), ROW.format(date="2026-10-02")))
    assert (snapshot.status, snapshot.rows_imported, snapshot.rows_unchanged) == (SnapshotStatus.IMPORTED, 1, 1)
    assert PriceObservation.objects.filter(snapshot=snapshot).count() == 1


def test_the_snapshot_records_where_the_file_came_from():
    content = canonical(ROW.format(date="2026-10-01")).encode()
    snapshot = run_import(content, file_name="prices.csv", source="command")
    import hashlib

    assert snapshot.sha256 == hashlib.sha256(content).hexdigest()
    assert (snapshot.file_name, snapshot.format, snapshot.rows_total) == ("prices.csv", "canonical-csv", 1)
    assert snapshot.finished_at is not None
    assert "pid" in snapshot.processed_by


def test_seed_demo_loads_reference_data_and_demo_prices_once():
    call_command("seed_demo", verbosity=0)
    snapshots = PriceSnapshot.objects.count()
    observations = PriceObservation.objects.count()
    call_command("seed_demo", verbosity=0)
    assert PriceSnapshot.objects.count() == snapshots == 7
    assert PriceObservation.objects.count() == observations
    assert set(PriceSnapshot.objects.values_list("status", flat=True)) == {SnapshotStatus.IMPORTED}


def test_the_published_figures_are_seeded_per_gpu_hour():
    call_command("seed_demo", verbosity=0)
    published = dict(
        PriceObservation.objects.filter(observed_on=date(2026, 9, 1)).values_list(
            "provider__name", "price_per_gpu_hour"
        )
    )
    assert published["CoreWeave"] == Decimal("49.24") / 8
    assert round(published["Google Cloud"], 2) == Decimal("11.06")
    assert published["Lambda"] == Decimal("3.99")
    assert PriceObservation.objects.filter(provider__name="Fluence").count() == 2


def test_reference_data_load_keeps_admin_edits():
    from pricing.models import GpuModel
    from pricing.services import reference_data_load

    GpuModel.objects.filter(name="H100 SXM").update(tdp_watts=650)
    assert reference_data_load(path=FIXTURES / "reference.json") == {
        "providers": 0,
        "provider_aliases": 0,
        "gpu_models": 0,
        "aliases": 0,
        "gpu_specs": 0,
        "language_models": 0,
    }
    assert GpuModel.objects.get(name="H100 SXM").tdp_watts == 650


def test_reference_h100_sxm_carries_the_prefill_capex_per_gpu():
    from pricing.models import GpuModel

    h100 = GpuModel.objects.get(name="H100 SXM")
    assert h100.typical_server_capex_per_gpu == Decimal(285000) / 8
    assert (h100.memory_gb, h100.memory_bandwidth_tb_per_s, h100.tdp_watts) == (80, Decimal("3.35"), 700)
