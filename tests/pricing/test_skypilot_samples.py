"""The importer on every real SkyPilot sample. Expected counts were worked out independently with pandas
(group rows by instance type and region; one observation when a region's zones agree, else one per zone)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from pricing.models import PriceObservation, SnapshotStatus
from tests.pricing.conftest import SAMPLES, import_sample

pytestmark = pytest.mark.usefixtures("reference")


def _obs(**lookup) -> PriceObservation:
    return PriceObservation.objects.select_related("gpu_model").get(**lookup)


def test_every_sample_file_is_covered_by_these_tests():
    files = sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.glob("*/*.csv"))
    assert files == [
        "aws/vms-excerpt.csv",
        "common/accelerators.csv",
        "gcp/vms-excerpt.csv",
        "hyperstack/vms.csv",
        "lambda/vms.csv",
        "nebius/vms.csv",
        "vast/vms.csv",
    ]


def test_it_imports_lambda_gpu_rows_and_skips_cpu_rows():
    snapshot = import_sample("lambda/vms.csv", "Lambda")
    assert snapshot.status == SnapshotStatus.IMPORTED
    assert (snapshot.rows_total, snapshot.rows_imported, snapshot.rows_skipped) == (357, 340, 17)
    assert {s["reason"] for s in snapshot.skipped} == {"no GPU (CPU-only instance)"}


def test_it_prices_lambda_8x_h100_at_2_99_per_gpu_hour():
    import_sample("lambda/vms.csv", "Lambda")
    row = _obs(offering="gpu_8x_h100_sxm5", region="us-east-1", pricing_term="on_demand")
    assert row.price_per_instance_hour == Decimal("23.92")
    assert row.price_per_gpu_hour == Decimal("2.99")
    assert (row.gpu_model.name, row.gpus_per_instance) == ("H100 SXM", 8)


def test_it_reads_the_form_factor_from_the_instance_type():
    import_sample("lambda/vms.csv", "Lambda")
    assert _obs(offering="gpu_1x_h100_pcie", region="us-east-1").gpu_model.name == "H100 PCIe"
    assert _obs(offering="gpu_1x_h100_sxm5", region="us-east-1").gpu_model.name == "H100 SXM"
    assert _obs(offering="gpu_8x_a100_80gb_sxm4", region="us-east-1").gpu_model.name == "A100 80GB SXM"
    assert _obs(offering="gpu_8x_a100", region="us-east-1").gpu_model.name == "A100 40GB SXM"


def test_it_reads_lambda_crlf_line_endings():
    assert b"\r\n" in (SAMPLES / "lambda/vms.csv").read_bytes()
    import_sample("lambda/vms.csv", "Lambda")
    regions = set(PriceObservation.objects.values_list("region", flat=True))
    assert not any("\r" in region for region in regions)
    assert len(regions) == 17


def test_it_imports_aws_and_collapses_zones_with_one_price():
    snapshot = import_sample("aws/vms-excerpt.csv", "AWS")
    assert snapshot.status == SnapshotStatus.IMPORTED
    terms = Counter(PriceObservation.objects.values_list("pricing_term", flat=True))
    assert terms == {"on_demand": 56, "spot": 134}  # 4 of them the spot-only p5e.48xlarge rows
    row = _obs(offering="p5.48xlarge", region="us-east-1", pricing_term="on_demand")
    assert row.price_per_instance_hour == Decimal("55.04")
    assert row.price_per_gpu_hour == Decimal("6.88")


def test_it_keeps_zones_apart_when_their_spot_prices_differ():
    import_sample("aws/vms-excerpt.csv", "AWS")
    spot = PriceObservation.objects.filter(offering="p5.48xlarge", pricing_term="spot", region__startswith="us-east-1")
    assert spot.count() == 7
    assert _obs(offering="p5.48xlarge", pricing_term="spot", region="us-east-1 (use1-az2)").price_per_instance_hour == (
        Decimal("19.2531")
    )


def test_it_imports_aws_p5e_rows_without_an_on_demand_price_as_spot_only():
    snapshot = import_sample("aws/vms-excerpt.csv", "AWS")
    p5e = PriceObservation.objects.filter(offering="p5e.48xlarge")
    assert set(p5e.values_list("pricing_term", flat=True)) == {"spot"}
    assert p5e.count() == 4  # the 4 of its 9 rows with a spot price
    skipped = [s for s in snapshot.skipped if s["value"] == "p5e.48xlarge"]
    assert len(skipped) == 5
    assert {s["reason"] for s in skipped} == {"no price (on demand), no price (spot)"}


def test_it_combines_gcp_host_and_accelerator_rows():
    snapshot = import_sample("gcp/vms-excerpt.csv", "gcp")
    assert snapshot.status == SnapshotStatus.IMPORTED
    # 25 host rows give prices; 17 hosts fold into another zone's regional price and 42 accelerator rows into
    # their host's; 33 g2 hosts have no L4 row in this excerpt and the rest are TPUs and placeholders.
    assert (snapshot.rows_total, snapshot.rows_imported, snapshot.rows_merged, snapshot.rows_skipped) == (
        269,
        25,
        59,
        185,
    )
    assert snapshot.prices_new == 50
    row = _obs(offering="a3-highgpu-8g", region="us-central1", pricing_term="on_demand")
    assert row.price_per_instance_hour == Decimal("9.46006") + Decimal("33.60609")
    assert round(row.price_per_gpu_hour, 5) == Decimal("5.38327")
    assert (row.gpu_model.name, row.gpus_per_instance) == ("H100 SXM", 8)


def test_it_maps_gcp_machine_types_to_their_gpus():
    import_sample("gcp/vms-excerpt.csv", "Google Cloud")
    models = dict(PriceObservation.objects.values_list("offering", "gpu_model__name").distinct())
    assert models == {"a3-highgpu-8g": "H100 SXM", "a2-ultragpu-8g": "A100 80GB SXM", "g2-standard-48": "L4"}
    assert set(
        PriceObservation.objects.filter(offering="g2-standard-48").values_list("gpus_per_instance", flat=True)
    ) == {4}


def test_it_skips_gcp_tpu_rows_and_the_700_placeholder():
    snapshot = import_sample("gcp/vms-excerpt.csv", "Google Cloud")
    tpu = [s for s in snapshot.skipped if s["value"].startswith("tpu-")]
    assert len(tpu) == 6
    assert {s["reason"] for s in tpu} == {"a TPU, not a GPU"}
    assert not PriceObservation.objects.filter(price_per_instance_hour=700).exists()


def test_it_imports_nebius_with_spot_prices():
    snapshot = import_sample("nebius/vms.csv", "Nebius")
    assert (snapshot.rows_total, snapshot.rows_skipped) == (61, 40)
    terms = Counter(PriceObservation.objects.values_list("pricing_term", flat=True))
    assert terms == {"on_demand": 21, "spot": 8}
    row = _obs(offering="gpu-h100-sxm_8gpu-128vcpu-1600gb", pricing_term="spot")
    assert row.price_per_gpu_hour == Decimal("1.25")


def test_it_imports_vast_with_non_ascii_region_names():
    snapshot = import_sample("vast/vms.csv", "Vast.ai")
    assert (snapshot.status, snapshot.rows_imported) == (SnapshotStatus.IMPORTED, 63)
    assert PriceObservation.objects.filter(region="Hafnarfjarðarkaupstaður, IS, EU").count() == 1
    assert not PriceObservation.objects.filter(pricing_term="spot").exists()  # SpotPrice 0.00 means none


def test_it_tells_h100_nvl_from_h100_sxm_in_vast_instance_types():
    import_sample("vast/vms.csv", "Vast.ai")
    assert _obs(offering="1x-H100_NVL-32-65536").gpu_model.name == "H100 NVL"
    assert _obs(offering="8x-H100_SXM-32-65536").gpu_model.name == "H100 SXM"
    assert _obs(offering="1x-A100_PCIE-32-65536").gpu_model.name == "A100 80GB PCIe"


def test_it_imports_hyperstack_names():
    snapshot = import_sample("hyperstack/vms.csv", "Hyperstack")
    assert snapshot.rows_imported == 25
    models = dict(PriceObservation.objects.values_list("offering", "gpu_model__name"))
    assert models["n3-H100-SXM5x8"] == "H100 SXM"
    assert models["n3-H100x8-NVLink"] == "H100 PCIe"
    assert models["n3-A100x1"] == "A100 80GB PCIe"
    assert models["n3-RTX-A4000x1"] == "RTX A4000"


def test_every_accelerator_name_in_the_common_catalog_resolves():
    import csv

    from pricing.selectors import import_catalog

    catalog = import_catalog()
    with (SAMPLES / "common/accelerators.csv").open(newline="", encoding="utf-8") as f:
        names = [row["AcceleratorName"] for row in csv.DictReader(f)]
    unknown = [name for name in names if not name.startswith("tpu-") and catalog.gpu(name) is None]
    assert unknown == []
