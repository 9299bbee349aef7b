"""The training plan in the live workbook (docs/money-math.md "Training runs"): its figures and each option's cost per
validated model version and blocks per run are formulas over named inputs, and LibreOffice's recalculation gives
what ``evaluate`` gives, at the exported inputs and after one is changed in the workbook."""

from __future__ import annotations

import copy

import pytest

from tco.engine import evaluate
from tests.documents import DESIGN_EXAMPLE, training_example
from tests.exports.test_model_workbook import close, mismatches, model_book, named, recalculate, slugs

TRAINING_KEYS = ("gpu_hours_per_attempt", "gpu_hours_effective", "gpu_hours_per_validated_version", "wall_clock_days")


def plain_training() -> dict:
    """The example with a 16-GPU owned option, a capacity block and a plan sized by its model (no finance depth)."""
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][0]["gpu_count"] = 16
    document["training"] = {
        "runs_per_year": 3,
        "params_billion": 8,
        "tokens_billion": 300,
        "mfu": 0.38,
        "peak_tflops": 989,
        "cluster_gpus": 16,
        "interruptions_per_million_gpu_hours": 19.7,
        "checkpoint_interval_hours": 1,
        "restart_hours": 0.5,
        "success_rate": 0.6,
        "other_cost_per_run": 2500,
    }
    document["options"].append(
        {
            "name": "Capacity block 16x H100",
            "kind": "hyperscaler",
            "price_per_gpu_hour": 4.9,
            "billing": "capacity_block",
            "block_gpus": 16,
            "block_days": 3,
            "price_change_per_year": -0.1,
        }
    )
    return document


def training_mismatches(again, built, document) -> list[str]:
    result = evaluate(document)
    wrong = mismatches(again, built, document)
    for key in TRAINING_KEYS:
        if not close(named(again, f"result_training_{key}"), result["training"][key]):
            wrong.append(f"training {key}: workbook {named(again, f'result_training_{key}')!r}")
    for option, slug in zip(result["options"], slugs(built, document), strict=True):
        for key in ("cost_per_validated_version", "blocks_per_run"):
            name = f"{key}_{slug}"
            if name in built.defined_names and not close(named(again, name), option[key]):
                wrong.append(f"{name}: workbook {named(again, name)!r}, engine {option[key]!r}")
            elif name not in built.defined_names and option[key] is not None:
                wrong.append(f"{name}: not in the workbook")
    return wrong


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    documents = [plain_training(), training_example()]
    edited = plain_training()
    book = model_book(edited)
    book["Inputs"][_cell(book, "training_runs_per_year")].value = 5
    changed = copy.deepcopy(edited)
    changed["training"]["runs_per_year"] = 5
    books = [model_book(document) for document in documents]
    again = recalculate([*books, book], tmp_path_factory.mktemp("lo-training"))
    return documents, books, again[:-1], (again[-1], model_book(changed), changed)


def _cell(book, name: str) -> str:
    _, ref = next(iter(book.defined_names[name].destinations))
    return ref.replace("$", "")


@pytest.mark.xdist_group("libreoffice")
def test_libreoffice_recalculates_every_training_figure_as_evaluate_gives_it(recalculated):
    documents, books, again, _ = recalculated
    for document, built, redone in zip(documents, books, again, strict=True):
        assert training_mismatches(redone, built, document) == []
    assert again[0]["Summary"]["A3"].value.startswith("Every figure agrees")


@pytest.mark.xdist_group("libreoffice")
def test_more_runs_typed_in_the_workbook_give_what_evaluate_gives_for_them(recalculated):
    _, _, _, (redone, built, changed) = recalculated
    assert training_mismatches(redone, built, changed) == []


def test_a_capacity_block_s_blocks_per_run_round_up_without_a_ceiling_function():
    book = model_book(plain_training())
    block = slugs(book, plain_training())[-1]
    assert named(book, f"block_count_{block}") == "=-INT(-(training_gpu_hours_effective/block_gpu_hours_" + (
        f"{block}-1E-9))"
    )


def test_the_options_csv_has_the_cost_per_validated_version_beside_the_cost_per_accepted_output():
    from tco.exports.tables import option_table

    result = evaluate(plain_training())
    table = option_table(result)
    at = table.headers.index("cost per validated model version (USD)")
    assert table.headers[at - 1] == "cost per million accepted tokens (USD)"
    assert table.headers[at + 1] == "capacity blocks per run"
    assert [row[at] for row in table.rows] == [o["cost_per_validated_version"] for o in result["options"]]
    assert [row[at + 1] for row in table.rows] == [o["blocks_per_run"] for o in result["options"]]
    assert "cost per validated model version (USD)" not in option_table(evaluate(DESIGN_EXAMPLE)).headers
