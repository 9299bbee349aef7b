"""Files and uploads that must import, and refusals that must read well: a pretty-printed offer file is counted
by its entries (not its newlines), Azure items a collector saved without `serviceName` are read by their
product name, and what a refusal echoes is short."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import OBSERVED, REPO, run_import

SHARED = REPO / ".." / "shared" / "data" / "price-feeds"
pytestmark = pytest.mark.usefixtures("reference")


def test_a_pretty_printed_offer_file_is_not_refused_for_its_newlines(
    editor_client, settings, django_capture_on_commit_callbacks
):
    # opencost's us-east-2 offer file: 217 lines, 4 products. A limit of 50 rows is far above its 4 entries
    # and far below its newlines, as 200,000 is for AWS's real offer files of a few megabytes.
    content = (SHARED / "aws" / "pricing-us-east-2.json").read_bytes()
    assert content.count(b"\n") > 50
    settings.PRICE_IMPORT_MAX_ROWS = 50
    upload = SimpleUploadedFile("pricing-us-east-2.json", content)
    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"})
    assert response.status_code == 302, response.content.decode()[:2000]
    snapshot = PriceSnapshot.objects.get()
    assert (snapshot.status, snapshot.format, snapshot.rows_total) == (SnapshotStatus.IMPORTED, "aws-price-list", 4)


def test_a_csv_over_the_row_cap_is_still_refused_at_upload(editor_client, settings):
    settings.PRICE_IMPORT_MAX_ROWS = 3
    header = "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,price_per_instance_hour,"
    header += "price_per_gpu_hour,currency,observed_on,source_url\n"
    rows = "".join(
        f"Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-10-0{day},\n"
        for day in range(1, 6)
    )
    upload = SimpleUploadedFile("rows.csv", (header + rows).encode())
    response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"})
    assert response.status_code == 400
    assert "The file has more than 3 rows; the limit is 3." in response.content.decode()


def _azure_item_without_service(**fields) -> dict:
    """An item as a collector saves it: the keys of the real M8ms items (shared/data/price-feeds/azure) but no
    `serviceName`, which such collectors leave out because they queried one service."""
    item = {
        "currencyCode": "USD",
        "retailPrice": 98.32,
        "armRegionName": "eastus",
        "meterName": "ND96isr H100 v5",
        "productName": "Virtual Machines NDsr H100 v5 Series",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "armSkuName": "Standard_ND96isr_H100_v5",
    }
    return item | fields


def test_azure_vm_items_without_a_service_name_are_read_by_their_product_name():
    # 98.32 an hour for 8 H100s = 12.29 per GPU-hour.
    items = [
        _azure_item_without_service(),
        _azure_item_without_service(productName="Virtual Machines NDsr H100 v5 Series Windows"),
        _azure_item_without_service(productName="Premium SSD Managed Disks", armSkuName="", meterName="P30 LRS"),
        _azure_item_without_service(productName="Virtual Machines NDsr H100 v5 Series", armSkuName=""),
    ]
    snapshot = run_import(json.dumps({"Items": items, "NextPageLink": None}), observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors
    stored = PriceObservation.objects.get()
    assert (stored.offering, stored.gpus_per_instance, stored.pricing_term) == (
        "Standard_ND96isr_H100_v5",
        8,
        "on_demand",
    )
    assert stored.price_per_gpu_hour == Decimal("12.29")
    assert [entry["reason"] for entry in snapshot.skipped] == [
        "Windows (the Linux price of the same meter is imported)",
        "not a virtual machine (Premium SSD Managed Disks)",
        "not a virtual machine (Virtual Machines NDsr H100 v5 Series without an armSkuName)",
    ]


def test_a_refused_market_filter_echoes_a_short_value(viewer_client):
    response = viewer_client.get(reverse("pricing:market"), {"term": "spot" + "x" * 100_000})
    html = response.content.decode()
    assert "x" * 200 not in html
    assert "spotxxxx" in html and "100,004 characters" in html


def test_a_crashed_import_does_not_ask_to_fix_rows(editor_client):
    from pricing.services import price_snapshot_create, price_snapshot_fail

    snapshot = price_snapshot_create(content=b"x", origin="upload", source="upload")
    price_snapshot_fail(snapshot_id=snapshot.pk, reason="the worker stopped (out of memory)")
    html = editor_client.get(reverse("pricing:snapshot_detail", kwargs={"pk": snapshot.pk})).content.decode()
    assert "Fix every row" not in html
    assert "the worker stopped (out of memory)" in html
    assert "nothing in the file was at fault" in html and "nothing was imported" in html


def test_a_rejected_file_still_asks_to_fix_its_rows(editor_client):
    bad = "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,price_per_instance_hour,"
    bad += "price_per_gpu_hour,currency,observed_on,source_url\n"
    bad += "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-13-01,\n"
    snapshot = run_import(bad)
    assert snapshot.status == SnapshotStatus.REJECTED
    html = editor_client.get(reverse("pricing:snapshot_detail", kwargs={"pk": snapshot.pk})).content.decode()
    assert "Fix every row below" in html
