"""The canonical CSV/JSON parser, with an in-memory catalog (no database)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pricing.importers import Catalog, ProviderRef, parse_prices
from tests.pricing.conftest import canonical

TODAY = date(2026, 11, 30)
CATALOG = Catalog(
    gpu_names={
        "H100 SXM": (1, "H100 SXM"),
        "H100": (1, "H100 SXM"),
        "H100 SXM5 80GB": (1, "H100 SXM"),
        "H100 PCIe": (2, "H100 PCIe"),
        "H100 NVL": (3, "H100 NVL"),
        "L40S": (4, "L40S"),
    },
    providers=[ProviderRef(10, "Lambda", "neocloud"), ProviderRef(11, "Google Cloud", "hyperscaler")],
)
LAMBDA = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,2.99,USD,2026-11-01,"


def parse(text: str | bytes, **options):
    content = text.encode() if isinstance(text, str) else text
    options.setdefault("today", TODAY)
    options.setdefault("max_rows", 1000)
    return parse_prices(content, catalog=CATALOG, **options)


def reasons(result) -> list[str]:
    return [error.reason for error in result.errors]


def test_it_parses_a_canonical_row():
    result = parse(canonical(LAMBDA))
    assert result.errors == []
    (row,) = result.rows
    assert (row.provider_id, row.gpu_model_id, row.gpus_per_instance) == (10, 1, 8)
    assert (row.price_per_instance_hour, row.price_per_gpu_hour) == (Decimal("23.92"), Decimal("2.99"))
    assert row.observed_on == date(2026, 11, 1)


def test_it_resolves_gpu_names_whatever_their_case_spaces_dashes_and_underscores():
    for name in ["H100", "h100 sxm", "H100-SXM", "H100_SXM", "H100 SXM5 80GB", "h100-sxm5-80gb"]:
        row = LAMBDA.replace("H100 SXM", name, 1)
        assert parse(canonical(row)).rows[0].gpu_model_id == 1, name


def test_it_keeps_pcie_and_nvl_apart_from_sxm():
    assert parse(canonical(LAMBDA.replace("H100 SXM", "H100 PCIe", 1))).rows[0].gpu_model_id == 2
    assert parse(canonical(LAMBDA.replace("H100 SXM", "H100-NVL", 1))).rows[0].gpu_model_id == 3


def test_an_unknown_gpu_name_is_an_error_naming_the_closest_models():
    result = parse(canonical(LAMBDA.replace("H100 SXM", "H1OO SXM", 1)))
    (error,) = result.errors
    assert (error.line, error.column, error.value) == (2, "gpu_model", "H1OO SXM")
    assert "unknown GPU model 'H1OO SXM'" in error.reason
    assert "H100 SXM" in error.reason.split("closest known:")[1]


def test_it_derives_the_per_gpu_price_from_the_instance_price():
    row = parse(canonical(LAMBDA.replace("23.92,2.99", "49.24,", 1))).rows[0]
    assert row.price_per_gpu_hour == Decimal("6.155")


def test_it_derives_the_instance_price_from_the_per_gpu_price():
    row = parse(canonical(LAMBDA.replace("23.92,2.99", ",3.99", 1))).rows[0]
    assert row.price_per_instance_hour == Decimal("31.92")


def test_both_prices_must_agree_to_the_cent():
    result = parse(canonical(LAMBDA.replace("23.92,2.99", "23.92,3.00", 1)))
    (error,) = result.errors
    assert (error.column, error.value) == ("price_per_gpu_hour", "3.00")
    assert "disagrees with price_per_instance_hour 23.92 ÷ 8 GPUs = 2.990000" in error.reason


def test_a_published_figure_rounded_to_the_cent_agrees():
    # CoreWeave: $49.24/hour for 8 GPUs is listed as $6.16 per GPU-hour (6.155 rounded half up).
    assert parse(canonical(LAMBDA.replace("23.92,2.99", "49.24,6.16", 1))).errors == []


def test_it_reads_crlf_line_endings_and_a_byte_order_mark():
    text = canonical(LAMBDA).replace("\n", "\r\n")
    result = parse(b"\xef\xbb\xbf" + text.encode())
    assert result.errors == []
    assert result.rows[0].source_url == ""


def test_a_row_with_more_cells_than_the_header_is_an_error():
    result = parse(canonical(LAMBDA.replace("us-east-1", "Hafnarfjarðarkaupstaður, IS, EU", 1)))
    (error,) = result.errors
    assert (error.line, error.reason) == (2, "has 14 cells; the header has 12 columns")


def test_a_quoted_non_ascii_region_is_kept_whole():
    row = LAMBDA.replace("us-east-1", '"Hafnarfjarðarkaupstaður, IS, EU"', 1)
    assert parse(canonical(row)).rows[0].region == "Hafnarfjarðarkaupstaður, IS, EU"


def test_it_uses_the_default_date_and_provider_for_blank_cells():
    row = ",,H100,8,box,,on_demand,,2.5,,,"
    result = parse(canonical(row), provider_name="lambda", observed_on=date(2026, 10, 1))
    assert result.errors == []
    assert (result.rows[0].provider_id, result.rows[0].observed_on) == (10, date(2026, 10, 1))


def test_it_reads_json_records_with_decimal_prices():
    text = (
        '[{"provider": "Lambda", "gpu_model": "H100", "gpus_per_instance": 8, "offering": "box",'
        ' "pricing_term": "on_demand", "price_per_instance_hour": 23.92, "observed_on": "2026-11-01"}]'
    )
    result = parse(text)
    assert result.format == "canonical-json"
    assert result.rows[0].price_per_gpu_hour == Decimal("2.99")
    assert isinstance(result.rows[0].price_per_instance_hour, Decimal)


def test_it_reads_json_wrapped_in_a_prices_object():
    text = (
        '{"prices": [{"provider": "Lambda", "gpu_model": "L40S", "gpus_per_instance": "1", "offering": "x",'
        ' "pricing_term": "spot", "price_per_gpu_hour": "0.5", "observed_on": "2026-11-01"}]}'
    )
    assert parse(text, requested_format="canonical").rows[0].pricing_term == "spot"


def test_json_errors_name_the_record_and_field():
    text = (
        '[{"provider": "Lambda", "gpu_model": "H100", "gpus_per_instance": 8, "offering": "box",'
        ' "pricing_term": "hourly", "price_per_gpu_hour": 2, "observed_on": "2026-11-01", "colour": "red"}]'
    )
    result = parse(text)
    assert [(e.line, e.column) for e in result.errors] == [(1, "colour")]
    result = parse(text.replace(', "colour": "red"', ""))
    assert [(e.line, e.column, e.value) for e in result.errors] == [(1, "pricing_term", "hourly")]


def test_it_strips_the_apostrophe_its_own_export_adds_to_formula_like_text():
    row = LAMBDA.replace("gpu_8x_h100_sxm5", "'-special", 1)
    assert parse(canonical(row)).rows[0].offering == "-special"


def test_a_row_cap_rejects_files_with_too_many_rows():
    result = parse(canonical(*[LAMBDA.replace("us-east-1", f"r{i}", 1) for i in range(6)]), max_rows=5)
    assert any("more than 5 data rows" in reason for reason in reasons(result))
