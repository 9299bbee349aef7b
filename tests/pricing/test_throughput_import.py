"""Throughput imports on the real sample files: atomic, idempotent, every refused record with its reason, history
kept; GPU names through the aliases, model names through the model catalogue."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError

from pricing import selectors, services
from pricing.models import (
    GpuModel,
    LanguageModel,
    ThroughputImport,
    ThroughputImportStatus,
    ThroughputMeasurement,
)
from pricing.services.throughput import model_name_candidates, weight_bits_of
from tests.pricing.conftest import FIXTURES

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "throughput"
NVIDIA = DATA / "inferencex-agg_bmk-dsr1-b200-h200.json"
AMD = DATA / "inferencex-agg_bmk-dsr1-mi300x-mi325x-mi355x.json"
MLPERF = DATA / "mlperf-inference-v5.1-summary_results.json"


@pytest.fixture
def reference(db) -> None:
    services.reference_data_load(path=FIXTURES / "reference.json")


def run(content: bytes, **options) -> ThroughputImport:
    options.setdefault("file_name", "test.json")
    return services.throughput_import(content=content, **options)


def records(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def as_bytes(data) -> bytes:
    return json.dumps(data).encode("utf-8")


# ---- names ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("precision", "bits"),
    [("fp8", 8), ("BF16", 16), ("mxfp4", 4), ("UINT4", 4), ("INT8", 8), ("fp32", None), ("UNSET", None)],
)
def test_precisions_as_files_write_them_become_the_bits_sizing_reads(precision, bits):
    assert weight_bits_of(precision) == bits


def test_a_model_name_is_tried_without_its_path_and_its_suffixes_one_at_a_time():
    assert model_name_candidates("nvidia/DeepSeek-R1-0528-FP4-V2") == [
        "nvidia/DeepSeek-R1-0528-FP4-V2",
        "DeepSeek-R1-0528-FP4-V2",
        "DeepSeek-R1-0528-FP4",
        "DeepSeek-R1-0528",
    ]
    assert model_name_candidates("llama2-70b-99.9") == ["llama2-70b-99.9", "llama2-70b"]


# ---- InferenceX -------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("reference")
def test_an_inferencex_file_imports_a_median_and_a_p99_row_per_record_on_the_aliased_gpus():
    record = run(NVIDIA.read_bytes(), file_name=NVIDIA.name)
    assert record.status == ThroughputImportStatus.IMPORTED and record.format == "inferencex"
    assert (record.rows_total, record.rows_new, record.rows_known, record.rows_refused) == (63, 126, 0, 0)
    by_gpu = {name: ThroughputMeasurement.objects.filter(gpu_model__name=name).count() for name in ("B200", "H200 SXM")}
    first = records(NVIDIA)[0]  # b200, conc 16, fp4, tp 4: its latencies are in seconds in the file
    assert by_gpu == {
        "B200": 2 * sum(r["hw"] == "b200" for r in records(NVIDIA)),
        "H200 SXM": 2 * sum(r["hw"] == "h200" for r in records(NVIDIA)),
    }
    row = ThroughputMeasurement.objects.get(
        gpu_model__name="B200",
        tp=first["tp"],
        concurrency=first["conc"],
        input_tokens=first["isl"],
        output_tokens=first["osl"],
        precision="fp4",
        statistic="median",
    )
    assert row.ttft_ms == pytest.approx(first["median_ttft"] * 1000)
    assert row.tpot_ms == pytest.approx(first["median_tpot"] * 1000)
    assert row.output_tokens_per_second_per_gpu == pytest.approx(first["output_tput_per_gpu"])
    assert (row.weight_bits, row.language_model.name, row.model_name) == (4, "DeepSeek-R1", first["model"])
    assert NVIDIA.name in row.source and "sglang" in row.software


@pytest.mark.usefixtures("reference")
def test_importing_the_same_file_twice_adds_nothing_even_under_another_name():
    run(NVIDIA.read_bytes(), file_name=NVIDIA.name)
    again = run(NVIDIA.read_bytes(), file_name="renamed.json")
    assert (again.status, again.rows_new, again.rows_known) == (ThroughputImportStatus.IMPORTED, 0, 126)
    assert ThroughputMeasurement.objects.count() == 126
    assert "0 new, 126 already known" in again.summary


@pytest.mark.usefixtures("reference")
def test_the_amd_file_lands_on_the_three_instinct_gpus():
    record = run(AMD.read_bytes())
    assert (record.rows_new, record.rows_refused) == (90, 0)
    names = set(ThroughputMeasurement.objects.values_list("gpu_model__name", flat=True))
    assert names == {"MI300X", "MI325X", "MI355X"}


@pytest.mark.usefixtures("reference")
def test_bad_records_are_refused_with_their_reason_and_the_rest_imported():
    data = records(NVIDIA)
    data[2]["hw"] = "z9000"
    data[4]["tp"] = 0
    data[6]["precision"] = "fp32"
    record = run(as_bytes(data))
    assert record.status == ThroughputImportStatus.IMPORTED
    assert (record.rows_new, record.rows_refused, record.rows_total) == (120, 3, 63)
    reasons = {entry["line"]: entry for entry in record.refused}
    assert set(reasons) == {3, 5, 7}
    assert "unknown GPU model 'z9000'" in reasons[3]["reason"] and reasons[3]["column"] == "gpu"
    assert reasons[5]["column"] == "tp" and "whole number" in reasons[5]["reason"]
    assert reasons[7]["value"] == "fp32" and "16-, 8- or 4-bit" in reasons[7]["reason"]


@pytest.mark.usefixtures("reference")
def test_an_import_that_fails_while_storing_stores_nothing(monkeypatch):
    original = ThroughputMeasurement.objects.bulk_create

    def half_then_fail(objects, **kwargs):
        original(list(objects)[:10], **kwargs)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(ThroughputMeasurement.objects, "bulk_create", half_then_fail)
    with pytest.raises(RuntimeError):
        run(NVIDIA.read_bytes())
    assert ThroughputMeasurement.objects.count() == 0


@pytest.mark.usefixtures("reference")
def test_a_clash_with_an_import_at_the_same_moment_fails_the_import_in_words(monkeypatch):
    def clash(objects, **kwargs):
        raise IntegrityError("UNIQUE constraint failed: row_key")

    monkeypatch.setattr(ThroughputMeasurement.objects, "bulk_create", clash)
    record = run(NVIDIA.read_bytes())
    assert record.status == ThroughputImportStatus.FAILED and "import the file again" in record.error
    assert ThroughputMeasurement.objects.count() == 0


@pytest.mark.usefixtures("reference")
def test_a_newer_run_is_a_new_row_and_the_older_one_stays():
    run(NVIDIA.read_bytes())
    data = records(NVIDIA)
    for record in data:
        record["output_tput_per_gpu"] *= 1.1
    newer = run(as_bytes(data), given={"measured_on": "2026-11-30"})
    assert newer.rows_new == 126 and ThroughputMeasurement.objects.count() == 252
    b200 = GpuModel.objects.get(name="B200")
    deepseek = LanguageModel.objects.get(name="DeepSeek-R1")
    rows = selectors.throughput_rows(gpu_model=b200, language_model=deepseek, weight_bits=4)
    newest = ThroughputMeasurement.objects.filter(throughput_import=newer).values_list("id", flat=True)
    assert rows and {row["id"] for row in rows} <= set(newest)
    assert {str(day) for day in ThroughputMeasurement.objects.values_list("measured_on", flat=True)} == {
        "None",
        "2026-11-30",
    }


@pytest.mark.usefixtures("reference")
def test_selected_rows_size_a_workload_with_the_engine():
    """The selector's rows are what the sizing document takes: the B200 serves DeepSeek-R1 at 4 bits."""
    from tco.engine.sizing import size

    run(NVIDIA.read_bytes())
    b200 = GpuModel.objects.get(name="B200")
    deepseek = LanguageModel.objects.get(name="DeepSeek-R1")
    rows = selectors.throughput_rows(gpu_model=b200, language_model=deepseek, weight_bits=4)
    model = selectors.language_model_shape(language_model=deepseek)
    assert model == {
        "name": "DeepSeek-R1",
        "params_billion": 671.0,
        "layers": 61,
        "attention_heads": 128,
        "kv_heads": 128,
        "head_dim": 128,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
    }
    shape = (rows[0]["input_tokens"], rows[0]["output_tokens"])
    document = {
        "schema": "tco-sizing/1",
        "model": model,
        "weight_bits": 4,
        "traffic": [{"requests_per_second": 1.0, "input_tokens": shape[0], "output_tokens": shape[1]}],
        "gpus": [
            {
                "name": b200.name,
                "memory_gib": float(b200.memory_gib),
                "price_per_gpu_hour": 5.0,
                "throughput": [{k: v for k, v in row.items() if k != "measured_on"} for row in rows],
            }
        ],
    }
    result = size(document)
    assert result["gpus"][0]["best"]["gpus"] >= 1
    # (512 + 64) x 61 layers x 2 bytes at 16-bit KV: latent attention caches one latent per layer, not K and V.
    assert result["kv_bytes_per_token"] == 70_272


@pytest.mark.usefixtures("reference")
def test_a_model_added_after_the_import_is_linked_to_its_rows():
    LanguageModel.objects.filter(name="DeepSeek-R1").delete()
    run(NVIDIA.read_bytes())
    assert ThroughputMeasurement.objects.filter(language_model__isnull=True).count() == 126
    LanguageModel.objects.create(
        name="R1",
        aliases="DeepSeek-R1-0528",
        params_billion=671,
        layers=61,
        attention_heads=128,
        kv_heads=128,
        head_dim=128,
        kv_lora_rank=512,
        qk_rope_head_dim=64,
    )
    assert services.throughput_models_link() == 126


# ---- MLPerf and vllm bench serve ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("reference")
def test_mlperf_results_are_rows_at_the_benchmarks_published_limits():
    record = run(MLPERF.read_bytes(), given={"input_tokens": 1024})
    assert record.format == "mlperf" and record.rows_new > 300
    server = ThroughputMeasurement.objects.filter(model_name="llama2-70b-99", source__contains="Server")
    # mlperf.conf: llama2-70b.Server.ttft_latency = 2000, tpot_latency = 200 (ms, 99th percentile)
    assert server.exists()
    assert {(r.ttft_ms, r.tpot_ms, r.statistic) for r in server} == {(2000.0, 200.0, "p99")}
    assert {r.language_model.name for r in server} == {"Llama-2-70B"}
    unset = [entry for entry in record.refused if entry["value"] == "UNSET"]
    assert unset and all("16-, 8- or 4-bit" in entry["reason"] for entry in unset)


@pytest.mark.usefixtures("reference")
def test_the_command_refuses_an_mlperf_file_without_input_tokens_naming_the_reason():
    err = io.StringIO()
    with pytest.raises(CommandError, match="Rejected"):
        call_command("import_throughput", str(MLPERF), stdout=io.StringIO(), stderr=err)
    assert "give the input tokens" in err.getvalue()
    assert ThroughputMeasurement.objects.count() == 0


VLLM_RESULT = {
    "date": "20261115-093000",
    "backend": "vllm",
    "model_id": "meta-llama/Llama-3.1-70B-Instruct",
    "max_concurrency": 32,
    "completed": 1000,
    "total_input_tokens": 1_024_000,
    "total_output_tokens": 128_000,
    "output_throughput": 2400.0,
    "median_ttft_ms": 180.0,
    "p99_ttft_ms": 900.0,
    "median_tpot_ms": 22.0,
    "p99_tpot_ms": 41.0,
}


@pytest.mark.usefixtures("reference")
def test_the_command_imports_a_vllm_bench_result_with_the_gpu_and_tp_it_is_given(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(VLLM_RESULT))
    out = io.StringIO()
    call_command("import_throughput", str(path), "--gpu", "h100", "--tp", "2", "--precision", "bf16", stdout=out)
    assert "2 new, 0 already known" in out.getvalue()
    median = ThroughputMeasurement.objects.get(statistic="median")
    assert median.gpu_model.name == "H100 SXM" and median.language_model.name == "Llama-3.1-70B"
    assert median.output_tokens_per_second_per_gpu == 1200.0  # 2,400 tokens/s over 2 GPUs
    assert (median.input_tokens, median.output_tokens, median.concurrency) == (1024, 128, 32)
    assert str(median.measured_on) == "2026-11-15" and median.weight_bits == 16


@pytest.mark.usefixtures("reference")
def test_a_vllm_result_without_a_precision_is_refused_asking_for_it(tmp_path):
    record = run(as_bytes(VLLM_RESULT), given={"gpu": "h100", "tp": 2})
    assert record.status == ThroughputImportStatus.REJECTED
    assert record.refused[0]["column"] == "precision" and "give the precision" in record.refused[0]["reason"]


@pytest.mark.usefixtures("reference")
@pytest.mark.parametrize(
    ("content", "format", "reason"),
    [
        (b"not json at all", "inferencex", "not JSON"),
        (b"not json at all", "auto", "Not a known throughput format"),
        (b'{"hello": 1}', "auto", "Not a known throughput format"),
        (b"\xff\xfe", "auto", "UTF-8"),
    ],
)
def test_an_unreadable_file_is_rejected_with_the_reason(content, format, reason):
    record = run(content, format=format)
    assert record.status == ThroughputImportStatus.REJECTED and record.rows_total == 0
    assert reason in record.refused[0]["reason"] and reason in record.summary
    assert ThroughputMeasurement.objects.count() == 0


@pytest.mark.usefixtures("reference")
def test_a_file_over_the_size_limit_is_rejected_naming_the_limit(settings):
    settings.PRICE_IMPORT_MAX_BYTES = 1000
    record = run(NVIDIA.read_bytes())
    assert record.status == ThroughputImportStatus.REJECTED
    assert "the limit is 1,000 bytes (PRICE_IMPORT_MAX_BYTES)" in record.refused[0]["reason"]


# ---- upload -----------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("reference")
def test_an_editor_uploads_a_file_and_its_page_shows_what_became_of_every_record(
    editor_client, django_capture_on_commit_callbacks
):
    data = records(NVIDIA)
    data[0]["hw"] = "z9000"
    upload = io.BytesIO(as_bytes(data))
    upload.name = "agg_bmk.json"
    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post("/market/throughput/import/", {"file": upload, "format": "auto"})
    record = ThroughputImport.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/market/throughput/imports/{record.pk}/"
    assert (record.origin, record.status, record.rows_new, record.rows_refused) == ("upload", "imported", 124, 1)
    assert ThroughputImport.objects.filter(pk=record.pk, content__isnull=True).exists()  # the bytes are let go
    page = editor_client.get(response["Location"]).content.decode()
    assert "124 new, 0 already known measurements; 1 of 63 records refused" in page
    assert "unknown GPU model &#x27;z9000&#x27;" in page


@pytest.mark.usefixtures("reference")
def test_an_upload_waits_for_its_worker_and_its_page_polls(editor_client, django_capture_on_commit_callbacks):
    upload = io.BytesIO(NVIDIA.read_bytes())
    upload.name = "agg_bmk.json"
    with django_capture_on_commit_callbacks(execute=False):
        response = editor_client.post("/market/throughput/import/", {"file": upload, "format": "inferencex"})
    page = editor_client.get(response["Location"]).content.decode()
    assert 'hx-trigger="every 1s"' in page and ThroughputMeasurement.objects.count() == 0


def test_a_viewer_cannot_upload(viewer_client):
    assert viewer_client.get("/market/throughput/import/").status_code == 403


# ---- schedule -----------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("reference")
def test_a_scheduled_throughput_source_runs_once_per_cadence_beside_the_price_sources(settings):
    from pricing.models import ThroughputSource

    settings.PRICE_IMPORT_DIR = DATA
    source = ThroughputSource.objects.create(name="InferenceX B200/H200", location=NVIDIA.name, cadence_hours=24)
    out = io.StringIO()
    call_command("run_scheduled_imports", stdout=out)
    source.refresh_from_db()
    assert source.last_import.status == ThroughputImportStatus.IMPORTED and source.last_import.rows_new == 126
    assert source.last_import.origin == "schedule" and f"{NVIDIA.name}: throughput import" in out.getvalue()
    out = io.StringIO()
    call_command("run_scheduled_imports", stdout=out)
    assert out.getvalue().strip() == "No scheduled import is due."
    call_command("run_scheduled_imports", "--all", stdout=io.StringIO())
    source.refresh_from_db()
    assert source.last_import.rows_known == 126 and ThroughputMeasurement.objects.count() == 126


@pytest.mark.usefixtures("reference")
def test_a_scheduled_source_whose_file_is_gone_records_a_failed_import(settings):
    from pricing.models import ThroughputSource

    settings.PRICE_IMPORT_DIR = DATA
    source = ThroughputSource.objects.create(name="gone", location="nothing-here.json")
    [record] = services.throughput_sources_run_due()
    assert record.status == ThroughputImportStatus.FAILED and "no such file" in record.error
    source.refresh_from_db()
    assert source.last_import == record


def test_a_throughput_source_outside_the_import_folder_or_with_an_unknown_key_is_refused(settings, tmp_path):
    from django.core.exceptions import ValidationError

    from pricing.models import ThroughputSource

    settings.PRICE_IMPORT_DIR = tmp_path
    with pytest.raises(ValidationError) as outside:
        ThroughputSource(name="x", location="../../etc/passwd").clean()
    assert "location" in outside.value.message_dict
    with pytest.raises(ValidationError) as unknown:
        ThroughputSource(name="x", location="a.json", given={"gpus": "h100"}).clean()
    assert "Unknown key 'gpus'" in unknown.value.message_dict["given"][0]


def test_seed_demo_fills_the_library_once_from_the_fixture_copies(db, run_jobs):
    with run_jobs():
        call_command("seed_demo", stdout=io.StringIO())
        call_command("seed_demo", stdout=io.StringIO())
    assert ThroughputImport.objects.filter(origin="seed").count() == 2
    assert ThroughputMeasurement.objects.count() == 2 * (63 + 45)
    assert (FIXTURES / "throughput" / NVIDIA.name).read_bytes() == NVIDIA.read_bytes()


@pytest.mark.usefixtures("reference")
def test_a_model_added_in_the_admin_takes_the_rows_imported_under_its_name(client, editor):
    LanguageModel.objects.filter(name="DeepSeek-R1").delete()
    run(AMD.read_bytes())
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    form = {
        "name": "DeepSeek-R1",
        "hf_id": "deepseek-ai/DeepSeek-R1-0528",
        "params_billion": "671",
        "layers": 61,
        "attention_heads": 128,
        "kv_heads": 128,
        "head_dim": 128,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
    }
    response = client.post("/admin/pricing/languagemodel/add/", form, follow=True)
    assert "90 measured throughput rows now name DeepSeek-R1" in response.content.decode()
    assert ThroughputMeasurement.objects.filter(language_model__name="DeepSeek-R1").count() == 90
