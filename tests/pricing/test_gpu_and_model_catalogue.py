"""The GPU catalogue's sizing figures and the model catalogue, as load_reference seeds them."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command

from pricing import services
from pricing.models import GpuModel, LanguageModel
from tests.pricing.conftest import FIXTURES

SPEC_FIELDS = ("memory_gib", "peak_dense_tflops_fp16", "peak_dense_tflops_fp8", "peak_dense_tflops_fp4")


def fixture_gpus() -> list[dict]:
    records = json.loads((FIXTURES / "reference.json").read_text(encoding="utf-8"))
    return [r["fields"] for r in records if r["model"] == "pricing.gpumodel"]


def test_every_gpu_in_the_fixture_cites_where_its_figures_come_from():
    for gpu in fixture_gpus():
        assert gpu["spec_source"], gpu["name"]
        assert gpu["memory_gib"], gpu["name"]
        if gpu["peak_dense_tflops_fp16"] is None:
            assert "blank" in gpu["spec_source"] or "no " in gpu["spec_source"], gpu["name"]


def test_memory_a_runtime_sees_is_below_the_datasheet_figure_for_every_gpu():
    for gpu in fixture_gpus():
        assert Decimal(gpu["memory_gib"]) < gpu["memory_gb"], gpu["name"]


def test_dense_figures_never_fall_as_the_precision_halves():
    """A tensor core runs at least as many operations at fewer bits; a datasheet's sparse figure read as dense
    would break no rule here, but a 16-bit figure above the 8-bit one would mean a column mix-up."""
    for gpu in fixture_gpus():
        figures = [gpu[f"peak_dense_tflops_{p}"] for p in ("fp16", "fp8", "fp4")]
        known = [Decimal(f) for f in figures if f is not None]
        assert known == sorted(known), gpu["name"]


@pytest.mark.django_db
def test_load_reference_gives_the_h100_the_memory_vllm_reports_and_its_dense_tflops():
    call_command("load_reference", stdout=io.StringIO())
    h100 = GpuModel.objects.get(name="H100 SXM")
    assert h100.memory_gib == Decimal("79.18")
    # NVIDIA's datasheet: BF16 1,979 and FP8 3,958 TFLOPS with sparsity; dense is half.
    assert (h100.peak_dense_tflops_fp16, h100.peak_dense_tflops_fp8) == (Decimal("989.50"), Decimal("1979.00"))
    assert h100.peak_dense_tflops_fp4 is None
    assert h100.gpus_per_node == 8
    assert GpuModel.objects.get(name="A100 80GB SXM").peak_dense_tflops_fp8 is None
    assert GpuModel.objects.get(name="GB200").gpus_per_node == 4


@pytest.mark.django_db
def test_a_gpu_loaded_before_the_sizing_figures_gets_them_and_an_edited_one_keeps_its_own():
    GpuModel.objects.create(name="H100 SXM", memory_gb=80)
    GpuModel.objects.create(name="L40S", memory_gb=48, memory_gib=Decimal("44.40"), spec_source="our own nvidia-smi")
    out = io.StringIO()
    call_command("load_reference", stdout=out)
    assert GpuModel.objects.get(name="H100 SXM").memory_gib == Decimal("79.18")
    l40s = GpuModel.objects.get(name="L40S")
    assert (l40s.memory_gib, l40s.peak_dense_tflops_fp16) == (Decimal("44.40"), None)
    assert "sizing figures given to 1 GPU models" in out.getvalue()
    out = io.StringIO()
    call_command("load_reference", stdout=out)
    assert "0 new language_models; sizing figures given to 0 GPU models" in out.getvalue()


@pytest.mark.django_db
def test_every_seeded_language_model_passes_the_admin_checks():
    services.reference_data_load(path=FIXTURES / "reference.json")
    models = list(LanguageModel.objects.all())
    assert len(models) >= 12
    for model in models:
        model.full_clean()
        assert model.source_url.startswith("https://huggingface.co/"), model.name


@pytest.mark.django_db
def test_the_seeded_llama_70b_holds_327680_bytes_of_kv_per_token_at_16_bits():
    services.reference_data_load(path=FIXTURES / "reference.json")
    llama = LanguageModel.objects.get(name="Llama-3.1-70B")
    # K and V, per layer, per KV head, per element of the head, 2 bytes each.
    assert 2 * llama.layers * llama.kv_heads * llama.head_dim * 2 == 327_680
    deepseek = LanguageModel.objects.get(name="DeepSeek-R1")
    assert (deepseek.kv_lora_rank, deepseek.qk_rope_head_dim, deepseek.layers) == (512, 64, 61)
    assert "nvidia/DeepSeek-R1-0528-FP4-V2" in deepseek.names()


def test_staff_editors_add_language_models_and_measurements_but_imported_ones_stay_history(client, editor):
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    assert client.get("/admin/pricing/languagemodel/add/").status_code == 200
    assert client.get("/admin/pricing/throughputmeasurement/add/").status_code == 200
    assert client.get("/admin/pricing/throughputimport/").status_code == 200
    assert client.get("/admin/pricing/throughputimport/add/").status_code == 403
