"""Sizing a scenario's serving configuration and applying the answer (tco.services.sizing): the document built
from the catalogues and the Market, the run stored, bad input refused at its field, the answer written with its
provenance in one versioned step."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tco.documents import scenario_document
from tco.engine import ScenarioError, evaluate
from tco.models import Scenario, ScenarioOption, SizingRun
from tco.presentation.sizing import sized_note
from tco.selectors.uncertainty import export_document
from tco.services import scenario_create_from_document
from tco.services.common import EditRefused, VersionConflict
from tco.services.options import option_update
from tco.services.scenarios import scenario_update_field
from tco.services.sizing import serving_update, sizing_run
from tco.services.sizing_apply import SizingRefused, effective_throughput, sizing_apply
from tco.serving import ServingError, parse_traffic
from tco.web.viewmodels.history import scenario_history
from tests.scenarios.sizing_fixtures import language_model, two_gpus

pytestmark = pytest.mark.django_db


def _serve(scenario, editor, **values):
    language_model()
    values = {"serving_language_model": "Llama-3.1-70B", **values}
    change, run = serving_update(scenario=scenario, user=editor, expected_version=scenario.version, values=values)
    return change.scenario, run


def test_a_serving_configuration_is_sized_on_the_market_price_and_measured_rows_of_each_gpu(scenario, editor):
    two_gpus()
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    assert run.problems == [] and run.scenario_version == scenario.version
    gpus = {gpu["name"]: gpu for gpu in run.document["gpus"]}
    assert (gpus["H100 SXM"]["price_per_gpu_hour"], gpus["H200 SXM"]["price_per_gpu_hour"]) == (3.99, 5.0)
    assert [row["source"] for row in gpus["H100 SXM"]["throughput"]] == ["h100 run (2026-08-01)"]
    best = {gpu["name"]: gpu["best"] for gpu in run.result["gpus"]}
    # 10 requests/s of 100 output tokens: an H100 pair serves 2 x 1,000 / 100 = 20, an H200 1,500 / 100 = 15.
    assert best["H100 SXM"] == {"tp": 2, "replicas": 1, "gpus": 2, "cost_per_hour": pytest.approx(7.98)}
    assert best["H200 SXM"] == {"tp": 1, "replicas": 1, "gpus": 1, "cost_per_hour": pytest.approx(5.0)}
    assert run.gpus[0]["price_source"]["from"] == "market"


def test_a_rental_option_on_a_gpu_prices_that_gpu(scenario, editor):
    h100, _ = two_gpus()
    scenario.options.filter(kind="neocloud").update(gpu_model=h100, price_per_gpu_hour=Decimal("2.50"))
    _, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    assert run.document["gpus"][0]["price_per_gpu_hour"] == 2.5
    assert run.gpus[0]["price_source"] == {"from": "option", "option": "Lambda 8x H100 SXM"}


def test_blank_traffic_is_one_bucket_of_what_the_fleet_serves_today(scenario, editor):
    two_gpus()
    _, run = _serve(scenario, editor)
    # 8 GPUs x 2,400 output tokens/s per GPU / 350 output tokens per response, of 1,200 input tokens.
    assert run.document["traffic"] == [
        {"requests_per_second": pytest.approx(8 * 2400 / 350), "input_tokens": 1200, "output_tokens": 350}
    ]


def test_a_model_not_in_the_catalogue_is_named_and_nothing_is_sized(scenario, editor):
    two_gpus()
    scenario, run = _serve(scenario, editor, serving_language_model="Nonesuch-9B")
    assert run.result is None
    assert run.problems == [
        {"path": "serving_language_model", "message": "Language model: Nonesuch-9B is not in the model catalogue."}
    ]


def test_a_value_out_of_range_is_refused_at_its_field_and_nothing_is_saved(scenario, editor):
    version = scenario.version
    with pytest.raises(ServingError) as refused:
        serving_update(
            scenario=scenario,
            user=editor,
            expected_version=version,
            values={"serving_headroom": 2.0, "serving_language_model": "x"},
        )
    assert refused.value.field == "serving_headroom" and "Headroom must be" in refused.value.message
    scenario.refresh_from_db()
    assert (scenario.version, scenario.serving_language_model) == (version, "")
    assert not SizingRun.objects.exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1000000000, 1000, 100", "Requests per second must be"),
        ("0, 1000, 100", "Requests per second must be more than 0"),
        ("5, 1000", "give 3 numbers"),
        ("5, 1000, lots", "Output tokens"),
        ("5, 0, 100", "Input tokens must be"),
    ],
)
def test_nonsense_traffic_is_refused_with_the_line_in_words(text, words):
    with pytest.raises(ServingError) as refused:
        parse_traffic(f"2, 500, 50\n{text}")
    assert refused.value.field == "serving_traffic"
    assert "line 2" in refused.value.message and words in refused.value.message


def test_traffic_reads_tabs_semicolons_commas_and_spaces():
    assert parse_traffic("2.5, 1200, 350\n\n1\t2\t3\n4;5;6\n7 8 9\n1,2,3") == [
        [2.5, 1200, 350],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
        [1, 2, 3],
    ]


def test_applying_writes_fleet_counts_and_throughput_with_their_measured_rows(scenario, editor, run_jobs):
    h100, h200 = two_gpus()
    owned = scenario.options.get(kind="owned")
    owned.gpu_model = h100
    owned.save()
    scenario.options.filter(kind="neocloud").update(gpu_model=h200)
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    with run_jobs():
        change = sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    scenario = Scenario.objects.get(pk=scenario.pk)
    assert scenario.version == run.scenario_version + 1
    # The cheapest single type is one H200 ($5.00 an hour against two H100s at $7.98).
    assert (scenario.fleet_gpus, scenario.workload_tokens_per_second_per_gpu) == (1, Decimal("1500"))
    assert (scenario.workload_input_tokens_per_response, scenario.workload_output_tokens_per_response) == (1000, 100)
    owned = scenario.options.get(kind="owned")
    assert (owned.gpu_count, owned.tokens_per_second_per_gpu) == (2, Decimal("1000"))
    assert owned.throughput_source["gpu"] == "H100 SXM" and owned.throughput_source["tp"] == 2
    assert [row["source"] for row in owned.throughput_source["rows"]] == ["h100 run (2026-08-01)"]
    rental = scenario.options.get(kind="neocloud")
    assert rental.tokens_per_second_per_gpu == Decimal("1500") and rental.throughput_source["gpu"] == "H200 SXM"
    assert scenario.sizing_applied["gpu"] == "H200 SXM" and scenario.sizing_applied["fleet_gpus"] == 1
    change.run.refresh_from_db()
    assert change.run.result == evaluate(scenario_document(scenario))


def test_the_workload_bucket_is_kept_as_typed_traffic_when_applied(scenario, editor):
    two_gpus()
    scenario, run = _serve(scenario, editor)
    sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    scenario.refresh_from_db()
    assert scenario.serving_traffic == [[pytest.approx(8 * 2400 / 350), 1200, 350]]


def test_a_sizing_of_an_older_version_is_not_applied(scenario, editor):
    two_gpus()
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    changed, _ = _serve(scenario, editor, serving_headroom=Decimal("0.1"))
    with pytest.raises(SizingRefused, match="size it again"):
        sizing_apply(scenario=changed, run=run, user=editor, expected_version=changed.version)
    with pytest.raises(VersionConflict):
        sizing_apply(scenario=changed, run=run, user=editor, expected_version=run.scenario_version)
    assert Scenario.objects.get(pk=scenario.pk).sizing_applied is None


def test_nothing_is_applied_when_no_gpu_meets_the_target(scenario, editor):
    two_gpus()
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]], serving_tpot_ms=Decimal("5"))
    assert all(gpu["best"] is None for gpu in run.result["gpus"])
    with pytest.raises(SizingRefused, match="No GPU type serves"):
        sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)


def test_sizing_again_stores_a_new_run_of_the_current_version(scenario, editor):
    two_gpus()
    scenario, first = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    again = sizing_run(scenario=scenario, user=editor)
    assert again.pk > first.pk and again.document == first.document


def test_typing_over_a_sized_figure_drops_its_provenance(scenario, editor):
    h100, _ = two_gpus()
    scenario.options.filter(kind="owned").update(gpu_model=h100)
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    scenario.refresh_from_db()
    owned = scenario.options.get(kind="owned")
    option_update(option=owned, user=editor, expected_version=scenario.version, field="gpu_count", value=2)
    assert ScenarioOption.objects.get(pk=owned.pk).throughput_source is not None  # the same value: still sized
    option_update(option=owned, user=editor, expected_version=scenario.version + 1, field="gpu_count", value=4)
    assert ScenarioOption.objects.get(pk=owned.pk).throughput_source is None
    scenario.refresh_from_db()
    scenario_update_field(
        scenario=scenario, user=editor, field="fleet_gpus", value=3, expected_version=scenario.version
    )
    assert Scenario.objects.get(pk=scenario.pk).sizing_applied is None


def test_the_history_says_each_serving_change_in_the_entrys_words(scenario, editor):
    two_gpus()
    _serve(scenario, editor, serving_traffic=[[10, 1000, 100]], serving_headroom=Decimal("0.2"))
    lines = {line.field: (line.old, line.new) for line in scenario_history(Scenario.objects.get(pk=scenario.pk))}
    assert lines["Traffic"] == (
        "one bucket from the workload (what the fleet serves at its throughput) (default)",
        "10 requests/s of 1,000 input and 100 output tokens",
    )
    assert lines["Headroom"] == ("0 (default)", "20%")
    assert lines["Language model"] == ("blank", "Llama-3.1-70B")


def test_the_serving_configuration_goes_out_with_an_export_and_back_in_with_an_import(scenario, editor):
    scenario, _ = _serve(
        scenario, editor, serving_traffic=[[2.5, 1200, 350]], serving_weight_bits="8", serving_tpot_ms=Decimal("40")
    )
    exported = export_document(Scenario.objects.get(pk=scenario.pk))
    assert exported["serving"] == {
        "language_model": "Llama-3.1-70B",
        "weight_bits": 8,
        "kv_bits": 16,
        "traffic": [[2.5, 1200, 350]],
        "tpot_ms": 40,
        "statistic": "median",
    }
    imported = scenario_create_from_document(document=exported, user=editor)
    assert export_document(imported)["serving"] == exported["serving"]


def test_an_imported_serving_configuration_is_checked_like_the_page_checks_it(example_document, editor):
    document = {**example_document, "serving": {"weight_bits": 7, "traffic": [[1e9, 10, 10]], "speed": 1}}
    with pytest.raises(ScenarioError) as refused:
        scenario_create_from_document(document=document, user=editor)
    paths = {problem.path for problem in refused.value.problems}
    assert paths == {"serving.weight_bits", "serving.traffic", "serving.speed"}
    assert not Scenario.objects.filter(name=example_document["name"]).exists()


def test_a_gpu_without_measured_rows_is_sized_on_the_throughput_typed_on_its_option(scenario, editor):
    h100, _ = two_gpus()
    h100.throughput_measurements.all().delete()
    scenario.options.filter(kind="neocloud").update(gpu_model=h100, tokens_per_second_per_gpu=Decimal("800"))
    _, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    h100_result = next(gpu for gpu in run.result["gpus"] if gpu["name"] == "H100 SXM")
    # Llama-3.1-70B at 16 bits first fits an H100 at tp 2: 800 x 2 / 100 = 16 requests/s a replica, 1 replica.
    assert h100_result["best"]["tp"] == 2 and h100_result["best"]["gpus"] == 2
    point = h100_result["types"][0]["operating_points"][0]
    assert point["source"] == "typed on the option “Lambda 8x H100 SXM”"


def test_a_typed_throughput_meets_no_latency_target(scenario, editor):
    h100, _ = two_gpus()
    h100.throughput_measurements.all().delete()
    scenario.options.filter(kind="neocloud").update(gpu_model=h100, tokens_per_second_per_gpu=Decimal("800"))
    _, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]], serving_tpot_ms=Decimal("50"))
    assert next(gpu for gpu in run.result["gpus"] if gpu["name"] == "H100 SXM")["best"] is None


def test_the_history_lists_the_figures_sizing_wrote_not_its_provenance_record(scenario, editor):
    h100, _ = two_gpus()
    scenario.options.filter(kind="owned").update(gpu_model=h100)
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    lines = {(line.subject, line.field): line.new for line in scenario_history(Scenario.objects.get(pk=scenario.pk))}
    assert lines[("scenario", "Fleet size")] == "1 GPU"
    assert lines[("scenario", "Throughput")] == "1,500 output tokens/s per GPU"
    assert lines[("option “Own 8x H100 (new)”", "GPU count")] == "2 GPUs"
    assert not any("sizing" in field.lower() or "source" in field.lower() for _, field in lines)


def test_a_types_throughput_over_several_buckets_adds_up_gpu_seconds():
    # docs/money-math.md: 4 requests/s of 100 output tokens at 1,000 tokens/s per GPU and 1 of 400 at 500.
    traffic = [
        {"requests_per_second": 4, "input_tokens": 10, "output_tokens": 100},
        {"requests_per_second": 1, "input_tokens": 10, "output_tokens": 400},
    ]
    points = [{"output_tokens_per_second_per_gpu": 1000.0}, {"output_tokens_per_second_per_gpu": 500.0}]
    gpu = {"best": {"tp": 1}, "types": [{"tp": 1, "operating_points": points}]}
    throughput, _ = effective_throughput(gpu, traffic)
    assert throughput == pytest.approx(800 / 1.2)


def test_a_gpu_count_the_scenario_cannot_hold_refuses_the_whole_apply(scenario, editor):
    h100, _ = two_gpus()
    scenario.options.filter(kind="owned").update(gpu_model=h100)
    # 10,000,000 requests/s with half again spare, 20 a replica: 750,000 replicas of 2 H100s, past the 1,000,000
    # GPUs an option holds (the H200s, 15 a replica at tp 1, are exactly 1,000,000).
    scenario, run = _serve(
        scenario, editor, serving_traffic=[[1000000, 1000, 100]] * 10, serving_headroom=Decimal("0.5")
    )
    with pytest.raises(EditRefused, match="GPU count"):
        sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    stored = Scenario.objects.get(pk=scenario.pk)
    assert (stored.version, stored.fleet_gpus, stored.sizing_applied) == (scenario.version, 8, None)
    assert stored.options.get(kind="owned").gpu_count == 8


def test_a_row_at_a_benchmarks_latency_limits_is_sized_and_said_in_words(scenario, editor):
    _, h200 = two_gpus()
    h200.throughput_measurements.update(concurrency=None)  # an MLPerf result: no concurrency, at its limits
    scenario.options.filter(kind="neocloud").update(gpu_model=h200)
    scenario, run = _serve(scenario, editor, serving_traffic=[[10, 1000, 100]])
    sizing_apply(scenario=scenario, run=run, user=editor, expected_version=scenario.version)
    rental = Scenario.objects.get(pk=scenario.pk).options.get(kind="neocloud")
    assert "at the benchmark's latency limits (h200 run (2026-08-01))" in sized_note(rental.throughput_source)


def test_no_traffic_and_no_workload_to_take_a_bucket_from_is_named_and_nothing_is_sized(scenario, editor):
    two_gpus()
    Scenario.objects.filter(pk=scenario.pk).update(workload_tokens_per_second_per_gpu=None)
    scenario.refresh_from_db()
    _, run = _serve(scenario, editor)
    assert run.result is None
    assert run.problems == [
        {
            "path": "serving_traffic",
            "message": "Traffic: Type the traffic, or complete the workload's throughput and output tokens per "
            "response and the fleet size: one bucket is worked out from them.",
        }
    ]
