"""Importing bills and GPU use: atomic, a duplicate adds nothing, bad files refused in words; the commands."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tco.models import ActualsImport, BillingLine, UtilizationSample
from tco.services.actuals import ActualsImportError, actuals_import

SAMPLES = Path(__file__).parent / "samples"
FOCUS = SAMPLES / "focus-1.0-sample-excerpt.csv"
DCGM = SAMPLES / "dcgm-exporter-L4.prom"
OPENCOST = SAMPLES / "opencost-allocation-response.json"

pytestmark = pytest.mark.django_db


def _import(data: bytes, name: str = "file.csv", **kwargs):
    return actuals_import(stream=io.BytesIO(data), file_name=name, **kwargs)


def test_the_focus_sample_imports_once_and_keeps_every_cent():
    outcome = _import(FOCUS.read_bytes(), FOCUS.name)
    assert outcome.created
    assert outcome.record.rows_read == 272
    expected = sum(
        Decimal(row["BilledCost"])
        for row in csv.DictReader(io.StringIO(FOCUS.read_text()))
        if row["BilledCost"] != "NULL"
    )
    total = sum(line.billed_cost for line in BillingLine.objects.all())
    assert total == pytest.approx(expected, abs=Decimal("0.000001"))
    again = _import(FOCUS.read_bytes(), "renamed.csv")
    assert not again.created and again.record == outcome.record
    assert ActualsImport.objects.count() == 1
    assert sum(line.billed_cost for line in BillingLine.objects.all()) == total


def test_a_bad_cost_refuses_the_whole_file_and_names_line_and_column():
    text = FOCUS.read_text().splitlines()
    row = next(csv.reader([text[5]]))
    row[1] = "12,5 USD"  # BilledCost is the second column of the sample
    written = io.StringIO()
    csv.writer(written, lineterminator="").writerow(row)
    text[5] = written.getvalue()
    with pytest.raises(ActualsImportError) as caught:
        _import(("\n".join(text) + "\n").encode())
    assert "Line 6, column BilledCost: '12,5 USD' is not a number." in caught.value.messages
    assert not ActualsImport.objects.exists()
    assert not BillingLine.objects.exists()


def test_a_file_that_is_not_focus_names_the_missing_columns():
    with pytest.raises(ActualsImportError) as caught:
        _import(b"BilledCost,Cost,Month\n1,2,2027-01\n", "bill.csv")
    assert "ChargePeriodStart" in caught.value.message and "ProviderName" in caught.value.message
    assert not ActualsImport.objects.exists()


def test_owned_costs_are_billing_lines_of_the_owned_provider():
    data = b"month,kind,amount,currency,description,resource\n2027-01,invoice,320000,USD,8x H100 server,rack-7\n"
    data += b"2027-01,energy,1234.56,EUR,power,rack-7\n"
    _import(data, "owned.csv")
    lines = {line.service: line for line in BillingLine.objects.all()}
    assert lines["invoice"].billed_cost == Decimal("320000") and lines["invoice"].provider == "Owned"
    assert lines["energy"].currency == "EUR" and lines["energy"].billed_cost == Decimal("1234.56")


def test_owned_costs_with_a_bad_row_are_refused_by_line_and_column():
    data = b"month,kind,amount,currency\n2027-01,energy,12,USD\n2027-13,energy,twelve,XXX\n"
    with pytest.raises(ActualsImportError) as caught:
        _import(data, "owned.csv")
    assert "Line 3, column month: '2027-13' is not a month written YYYY-MM." in caught.value.messages
    assert "Line 3, column amount: 'twelve' is not a number." in caught.value.messages
    assert not BillingLine.objects.exists()


def test_the_dcgm_scrape_is_one_idle_l4_for_the_month_given():
    _import(DCGM.read_bytes(), DCGM.name, month="2027-01")
    (sample,) = UtilizationSample.objects.all()
    assert (sample.provider, sample.month, sample.gpu_model) == ("DCGM", "2027-01", "NVIDIA L4")
    assert sample.resource == "i-030791dc5a37cd257"
    assert sample.busy_gpu_hours == 0.0


def test_a_malformed_metric_line_is_reported_not_fatal():
    text = DCGM.read_text() + 'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-2" 55\n'
    text += 'DCGM_FI_DEV_GPU_UTIL{gpu="2",UUID="GPU-3",Hostname="h2",modelName="NVIDIA L4"} 40\n'
    outcome = _import(text.encode(), "scrape.prom", month="2027-01")
    assert len(outcome.record.problems) == 1 and "not a metric line" in outcome.record.problems[0]
    busy = {s.gpu: s.busy_gpu_hours for s in UtilizationSample.objects.all()}
    assert busy["GPU-3"] == pytest.approx(0.40 * 730)
    assert "GPU-2" not in busy


def test_a_scrape_without_timestamps_needs_its_month():
    with pytest.raises(ActualsImportError) as caught:
        _import(DCGM.read_bytes(), DCGM.name)
    assert "give the month" in caught.value.message


def test_prometheus_range_vectors_are_time_weighted_per_month():
    # One GPU at 100 % for the last 2 hours of January then 0 % for 1 hour of February, hourly steps.
    jan_end = 1801432800  # 2027-01-31T22:00:00Z
    series = {
        "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-a", "Hostname": "node-1"},
        "values": [[jan_end, "100"], [jan_end + 3600, "100"], [jan_end + 7200, "0"]],
    }
    body = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}})
    _import(body.encode(), "query.json")
    months = {s.month: s for s in UtilizationSample.objects.all()}
    assert months["2027-01"].busy_gpu_hours == pytest.approx(730.0)  # 100 % of the hours seen
    assert months["2027-02"].busy_gpu_hours == pytest.approx(0.0)
    assert months["2027-01"].gpu_hours == pytest.approx(2.0)


def test_opencost_allocations_carry_allocated_hours_and_cost_not_use():
    _import(OPENCOST.read_bytes(), OPENCOST.name)
    samples = list(UtilizationSample.objects.all())
    assert len(samples) == 3
    assert {s.month for s in samples} == {"2023-01"}
    assert all(s.busy_gpu_hours is None and s.gpu_hours == 0.0 and s.cost == 0 for s in samples)


def test_commands_import_and_export_the_month_as_csv(capsys):
    call_command("import_billing", str(FOCUS))
    out = io.StringIO()
    call_command("export_billing", "--month", "2024-09", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == ["provider", "service", "sku", "billed_cost", "effective_cost", "currency", "gpu_hours"]
    expected: dict[tuple, Decimal] = defaultdict(Decimal)
    for row in csv.DictReader(io.StringIO(FOCUS.read_text())):
        expected[(row["ProviderName"], row["ServiceName"], row["SkuId"])] += (
            Decimal(row["BilledCost"]) if row["BilledCost"] != "NULL" else Decimal(0)
        )
    got = {(r["provider"], r["service"], r["sku"] if r["sku"] else "NULL"): Decimal(r["billed_cost"]) for r in rows}
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=Decimal("0.000001"))
    g5 = next(r for r in rows if r["sku"] == "4GQWNPC9K2PZAY97")
    assert float(g5["gpu_hours"]) == pytest.approx(2.296111)
    again = io.StringIO()
    call_command("import_billing", str(FOCUS), stdout=again)
    assert "nothing added" in again.getvalue()


def test_import_utilization_refuses_a_billing_file():
    with pytest.raises(CommandError, match="expected"):
        call_command("import_utilization", str(FOCUS))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"month": "2027-13"}, "write the month as YYYY-MM"), ({"currency": "DOLLARS"}, "not an ISO 4217")],
)
def test_a_bad_month_or_currency_is_refused_before_reading(kwargs, words):
    with pytest.raises(ActualsImportError, match=words):
        _import(DCGM.read_bytes(), DCGM.name, **kwargs)
    assert not ActualsImport.objects.exists()
