"""The hyperscalers' own price feeds: Azure Retail Prices pages, AWS EC2 offer files, Cloud Billing Catalog SKUs.

Real captures first (`../shared/data/price-feeds/` and `fixtures/prices/feeds/`, each with its SOURCE.md); the
items written for a test say so, and their expected prices are worked out by hand in the test."""

from __future__ import annotations

import dataclasses
import io
import json
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from pricing.importers import registry
from pricing.importers.aws_price_list import CAPACITY_BLOCK_REASON
from pricing.models import PriceObservation, SnapshotStatus
from tests.pricing.conftest import FIXTURES, OBSERVED, REPO, canonical, run_import

SHARED = REPO / ".." / "shared" / "data" / "price-feeds"
FEEDS = FIXTURES / "prices" / "feeds"
pytestmark = pytest.mark.usefixtures("reference")


def observations() -> dict[tuple, tuple[Decimal, Decimal]]:
    """(offering, GPU model, GPUs, region, term) -> (instance price, per-GPU price) of every stored observation."""
    return {
        (o.offering, o.gpu_model.name, o.gpus_per_instance, o.region, o.pricing_term): (
            o.price_per_instance_hour,
            o.price_per_gpu_hour,
        )
        for o in PriceObservation.objects.select_related("gpu_model")
    }


def reasons(entries: list[dict]) -> dict[str, str]:
    return {entry["value"]: entry["reason"] for entry in entries}


# --- AWS EC2 offer files


def test_the_opencost_us_east_2_excerpt_is_read_and_every_product_skipped_with_its_reason():
    snapshot = run_import((SHARED / "aws" / "pricing-us-east-2.json").read_bytes())
    assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, "aws-price-list")
    assert (snapshot.rows_total, snapshot.rows_skipped, snapshot.prices_new) == (4, 4, 0)
    assert reasons(snapshot.skipped) == {
        "m5.large": "no GPU (CPU-only instance)",
        "p3.8xlarge": "not Linux (Windows)",
        "M6UGCCQ3CDJQAA37": "not an instance (Storage)",
        "Y9RYMSE644KDSV4S": "not an instance (Load Balancer-Network)",
    }


def test_a_p4d_is_priced_per_a100_and_its_capacity_block_twin_is_skipped_as_an_operating_fee():
    snapshot = run_import((FEEDS / "aws-p4d-capacity-block-opencost.json").read_bytes())
    assert snapshot.status == SnapshotStatus.IMPORTED
    # 32.7726 an hour for 8 GPUs = 4.096575 per GPU-hour, observed on the file's publicationDate.
    assert observations() == {
        ("p4d.24xlarge", "A100 40GB SXM", 8, "us-east-1", "on_demand"): (Decimal("32.7726"), Decimal("4.096575"))
    }
    assert str(PriceObservation.objects.get().observed_on) == "2024-05-28"
    assert snapshot.skipped == [
        {
            "line": 2,
            "reason": CAPACITY_BLOCK_REASON,
            "value": "p4d.24xlarge",
        }
    ]
    assert "hourly operating fee, not the block's price" in CAPACITY_BLOCK_REASON


def test_no_capacity_block_row_is_stored_as_an_on_demand_price_whatever_its_rate():
    # The real file's CapacityBlock rows are priced 0.00; one with a rate is the block's hourly fee all the same.
    products = {
        "P5": _product("P5", "p5.48xlarge", "8"),
        "P5CB": _product("P5CB", "p5.48xlarge", "8", marketoption="CapacityBlock"),
    }
    on_demand = {"P5": _term("P5", "OD", "55.0400000000"), "P5CB": _term("P5CB", "OD", "31.4640000000")}
    snapshot = run_import(_offer(products, on_demand, {}))
    assert observations() == {
        ("p5.48xlarge", "H100 SXM", 8, "us-east-1", "on_demand"): (Decimal("55.04"), Decimal("6.88")),
    }
    assert [(row["value"], row["reason"]) for row in snapshot.skipped] == [("p5.48xlarge", CAPACITY_BLOCK_REASON)]


def _offer(products: dict, on_demand: dict, reserved: dict) -> bytes:
    """An offer file laid out as AWS publishes it (products, then terms.OnDemand and terms.Reserved)."""
    document = {
        "formatVersion": "v1.0",
        "offerCode": "AmazonEC2",
        "version": "20261101000000",
        "publicationDate": "2026-11-01T00:00:00Z",
        "products": products,
        "terms": {"OnDemand": on_demand, "Reserved": reserved},
    }
    return json.dumps(document).encode()


def _product(sku: str, instance: str, gpus: str | None, **attributes) -> dict:
    base = {
        "instanceType": instance,
        "operatingSystem": "Linux",
        "tenancy": "Shared",
        "capacitystatus": "Used",
        "preInstalledSw": "NA",
        "regionCode": "us-east-1",
        "marketoption": "OnDemand",
    }
    if gpus:
        base["gpu"] = gpus
    return {"sku": sku, "productFamily": "Compute Instance", "attributes": base | attributes}


def _term(sku: str, code: str, hourly: str, upfront: str | None = None, **attributes) -> dict:
    dimensions = {f"{sku}.{code}.H": {"unit": "Hrs", "pricePerUnit": {"USD": hourly}}}
    if upfront is not None:
        dimensions[f"{sku}.{code}.U"] = {
            "unit": "Quantity",
            "pricePerUnit": {"USD": upfront},
            "description": "Upfront Fee",
        }
    return {f"{sku}.{code}": {"sku": sku, "priceDimensions": dimensions, "termAttributes": attributes}}


def test_reserved_terms_become_effective_hourly_prices_and_the_other_products_are_skipped():
    # Written for this test. p5.48xlarge: on demand 55.04; 1yr standard Partial Upfront 20.00 an hour + 175,200
    # upfront = 20 + 175200 / 8760 = 40.00 an hour (5.00 per GPU); 3yr convertible All Upfront 788,400 upfront =
    # 788400 / 26280 = 30.00 an hour (3.75 per GPU).
    products = {
        "P5": _product("P5", "p5.48xlarge", "8"),
        "P5WIN": _product("P5WIN", "p5.48xlarge", "8", operatingSystem="Windows"),
        "P5DED": _product("P5DED", "p5.48xlarge", "8", tenancy="Dedicated"),
        "P5RES": _product("P5RES", "p5.48xlarge", "8", capacitystatus="UnusedCapacityReservation"),
        "P5SQL": _product("P5SQL", "p5.48xlarge", "8", preInstalledSw="SQL Web"),
        "INF": _product("INF", "inf2.48xlarge", None),
        "G6E": _product("G6E", "g6e.xlarge", "1"),
    }
    on_demand = {"P5": _term("P5", "OD", "55.0400000000"), "G6E": _term("G6E", "OD", "1.8610000000")}
    for sku in ("P5WIN", "P5DED", "P5RES", "P5SQL", "INF"):
        on_demand[sku] = _term(sku, "OD", "99.0000000000")
    reserved = {
        "P5": _term(
            "P5",
            "R1",
            "20.0000000000",
            "175200",
            LeaseContractLength="1yr",
            OfferingClass="standard",
            PurchaseOption="Partial Upfront",
        )
        | _term(
            "P5",
            "R3",
            "0.0000000000",
            "788400",
            LeaseContractLength="3yr",
            OfferingClass="convertible",
            PurchaseOption="All Upfront",
        )
    }
    snapshot = run_import(_offer(products, on_demand, reserved))
    assert snapshot.status == SnapshotStatus.IMPORTED
    assert observations() == {
        ("p5.48xlarge", "H100 SXM", 8, "us-east-1", "on_demand"): (Decimal("55.04"), Decimal("6.88")),
        ("p5.48xlarge (standard Partial Upfront)", "H100 SXM", 8, "us-east-1", "reserved_1y"): (
            Decimal("40"),
            Decimal("5"),
        ),
        ("p5.48xlarge (convertible All Upfront)", "H100 SXM", 8, "us-east-1", "reserved_3y"): (
            Decimal("30"),
            Decimal("3.75"),
        ),
        ("g6e.xlarge", "L40S", 1, "us-east-1", "on_demand"): (Decimal("1.861"), Decimal("1.861")),
    }
    fees = dict(PriceObservation.objects.values_list("offering", "upfront_fee"))
    assert fees == {
        "p5.48xlarge": None,
        "p5.48xlarge (standard Partial Upfront)": Decimal("175200"),
        "p5.48xlarge (convertible All Upfront)": Decimal("788400"),
        "g6e.xlarge": None,
    }
    assert sorted(entry["reason"] for entry in snapshot.skipped) == [
        "AWS Inferentia2, not a GPU",
        "Dedicated tenancy (shared tenancy is imported)",
        "capacity status UnusedCapacityReservation (a capacity reservation's, not an instance price)",
        "not Linux (Windows)",
        "pre-installed software SQL Web (the bare instance is imported)",
    ]


def test_an_offer_file_streams_from_an_open_file_past_the_general_size_limit(settings, tmp_path):
    settings.PRICE_IMPORT_MAX_BYTES = 1000  # the excerpt is 4,721 bytes: over the general limit, under the format's
    path = tmp_path / "index.json"
    path.write_bytes((FEEDS / "aws-p4d-capacity-block-opencost.json").read_bytes())
    call_command("import_prices", str(path), stdout=io.StringIO())
    assert PriceObservation.objects.get().offering == "p4d.24xlarge"
    big_csv = tmp_path / "prices.csv"  # a canonical file has the general limit
    big_csv.write_text(
        canonical(*[f"Lambda,neocloud,H100 SXM,8,gpu_{i},us-east-1,on_demand,23.92,,USD,," for i in range(20)])
    )
    errors = io.StringIO()
    with pytest.raises(CommandError, match="Rejected"):
        call_command("import_prices", str(big_csv), stdout=io.StringIO(), stderr=errors)
    assert "the limit is 1,000 (PRICE_IMPORT_MAX_BYTES)" in errors.getvalue()


def test_each_format_refuses_past_its_own_limits(monkeypatch):
    content = (FEEDS / "aws-p4d-capacity-block-opencost.json").read_bytes()
    aws = registry.BY_NAME["aws-price-list"]
    monkeypatch.setitem(registry.BY_NAME, "aws-price-list", dataclasses.replace(aws, max_rows=1))
    snapshot = run_import(content, format="aws-price-list")
    assert snapshot.status == SnapshotStatus.REJECTED
    assert snapshot.errors[0]["reason"] == "more than 1 records (the aws-price-list limit); split the feed"
    monkeypatch.setitem(registry.BY_NAME, "aws-price-list", dataclasses.replace(aws, max_bytes=4000))
    snapshot = run_import(content, format="aws-price-list")
    assert (
        snapshot.errors[0]["reason"]
        == f"the file has {len(content):,} bytes; the limit is 4,000 (the aws-price-list limit)"
    )


def test_a_broken_offer_file_is_rejected_not_half_read():
    content = (FEEDS / "aws-p4d-capacity-block-opencost.json").read_bytes()
    snapshot = run_import(content[: len(content) // 2])
    assert snapshot.status == SnapshotStatus.REJECTED
    assert snapshot.errors[0]["reason"].startswith("not valid JSON")


# --- Azure Retail Prices API


def test_the_real_m8ms_reservation_page_is_read_and_its_cpu_only_items_skipped():
    snapshot = run_import(
        (SHARED / "azure" / "retail-prices-M8ms-eastus-reservation.excerpt.json").read_bytes(), observed_on=OBSERVED
    )
    assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, "azure-retail")
    assert snapshot.rows_total == 2
    assert [entry["reason"] for entry in snapshot.skipped] == ["no GPU (CPU-only VM size)"] * 2


def test_a_page_as_the_api_sends_it_on_one_long_line_is_read_not_refused_for_its_line_length():
    """The Retail Prices API answers compact JSON: a page of 100 items is one line of about 60,000 characters,
    past the 20,000-character line cap of CSV files. The real excerpt's items, repeated to a full page, as compact as
    the API sends them."""
    items = json.loads((SHARED / "azure" / "retail-prices-M8ms-eastus-reservation.excerpt.json").read_text())
    page = {"BillingCurrency": "USD", "Items": items * 50, "NextPageLink": None, "Count": 100}
    body = json.dumps(page, separators=(",", ":")).encode()
    assert b"\n" not in body and len(body) > 20_000
    snapshot = run_import(body, observed_on=OBSERVED)
    assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, "azure-retail")
    assert snapshot.rows_total == 100


def _azure_item(**fields) -> dict:
    """Written for these tests, in the shape of the real items above (same keys)."""
    item = {
        "currencyCode": "USD",
        "retailPrice": 98.32,
        "armRegionName": "eastus",
        "meterName": "ND96isr H100 v5",
        "productName": "Virtual Machines NDsr H100 v5 Series",
        "serviceName": "Virtual Machines",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "armSkuName": "Standard_ND96isr_H100_v5",
    }
    return item | fields


def test_azure_items_become_linux_prices_per_hour_by_term():
    # 98.32 / 8 GPUs = 12.29; a 1-year reservation of 350,400 = 350400 / 8760 = 40 an hour (5 per GPU); 3 years of
    # 762,120 = 762120 / 26280 = 29 an hour (3.625 per GPU).
    page = {
        "BillingCurrency": "USD",
        "Items": [
            _azure_item(),
            _azure_item(productName="Virtual Machines NDsr H100 v5 Series Windows", retailPrice=102.736),
            _azure_item(meterName="ND96isr H100 v5 Spot", retailPrice=39.328),
            _azure_item(meterName="ND96isr H100 v5 Low Priority", retailPrice=19.664),
            _azure_item(type="Reservation", reservationTerm="1 Year", retailPrice=350400.0),
            _azure_item(type="Reservation", reservationTerm="3 Years", retailPrice=762120.0),
            _azure_item(type="DevTestConsumption"),
            _azure_item(armSkuName="Standard_NV6ads_A10_v5", retailPrice=0.454),
            _azure_item(armSkuName="Standard_NC40ads_H100_v5", retailPrice=6.98),
            _azure_item(serviceName="Storage", unitOfMeasure="1 GB/Month"),
            _azure_item(),
        ],
        "NextPageLink": None,
    }
    snapshot = run_import(json.dumps(page), observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.IMPORTED
    size = "Standard_ND96isr_H100_v5"
    assert observations() == {
        (size, "H100 SXM", 8, "eastus", "on_demand"): (Decimal("98.32"), Decimal("12.29")),
        (size, "H100 SXM", 8, "eastus", "spot"): (Decimal("39.328"), Decimal("4.916")),
        (f"{size} (Low Priority)", "H100 SXM", 8, "eastus", "spot"): (Decimal("19.664"), Decimal("2.458")),
        (size, "H100 SXM", 8, "eastus", "reserved_1y"): (Decimal("40"), Decimal("5")),
        (size, "H100 SXM", 8, "eastus", "reserved_3y"): (Decimal("29"), Decimal("3.625")),
        ("Standard_NC40ads_H100_v5", "H100 NVL", 1, "eastus", "on_demand"): (Decimal("6.98"), Decimal("6.98")),
    }
    assert [entry["reason"] for entry in snapshot.skipped] == [
        "Windows (the Linux price of the same meter is imported)",
        "price type 'DevTestConsumption' (Consumption and Reservation are imported)",
        "a fractional A10 share (no whole GPU to price)",
        "not a virtual machine (Storage)",
    ]
    assert snapshot.merged == [{"line": 11, "reason": "the same price as line 1", "value": size}]


def test_a_json_file_that_is_no_azure_page_is_rejected():
    snapshot = run_import(json.dumps({"retailPrice": 1, "armRegionName": "eastus"}), format="azure-retail")
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "expected Retail Prices API pages" in snapshot.errors[0]["reason"]


# --- Cloud Billing Catalog


def test_the_opencost_skus_page_gives_a_gpu_only_a100_price_per_listed_region_and_prices_the_a2_machines():
    snapshot = run_import((FEEDS / "gcp-skus-opencost.json").read_bytes(), observed_on=OBSERVED)
    assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, "gcp-billing-catalog")
    stored = observations()
    offering = "A100 GPU only (the VM's cores and memory are priced apart)"
    gpu_only = (Decimal("2.933908"), Decimal("2.933908"))  # units 2 + nanos 933,908,000 / 10^9
    # a2-highgpu-1g: 12 vCPUs x 0.031611 + 85 GiB x 0.004237 + 1 x 2.933908 = 0.379332 + 0.360145 + 2.933908
    # = 3.673385, Google's list price of the machine in us-central1. a2-highgpu-8g: 96 x 0.031611 + 680 x 0.004237
    # + 8 x 2.933908 = 3.034656 + 2.881160 + 23.471264 = 29.387080 (3.673385 per GPU).
    for region in ("us-central1", "us-east1", "us-west1"):
        assert stored[(offering, "A100 40GB SXM", 1, region, "on_demand")] == gpu_only
        assert stored[("a2-highgpu-1g", "A100 40GB SXM", 1, region, "on_demand")] == (
            Decimal("3.673385"),
            Decimal("3.673385"),
        )
        assert stored[("a2-highgpu-8g", "A100 40GB SXM", 8, region, "on_demand")] == (
            Decimal("29.38708"),
            Decimal("3.673385"),
        )
    assert len(stored) == 3 * 6  # the GPU alone and five A2 machine types (1g, 2g, 4g, 8g, megagpu-16g)
    assert snapshot.rows_total == 7
    assert (
        sorted(entry["reason"] for entry in snapshot.skipped)
        == ["not a GPU SKU (CPU)"] * 2 + ["not a GPU SKU (RAM)"] * 2
    )
    machines = "a2-highgpu-1g, a2-highgpu-2g, a2-highgpu-4g, a2-highgpu-8g, a2-megagpu-16g"
    assert [entry["reason"] for entry in snapshot.merged] == [f"priced into {machines}"] * 2


def _gcp_sku(description: str, usage: str, units: str, nanos: int) -> dict:
    """Written for these tests, in the shape of the real GPU SKU above."""
    rate = {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": units, "nanos": nanos}}
    return {
        "description": description,
        "category": {"resourceFamily": "Compute", "resourceGroup": "GPU", "usageType": usage},
        "serviceRegions": ["europe-west4"],
        "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [rate]}}],
    }


def test_implausible_gpu_prices_and_unknown_gpus_are_held_back_with_their_reason():
    page = {
        "skus": [
            _gcp_sku("Nvidia Tesla A100 GPU running in Netherlands", "Commit1Yr", "1", 850_000_000),
            _gcp_sku("Nvidia Tesla A100 GPU running in Netherlands", "OnDemand", "2933", 908_000_000),
            _gcp_sku("Nvidia Tesla X900 GPU running in Netherlands", "OnDemand", "3", 0),
            _gcp_sku("Nvidia Tesla T4 Virtual Workstation GPU running in Netherlands", "OnDemand", "0", 200_000_000),
        ],
        "nextPageToken": "",
    }
    snapshot = run_import(json.dumps(page), observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.IMPORTED
    assert list(observations().values()) == [(Decimal("1.85"), Decimal("1.85"))]
    held = snapshot.held_back
    assert held[0]["reason"].startswith("2933.908000 USD per GPU-hour (on_demand) is not a plausible price")
    assert (held[1]["name"], held[1]["kind"]) == ("X900", "gpu")
    assert [entry["reason"] for entry in snapshot.skipped] == ["a virtual workstation licence, not the GPU"]


def test_a_reserved_term_filed_under_on_demand_is_still_read_as_reserved():
    # Written for this test, arranged as opencost's excerpt is: a 3-year All Upfront term (upfront 1,161) sits
    # under terms.OnDemand. g4dn.xlarge: 1161 / 26280 = 0.044178 an hour, not an on-demand price of 0.
    products = {"G4": _product("G4", "g4dn.xlarge", "1")}
    term = _term(
        "G4",
        "R3",
        "0.0000000000",
        "1161",
        LeaseContractLength="3yr",
        OfferingClass="convertible",
        PurchaseOption="All Upfront",
    )
    run_import(_offer(products, {"G4": term}, {}))
    assert observations() == {
        ("g4dn.xlarge (convertible All Upfront)", "T4", 1, "us-east-1", "reserved_3y"): (
            Decimal("0.044178"),
            Decimal("0.044178"),
        )
    }


@pytest.mark.parametrize(
    "path",
    [
        SHARED / "aws" / "pricing-us-east-2.json",
        SHARED / "azure" / "retail-prices-M8ms-eastus-reservation.excerpt.json",
        FEEDS / "aws-p4d-capacity-block-opencost.json",
        FEEDS / "gcp-skus-opencost.json",
    ],
    ids=lambda path: path.name,
)
def test_every_record_of_a_real_feed_is_counted_once(path):
    first = run_import(path.read_bytes(), observed_on=OBSERVED)
    again = run_import(path.read_bytes(), observed_on=OBSERVED)
    for snapshot in (first, again):
        accounted = (
            snapshot.rows_imported
            + snapshot.rows_unchanged
            + snapshot.rows_skipped
            + snapshot.rows_merged
            + snapshot.rows_held_back
        )
        assert accounted == snapshot.rows_total > 0
    assert (again.rows_imported, again.prices_new, again.prices_known) == (0, 0, first.prices_new)
