"""Real public SkyPilot catalogs import as they are: each case the real files hold, on a small hand-made file.

Expected GPU models, prices and counts are read off the rows by hand (per-GPU price = instance price ÷ GPUs)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pricing.models import GpuAlias, GpuModel, PriceObservation, PriceSnapshot, SnapshotStatus, UnmappedName
from tests.pricing.conftest import OBSERVED, run_import

pytestmark = pytest.mark.usefixtures("reference")

HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"


def info(name: str, count: int, mib: int) -> str:
    return f"\"{{'Gpus': [{{'Name': '{name}', 'Count': {count}, 'MemoryInfo': {{'SizeInMiB': {mib}}}}}]}}\""


def sky(provider: str, *rows: str, header: str = HEADER) -> PriceSnapshot:
    return run_import(
        header + "".join(row + "\n" for row in rows),
        format="skypilot",
        provider_name=provider,
        observed_on=OBSERVED,
    )


def model_of(offering: str, **lookup) -> str:
    return PriceObservation.objects.select_related("gpu_model").get(offering=offering, **lookup).gpu_model.name


def adds_up(snapshot: PriceSnapshot) -> bool:
    parts = (
        snapshot.rows_imported,
        snapshot.rows_unchanged,
        snapshot.rows_skipped,
        snapshot.rows_merged,
        snapshot.rows_held_back,
    )
    return sum(parts) == snapshot.rows_total


# GPU identity from GpuInfo, AcceleratorName and the instance type


def test_cudo_a100_pci_with_80_gb_is_the_80gb_pcie_part_at_any_count():
    sky(
        "cudo",
        f"intel-ice-lake-a100-pci_1x2v4gb,A100,1.0,2,4,1.3734,us-carlsbad-1,{info('A100', 1, 81920)},",
        f"intel-ice-lake-a100-pci_8x64v128gb,A100,8.0,64,128,11.5488,us-carlsbad-1,{info('A100', 8, 81920)},",
    )
    assert model_of("intel-ice-lake-a100-pci_1x2v4gb") == "A100 80GB PCIe"
    assert model_of("intel-ice-lake-a100-pci_8x64v128gb") == "A100 80GB PCIe"


def test_vast_two_80gb_a100_sxm4_is_the_80gb_sxm_part():
    # Vast writes the instance's total: 163,840 MiB for two GPUs is 80 GB each
    sky("vast", f'2x-A100_SXM4-32-65536,A100_SXM4,2,32,64,2.1,"Texas, US, NA",{info("A100_SXM4", 2, 163840)},')
    assert model_of("2x-A100_SXM4-32-65536") == "A100 80GB SXM"


def test_runpod_a100_80gb_whose_gpuinfo_says_pcie_is_the_pcie_part_and_80_mib_is_ignored():
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,SpotPrice,Price,AvailabilityZone,"
    header += "GpuInfo\n"
    sky(
        "runpod",
        f"1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,117.0,CA,1.39,1.39,CA-MTL-1,{info('A100 PCIe', 1, 80)}",
        f"1x_A100_SECURE,A100,1.0,8.0,117.0,CA,,1.19,CA-MTL-1,{info('A100 SXM', 1, 80)}",
        header=header,
    )
    assert model_of("1x_A100-80GB_SECURE", pricing_term="on_demand") == "A100 80GB PCIe"
    assert model_of("1x_A100_SECURE") == "A100 40GB SXM"  # 80 "MiB" is no fact: bare A100 stays the 40 GB part


def test_a_total_given_as_one_gpus_memory_is_divided_by_the_gpu_count():
    sky("shadeform", f"lambdalabs__8xA100,A100,8.0,240,1800,14.32,us-east-1,{info('A100', 8, 655360)},")
    assert model_of("lambdalabs__8xA100") == "A100 80GB SXM"


def test_the_reference_catalogue_covers_todays_public_gpus_and_their_spellings():
    from pricing.selectors import import_catalog

    catalog = import_catalog()
    expected = {
        "B200": "B200",
        "B300": "B300",
        "GB200": "GB200",
        "GB300": "GB300",
        "H200": "H200 SXM",
        "H100 NVL": "H100 NVL",
        "MI300X": "MI300X",
        "MI325X": "MI325X",
        "MI355X": "MI355X",
        "RTX PRO 6000": "RTX PRO 6000",
        "RTX-PRO-6000": "RTX PRO 6000",
        "RTX PRO 6000 96GB": "RTX PRO 6000",
        "L40S": "L40S",
        "L4": "L4",
        "A10G": "A10G",
        "Gaudi 2": "Gaudi 2",
        "GAUDI2": "Gaudi 2",
        "Gaudi 3": "Gaudi 3",
        "H100_PCIE_BAREMETAL": "H100 PCIe",
        "A100_80G_SXM4": "A100 80GB SXM",
        "L40S_PCIE": "L40S",
        "RTX5090_PCIE": "RTX 5090",
        "RTX_3060_Ti": "RTX 3060 Ti",
        "RTX4060Ti": "RTX 4060 Ti",
        "RTX 4060 Ti 16GB": "RTX 4060 Ti 16GB",
        "RTX 3060": "RTX 3060",
    }
    assert {name: (catalog.gpu(name) or (0, None))[1] for name in expected} == expected


# Rows that are not GPU prices, and names to map


def test_accelerators_that_are_not_gpus_are_skipped_with_that_reason():
    snapshot = sky(
        "aws",
        "inf2.xlarge,Inferentia2,1,4,16,0.76,us-east-1,,",
        "trn1.2xlarge,Trainium,1,8,32,1.34,us-east-1,,",
        "p5.48xlarge,H100,8,192,2048,55.04,us-east-1,,",
    )
    assert {s["value"]: s["reason"] for s in snapshot.skipped} == {
        "inf2.xlarge": "AWS Inferentia, not a GPU",
        "trn1.2xlarge": "AWS Trainium, not a GPU",
    }
    assert adds_up(snapshot)


def test_an_unknown_accelerator_is_held_back_not_rejecting_the_file():
    rows = (
        "gpu_8x_h100_sxm5,H100,8,208,1800,23.92,us-east-1,,",
        "gpu_1x_z900,Z900,1,26,200,9.99,us-east-1,,",
        "gpu_8x_z900,Z900,8,208,1800,79.92,us-east-1,,",
    )
    snapshot = sky("lambda", *rows)
    assert snapshot.status == SnapshotStatus.IMPORTED
    assert (snapshot.rows_imported, snapshot.rows_held_back, snapshot.rows_total) == (1, 2, 3)
    assert snapshot.summary.startswith("Imported with 2 rows held back")
    assert {(h["line"], h["name"]) for h in snapshot.held_back} == {(3, "Z900"), (4, "Z900")}
    assert "unknown GPU model 'Z900'" in snapshot.held_back[0]["reason"]
    unmapped = UnmappedName.objects.get()
    assert (unmapped.kind, unmapped.name, unmapped.rows) == ("gpu", "Z900", 2)


def test_after_an_alias_is_added_the_same_file_picks_up_the_held_back_rows():
    rows = ("gpu_8x_h100_sxm5,H100,8,208,1800,23.92,us-east-1,,", "gpu_1x_z900,Z900,1,26,200,9.99,us-east-1,,")
    sky("lambda", *rows)
    GpuAlias.objects.create(alias="Z900", gpu_model=GpuModel.objects.get(name="B200"))
    again = sky("lambda", *rows)
    assert (again.status, again.rows_imported, again.rows_unchanged, again.rows_held_back) == ("imported", 1, 1, 0)
    assert model_of("gpu_1x_z900") == "B200"
    assert not UnmappedName.objects.exists()


# Every price in the file


def test_a_spot_only_row_is_imported_as_spot():
    header = (
        "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,Price,SpotPrice\n"
    )
    snapshot = sky(
        "verda", f"8B200.240V,8B200.240V,240.0,1472.0,B200,8.0,{info('B200', 8, 184320)},FIN-03,,13.69", header=header
    )
    row = PriceObservation.objects.get()
    assert (row.pricing_term, row.price_per_instance_hour, row.price_per_gpu_hour) == (
        "spot",
        Decimal("13.69"),
        Decimal("1.71125"),
    )
    assert (snapshot.rows_imported, snapshot.rows_skipped) == (1, 0)


def test_a_spot_price_seen_in_one_zone_is_stored_for_that_zone():
    header = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone\n"
    snapshot = sky(
        "aws",
        "p5.48xlarge,H100,8,55.04,19.25,us-east-1,use1-az1",
        "p5.48xlarge,H100,8,55.04,,us-east-1,use1-az2",
        header=header,
    )
    stored = set(PriceObservation.objects.values_list("pricing_term", "region"))
    assert stored == {("on_demand", "us-east-1"), ("spot", "us-east-1 (use1-az1)")}
    # Line 3's on-demand price folds into the regional one and it has no spot price: it is merged.
    assert (snapshot.rows_imported, snapshot.rows_merged) == (1, 1)
    assert adds_up(snapshot)


def test_zones_with_one_price_fold_into_the_region_and_count_as_merged():
    header = "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone\n"
    snapshot = sky(
        "aws",
        "p5.48xlarge,H100,8,55.04,,us-east-1,use1-az1",
        "p5.48xlarge,H100,8,55.04,,us-east-1,use1-az2",
        header=header,
    )
    assert list(PriceObservation.objects.values_list("region", flat=True)) == ["us-east-1"]
    assert (snapshot.rows_imported, snapshot.rows_merged, snapshot.rows_total) == (1, 1, 2)
    assert snapshot.merged[0]["line"] == 3


def test_rows_with_on_demand_and_spot_count_once_as_rows_and_twice_as_prices():
    snapshot = sky(
        "nebius",
        "gpu-h100-sxm_1gpu,H100,1,16,200,2.95,eu-north1,,1.25",
        "gpu-h100-sxm_8gpu,H100,8,128,1600,23.6,eu-north1,,10.0",
        "gpu-h200-sxm_1gpu,H200,1,16,200,3.5,eu-north1,,1.45",
        "gpu-h200-sxm_8gpu,H200,8,128,1600,28.0,eu-north1,,11.6",
    )
    assert (snapshot.rows_total, snapshot.rows_imported, snapshot.prices_new) == (4, 4, 8)
    assert snapshot.summary == "4 new, 0 already known, 0 skipped (of 4 rows); prices: 8 new, 0 already known"


def test_a_blank_region_is_stored_as_unknown_region():
    sky("seeweb", f"ECS8GPU10,H200,8,255,2048.0,20.8,,{info('H200', 8, 144384)},")
    assert PriceObservation.objects.get().region == "unknown region"


# Aggregators: the real provider, the aggregator as the channel


def test_prime_intellect_rows_are_stored_under_the_provider_behind_them():
    header = (
        "InstanceType,UpstreamCloudId,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
        "AvailabilityZone,Price,SpotPrice\n"
    )
    snapshot = sky(
        "primeintellect",
        "lambdalabs__8xH100_80GB__208__1800,gpu_8x_h100_sxm5,208.0,1800,H100,8.0,"
        f"{info('H100', 8, 655360)},US,us-west-3,23.92,",
        "datacrunch__1xH200_141GB__44__182__SPOT,1H200.141S.44V_SPOT,44.0,182,H200,1.0,"
        f"{info('H200', 1, 144384)},IS,ICE-01,,0.94",
        "dc_wildebeest__8xB200_180GB__160__1792,gpu-b200,160.0,1792,B200,8.0,"
        f"{info('B200', 8, 1474560)},US,us-central1,35.2,",
        header=header,
    )
    stored = {
        (o.provider.name, o.channel.name if o.channel else None, o.gpu_model.name, o.pricing_term)
        for o in PriceObservation.objects.select_related("provider", "channel", "gpu_model")
    }
    assert stored == {
        ("Lambda", "Prime Intellect", "H100 SXM", "on_demand"),
        ("Verda", "Prime Intellect", "H200 SXM", "spot"),
    }
    (held,) = snapshot.held_back
    assert (held["line"], held["kind"], held["name"]) == (4, "provider", "dc_wildebeest")
    assert UnmappedName.objects.get().name == "dc_wildebeest"


def test_shadeform_and_spheron_rows_name_their_providers_by_prefix_and_by_column():
    sky("shadeform", f"crusoe_L40Sx2,L40S,2.0,16.0,294,3.0,culpeper-usa-1,{info('L40S', 2, 48)},")
    header = HEADER.rstrip("\n") + ",Provider,OperatingSystem\n"
    sky(
        "spheron",
        "1H100.80S.32V_FIN-03_500,H100_SXM5,1.0,32.0,185.0,2.9124,Finland 3,"
        f"{info('H100_SXM5', 1, 81920)},0.8015,data-crunch,Ubuntu",
        "n3-H100x1__CANADA-1,H100_PCIE,1.0,28.0,180.0,2.0135,CANADA-1,"
        f"{info('H100_PCIE', 1, 81920)},,spheron-ai,Ubuntu",
        header=header,
    )
    stored = {
        o.offering: (o.provider.name, o.channel.name if o.channel else None)
        for o in PriceObservation.objects.select_related("provider", "channel")
    }
    assert stored == {
        "crusoe_L40Sx2": ("Crusoe", "Shadeform"),
        "1H100.80S.32V_FIN-03_500": ("Verda", "Spheron"),
        "n3-H100x1__CANADA-1": ("Spheron", None),
    }


# GCP's newer machine families


GCP_HEADER = (
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n"
)


def test_gcp_newer_families_are_gpu_machines():
    hosts = {
        "a3-ultragpu-8g": ("H200", 8, "H200 SXM"),
        "a4-highgpu-8g": ("B200", 8, "B200"),
        "a4x-highgpu-4g": ("GB200", 4, "GB200"),
        "a3-edgegpu-8g": ("H100", 8, "H100 SXM"),
        "g4-standard-48": ("RTXPRO6000", 1, "RTX PRO 6000"),
    }
    rows = []
    for machine, (accelerator, count, _) in hosts.items():
        rows.append(f"{machine},48.0,100.0,,,,us-central1,us-central1-b,10.0,4.0")
        rows.append(f",,,{accelerator},{count}.0,,us-central1,us-central1-b,{count * 5}.0,{count * 2}.0")
    snapshot = sky("gcp", *rows, header=GCP_HEADER)
    assert {o: model_of(o, pricing_term="on_demand") for o in hosts} == {m: h[2] for m, h in hosts.items()}
    # Each host gives the prices; its accelerator row is merged into them.
    assert (snapshot.rows_imported, snapshot.rows_merged, snapshot.rows_skipped) == (5, 5, 0)
    assert adds_up(snapshot)


def test_an_unknown_gcp_machine_family_is_said_to_be_unknown_not_cpu_only():
    snapshot = sky(
        "gcp",
        "zz9-superchip-8,48.0,100.0,,,,us-central1,us-central1-b,10.0,4.0",
        "n2-standard-4,4.0,16.0,,,,us-central1,us-central1-b,0.19,0.05",
        ",,,H100,8.0,,us-central1,us-central1-b,40.0,16.0",
        header=GCP_HEADER,
    )
    reasons = {s["value"]: s["reason"] for s in snapshot.skipped}
    assert reasons["zz9-superchip-8"] == "unknown machine family 'zz9'; not imported"
    assert reasons["n2-standard-4"] == "no GPU (CPU-only instance)"


def test_the_snapshot_page_accounts_for_every_row_with_its_reason(viewer_client):
    from django.urls import reverse

    snapshot = sky(
        "lambda",
        "gpu_8x_h100_sxm5,H100,8,208,1800,23.92,us-east-1,,",
        "gpu_1x_z900,Z900,1,26,200,9.99,us-east-1,,",
        "cpu_4x_general,,,4,16,0.2,us-east-1,,",
    )
    page = viewer_client.get(reverse("pricing:snapshot_detail", args=[snapshot.pk])).content.decode()
    assert "Imported with 1 rows held back" in page
    assert "Held back rows (1)" in page and "Z900" in page
    assert "Skipped rows (1)" in page and "no GPU (CPU-only instance)" in page
    assert "Rows of the file (3)" in page
