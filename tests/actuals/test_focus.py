"""FOCUS billing exports read streaming into monthly groups, on the FinOps Foundation's real sample (its NULLs,
zone-less timestamps and values in the wrong column) and on small files that show one rule each.

Golden totals come from reading the same file with the csv module, independently of the parser."""

from __future__ import annotations

import csv
import gzip
import io
from collections import defaultdict
from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from tco.actuals.focus import FocusError, hours_multiplier, parse_focus
from tco.actuals.gpus import instance_gpus

SAMPLE = Path(__file__).parent / "samples" / "focus-1.0-sample-excerpt.csv"
HEADER = (
    "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,EffectiveCost,ProviderName,ServiceName,"
    "SkuId,ResourceId,ChargeDescription,ConsumedQuantity,ConsumedUnit,Tags"
)


def _csv_totals(text: str) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for row in csv.DictReader(io.StringIO(text)):
        totals[row["ProviderName"]] += float(row["BilledCost"]) if row["BilledCost"] != "NULL" else 0.0
    return totals


def _totals(result) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for group in result.groups:
        totals[group.provider] += group.billed_cost
    return totals


def _parse(text: str, **kwargs):
    return parse_focus(io.BytesIO(text.encode()), **kwargs)


def test_the_real_sample_reads_every_row_and_keeps_every_cost():
    result = parse_focus(SAMPLE.open("rb"))
    assert result.ok, result.problems
    assert result.rows == 272
    expected = _csv_totals(SAMPLE.read_text())
    assert set(_totals(result)) == {"AWS", "Microsoft", "Oracle"}
    for provider, total in expected.items():
        assert _totals(result)[provider] == pytest.approx(total, rel=1e-12)
    assert {group.month for group in result.groups} == {"2024-09"}  # zone-less timestamps read as UTC


def test_the_samples_gpu_rows_are_its_g5_and_g3_instances_with_their_hours():
    result = parse_focus(SAMPLE.open("rb"))
    gpu = [group for group in result.groups if group.gpu_model]
    by_model: dict[str, float] = defaultdict(float)
    for group in gpu:
        by_model[group.gpu_model] += group.gpu_hours
    # Three g5.4xlarge rows (1, 0.296111 and 1 hour, one A10G each) and one g3.4xlarge hour (one M60).
    assert by_model == pytest.approx({"A10G": 2.296111, "M60": 1.0})
    assert sum(group.billed_cost for group in gpu if group.gpu_model == "A10G") == pytest.approx(
        1.624 + 0.480884264 + 1.624
    )


def test_gzipped_and_parquet_copies_give_the_same_groups():
    plain = parse_focus(SAMPLE.open("rb"))
    zipped = parse_focus(io.BytesIO(gzip.compress(SAMPLE.read_bytes())))
    assert _totals(zipped) == pytest.approx(_totals(plain))
    table = pacsv.read_csv(SAMPLE, convert_options=pacsv.ConvertOptions(null_values=["NULL"]))
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    buffer.seek(0)
    parquet = parse_focus(buffer)
    assert parquet.ok, parquet.problems
    assert parquet.rows == 272
    assert _totals(parquet) == pytest.approx(_totals(plain))
    assert sum(g.gpu_hours for g in parquet.groups) == pytest.approx(3.296111)


def test_a_file_that_is_not_focus_names_the_missing_columns():
    with pytest.raises(FocusError) as caught:
        _parse("provider,gpu_model,price_per_gpu_hour,ProviderName\nAWS,H100,6.88,AWS\n")
    message = str(caught.value)
    assert "BilledCost" in message and "ChargePeriodStart" in message and "ServiceName" in message
    assert "ProviderName" not in message.split("missing")[0].split("column(s)")[1]


def test_an_unparseable_cost_names_its_line_and_column():
    rows = [
        "1.5,USD,Usage,2027-01-03 00:00:00,1.5,AWS,EC2,S1,r1,x,1,Hours,NULL",
        "1.5,USD,Usage,2027-01-03 00:00:00,one and a half,AWS,EC2,S1,r1,x,1,Hours,NULL",
    ]
    result = _parse("\n".join([HEADER, *rows]) + "\n")
    assert result.problems == ["Line 3, column EffectiveCost: 'one and a half' is not a number."]
    assert result.groups == []  # all or nothing


def test_months_come_from_charge_period_start_in_utc_and_every_category_counts():
    rows = [
        "10,USD,Usage,2027-01-31 23:00:00,10,AWS,EC2,S1,r1,x,1,Hours,NULL",  # no zone: UTC, January
        "20,USD,Usage,2027-02-01T01:00:00+02:00,20,AWS,EC2,S1,r1,x,1,Hours,NULL",  # 23:00 UTC on January 31
        "30,USD,Usage,2027-02-01T00:00:00Z,30,AWS,EC2,S1,r1,x,1,Hours,NULL",
        "-5,USD,Credit,2027-01-15 00:00:00,-5,AWS,EC2,S1,r1,x,NULL,NULL,NULL",
        "7,USD,Purchase,2027-01-15 00:00:00,0,AWS,EC2,S1,r1,x,NULL,NULL,NULL",
        "2,USD,Tax,2027-01-15 00:00:00,2,AWS,EC2,S1,r1,x,NULL,NULL,NULL",
    ]
    result = _parse("\n".join([HEADER, *rows]) + "\n")
    assert result.ok, result.problems
    by_month: dict[str, float] = defaultdict(float)
    for group in result.groups:
        by_month[group.month] += group.billed_cost
    assert by_month == {"2027-01": 10 + 20 - 5 + 7 + 2, "2027-02": 30}


def test_gpu_hours_are_instance_hours_times_gpus_per_instance_for_usage_only():
    rows = [
        "98.32,USD,Usage,2027-03-01 00:00:00,98.32,AWS,EC2,S1,i-1,Linux p4d.24xlarge Instance Hour,3,Hrs,NULL",
        "10,USD,Usage,2027-03-01 00:00:00,10,Microsoft,VMs,S2,vm-1,NC24ads A100 v4,10,10 Hours,NULL",
        "5,USD,Usage,2027-03-01 00:00:00,5,Google Cloud,GCE,S3,m-1,a3-highgpu-8g,2,h,NULL",
        "-98.32,USD,Credit,2027-03-01 00:00:00,-98.32,AWS,EC2,S1,i-1,p4d.24xlarge,3,Hrs,NULL",
        "1,USD,Usage,2027-03-01 00:00:00,1,AWS,EC2,S4,i-2,m5.xlarge,5,Hours,NULL",
    ]
    result = _parse("\n".join([HEADER, *rows]) + "\n")
    hours = {(g.sku, g.category): (g.gpu_model, g.gpus, g.gpu_hours) for g in result.groups}
    assert hours[("S1", "Usage")] == ("A100 40GB SXM", 8, 24.0)
    assert hours[("S1", "Credit")] == ("A100 40GB SXM", 8, 0.0)
    assert hours[("S2", "Usage")] == ("A100 80GB PCIe", 1, 100.0)
    assert hours[("S3", "Usage")] == ("H100", 8, 16.0)
    assert hours[("S4", "Usage")] == ("", 0, 0.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1.624 per On Demand Linux g5.4xlarge Instance Hour", ("A10G", 1)),
        ("g5.48xlarge", ("A10G", 8)),
        ("g4dn.12xlarge", ("T4", 4)),
        ("g3.16xlarge", ("M60", 4)),
        ("p4d.24xlarge", ("A100 40GB SXM", 8)),
        ("p5.48xlarge", ("H100 SXM", 8)),
        ("Standard_ND96isr_H100_v5", ("H100 SXM", 8)),
        ("NC4as T4 v3 Low Priority", ("T4", 1)),
        ("a2-highgpu-4g", ("A100", 4)),
        ("g2-standard-48", ("L4", 4)),
        ("m5.xlarge", None),
        ("Standard_D4s_v3", None),
    ],
)
def test_instance_types_name_their_gpus(text, expected):
    assert instance_gpus(text) == expected


def test_hour_units():
    assert hours_multiplier("Hours") == 1.0
    assert hours_multiplier("1 Hour") == 1.0
    assert hours_multiplier("10 Hours") == 10.0
    assert hours_multiplier("GB") is None
    assert hours_multiplier(None) is None


@pytest.mark.parametrize("compress", [False, True])
def test_a_row_with_too_many_fields_is_named_by_its_line(compress):
    lines = SAMPLE.read_text().splitlines()
    lines[5] += ",extra,fields"
    data = ("\n".join(lines) + "\n").encode()
    result = parse_focus(io.BytesIO(gzip.compress(data) if compress else data))
    assert result.problems == ["Line 6: 46 fields where the header has 44."]
    assert result.groups == []
