"""dstack's gpuhunt catalog CSV. The sample is the v2 catalog of gpuhunt's own test (tests/pricing/samples/SOURCE.md);
the other rows are written here in its columns, each to show one rule. Per-GPU price = price ÷ gpu_count, by hand."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pricing.importers import registry
from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import OBSERVED, run_import

pytestmark = pytest.mark.usefixtures("reference")

SAMPLE = Path(__file__).resolve().parent / "samples" / "gpuhunt-v2-catalog.csv"
HEADER = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags\n"


def hunt(text: str, provider: str = "lambda", **options) -> PriceSnapshot:
    options.setdefault("format", "gpuhunt")
    return run_import(text, provider_name=provider, observed_on=OBSERVED, **options)


def test_auto_detects_a_gpuhunt_catalog_and_it_is_a_format_choice():
    chosen, variant = registry.detect(SAMPLE.read_text())
    assert (chosen.name, variant) == ("gpuhunt", "gpuhunt")
    assert "gpuhunt" in registry.format_names()


def test_the_gpuhunt_sample_imports_each_instance_per_gpu():
    snapshot = hunt(SAMPLE.read_text(), format="auto")
    assert snapshot.status == SnapshotStatus.IMPORTED
    stored = {
        o.offering: (o.gpu_model.name, o.gpus_per_instance, o.region, o.pricing_term, o.price_per_gpu_hour)
        for o in PriceObservation.objects.select_related("gpu_model")
    }
    # 0.5/1, 1.0/2, 2.0/4, 4.0/8: every A10 at 0.5 a GPU-hour; flagged rows are prices like any other
    assert stored == {name: ("A10", n, "us", "on_demand", Decimal("0.5")) for name, n in [
        ("i1", 1), ("i2", 2), ("i3", 4), ("i4", 8)
    ]}  # fmt: skip
    assert (snapshot.rows_total, snapshot.rows_imported) == (4, 4)


def test_a_gpuhunt_catalog_needs_the_provider_its_file_name_carries():
    snapshot = run_import(SAMPLE.read_text(), format="gpuhunt", observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "has no provider column" in snapshot.errors[0]["reason"]


def test_spot_rows_are_spot_prices_and_memory_picks_the_part():
    snapshot = hunt(
        HEADER
        + "gpu_8x_a100_80gb_sxm4,us-east-1,14.32,240,1800,8,A100,80.0,False,,nvidia,\n"
        + "gpu_1x_a100_sxm4,us-east-1,1.29,30,200,1,A100,40.0,False,,nvidia,\n"
        + "1H100.80S.30V,FIN-01,0.84,30,120,1,H100,80.0,True,,nvidia,\n"
    )
    stored = {
        (o.offering, o.pricing_term): (o.gpu_model.name, o.price_per_gpu_hour)
        for o in PriceObservation.objects.select_related("gpu_model")
    }
    assert stored == {
        ("gpu_8x_a100_80gb_sxm4", "on_demand"): ("A100 80GB SXM", Decimal("1.79")),  # 14.32 / 8
        ("gpu_1x_a100_sxm4", "on_demand"): ("A100 40GB SXM", Decimal("1.29")),
        ("1H100.80S.30V", "spot"): ("H100 SXM", Decimal("0.84")),
    }
    assert snapshot.rows_imported == 3


def test_cpu_rows_tpus_and_zero_prices_are_skipped_with_their_reasons():
    snapshot = hunt(
        HEADER
        + "cpu_4x_general,us-east-1,0.2,4,16,0,,,False,,,\n"
        + "v5litepod-1,us-west4,1.2,24,48,1,v5litepod,16.0,False,,google,\n"
        + "gpu_1x_a10,us-east-1,0,30,200,1,A10,24.0,False,,nvidia,\n"
        + "gpu_1x_a10,us-west-1,0.75,30,200,1,A10,24.0,False,,nvidia,\n",
        provider="gcp",
    )
    assert {s["value"]: s["reason"] for s in snapshot.skipped} == {
        "cpu_4x_general": "no GPU (CPU-only instance)",
        "v5litepod-1": "a TPU, not a GPU",
        "gpu_1x_a10": "zero price",
    }
    assert (snapshot.rows_imported, snapshot.rows_skipped, snapshot.rows_total) == (1, 3, 4)


def test_an_unknown_gpu_is_held_back_and_a_repeat_at_a_higher_price_skipped():
    snapshot = hunt(
        HEADER
        + "gpu_1x_z900,us-east-1,9.99,30,200,1,Z900,96.0,False,,nvidia,\n"
        + "gpu_1x_a10,us-east-1,0.75,30,200,1,A10,24.0,False,,nvidia,\n"
        + "gpu_1x_a10,us-east-1,0.80,30,200,1,A10,24.0,False,100.0,nvidia,\n"
        + "gpu_1x_a10,us-east-1,0.75,30,200,1,A10,24.0,False,200.0,nvidia,\n"
    )
    assert [(h["line"], h["name"]) for h in snapshot.held_back] == [(2, "Z900")]
    assert [(s["line"], s["reason"]) for s in snapshot.skipped] == [
        (4, "same offering, location and term as line 3, at a higher price")
    ]
    assert [m["line"] for m in snapshot.merged] == [5]
    assert PriceObservation.objects.get().price_per_instance_hour == Decimal("0.75")
    assert snapshot.status == SnapshotStatus.IMPORTED


def test_a_malformed_price_or_spot_flag_rejects_the_file(no_observations):
    snapshot = hunt(
        HEADER
        + "gpu_1x_a10,us-east-1,abc,30,200,1,A10,24.0,False,,nvidia,\n"
        + "gpu_1x_a10,us-west-1,0.75,30,200,1,A10,24.0,maybe,,nvidia,\n"
    )
    assert snapshot.status == SnapshotStatus.REJECTED
    assert {(e["line"], e["column"], e["reason"]) for e in snapshot.errors} == {
        (2, "price", "not a number"),
        (3, "spot", "not True or False"),
    }


def test_a_file_missing_a_gpuhunt_column_is_refused_by_name(no_observations):
    snapshot = hunt("instance_name,location,price,gpu_count,gpu_name\ni1,us,0.5,1,A10\n")
    assert {e["column"] for e in snapshot.errors} == {"gpu_memory", "spot"}
