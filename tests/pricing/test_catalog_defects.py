"""Real catalogs that used to import wrongly, on excerpts of their own rows (tests/pricing/samples/SOURCE.md) and on
the shared samples. Expected models and prices are read off the rows by hand: per-GPU = instance price ÷ GPUs."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import OBSERVED, import_sample, run_import

pytestmark = pytest.mark.usefixtures("reference")

OWN_SAMPLES = Path(__file__).resolve().parent / "samples"


def import_own(name: str, provider: str) -> PriceSnapshot:
    return run_import(
        (OWN_SAMPLES / name).read_bytes(),
        file_name=name,
        format="skypilot",
        provider_name=provider,
        observed_on=OBSERVED,
    )


def stored(**lookup) -> dict[tuple[str, str], tuple[str, int, Decimal]]:
    """(offering, region) -> (GPU model, GPUs, $/GPU-hour) of the on-demand observations."""
    rows = PriceObservation.objects.select_related("gpu_model").filter(pricing_term="on_demand", **lookup)
    return {(o.offering, o.region): (o.gpu_model.name, o.gpus_per_instance, o.price_per_gpu_hour) for o in rows}


def adds_up(snapshot: PriceSnapshot) -> bool:
    parts = (snapshot.rows_imported, snapshot.rows_unchanged, snapshot.rows_skipped)
    return sum(parts) + snapshot.rows_merged + snapshot.rows_held_back == snapshot.rows_total


# GCP


def test_gcp_b200_machines_whose_host_rows_cost_zero_are_priced_by_their_accelerator_rows():
    snapshot = import_own("gcp-a4-nolssd-excerpt.csv", "gcp")
    b200 = stored(offering="a4-highgpu-8g")
    assert len(b200) == 10  # 11 zones in 10 regions: us-west3-b and -c agree and fold into us-west3
    # 0.0 for the host + 64.44 for its 8 B200 = 64.44 an hour = 8.055 per GPU-hour
    assert b200[("a4-highgpu-8g", "asia-northeast1")] == ("B200", 8, Decimal("8.055"))
    # 90.216 / 8 = 11.277
    assert b200[("a4-highgpu-8g", "us-central1")] == ("B200", 8, Decimal("11.277"))
    spot = PriceObservation.objects.get(offering="a4-highgpu-8g", region="asia-northeast1", pricing_term="spot")
    assert spot.price_per_instance_hour == Decimal("39.128")  # 0.0 + 39.128
    assert snapshot.status == SnapshotStatus.IMPORTED and adds_up(snapshot)


def test_gcp_nolssd_machines_are_the_same_gpus_as_their_machine_type():
    snapshot = import_own("gcp-a4-nolssd-excerpt.csv", "gcp")
    # 12.75664 + 36.60258 = 49.35922 an hour for 8 H200 = 6.1699025 -> 6.169903 per GPU-hour (half-up)
    assert stored(offering="a3-ultragpu-8g-nolssd") == {
        ("a3-ultragpu-8g-nolssd", "asia-south1"): ("H200 SXM", 8, Decimal("6.169903"))
    }
    reasons = {s["reason"] for s in snapshot.skipped if s["value"] == "a3-ultragpu-8g-nolssd"}
    # the excerpt keeps one H200 accelerator row, so the other zones' hosts have none: never "unknown"
    assert reasons == {"no H200 x8 accelerator row in the same zone"}


def test_a_spot_price_above_the_on_demand_one_is_imported_with_a_warning(viewer_client):
    from django.urls import reverse

    snapshot = import_sample("aws/vms-excerpt.csv", "aws")
    # p4d.24xlarge in eu-central-1: on demand 27.43298, spot 27.433000 in zones euc1-az2 and -az3 (lines 58, 59);
    # p4de.24xlarge in ap-southeast-1: 32.93646 and 32.936500 in apse1-az3 (line 78)
    assert [(w["line"], w["value"]) for w in snapshot.warnings] == [
        (58, "p4d.24xlarge"),
        (59, "p4d.24xlarge"),
        (78, "p4de.24xlarge"),
    ]
    assert snapshot.warnings[0]["reason"] == (
        "spot price 27.433000 is above the on-demand price 27.43298: both imported; check the source"
    )
    assert PriceObservation.objects.filter(offering="p4d.24xlarge", region="eu-central-1 (euc1-az2)").count() == 1
    page = viewer_client.get(reverse("pricing:snapshot_detail", args=[snapshot.pk])).content.decode()
    assert "Warnings (3)" in page


def test_a_gcp_pair_whose_sum_has_spot_below_on_demand_warns_nothing():
    snapshot = import_own("gcp-a4-nolssd-excerpt.csv", "gcp")
    # H200 asia-south1-b: the accelerator row alone has spot 38.7368 > 36.60258, the machine 41.65809 < 49.35922
    assert snapshot.warnings == []


# GPU memory: each provider writes it its own way


def test_vast_writes_the_instance_total_so_two_a100_with_81920_mib_are_the_40gb_part():
    import_sample("vast/vms.csv", "vast")
    models = stored(offering="2x-A100_SXM4-32-65536")
    assert set(models.values()) == {("A100 40GB SXM", 2, Decimal("0.76"))}  # 1.52 / 2
    assert set(stored(offering="1x-A100_SXM4-32-65536").values()) == {("A100 40GB SXM", 1, Decimal("0.76"))}


def test_vast_one_a100_pcie_with_81920_mib_is_the_80gb_part():
    import_sample("vast/vms.csv", "vast")
    assert set(stored(offering="1x-A100_PCIE-32-65536").values()) == {("A100 80GB PCIe", 1, Decimal("0.87"))}


def test_prime_intellect_writes_the_instance_total():
    import_own("primeintellect-excerpt.csv", "primeintellect")
    # datacrunch 2A100.44V: 163,840 MiB for two GPUs is 80 GB each; 2.23 / 2 = 1.115
    assert set(stored(offering="datacrunch__2xA100_80GB__44__240").values()) == {("A100 80GB SXM", 2, Decimal("1.115"))}


def test_lambda_and_spheron_write_one_gpus_memory():
    import_sample("lambda/vms.csv", "lambda")
    # gpu_8x_v100: 16,384 MiB is one GPU's 16 GB, never divided by 8
    assert {m for m, _, _ in stored(offering="gpu_8x_v100").values()} == {"V100 16GB"}
    import_own("spheron-excerpt.csv", "spheron")
    # 8x A100_80G_SXM4 with 81,920 MiB each
    assert {m for m, _, _ in stored(offering="A100_sxm4_80Gx8_668d6762247d03149a4c946f_newyork-usa-1").values()} == {
        "A100 80GB SXM"
    }


# Aggregators: the upstream provider's own instance id names the part


def test_prime_intellect_hyperstack_n3_flavours_are_pcie_unless_named_sxm():
    import_own("primeintellect-excerpt.csv", "primeintellect")
    models = {offering: model for (offering, _), (model, _, _) in stored().items()}
    assert models["hyperstack__1xA100_80GB__28__120"] == "A100 80GB PCIe"
    assert models["hyperstack__2xA100_80GB__60__240"] == "A100 80GB PCIe"
    assert models["hyperstack__8xA100_80GB__252__1920__NVLINK"] == "A100 80GB PCIe"
    assert models["hyperstack__1xH100_80GB__28__180"] == "H100 PCIe"
    assert models["hyperstack__2xH100_80GB__60__360"] == "H100 PCIe"
    assert models["hyperstack__8xH100_80GB__192__960"] == "H100 SXM"  # n3-H100-SXM5x8
    assert models["lambdalabs__1xH100_80GB__26__225"] == "H100 SXM"  # gpu_1x_h100_sxm5


def test_prime_intellect_oblivus_a100_pcie_rows_are_pcie():
    import_own("primeintellect-excerpt.csv", "primeintellect")
    models = {offering: (model, price) for (offering, _), (model, _, price) in stored().items()}
    assert models["oblivus__1xA100_80GB__28__120"] == ("A100 80GB PCIe", Decimal("1.4755"))
    assert models["oblivus__2xA100_80GB__60__240"] == ("A100 80GB PCIe", Decimal("1.47275"))  # 2.9455 / 2


# Spheron's names carry their form factor


def test_spheron_gpu_names_with_form_factor_words_are_known_gpus():
    snapshot = import_own("spheron-excerpt.csv", "spheron")
    assert snapshot.held_back == []
    models = {offering: model for (offering, _), (model, _, _) in stored().items()}
    assert models == {
        "1H100.80S.32V_FIN-03_500": "H100 SXM",  # H100_SXM5
        "H100_668d6762247d03149a4c9468_dallas-usa-1": "H100 PCIe",  # H100_PCIE_BAREMETAL
        "n3-H100x8-NVLink__CANADA-1": "H100 NVL",  # H100_NVL
        "n3-H100x1__CANADA-1": "H100 PCIe",  # H100_PCIE
        "A100_sxm4_80Gx8_668d6762247d03149a4c946f_newyork-usa-1": "A100 80GB SXM",  # A100_80G_SXM4
        "A100_80Gx2_668d6762247d03149a4c9474_montreal-canada-2": "A100 80GB PCIe",  # A100_80G_PCIE
        "RTX5090x8_67884c00280fba46a71e23eb_casper-usa-1": "RTX 5090",  # RTX5090_PCIE_BAREMETAL
        "L40Sx8_668d6762247d03149a4c947b_kansascity-usa-1": "L40S",  # L40S_PCIE
        "L40x8_668d6762247d03149a4c9474_montreal-canada-2": "L40",  # L40_PCIE
        "RTXPro6000x8_668d6762247d03149a4c9468_TYO4": "RTX PRO 6000",  # RTXPRO6000_PCIE_BAREMETAL
        "RTXPro6000_668d6762247d03149a4c947b_kansascity-usa-6": "RTX PRO 6000",  # RTXPRO6000_PCIE
        "RTX6000Ada_668d6762247d03149a4c947b_desmoines-usa-1": "RTX 6000 Ada",  # RTX6000ADA_PCIE
        "gpu_1x_A6000_high_perf_us-central-3": "RTX A6000",  # A6000_PCIE_HIGH_PERF
        "V100_32Gx4_668d6762247d03149a4c946f_newyork-usa-1": "V100 32GB",  # V100_32G_PCIE
        "A5000x4_668d6762247d03149a4c946f_newyork-usa-1": "RTX A5000",  # A5000_PCIE
        "A4000_668d6762247d03149a4c946f_newyork-usa-1": "RTX A4000",  # A4000_PCIE
        "A16x16_668d6762247d03149a4c946b_singapore-singapore-1": "A16",  # A16_PCIE
        "L4x8_677dc00033f3247083221e73_paris-france-1": "L4",  # L4_PCIE
    }
    # A100_80G_PCIE x2 at 3.564 an hour: 1.782 per GPU-hour
    assert stored(offering="A100_80Gx2_668d6762247d03149a4c9474_montreal-canada-2") == {
        ("A100_80Gx2_668d6762247d03149a4c9474_montreal-canada-2", "montreal-canada-2"): (
            "A100 80GB PCIe",
            2,
            Decimal("1.782"),
        )
    }


# Variants are their own GPUs


def test_a_vast_instance_naming_a_variant_is_that_variant_not_the_base_gpu():
    # Built from what a public note records of a real Vast catalog row (SKU 1x-RTX_3060_Ti-32-65536, accelerator
    # RTX3060, Ontario, 8,192 MiB, 0.16 an hour, spot 0.00): SkyPilot's generator drops the "Ti" from the name.
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n"
    gpus = "[{'Name': 'RTX3060', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 8192}}]"
    info = f"\"{{'Gpus': {gpus}, 'TotalGpuMemoryInMiB': 8192}}\""
    row = f'1x-RTX_3060_Ti-32-65536,RTX3060,1,32,64.0,{info},0.16,0.00,"Ontario, CA, NA"\n'
    run_import(header + row, format="skypilot", provider_name="vast", observed_on=OBSERVED)
    assert set(stored().values()) == {("RTX 3060 Ti", 1, Decimal("0.16"))}


# RunPod's own catalog (shared sample price-feeds/runpod/pod-catalog-vms.csv): GpuInfo is the GPU's name


def test_runpod_gpu_names_that_state_memory_and_form_are_those_parts():
    from tests.pricing.conftest import REPO

    content = (REPO / ".." / "shared" / "data" / "price-feeds" / "runpod" / "pod-catalog-vms.csv").read_bytes()
    snapshot = run_import(content, format="skypilot", provider_name="runpod", observed_on=OBSERVED)
    assert snapshot.held_back == []  # H100-80GB-HBM3 (GpuInfo H100_80GB_SXM5) was held back
    models = {offering: model for (offering, _), (model, _, _) in stored().items()}
    assert models["1x_H100-80GB-HBM3_SECURE"] == "H100 SXM"
    assert models["1x_A100-80GB-SXM4_SECURE"] == "A100 80GB SXM"  # was the 40 GB part
    assert models["1x_H100-PCIe_SECURE"] == "H100 PCIe"
