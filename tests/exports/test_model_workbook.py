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
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from tco.documents import SERVING_KEY
from tco.engine import evaluate
from tco.exports import results_workbook
from tco.exports.model_workbook import add_model_sheets
from tests.documents import DESIGN_EXAMPLE
from tests.engine.strategies import scenarios
from tests.engine.test_finance_properties import financed

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
# The finance depth's figures (named as in the result): where the engine gives one, the workbook must too.
FINANCE_RESULTS = (
    "npv_after_tax",
    "pv_opex_tax_saving",
    "pv_depreciation_tax_shield",
    "pv_financing_tax_saving",
    "pv_tax_on_disposals",
    "total_cash_cost",
    "capital_charge_after_tax_per_year",
    "book_value_at_horizon",
    "tax_basis_at_horizon",
    "deferred_tax_liability_at_horizon",
    "book_depreciation_per_year",
    "replacements",
    "loan_payment_per_month",
    "loan_balance_repaid_at_sale",
    "lease_payment",
    "nal",
    "after_tax_cost_of_debt",
    "break_even_lease_payment",
    "commitment_effective_price_per_gpu_hour",
    "commitment_coverage",
    "commitment_utilization",
    "commitment_break_even_utilization",
    "break_even_utilization_vs_on_demand",
)


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


def named_range(book: Workbook, name: str):
    """The rows of cells a defined name spans."""
    sheet, ref = next(iter(book.defined_names[name].destinations))
    return book[sheet][ref.replace("$", "")]


def named(book: Workbook, name: str):
    return named_cell(book, name).value


def close(workbook_value, engine_value) -> bool:
    if engine_value is None:
        return workbook_value in (None, "")
    if not isinstance(workbook_value, int | float):  # an error value (#NAME?, Err:502) or text
        return False
    return abs(workbook_value - engine_value) <= RELATIVE * max(1.0, abs(engine_value))


def slugs(book: Workbook, document: dict) -> list[str]:
    """The option part of each option's names, read from the workbook (annual_cost_<slug>)."""
    found = [name[len("annual_cost_") :] for name in book.defined_names if name.startswith("annual_cost_")]
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
        for key in FINANCE_RESULTS:
            full = f"{key}_{slug}"
            if full not in built.defined_names:
                if option.get(key) is not None:
                    wrong.append(f"{full}: not in the workbook, engine {option[key]!r}")
                continue
            if not close(named(recalculated, full), option.get(key)):
                wrong.append(f"{full}: workbook {named(recalculated, full)!r}, engine {option.get(key)!r}")
        if "tax_depreciation_by_year" in option:
            found = [cell.value for (cell,) in named_range(recalculated, f"tax_depreciation_by_year_{slug}")]
            expected = option["tax_depreciation_by_year"]
            if len(found) != len(expected) or not all(map(close, found, expected)):
                wrong.append(f"tax_depreciation_by_year_{slug}: workbook {found!r}, engine {expected!r}")
    if "cheapest_after_tax" in result:
        for name in ("cheapest_after_tax", "effective_horizon_months"):
            if named(recalculated, name) != result[name]:
                wrong.append(f"{name}: workbook {named(recalculated, name)!r}, engine {result[name]!r}")
    names = {option["name"]: slug for option, slug in zip(result["options"], slugs(built, document), strict=True)}
    for pair in result["break_even"]:
        key = f"{names[pair['owned']]}_{names[pair['rental']]}"
        fields = [("utilization", "break_even"), ("crossover_month", "crossover_month")]
        if "utilization_after_tax" in pair:
            fields.append(("utilization_after_tax", "break_even_after_tax"))
        for field, prefix in fields:
            value = named(recalculated, f"{prefix}_{key}")
            if not close(value, pair[field]):
                wrong.append(f"{prefix}_{key}: workbook {value!r}, engine {pair[field]!r}")
    return wrong


def demo_documents() -> list[dict]:
    """Each demo's tco-scenario/1 document: a demo file is an export, its serving configuration beside the document."""
    files = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(FIXTURES.glob("*.json"))]
    return [{key: value for key, value in found.items() if key != SERVING_KEY} for found in files]


def generated_documents(count: int, strategy=None) -> list[dict]:
    """``count`` valid documents drawn by one of the engine tests' Hypothesis strategies (derandomized: the same
    each run)."""
    found: list[dict] = []

    @settings(max_examples=count, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(strategy if strategy is not None else scenarios())
    def collect(document):
        found.append(copy.deepcopy(document))

    collect()
    return found[:count]


@st.composite
def financed_further(draw) -> dict:
    """The engine tests' financed scenarios, mostly with a tax rate, and now and then a lease paid every 3 months or
    bought out, and a resale curve in place of the residual."""
    doc = draw(financed())
    if doc["tax_rate"] == 0 and draw(st.booleans()):  # mostly after tax: that is what the workbook adds
        doc["tax_rate"] = 0.3
    own = doc["options"][0]
    if own["financing"] == "lease" and draw(st.booleans()):
        if own["lease_term_months"] % 3 == 0:
            own["lease_payment_interval_months"] = 3
        if draw(st.booleans()):
            own["lease_end"] = "buyout"
            own["lease_buyout_price"] = draw(st.floats(0, 50_000))
    if draw(st.booleans()):
        own.pop("residual_value", None)
        own["resale_curve"] = [[0, 1], [draw(st.integers(1, 24)), draw(st.sampled_from([0.5, 0.7]))], [60, 0.1]]
    return doc


def finance_documents() -> list[dict]:
    """Hand-made scenarios with each finance feature, then generated ones."""

    def design(top: dict, own: dict = (), rent: dict = ()) -> dict:
        document = copy.deepcopy(DESIGN_EXAMPLE)
        document.update(top, name=f"{DESIGN_EXAMPLE['name']}: {sorted(top) + sorted(own) + sorted(rent)}")
        document["options"][0].update(own)
        document["options"][1].update(rent)
        return document

    term = design(
        {"tax_rate": 0.21},
        rent={"billing": "committed", "committed_gpus": 6, "commitment_term_months": 12, "upfront_share": 0.5},
    )
    del term["options"][1]["price_change_per_year"]
    term["options"][1]["price_change_by_year"] = [-0.25, -0.1, 0.0]
    replaced = design(
        {"tax_rate": 0.21, "horizon_months": 60, "refresh_policy": "replace"},
        own={"useful_life_years": 2, "capex_change_per_year": -0.2, "tax_depreciation": "macrs_3"},
    )
    del replaced["options"][0]["residual_value"]
    replaced["options"][0]["resale_curve"] = [[0, 1], [12, 0.6], [36, 0.2]]
    return [
        design({"tax_rate": 0.21}, own={"tax_depreciation": "macrs_5", "bonus_depreciation": 0.4}),
        design(
            {"tax_rate": 0.21},
            own={"financing": "loan", "loan_apr": 0.07, "loan_term_months": 48, "down_payment_share": 0.2},
        ),
        design(
            {"tax_rate": 0.35, "cost_of_debt": 0.06},
            own={
                "financing": "lease",
                "lease_payment": 9000,
                "lease_term_months": 36,
                "lease_payment_interval_months": 3,
                "lease_payment_timing": "arrears",
            },
        ),
        replaced,
        term,
        *generated_documents(12, financed_further()),
    ]


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


def _edited_finance() -> list[tuple[Workbook, dict, dict]]:
    """A loan with replacements and a lease beside a commitment, each with finance inputs changed in its cells:
    ``(book, document, changed document)``."""
    loan = copy.deepcopy(DESIGN_EXAMPLE)
    loan.update(tax_rate=0.21, horizon_months=60, refresh_policy="replace")
    loan["options"][0].update(
        financing="loan", loan_apr=0.07, loan_term_months=36, tax_depreciation="macrs_5", useful_life_years=2
    )
    committed = copy.deepcopy(DESIGN_EXAMPLE)
    committed.update(tax_rate=0.3, cost_of_debt=0.05)
    committed["options"][0].update(financing="lease", lease_payment=8000, lease_term_months=36)
    committed["options"][1].update(billing="committed", committed_gpus=6, commitment_term_months=12, upfront_share=0.25)
    changes = [
        (loan, {"tax_rate": 0.3}, {0: {"loan_apr": 0.09, "capex_change_per_year": -0.2, "bonus_depreciation": 0.5}}),
        (committed, {"tax_rate": 0.25, "cost_of_debt": 0.08}, {0: {"lease_payment": 7000}, 1: {"upfront_share": 1}}),
    ]
    edited = []
    for document, top, options in changes:
        book = model_book(document)
        found = slugs(book, document)
        changed = copy.deepcopy(document)
        changed.update(top)
        for name, value in top.items():
            _set(book, name, value)
        for index, fields in options.items():
            changed["options"][index].update(fields)
            for name, value in fields.items():
                _set(book, f"{name}_{found[index]}", value)
        edited.append((book, document, changed))
    return edited


@pytest.fixture(scope="session")
def libreoffice(tmp_path_factory) -> dict:
    """Every workbook the tests below have LibreOffice recalculate, in one ``soffice`` run: starting it is most of
    the cost. (``make test`` keeps the tests of the group ``libreoffice`` in one process, so it starts once. Kept
    for the session, not the module: that process may run other modules' tests between these, and a module fixture
    would then be made again.)"""
    plain = [DESIGN_EXAMPLE, *demo_documents(), *generated_documents(12)]
    finance = finance_documents()
    edited, changed = _edited_example()
    edited_finance = _edited_finance()
    books = [model_book(document) for document in (*plain, *finance)]
    recalculated = recalculate(
        [*books, edited, *(book for book, _, _ in edited_finance)], tmp_path_factory.mktemp("lo")
    )
    n, m = len(plain), len(plain) + len(finance)
    return {
        "plain": (plain, books[:n], recalculated[:n]),
        "finance": (finance, books[n:], recalculated[n:m]),
        "edited": (recalculated[m], changed),
        "edited_finance": [
            (again, document, changed)
            for again, (_, document, changed) in zip(recalculated[m + 1 :], edited_finance, strict=True)
        ],
    }


def _wrong(documents: list[dict], built: list[Workbook], recalculated: list[Workbook]) -> dict:
    return {
        document["name"] + f" #{i}": found
        for i, (document, book, again) in enumerate(zip(documents, built, recalculated, strict=True))
        if (found := mismatches(again, book, document))
    }


@pytest.mark.xdist_group("libreoffice")
def test_libreoffice_recalculates_every_figure_of_the_demos_and_generated_scenarios(libreoffice):
    documents, built, recalculated = libreoffice["plain"]
    assert _wrong(documents, built, recalculated) == {}
    summary = recalculated[0]["Summary"]
    agreement = [row[3] for row in summary.iter_rows(min_row=4, values_only=True) if row[0] and row[1] != "Workbook"]
    assert agreement and set(agreement) == {"agree"}


@pytest.mark.xdist_group("libreoffice")
def test_libreoffice_recalculates_every_after_tax_financed_refreshed_and_committed_figure(libreoffice):
    documents, built, recalculated = libreoffice["finance"]
    assert _wrong(documents, built, recalculated) == {}
    assert recalculated[0]["Summary"]["A3"].value.startswith("Every figure agrees")


@pytest.mark.xdist_group("libreoffice")
def test_changing_inputs_in_the_workbook_gives_what_the_engine_gives_for_the_changed_document(libreoffice):
    again, changed = libreoffice["edited"]
    owned = slugs(model_book(DESIGN_EXAMPLE), DESIGN_EXAMPLE)[0]
    assert mismatches(again, model_book(changed), changed) == []
    assert not close(named(again, f"npv_{owned}"), evaluate(DESIGN_EXAMPLE)["options"][0]["npv"])  # it did move


@pytest.mark.xdist_group("libreoffice")
def test_changing_finance_inputs_in_the_workbook_gives_what_the_engine_gives_for_the_changed_document(libreoffice):
    for again, document, changed in libreoffice["edited_finance"]:
        assert mismatches(again, model_book(changed), changed) == []
        owned = slugs(model_book(changed), changed)[0]
        moved = evaluate(document)["options"][0]["npv_after_tax"]
        assert not close(named(again, f"npv_after_tax_{owned}"), moved)  # it did move


def test_the_finance_inputs_are_named_yellow_cells_and_the_schedule_setting_ones_say_they_are_fixed():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document.update(tax_rate=0.21, cost_of_debt=0.06)
    document["options"][0].update(financing="loan", loan_apr=0.07, loan_term_months=48, tax_depreciation="macrs_5")
    book = model_book(document)
    owned, rental, _ = slugs(book, document)
    inputs = {row[3]: row for row in book["Inputs"].iter_rows(min_row=2, values_only=True) if row[3]}
    assert inputs["tax_rate"][1] == 0.21 and inputs["cost_of_debt"][1] == 0.06
    assert inputs[f"loan_apr_{owned}"][1] == 0.07 and inputs[f"down_payment_share_{owned}"][1] == 0
    assert inputs[f"bonus_depreciation_{owned}"][1] == 0 and inputs[f"capex_change_per_year_{owned}"][1] == 0
    for name in (f"loan_term_months_{owned}", f"financing_{owned}", f"tax_depreciation_{owned}", "refresh_policy"):
        assert "fixed in the workbook" in inputs[name][0]
        assert named_cell(book, name).fill.fgColor.rgb != "00FFF2CC"
    for name in ("tax_rate", f"loan_apr_{owned}", f"bonus_depreciation_{owned}"):
        assert named_cell(book, name).fill.fgColor.rgb == "00FFF2CC"
    assert [row[2] for row in book["Tax depreciation"].iter_rows(min_row=2, max_row=7, values_only=True)] == [
        20.0,
        32.0,
        19.2,
        11.52,
        11.52,
        5.76,
    ]
    assert f"loan_apr_{rental}" not in book.defined_names


def test_user_text_is_never_a_formula_and_names_are_plain(tmp_path):
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["tax_rate"] = 0.21  # the after-tax sheets write the names too
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


def test_a_converted_model_api_price_names_its_own_original_in_the_sources_column():
    """A model API's picked prices, converted from EUR 2.75 and 11 per million input and output tokens: each input's
    source names its own original price, not a GPU-hour one it never had."""
    from tco.exports.model_workbook import input_source

    source = {
        "provider": "Mistral",
        "offering": "mistral-large",
        "observed_on": "2026-09-01",
        "original_price_per_million_input_tokens": "2.75",
        "original_price_per_million_output_tokens": "11",
        "original_currency": "EUR",
        "fx_rate": "1.08",
        "fx_rate_date": "2026-08-31",
        "fx_source": "ECB",
    }
    option = {"kind": "api", "price_source": source}
    assert "converted from EUR 2.75 at 1.08" in input_source(option, "price_per_million_input_tokens")
    assert "converted from EUR 11 at 1.08" in input_source(option, "price_per_million_output_tokens")
