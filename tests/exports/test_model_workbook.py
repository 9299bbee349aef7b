"""The exported workbook is the model: LibreOffice recalculates its formulas and finds every figure the engine gives,
to 1e-9 relative, on the demo scenarios and on generated ones; changing an input in the workbook gives what
``evaluate`` gives for the same changed document.

LibreOffice (Debian's ``libreoffice-calc-nogui``) is fetched by the test command (``.ci/ensure-libreoffice``);
its recalculated copy is read back with openpyxl. One ``soffice`` call converts a whole batch of workbooks."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from openpyxl import Workbook, load_workbook

from tco.engine import evaluate
from tco.exports import results_workbook
from tco.exports.model_workbook import add_model_sheets
from tests.documents import DESIGN_EXAMPLE
from tests.engine.strategies import scenarios

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"
RELATIVE = 1e-9
OPTION_RESULTS = {
    "annual_cost": "annual_cost",
    "npv": "npv",
    "total_cost": "total_cost",
    "cost_per_gpu_hour": "cost_per_gpu_hour",
    "cost_per_accepted_response": "cost_per_accepted_response",
    "cost_per_million_accepted_tokens": "cost_per_million_accepted_tokens",
    "capital_charge_per_year": "capital_charge_per_year",
    "resale_value": "resale_value_at_horizon",
    "mean_own_utilization": "mean_own_utilization",
}


def _soffice() -> str:
    found = os.environ.get("SOFFICE") or shutil.which("soffice") or shutil.which("libreoffice")
    assert found, "LibreOffice is missing: `make test` installs it (.ci/ensure-libreoffice)"
    return found


def recalculate(books: list[Workbook], folder: Path) -> list[Workbook]:
    """Each workbook saved, recalculated and saved again by LibreOffice headless, read back with its values."""
    sources = []
    for i, book in enumerate(books):
        path = folder / f"book{i}.xlsx"
        book.save(path)
        sources.append(str(path))
    out = folder / "recalculated"
    subprocess.run(
        [
            _soffice(),
            "--headless",
            f"-env:UserInstallation=file://{folder / 'profile'}",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            *sources,
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return [load_workbook(out / Path(source).name, data_only=True) for source in sources]


def model_book(document: dict) -> Workbook:
    book = Workbook()
    book.remove(book.active)
    add_model_sheets(book, document, evaluate(document))
    return book


def named_cell(book: Workbook, name: str):
    """The cell a defined name points at."""
    sheet, ref = next(iter(book.defined_names[name].destinations))
    return book[sheet][ref.replace("$", "")]


def named(book: Workbook, name: str):
    return named_cell(book, name).value


def close(workbook_value, engine_value) -> bool:
    if engine_value is None:
        return workbook_value in (None, "")
    return abs(workbook_value - engine_value) <= RELATIVE * max(1.0, abs(engine_value))


def slugs(book: Workbook, document: dict) -> list[str]:
    """The option part of each option's names, read from the workbook (npv_<slug>)."""
    found = [name[len("npv_") :] for name in book.defined_names if name.startswith("npv_")]
    assert len(found) == len(document["options"])
    return found


def mismatches(recalculated: Workbook, built: Workbook, document: dict) -> list[str]:
    """Every figure of ``evaluate(document)`` the recalculated workbook does not reproduce, in words."""
    result = evaluate(document)
    wrong = []
    for option, slug in zip(result["options"], slugs(built, document), strict=True):
        for key, name in OPTION_RESULTS.items():
            full = f"{name}_{slug}"
            if full not in built.defined_names:
                assert option.get(key) is None or key in (
                    "capital_charge_per_year",
                    "resale_value",
                    "mean_own_utilization",
                )
                continue
            if not close(named(recalculated, full), option[key]):
                wrong.append(f"{full}: workbook {named(recalculated, full)!r}, engine {option[key]!r}")
    names = {option["name"]: slug for option, slug in zip(result["options"], slugs(built, document), strict=True)}
    for pair in result["break_even"]:
        key = f"{names[pair['owned']]}_{names[pair['rental']]}"
        for field, prefix in (("utilization", "break_even"), ("crossover_month", "crossover_month")):
            value = named(recalculated, f"{prefix}_{key}")
            if not close(value, pair[field]):
                wrong.append(f"{prefix}_{key}: workbook {value!r}, engine {pair[field]!r}")
    return wrong


def demo_documents() -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))]


def generated_documents(count: int) -> list[dict]:
    """``count`` valid documents drawn by the engine tests' Hypothesis strategy (derandomized: the same each run)."""
    found: list[dict] = []

    @settings(max_examples=count, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(scenarios())
    def collect(document):
        found.append(copy.deepcopy(document))

    collect()
    return found[:count]


def _set(book: Workbook, name: str, value) -> None:
    named_cell(book, name).value = value


def _edited_example() -> tuple[Workbook, dict]:
    """The worked example's workbook with four inputs changed in its cells, and the document changed the same way."""
    document = copy.deepcopy(DESIGN_EXAMPLE)
    book = model_book(document)
    owned, rental, _ = slugs(book, document)
    changed = copy.deepcopy(document)
    changed["options"][0]["capex"] = 250_000
    changed["options"][1]["price_per_gpu_hour"] = 2.49
    changed["discount_rate"] = 0.11
    changed["utilization"] = [0.8]
    _set(book, f"capex_{owned}", 250_000)
    _set(book, f"price_per_gpu_hour_{rental}", 2.49)
    _set(book, "discount_rate", 0.11)
    for row in range(2, document["horizon_months"] + 2):
        book["Forecast"][f"B{row}"].value = 0.8
    return book, changed


@pytest.fixture(scope="module")
def libreoffice(tmp_path_factory) -> dict:
    """Every workbook the tests below have LibreOffice recalculate, in one ``soffice`` run: starting it is most of
    the cost. (``make test`` keeps the tests of the group ``libreoffice`` in one process, so it starts once.)"""
    documents = [DESIGN_EXAMPLE, *demo_documents(), *generated_documents(12)]
    built = [model_book(document) for document in documents]
    edited, changed = _edited_example()
    *recalculated, edited_again = recalculate([*built, edited], tmp_path_factory.mktemp("libreoffice"))
    return {
        "documents": documents,
        "built": built,
        "recalculated": recalculated,
        "edited": (edited_again, changed),
    }


@pytest.mark.xdist_group("libreoffice")
def test_libreoffice_recalculates_every_figure_of_the_demos_and_generated_scenarios(libreoffice):
    documents, built, recalculated = libreoffice["documents"], libreoffice["built"], libreoffice["recalculated"]
    wrong = {
        document["name"] + f" #{i}": found
        for i, (document, book, again) in enumerate(zip(documents, built, recalculated, strict=True))
        if (found := mismatches(again, book, document))
    }
    assert wrong == {}
    summary = recalculated[0]["Summary"]
    agreement = [row[3] for row in summary.iter_rows(min_row=4, values_only=True) if row[0] and row[1] != "Workbook"]
    assert agreement and set(agreement) == {"agree"}


@pytest.mark.xdist_group("libreoffice")
def test_changing_inputs_in_the_workbook_gives_what_the_engine_gives_for_the_changed_document(libreoffice):
    again, changed = libreoffice["edited"]
    owned = slugs(model_book(DESIGN_EXAMPLE), DESIGN_EXAMPLE)[0]
    assert mismatches(again, model_book(changed), changed) == []
    assert not close(named(again, f"npv_{owned}"), evaluate(DESIGN_EXAMPLE)["options"][0]["npv"])  # it did move


def test_user_text_is_never_a_formula_and_names_are_plain(tmp_path):
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][1]["name"] = "=cmd|' /C calc'!A0"
    book = model_book(document)
    texts = [c.value for row in book["Summary"].iter_rows() for c in row if isinstance(c.value, str)]
    assert any(text.startswith("'=cmd|") for text in texts)
    assert all(name.replace("_", "").isalnum() and name.isascii() for name in book.defined_names)
    formulas = [c.value for sheet in book for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    assert not any("cmd|" in formula for formula in formulas if formula.startswith("="))


def test_the_export_leads_with_the_live_model_and_keeps_the_app_values_in_words():
    from io import BytesIO

    result = evaluate(DESIGN_EXAMPLE)
    book = load_workbook(BytesIO(results_workbook(DESIGN_EXAMPLE, result, about=[("scenario version", "3")])))
    assert book.sheetnames[:4] == ["Summary", "Inputs", "Forecast", "Ledger 1"]
    assert {"Break-even", "Crossover", "Monthly cost", "Inputs in words", "About this file"} <= set(book.sheetnames)
    assert book["Summary"]["B6"].value.startswith("=")
    assert "capex_own_8x_h100_new" in book.defined_names
    assert "discount_rate" in book.defined_names and "npv_own_8x_h100_new" in book.defined_names
    assert "break_even_own_8x_h100_new_lambda_8x_h100_sxm" in book.defined_names


pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")


def test_the_inputs_name_their_source_and_the_summary_charts_every_option():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][1]["price_source"] = {
        "provider": "Lambda",
        "offering": "gpu_8x_h100_sxm5",
        "region": "us-east-1",
        "pricing_term": "on_demand",
        "observed_on": "2026-11-01",
        "snapshot_id": 7,
    }
    book = model_book(document)
    sources = {row[3]: row[4] for row in book["Inputs"].iter_rows(min_row=2, values_only=True) if row[3]}
    rental = slugs(book, document)[1]
    assert sources[f"price_per_gpu_hour_{rental}"] == (
        "Market: Lambda gpu_8x_h100_sxm5 (us-east-1, on demand), as of 2026-11-01, snapshot #7"
    )
    assert sources[f"price_per_million_input_tokens_{slugs(book, document)[2]}"] == "typed in"
    (chart,) = book["Summary"]._charts
    assert [series.tx.v for series in chart.series] == [option["name"] for option in document["options"]]
