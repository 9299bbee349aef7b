"""The catalogue's entries are data (tco/engine/catalogue.toml): the loader expands a family, a kind group, a check's
spelling and a condition into the entry the engine reads, and refuses what it does not know in the entry's words."""

from __future__ import annotations

import tomllib
from decimal import Decimal

import pytest

from tco.engine.catalogue import CATALOGUE_FILE, FAMILIES, OPTION_FIELDS, SCENARIO_FIELDS, load_catalogue
from tco.engine.fields import RATE_HINT, NumberField

FINANCING = """
[option.financing]
kinds = "owned"
type = "choice"
label = "Financing"
choices = [["cash", "Pay cash"], ["loan", "Loan"]]
default_choice = "cash"
"""


def _file_text() -> str:
    with open(CATALOGUE_FILE, encoding="utf-8") as file:
        return file.read()


def _options(text: str) -> dict:
    options, _ = load_catalogue(text)
    return {entry.name: entry for entry in options}


def _scenario(text: str) -> dict:
    _, scenario = load_catalogue(text)
    return {entry.name: entry for entry in scenario}


def test_the_module_reads_its_entries_from_the_file_beside_it_in_the_files_order():
    assert load_catalogue(_file_text()) == (OPTION_FIELDS, SCENARIO_FIELDS)
    names = list(tomllib.loads(_file_text())["option"])
    assert names[:3] == ["gpu_count", "capex", "residual_value"] and names[-1] == "on_demand_price_per_gpu_hour"


def test_every_family_the_loader_knows_has_an_entry_in_the_file():
    tables = tomllib.loads(_file_text())
    for table, families in FAMILIES.items():
        used = {facts["family"] for facts in tables[table].values() if "family" in facts}
        assert used == set(families), table


def test_a_loan_term_takes_the_loans_kinds_condition_and_finance_flag_from_its_family():
    fee = _options(
        FINANCING
        + """
        [option.loan_fee]
        family = "loan"
        type = "money"
        label = "Loan fee"
        unit = "{c}"
        check = "money"
        """
    )["loan_fee"]
    assert (fee.kinds, fee.finance, fee.when) == (("owned", "secondary"), True, (("financing", ("loan",)),))
    # "money": not negative, 0 when blank; the entry's own label and unit are bound to it.
    assert fee.check == NumberField("Loan fee", lo=0.0, unit="{c}", default=0.0)


def test_a_yearly_cost_is_one_line_more_than_its_label_and_may_name_other_kinds():
    entries = _options(
        """
        [option.insurance_per_year]
        family = "yearly_cost"
        label = "Insurance"

        [option.storage_per_year]
        family = "yearly_cost"
        kinds = ["rental", "api"]
        label = "Storage"
        """
    )
    insurance, storage = entries["insurance_per_year"], entries["storage_per_year"]
    assert (insurance.kinds, insurance.value_type, insurance.unit) == (("owned", "secondary"), "money", "{c} per year")
    assert (insurance.default, insurance.default_text, insurance.placeholder) == (0.0, "0", "0")
    assert storage.kinds == ("hyperscaler", "neocloud", "marketplace", "api")


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ('"rate"', NumberField("X", lo=0.0, hi=1.0, hint=RATE_HINT, unit="fraction")),
        (
            '{ base = "rate", default = 0.0 }',
            NumberField("X", lo=0.0, hi=1.0, hint=RATE_HINT, unit="fraction", default=0.0),
        ),
        ('{ base = "money", required = true }', NumberField("X", lo=0.0, unit="fraction", required=True)),
        (
            '{ base = "count", required = true }',
            NumberField("X", lo=1, hi=1_000_000, integer=True, unit="fraction", required=True),
        ),
        ("{ lo = 0.0, hi = 1.0, hi_open = true }", NumberField("X", lo=0.0, hi=1.0, hi_open=True, unit="fraction")),
    ],
    ids=["rate", "rate with a default", "required money", "required count", "a table"],
)
def test_a_check_is_a_word_a_word_with_what_differs_or_a_table(written, expected):
    text = f'[option.x]\nkinds = "owned"\ntype = "rate"\nlabel = "X"\nunit = "fraction"\ncheck = {written}\n'
    assert _options(text)["x"].check == expected


def test_a_whole_number_stays_whole_and_a_decimal_initial_stays_exact():
    entry = _scenario(
        """
        [scenario.horizon]
        scope = "scenario"
        type = "count"
        label = "Horizon"
        check = { lo = 1, hi = 240, integer = true }
        initial = 36

        [scenario.rate]
        scope = "scenario"
        type = "rate"
        label = "Rate"
        initial = 0.08
        """
    )
    assert isinstance(entry["horizon"].check.lo, int) and entry["horizon"].initial == 36
    assert entry["rate"].initial == Decimal("0.08")


def test_the_families_check_is_laid_under_the_entrys():
    entry = _scenario(
        """
        [scenario.restarts]
        family = "training_allowance"
        label = "Restarts"
        unit = "hours"
        check = { hi = 10.0 }
        """
    )["restarts"]
    assert entry.scope == "training" and entry.check == NumberField(
        "Restarts", lo=0.0, hi=10.0, unit="hours", default=0.0
    )
    assert (entry.default_text, entry.placeholder) == ("0", "0")


def test_when_says_any_value_given_or_none_and_a_blank_choice_is_its_first():
    entries = _options(
        """
        [option.curve]
        kinds = "owned"
        type = "list"
        label = "Curve"
        blank = "straight line"
        placeholder = "straight"

        [option.age]
        kinds = "owned"
        type = "number"
        label = "Age"
        check = { lo = 0.0 }
        when = { curve = "given" }

        [option.residual]
        kinds = "owned"
        type = "money"
        label = "Residual"
        check = "money"
        when = { curve = "blank" }

        [option.timing]
        kinds = "owned"
        type = "choice"
        label = "Timing"
        choices = [["advance", "In advance"], ["arrears", "In arrears"]]
        first_choice_if_blank = true
        """
    )
    assert entries["age"].when == (("curve", None),) and entries["residual"].when == (("curve", ()),)
    assert (entries["curve"].default_text, entries["curve"].placeholder) == ("straight line", "straight")
    timing = entries["timing"]
    assert (timing.default_choice, timing.default_text, timing.placeholder) == ("advance", "in advance", "")


ENTRY = '[option.x]\nkinds = "owned"\ntype = "number"\nlabel = "X"\ncheck = { lo = 0.0 }\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ENTRY + 'colour = "red"\n', r"\[option\.x\]: unknown key 'colour'"),
        (ENTRY + 'family = "mortgage"\n', r"\[option\.x\]: family 'mortgage' is not one of yearly_cost, price"),
        (ENTRY.replace('"owned"', '"rented"'), r"\[option\.x\]: 'kinds' 'rented' is not a kind group"),
        (ENTRY.replace('"number"', '"percent"'), r"\[option\.x\]: 'type' 'percent' is not one of"),
        (ENTRY.replace('"number"', '"text"'), r"\[option\.x\]: 'type' 'text'"),  # words are a scenario's only
        (ENTRY.replace("{ lo = 0.0 }", '"percent"'), r"\[option\.x\]: 'check' base 'percent' is not one of money"),
        (ENTRY.replace("lo = 0.0", 'lo = 0.0, label = "X"'), r"\[option\.x\]: 'check' has an unknown key 'label'"),
        (ENTRY.replace("lo = 0.0", 'lo = "0"'), r"\[option\.x\]: 'check' lo is '0'"),
        (ENTRY.replace("lo = 0.0", 'base = "money", lo = 1.0'), r"\[option\.x\]: 'check' base 'money' cannot take lo"),
        (ENTRY + 'when = { financing = "loan" }\n', r"\[option\.x\]: 'when' financing is 'loan'; write a list"),
        (ENTRY + 'when = { leasing = ["yes"] }\n', r"\[option\.x\]: 'when' names 'leasing'"),
        (
            FINANCING + ENTRY + 'when = { financing = ["lease"] }\n',
            r"\[option\.x\]: 'when' financing lists \('lease',\)",
        ),
        (ENTRY + 'at_most = "capex"\n', r"\[option\.x\]: 'at_most' names 'capex'"),
        (ENTRY + 'blank = "0"\ndefault_text = "zero"\n', r"\[option\.x\]: 'blank' and 'default_text' both say"),
        (ENTRY + "finance = 1\n", r"\[option\.x\]: 'finance' is 1, not true or false"),
        (ENTRY.replace('label = "X"\n', ""), r"\[option\.x\]: no 'label'"),
        (ENTRY.replace("[option.x]", "[options.x]"), r"\[options\]: not a table of the catalogue"),
        (
            '[scenario.x]\nscope = "scenario"\ntype = "number"\nlabel = "X"\nkinds = "owned"\n',
            r"\[scenario\.x\]: unknown key 'kinds'",
        ),
        (
            '[scenario.x]\nscope = "scenario"\ntype = "number"\nlabel = "X"\nfamily = "loan"\n',
            r"\[scenario\.x\]: family 'loan'",
        ),
    ],
    ids=[
        "unknown key",
        "unknown family",
        "unknown kind group",
        "unknown type",
        "a scenario's type",
        "unknown check word",
        "a check naming its label",
        "a bound in words",
        "money with bounds",
        "when without a list",
        "when naming no input",
        "when naming no value",
        "at_most naming no input",
        "two blanks",
        "a flag as a number",
        "no label",
        "unknown table",
        "an option's key on a scenario input",
        "an option's family on a scenario input",
    ],
)
def test_an_entry_the_loader_does_not_understand_is_refused_naming_the_entry_and_the_key(text, message):
    with pytest.raises(ValueError, match=message):
        load_catalogue(text)
