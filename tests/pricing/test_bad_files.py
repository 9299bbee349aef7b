"""Bad files are rejected as a whole, with every reason (line, column, value), and write no observation."""

from __future__ import annotations

import pytest

from pricing.models import PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import HEADER, canonical, run_import

pytestmark = pytest.mark.usefixtures("reference", "no_observations")

GOOD = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,2.99,USD,2026-11-01,"


def rejected(content: bytes | str, **options) -> list[tuple]:
    snapshot = run_import(content, **options)
    assert snapshot.status == SnapshotStatus.REJECTED
    assert PriceSnapshot.objects.get(pk=snapshot.pk).status == SnapshotStatus.REJECTED  # stored for the record
    return [(e["line"], e["column"], e["value"], e["reason"]) for e in snapshot.errors]


def test_wrong_columns_are_named():
    text = "provider,gpu,gpus_per_instance,offering,pricing_term,price_per_gpu_hour\nLambda,H100,8,x,spot,2\n"
    errors = rejected(text)
    assert (1, "gpu", "gpu", errors[0][3]) == errors[0]
    assert "unexpected column" in errors[0][3]
    assert (1, "gpu_model", "", "missing column") in errors


def test_a_negative_price_is_rejected():
    errors = rejected(canonical(GOOD.replace("23.92,2.99", "-23.92,", 1)))
    assert errors == [(2, "price_per_instance_hour", "-23.92", "negative price")]


def test_a_non_numeric_price_is_rejected():
    errors = rejected(canonical(GOOD.replace("23.92,2.99", ",$2.99", 1)))
    assert errors[0][:3] == (2, "price_per_gpu_hour", "$2.99")
    assert errors[0][3].startswith("not a number")


def test_a_currency_that_is_not_iso_4217_is_rejected():
    errors = rejected(canonical(GOOD.replace(",USD,", ",XYZ,", 1)))
    assert errors == [(2, "currency", "XYZ", "not an ISO 4217 currency code; use one such as USD, EUR or GBP")]


def test_an_unknown_pricing_term_is_rejected():
    errors = rejected(canonical(GOOD.replace("on_demand", "hourly", 1)))
    assert errors[0][:3] == (2, "pricing_term", "hourly")
    assert "expected one of on_demand, spot, reserved_1y, reserved_3y, committed" in errors[0][3]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("01/11/2026", "not a date; use YYYY-MM-DD"),
        ("2026-02-30", "not a valid calendar date"),
        ("2999-01-01", "in the future"),
    ],
)
def test_a_bad_date_is_rejected(value, reason):
    errors = rejected(canonical(GOOD.replace("2026-11-01", value, 1)))
    assert errors[0][:3] == (2, "observed_on", value)
    assert errors[0][3].startswith(reason)


def test_prices_that_disagree_are_rejected():
    errors = rejected(canonical(GOOD.replace("2.99", "2.50", 1)))
    assert errors[0][:3] == (2, "price_per_gpu_hour", "2.50")
    assert "disagrees" in errors[0][3]


def test_an_empty_file_is_rejected():
    assert rejected(b"") == [(0, "", "", "the file is empty")]


def test_a_header_without_rows_is_rejected():
    assert rejected(HEADER) == [(2, "", "", "no data rows after the header")]


def test_duplicate_rows_are_rejected():
    errors = rejected(canonical(GOOD, GOOD))
    assert errors == [
        (3, "", "", "duplicate of line 2: same provider, offering, GPU model, GPUs, region, term and date")
    ]


def test_one_bad_row_among_good_ones_writes_nothing_and_every_error_is_listed():
    rows = [GOOD.replace("us-east-1", f"region-{i}", 1) for i in range(5)]
    rows[1] = rows[1].replace("H100 SXM", "H100 SXMM", 1)
    rows[3] = rows[3].replace(",8,", ",0,", 1).replace("on_demand", "forever", 1)
    errors = rejected(canonical(*rows))
    assert [(line, column) for line, column, _, _ in errors] == [
        (3, "gpu_model"),
        (5, "gpus_per_instance"),
        (5, "pricing_term"),
    ]


def test_an_unknown_provider_is_rejected_with_the_closest_names():
    errors = rejected(canonical(GOOD.replace("Lambda", "Lamda", 1)))
    assert errors[0][:3] == (2, "provider", "Lamda")
    assert "closest known: Lambda" in errors[0][3]


def test_a_provider_kind_that_contradicts_the_catalog_is_rejected():
    errors = rejected(canonical(GOOD.replace("neocloud", "hyperscaler", 1)))
    assert errors == [(2, "provider_kind", "hyperscaler", "Lambda is a neocloud in the catalog")]


def test_a_file_over_the_size_cap_is_rejected(settings):
    settings.PRICE_IMPORT_MAX_BYTES = 1000
    errors = rejected(canonical(*[GOOD.replace("us-east-1", f"r{i}", 1) for i in range(20)]))
    assert len(errors) == 1
    assert "the limit is 1,000 (PRICE_IMPORT_MAX_BYTES)" in errors[0][3]


def test_a_file_over_the_row_cap_is_rejected(settings):
    settings.PRICE_IMPORT_MAX_ROWS = 100
    errors = rejected(canonical(*[GOOD.replace("us-east-1", f"r{i}", 1) for i in range(101)]))
    assert errors == [(102, "", "", "more than 100 data rows (PRICE_IMPORT_MAX_ROWS); split the file")]


def test_a_file_that_is_not_utf8_is_rejected():
    errors = rejected(canonical(GOOD.replace("us-east-1", "Zürich", 1)).encode("latin-1"))
    assert errors[0][3].startswith("not UTF-8 text: byte 0xfc at offset")


def test_a_skypilot_file_needs_a_provider():
    text = "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\nbox,H100,8,20,us\n"
    assert rejected(text)[0][1:] == (
        "provider",
        "",
        "a SkyPilot catalog vms.csv has no provider column: name the provider",
    )


def test_a_skypilot_file_with_missing_columns_is_rejected():
    text = "InstanceType,AcceleratorName,Price,Region\nbox,H100,20,us\n"
    errors = rejected(text, provider_name="Lambda", format="skypilot")
    assert errors == [(1, "AcceleratorCount", "", "missing column (is this a SkyPilot vms.csv?)")]


def test_a_skypilot_row_with_a_malformed_price_is_rejected():
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,SpotPrice\r\n"
        "box1,H100,8,twenty,us,\r\n"
        "box2,Z900,8,20,us,-1\r\n"
    )
    errors = rejected(text, provider_name="Lambda")
    assert [(line, column, value) for line, column, value, _ in errors] == [
        (2, "Price", "twenty"),
        (3, "SpotPrice", "-1"),
    ]


def test_a_nul_byte_is_rejected_with_its_line():
    # PostgreSQL cannot store NUL in text; the import must refuse it rather than fail mid-write.
    errors = rejected(canonical(GOOD, GOOD.replace("gpu_8x_h100_sxm5", "gpu_8x\x00h100").replace("us-east-1", "eu")))
    assert errors == [(3, "", "0x00", errors[0][3])]
    assert "NUL byte" in errors[0][3]
