"""The throughput library's reads: rows in the shape sizing reads, the GPU catalogue, the export and the page."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from pricing import selectors
from pricing.models import GpuModel, LanguageModel, ThroughputMeasurement

pytestmark = pytest.mark.django_db

ROW_SHAPE = {
    "tp",
    "concurrency",
    "input_tokens",
    "output_tokens",
    "output_tokens_per_second_per_gpu",
    "ttft_ms",
    "tpot_ms",
    "source",
    "id",
    "measured_on",
}


@pytest.fixture
def h100() -> GpuModel:
    return GpuModel.objects.create(name="H100 SXM", memory_gb=80, memory_gib=Decimal("79.18"))


@pytest.fixture
def llama() -> LanguageModel:
    return LanguageModel.objects.create(
        name="Llama-3.1-70B", params_billion=Decimal("70.554"), layers=80, attention_heads=64, kv_heads=8, head_dim=128
    )


def measure(gpu, model, **changes) -> ThroughputMeasurement:
    fields = {
        "gpu_model": gpu,
        "language_model": model,
        "model_name": "meta-llama/Llama-3.1-70B-Instruct",
        "precision": "fp8",
        "weight_bits": 8,
        "tp": 2,
        "concurrency": 16,
        "input_tokens": 1024,
        "output_tokens": 1024,
        "output_tokens_per_second_per_gpu": 900.0,
        "ttft_ms": 120.0,
        "tpot_ms": 15.0,
        "statistic": "median",
        "source": "https://example.org/run-1",
        "measured_on": date(2026, 10, 1),
        "software": "vLLM 0.11",
    }
    measurement = ThroughputMeasurement(**(fields | changes))
    measurement.save()
    return measurement


def test_throughput_rows_come_in_the_sizing_row_shape_with_their_measurement_id(h100, llama):
    stored = measure(h100, llama)
    measure(h100, llama, statistic="p99", ttft_ms=400.0, tpot_ms=30.0)
    measure(h100, llama, weight_bits=16, precision="bf16", output_tokens_per_second_per_gpu=500.0)
    rows = selectors.throughput_rows(gpu_model=h100, language_model=llama, weight_bits=8, statistic="median")
    assert rows == [
        {
            "tp": 2,
            "concurrency": 16,
            "input_tokens": 1024,
            "output_tokens": 1024,
            "output_tokens_per_second_per_gpu": 900.0,
            "ttft_ms": 120.0,
            "tpot_ms": 15.0,
            "source": "https://example.org/run-1",
            "id": stored.pk,
            "measured_on": date(2026, 10, 1),
        }
    ]
    assert set(rows[0]) == ROW_SHAPE


def test_a_newer_run_of_the_same_point_is_what_sizing_reads_and_the_older_stays_in_the_library(h100, llama):
    older = measure(h100, llama)
    newer = measure(h100, llama, measured_on=date(2026, 11, 1), output_tokens_per_second_per_gpu=950.0)
    other_point = measure(h100, llama, concurrency=32, output_tokens_per_second_per_gpu=1400.0)
    rows = selectors.throughput_rows(gpu_model=h100.pk, language_model=llama.pk, weight_bits=8)
    assert [row["id"] for row in rows] == [newer.pk, other_point.pk]
    every = selectors.throughput_rows(gpu_model=h100, language_model=llama, weight_bits=8, latest_only=False)
    assert {row["id"] for row in every} == {older.pk, newer.pk, other_point.pk}
    assert ThroughputMeasurement.objects.count() == 3


def test_another_engine_at_the_same_point_is_not_an_older_run(h100, llama):
    vllm = measure(h100, llama)
    sglang = measure(h100, llama, software="SGLang 0.5", measured_on=date(2026, 11, 1))
    rows = selectors.throughput_rows(gpu_model=h100, language_model=llama, weight_bits=8)
    assert {row["id"] for row in rows} == {vllm.pk, sglang.pk}


def test_a_row_without_a_concurrency_sits_beside_rows_with_one(h100, llama):
    """MLPerf publishes no concurrency; its rows and a vllm run's at the same shape are read together."""
    mlperf = measure(h100, llama, concurrency=None, software="MLPerf v5.1 submission", statistic="p99")
    vllm = measure(h100, llama, statistic="p99")
    rows = selectors.throughput_rows(gpu_model=h100, language_model=llama, weight_bits=8, statistic="p99")
    assert [row["id"] for row in rows] == [mlperf.pk, vllm.pk]
    assert rows[0]["concurrency"] is None


def test_the_same_measurement_saved_twice_is_refused_by_its_key(h100, llama):
    from django.db import IntegrityError

    measure(h100, llama)
    with pytest.raises(IntegrityError):
        measure(h100, llama)


def test_an_ordinary_model_has_no_latent_sizes_in_its_sizing_shape(llama):
    assert selectors.language_model_shape(language_model=llama) == {
        "name": "Llama-3.1-70B",
        "params_billion": 70.554,
        "layers": 80,
        "attention_heads": 64,
        "kv_heads": 8,
        "head_dim": 128,
    }


def test_gpu_catalogue_gives_the_sizing_fields(h100):
    GpuModel.objects.create(name="Mystery", memory_gb=10)
    catalogue = selectors.gpu_catalogue(with_memory_only=True)
    assert [gpu["name"] for gpu in catalogue] == ["H100 SXM"]
    assert set(catalogue[0]) == set(selectors.GPU_CATALOGUE_FIELDS)
    assert catalogue[0]["memory_gib"] == Decimal("79.18") and catalogue[0]["gpus_per_node"] == 8
    assert len(selectors.gpu_catalogue()) == 2


def test_export_throughput_writes_one_row_per_measurement_with_the_agreed_columns(h100, llama):
    measure(h100, llama)
    measure(h100, None, model_name="my-finetune", statistic="p99", ttft_ms=None)
    out = io.StringIO()
    call_command("export_throughput", stdout=out)
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0] == [
        "gpu_model",
        "model",
        "precision",
        "tp",
        "concurrency",
        "input_tokens",
        "output_tokens",
        "output_tokens_per_second_per_gpu",
        "ttft_ms",
        "tpot_ms",
        "statistic",
        "source",
    ]
    assert rows[1] == [
        "H100 SXM",
        "Llama-3.1-70B",
        "fp8",
        "2",
        "16",
        "1024",
        "1024",
        "900.0",
        "120.0",
        "15.0",
        "median",
        "https://example.org/run-1",
    ]
    assert rows[2][1] == "my-finetune" and rows[2][8] == "" and rows[2][10] == "p99"


def test_the_library_page_lists_rows_with_their_provenance_and_filters_by_gpu(client, editor, h100, llama):
    l40s = GpuModel.objects.create(name="L40S", memory_gb=48)
    measure(h100, llama, hardware="8x H100 SXM, HGX")
    measure(l40s, llama, source="our own run on 2026-10-01", software="vLLM 0.10")
    client.force_login(editor)
    page = client.get("/market/throughput/").content.decode()
    assert "8x H100 SXM, HGX" in page and "our own run on 2026-10-01" in page and "2026-10-01" in page
    assert "fp8 (8-bit)" in page
    filtered = client.get("/market/throughput/", {"gpu": l40s.pk}).content.decode()
    assert "our own run on 2026-10-01" in filtered and "8x H100 SXM, HGX" not in filtered
    assert client.get("/market/throughput/", {"gpu": 999999}).status_code == 400


def test_the_market_links_to_the_library(client, editor):
    client.force_login(editor)
    assert "/market/throughput/" in client.get("/market/").content.decode()


def test_a_staff_editor_types_a_measurement_in_the_admin_and_the_same_one_again_is_refused(client, editor, h100, llama):
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    form = {
        "gpu_model": h100.pk,
        "language_model": llama.pk,
        "model_name": "Llama-3.1-70B",
        "precision": "fp8",
        "weight_bits": 8,
        "tp": 2,
        "concurrency": 8,
        "input_tokens": 2000,
        "output_tokens": 500,
        "output_tokens_per_second_per_gpu": "700",
        "ttft_ms": "90",
        "tpot_ms": "",
        "statistic": "median",
        "source": "Our own run: vllm bench serve on the lab's node, 2026-11-20",
        "measured_on": "2026-11-20",
    }
    response = client.post("/admin/pricing/throughputmeasurement/add/", form)
    assert response.status_code == 302
    typed = ThroughputMeasurement.objects.get()
    assert typed.created_by == editor and typed.throughput_import is None and len(typed.row_key) == 64
    again = client.post("/admin/pricing/throughputmeasurement/add/", form)
    assert again.status_code == 200 and "in the library already" in again.content.decode()
    assert ThroughputMeasurement.objects.count() == 1
