"""Sizing on the throughput library as a real InferenceX file fills it: the reference GPU and model catalogues, the
file imported by the library's own service, and each GPU's operating point worked out from the raw file here."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from django.core.management import call_command

from pricing.services.reference import reference_data_load
from pricing.services.throughput import throughput_import
from tco.demos import demo
from tco.models import Scenario
from tco.services.sizing import serving_update, sizing_run
from tests.scenarios.sizing_fixtures import gpu

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "throughput" / "inferencex-agg_bmk-dsr1-b200-h200.json"
TPOT_MS, REQUESTS, TOKENS = 50.0, 2.0, 1024


def _expected(hw: str) -> dict:
    """The raw file's best FP8 row of ``hw`` at 1,024/1,024 tokens whose median time per output token (seconds in the
    file) is within the target: the highest output tokens per second per GPU, ties at the lower concurrency."""
    records = json.loads(SAMPLE.read_text())
    meeting = [
        r
        for r in records
        if r["hw"] == hw and r["precision"] == "fp8" and r["isl"] == TOKENS and r["osl"] == TOKENS
        and r["median_tpot"] * 1000 <= TPOT_MS
    ]  # fmt: skip
    return min(meeting, key=lambda r: (-r["output_tput_per_gpu"], r["conc"]))


def test_a_real_inferencex_file_sizes_deepseek_on_h200_and_b200(scenario, editor):
    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    throughput_import(content=SAMPLE.read_bytes(), file_name=SAMPLE.name)
    gpu("H200 SXM", "0", "3.50")
    gpu("B200", "0", "6.00")
    _, run = serving_update(
        scenario=scenario,
        user=editor,
        expected_version=scenario.version,
        values={
            "serving_language_model": "DeepSeek-R1",
            "serving_weight_bits": "8",
            "serving_traffic": [[REQUESTS, TOKENS, TOKENS]],
            "serving_tpot_ms": TPOT_MS,
        },
    )
    assert run.problems == []
    sized = {g["name"]: g for g in run.result["gpus"]}
    for name, hw, price in (("H200 SXM", "h200", 3.5), ("B200", "b200", 6.0)):
        row = _expected(hw)
        best = sized[name]["best"]
        point = next(t for t in sized[name]["types"] if t["tp"] == best["tp"])["operating_points"][0]
        assert (best["tp"], point["concurrency"]) == (row["tp"], row["conc"]), name
        assert point["output_tokens_per_second_per_gpu"] == pytest.approx(row["output_tput_per_gpu"]), name
        replicas = math.ceil(REQUESTS / (row["output_tput_per_gpu"] * row["tp"] / TOKENS) - 1e-9)
        assert (best["replicas"], best["cost_per_hour"]) == (replicas, pytest.approx(replicas * row["tp"] * price))


def test_the_first_demo_scenario_comes_with_a_serving_configuration_the_demo_data_sizes(editor):
    call_command("seed_demo", stdout=io.StringIO())
    scenario = Scenario.objects.get(name=demo("01-h100-inference-own-vs-rent").document["name"])
    run = sizing_run(scenario=scenario, user=editor)
    assert run.problems == [] and run.document["model"]["name"] == "DeepSeek-R1"
    served = [g["name"] for g in run.result["gpus"] if g["best"]]
    assert served, [(g["name"], g["types"]) for g in run.result["gpus"]]
