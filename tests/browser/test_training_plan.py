"""A training plan built in Chromium through the editor's "Training" section, on a scenario with an owned 16-GPU
cluster, an on-demand rental and a rental switched to a capacity block: the plan sized by its model (6·N·D over the
peak at an MFU), a cluster the owned hardware cannot hold refused at the input, and every training figure the answer
shows equal to ``evaluate``'s for the scenario the database stores, formatted as lib.formatting formats it."""

from __future__ import annotations

import copy

import pytest

from lib.formatting import format_money
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.models import Scenario, ScenarioOption
from tco.presentation.rows import training_rows
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

OWNED, BLOCK = "Own 16x H100", "EC2 capacity block"


def _start_document() -> dict:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][0].update(name=OWNED, gpu_count=16)
    document["options"].insert(2, {"name": BLOCK, "kind": "hyperscaler", "price_per_gpu_hour": 4.9})
    return document


def _version(page) -> int:
    return int(page.locator("#scenario-version").input_value())


def _wait_for_answer(page, what: str, version: int) -> None:
    page.wait_for_function(
        "([v, id]) => document.getElementById('scenario-version').value !== String(v)"
        " || document.querySelector('#f-' + id + '[data-refused]') !== null",
        arg=[version, what],
    )


def _type(page, what: str, text: str) -> None:
    version = _version(page)
    field = page.locator(f"#f-{what}-input")
    field.fill(text)
    field.press("Tab")
    _wait_for_answer(page, what, version)


def _choose(page, what: str, label: str) -> None:
    version = _version(page)
    page.select_option(f"#f-{what}-input", label=label)
    _wait_for_answer(page, what, version)


def _cell(page, row_text: str, column: int) -> str:
    row = page.locator("#option-table tbody tr", has_text=row_text).first
    return row.locator("td").nth(column).inner_text().strip()


def test_a_training_plan_with_a_capacity_block_and_an_owned_cluster_shows_the_engines_figures(
    page, live_server, analyst
):
    scenario = scenario_create_from_document(document=_start_document(), user=analyst)
    block = f"o{ScenarioOption.objects.get(scenario=scenario, name=BLOCK).pk}"
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    assert page.locator("#f-s-training_cluster_gpus").count() == 0  # the plan's inputs once it is begun
    _type(page, "s-training_runs_per_year", "3")
    for what, text in (
        ("params_billion", "8"),
        ("tokens_billion", "300"),
        ("mfu", "38%"),
        ("peak_tflops", "989"),
        ("interruptions_per_million_gpu_hours", "19.7"),
        ("checkpoint_interval_hours", "1"),
        ("restart_hours", "0.5"),
        ("success_rate", "60%"),
        ("other_cost_per_run", "$2,500"),
    ):
        _type(page, f"s-training_{what}", text)
    _type(page, "s-training_cluster_gpus", "32")  # more than the 16 GPUs owned: refused at the input
    page.locator("#f-s-training_cluster_gpus[data-refused]").wait_for()
    assert "which owns only 16 GPUs" in page.inner_text("#err-s-training_cluster_gpus")
    assert Scenario.objects.get(pk=scenario.pk).training_cluster_gpus is None
    _type(page, "s-training_cluster_gpus", "16")

    assert page.locator(f"#f-{block}-block_days").count() == 0
    _choose(page, f"{block}-billing", "Capacity block")
    _type(page, f"{block}-block_gpus", "16")
    _type(page, f"{block}-block_days", "3")

    assert page.locator("[data-refused]").count() == 0
    version = _version(page)
    page.wait_for_function(
        "(v) => document.querySelector('#results .status-done') !== null"
        " && document.getElementById('results').innerText.includes('version ' + v + ',')",
        arg=version,
    )
    page.locator("#training-figures").wait_for()
    assert page.locator("#to-complete").count() == 0

    document = scenario_document(Scenario.objects.get(pk=scenario.pk))
    assert document["training"]["mfu"] == 0.38 and document["training"]["cluster_gpus"] == 16
    result = evaluate(document)
    for row in training_rows(result):
        assert page.inner_text(f"#training-{row['key']}") == row["text"], row["key"]
    for option in result["options"]:
        money = format_money(option["npv"], "USD")
        assert _cell(page, option["name"], 2) == money, option["name"]
        assert _cell(page, option["name"], 4) == format_money(option["annual_cost"], "USD"), option["name"]
        shown = _cell(page, option["name"], 8).split("\n")
        if option["cost_per_validated_version"] is None:
            assert shown == ["serves no training"]
        elif option["blocks_per_run"] is not None:
            plural = "" if option["blocks_per_run"] == 1 else "s"
            expected = [
                format_money(option["cost_per_validated_version"], "USD"),
                f"{option['blocks_per_run']} block{plural} per run",
            ]
            assert shown == expected
        else:
            assert shown == [format_money(option["cost_per_validated_version"], "USD")], option["name"]
    assert page.locator("#chart-box-cost_per_version").count() == 1
    page.set_viewport_size({"width": 390, "height": 900})  # a phone: the plan and its answer fit the width
    page.reload()
    page.locator("#training-figures").wait_for()
    page.wait_for_function("document.querySelectorAll('#chart-box-cost_per_version .main-svg').length > 0")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#training-figures").is_visible()
    assert page.console_errors == []
