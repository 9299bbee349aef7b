"""The editor's "Training" section: the training plan's inputs saved one at a time, what is still missing listed in
the section's words, a cluster the owned hardware cannot hold or an MFU outside (0, 1] refused at the input with
nothing saved; and a rental's capacity-block billing with its block inputs."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from tco.documents import scenario_document
from tco.engine.catalogue import scenario_fields
from tco.models import Scenario, ScenarioOption
from tests.scenarios import factories
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}


def _post(client, url, field, value, scenario):
    version = Scenario.objects.get(pk=scenario.pk).version
    return Workspace(client.post(url, {field: value, "version": version}, **HTMX).content.decode())


def _scenario_field(client, scenario, field, value):
    return _post(client, reverse("tco:scenario_field", args=[scenario.pk]), field, value, scenario)


def _page(client, scenario):
    return Workspace(client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode())


def test_the_training_section_starts_with_the_runs_and_shows_every_input_once_a_plan_is_begun(editor_client, scenario):
    page = _page(editor_client, scenario)
    assert page.text("training-title") == "Training"
    assert page.text("f-s-training_runs_per_year").startswith("Training runs (runs per year)")
    assert not page.has("f-s-training_cluster_gpus")
    page = _scenario_field(editor_client, scenario, "training_runs_per_year", "2")
    for entry in scenario_fields("training"):
        assert page.text(f"f-s-{entry.field}").startswith(entry.label)


def test_a_plan_typed_one_input_at_a_time_is_saved_and_lists_what_it_still_needs(editor_client, scenario):
    page = _scenario_field(editor_client, scenario, "training_runs_per_year", "4")
    assert Scenario.objects.get(pk=scenario.pk).training_runs_per_year == Decimal(4)
    todo = page.text("to-complete")
    assert "Training → Cluster size" in todo
    assert "Training → GPU peak (dense)" in todo


def test_a_complete_plan_goes_into_the_document(editor_client, scenario):
    for field, value in (
        ("training_runs_per_year", "4"),
        ("training_gpu_hours", "10000"),
        ("training_cluster_gpus", "8"),
    ):
        _scenario_field(editor_client, scenario, field, value)
    _scenario_field(editor_client, scenario, "training_success_rate", "50%")
    document = scenario_document(Scenario.objects.get(pk=scenario.pk))
    assert document["training"] == {"runs_per_year": 4, "gpu_hours": 10000, "cluster_gpus": 8, "success_rate": 0.5}


def test_a_cluster_larger_than_the_owned_hardware_is_refused_at_the_input(editor_client, scenario):
    for field, value in (
        ("training_runs_per_year", "4"),
        ("training_gpu_hours", "10000"),
        ("training_cluster_gpus", "8"),
    ):
        _scenario_field(editor_client, scenario, field, value)
    page = _scenario_field(editor_client, scenario, "training_cluster_gpus", "64")
    assert "which owns only 8 GPUs" in page.text("f-s-training_cluster_gpus")
    assert Scenario.objects.get(pk=scenario.pk).training_cluster_gpus == 8


def test_an_mfu_above_one_is_refused_with_nothing_saved(editor_client, scenario):
    page = _scenario_field(editor_client, scenario, "training_mfu", "140%")
    assert "Model FLOPs utilization (MFU) must be" in page.text("f-s-training_mfu")
    assert Scenario.objects.get(pk=scenario.pk).training_mfu is None


def test_a_capacity_block_rental_shows_its_block_inputs(editor_client, scenario):
    for field, value in (
        ("training_runs_per_year", "4"),
        ("training_gpu_hours", "10000"),
        ("training_cluster_gpus", "8"),
    ):
        _scenario_field(editor_client, scenario, field, value)
    rental = ScenarioOption.objects.filter(scenario=scenario, kind="neocloud").get()
    before = _page(editor_client, scenario)
    assert not before.has(f"f-o{rental.pk}-block_days")
    url = reverse("tco:option_field", args=[scenario.pk, rental.pk])
    page = _post(editor_client, url, "billing", "capacity_block", scenario)
    assert "Capacity block" in page.text(f"f-o{rental.pk}-billing")
    assert page.text(f"f-o{rental.pk}-block_days").startswith("Block length (days)")
    assert page.text(f"f-o{rental.pk}-block_gpus").startswith("GPUs per block")


def test_the_answer_shows_the_plan_s_figures_and_each_option_s_cost_per_validated_version(
    editor_client, scenario, run_jobs
):
    with run_jobs():
        for field, value in (
            ("training_runs_per_year", "4"),
            ("training_gpu_hours", "10000"),
            ("training_cluster_gpus", "8"),
        ):
            _scenario_field(editor_client, scenario, field, value)
    page = _page(editor_client, scenario)
    assert page.text("training-gpu_hours_per_attempt") == "10,000 GPU-hours"
    assert page.text("training-wall_clock_days") == "52.1 days"
    table = page.text("option-table")
    assert "Per validated model version" in table
    assert "serves no training" in table  # the managed API


def test_the_gpu_peak_can_be_taken_from_an_option_s_gpu_in_the_catalogue(editor_client, scenario):
    gpu = factories.gpu_model()
    gpu.peak_dense_tflops_fp16, gpu.peak_dense_tflops_fp8 = Decimal("989.00"), Decimal("1979.00")
    gpu.save()
    owned = ScenarioOption.objects.filter(scenario=scenario, kind="owned").get()
    owned.gpu_model = gpu
    owned.save()
    page = _page(editor_client, scenario)
    choices = page.text("training-peak-preset")
    assert f"989 TFLOPS: {gpu.name} at 16-bit (BF16/FP16), the GPU of {owned.name}" in choices
    assert "1979 TFLOPS" in choices
    _scenario_field(editor_client, scenario, "training_peak_tflops", "989")
    assert Scenario.objects.get(pk=scenario.pk).training_peak_tflops == Decimal(989)


def test_the_history_says_a_training_input_s_change_in_its_own_words(editor_client, scenario):
    from tco.web.viewmodels.history import scenario_history

    _scenario_field(editor_client, scenario, "training_runs_per_year", "4")
    _scenario_field(editor_client, scenario, "training_mfu", "38%")
    lines = {(line.field, line.old, line.new) for line in scenario_history(Scenario.objects.get(pk=scenario.pk))}
    assert ("Training runs", "blank", "4 runs per year") in lines
    assert ("Model FLOPs utilization (MFU)", "blank", "38%") in lines
