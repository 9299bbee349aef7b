"""The input catalogue: every input a scenario document carries, with every fact about it, once (docs/money-math.md).

Two tables of the same shape. ``OPTION_FIELDS`` holds the inputs of an option; ``SCENARIO_FIELDS`` those of the
scenario itself, its workload, its utilization forecast, its training plan and its serving configuration
(``ScenarioField``, below the options).

One ``OptionField`` per field, in document order: the kinds it applies to, its value type (money / rate / count /
number / choice / list), how the engine reads and bounds it (``check``, whose ``default`` applies when it is
omitted), the default in words, its one label and its unit, help text and placeholder.

How an entry is written: the entries are data, declared in ``catalogue.toml`` beside this module, one table an
input in document order (``[option.pue]``, ``[scenario.discount_rate]``), each key one fact
(``type = "number"``, ``label = "PUE"``, ``unit = "ratio"``, ``check = { lo = 1.0, hi = 3.0, default = 1.0 }``,
``blank = "1"``); the file's opening comment lists every key and its spelling. ``load_catalogue`` reads it when this
module is imported, refuses what it does not know, and builds the entries below. An input of a recurring family
says ``family = "yearly_cost"`` (``price``, ``workload_override``, ``finance``, ``loan``, ``lease``,
``commitment_term``, ``capacity_block``; for the scenario ``training_allowance``, ``training_size``,
``latency_target``): ``FAMILIES`` holds the facts a family shares, so a new input that fits one is a table of a few
lines. An entry built in Python (a test adding an input) is ``OptionField(name, kinds, value_type, label, unit,
check=..., ...)`` as ever.

Everything else derives from the entries: the engine's per-kind tables below (``numbers_for_kind``,
``allowed_option_fields``, ``OVERRIDES``), the model's fields (``tco.models.fields.option_model_field``), the
editor's inputs (``tco.web.viewmodels.fields``) and the inputs in words (``tco.presentation.inputs``).
Adding an input is one table in ``catalogue.toml``, its math, and the model field with its migration.

Framework-free like the rest of the engine. The entry is a small frozen dataclass so that later facts (a
low/likely/high range for a Monte Carlo analysis, a currency) are one more attribute.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, fields, replace
from decimal import Decimal
from typing import Any

from lib.currencies import DEFAULT_CURRENCY
from lib.kinds import API_KINDS, BILLINGS, KINDS, OWNED_KINDS, RENTAL_KINDS

from .fields import NumberField, count_field, fmt, money_field, rate_field, unit_text

# A list is a finance input made of several numbers (a resale curve, a price path by year), read by the engine's
# finance checks (tco.engine.finance_fields).
VALUE_TYPES = ("money", "rate", "count", "number", "choice", "list")
# A scenario also has inputs that are words (its name, its currency) or a list (a pasted forecast column).
SCENARIO_VALUE_TYPES = (*VALUE_TYPES, "text")
RATE_HELP = "Write 8% or 0.08: with % it is a percentage, a bare number is a fraction (8 would mean 800%)."

ENTRY_RECIPE = (
    "write the check without a label or a unit, e.g. check=NumberField(lo=0.0, hi=50.0, required=True), "
    "money_field(required=True), rate_field(default=0.0) or count_field(): the entry's label and unit are bound to it, "
    "so every message says the input's own words"
)


def bind_check(entry: OptionField | ScenarioField) -> None:
    """Give an entry's check the entry's label and unit (its messages then say "Useful life (years) must be ...").
    A check that names its own label or unit is refused: a second name for one input is how labels drift."""
    check = entry.check
    if check is None:
        return
    if check.label or check.unit:
        raise ValueError(
            f"{entry.name}: the check names its own label or unit ({check.label!r}, {check.unit!r}) beside the "
            f"entry's label {entry.label!r} and unit {entry.unit!r}; {ENTRY_RECIPE}"
        )
    object.__setattr__(entry, "check", replace(check, label=entry.label, unit=entry.unit))


@dataclass(frozen=True)
class _Entry:
    """What an option's and a scenario's entry both hold, and read the same way: its name, then by keyword how the
    engine reads and bounds it (``check``; None for words, choices, lists and a forecast's parameters), what a
    blank means in words (``default_text``) and in the empty box (``placeholder``), its help text, a choice's
    ``choices`` and its value when blank (``default_choice``), and ``finance``: an input of the finance depth
    (docs/money-math.md), which the engine reads only when given. Each kind of entry adds its own: where it
    applies, its value type, label and unit."""

    name: str
    _: KW_ONLY
    check: NumberField | None = None
    default_text: str | None = None
    help: str = ""
    placeholder: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    finance: bool = False
    default_choice: str | None = None

    @property
    def default(self) -> float | str | None:
        """The engine's value when the input is omitted (None: required, derived from another input, or no default)."""
        return self.check.default if self.check else self.default_choice

    @property
    def required(self) -> bool:
        """The engine refuses a document without it (an option's finance input: whenever it applies, a loan's APR
        with a loan; a workload's: once there is a workload)."""
        return self.check is not None and self.check.required

    @property
    def is_integer(self) -> bool:
        return self.value_type == "count"

    @property
    def is_percent(self) -> bool:
        """Entered and shown as a percentage ("8%"; a bare number is a fraction)."""
        return self.value_type == "rate"

    @property
    def is_money(self) -> bool:
        """In the scenario's currency: converted with it, written with it."""
        return self.value_type == "money"


@dataclass(frozen=True)
class OptionField(_Entry):
    """One option input. ``label`` is its one name on every page, export and message (the editor writes the unit
    after it, "Useful life (years)"); ``unit`` ("{c}" stands for the currency, "fraction" for a share shown as a
    percentage) is written after its values; ``check`` is None only for a choice or a list. ``when`` is the other
    inputs' values it applies with (see ``applies``); the facts every entry has are ``_Entry``'s."""

    kinds: tuple[str, ...]
    value_type: str
    label: str
    unit: str = ""
    _: KW_ONLY
    overrides_workload: bool = False
    when: tuple[tuple[str, tuple[str, ...] | None], ...] = ()
    at_most: str | None = None  # another input of the option this one cannot exceed (idle power, full power)

    def __post_init__(self) -> None:
        if self.value_type not in VALUE_TYPES:
            raise ValueError(f"{self.name}: value type {self.value_type!r} is not one of {', '.join(VALUE_TYPES)}")
        if (self.check is None) != (self.value_type in ("choice", "list")):
            raise ValueError(f"{self.name}: a number needs a check, a choice or a list has none")
        bind_check(self)

    @property
    def takes_range(self) -> bool:
        """An uncertain input (``simulate`` samples it from low/likely/high): every number but a count, which
        is a decision rather than an uncertainty."""
        return self.value_type in ("money", "rate", "number")

    def applies(self, values: Any) -> bool:
        """Whether the input means anything for an option holding ``values`` (a mapping of its inputs): a loan's
        APR only with a loan. Each condition of ``when`` names another input and the values it must have (None:
        any value at all; an empty tuple: none, the other input replaces this one); a blank choice is its default."""
        return all(_holds(values, name, allowed) for name, allowed in self.when)


def _holds(values: Any, name: str, allowed: tuple[str, ...] | None) -> bool:
    value = values.get(name)
    if value is None or value == "":
        value = OPTION_FIELD[name].default_choice
    if allowed == ():
        return value is None
    return value is not None if allowed is None else value in allowed


# --- The scenario's own inputs ---------------------------------------------------------------------------------

SCOPES = ("scenario", "workload", "forecast", "training", "serving")


@dataclass(frozen=True)
class ScenarioField(_Entry):
    """One input of the scenario itself, of its workload or of its utilization forecast, with every fact about it.

    ``scope`` says where it lives: "scenario" (a top-level document field), "workload" (the document nests it under
    ``workload``; the scenario stores it as ``workload_<name>``), "forecast" (a parameter of the utilization
    forecast, stored as ``forecast_<name>``; the document holds the forecast's expansion, ``utilization``) or
    "training" (the training plan, nested under ``training`` and stored as ``training_<name>``);
    "serving" (the serving configuration sizing starts from, stored as ``serving_<name>``: not part of the
    ``tco-scenario/1`` document, it builds the ``tco-sizing/1`` one, and sizing writes its answer into the
    scenario's inputs).
    ``label`` is the input's one name on every page, export and message; ``unit`` ("{c}" stands for the currency,
    "fraction" for a share shown as a percentage) is written after its values. ``check`` is how the engine reads
    and bounds it (None for words and choices, and for forecast parameters, which the forecast checks together);
    ``initial`` is its value in a new blank scenario, ``default_text`` the engine's value in words when it is left
    blank. ``stored`` is False for the one input the scenario does not store as a field (``utilization``).
    ``finance`` marks an input of the finance depth (docs/money-math.md), which the engine reads only when given."""

    scope: str
    value_type: str
    label: str
    unit: str = ""
    _: KW_ONLY
    initial: Any = None
    stored: bool = True
    fixed: bool = False  # it sets the schedule itself (the horizon, the months): never varied, fixed in the workbook

    def __post_init__(self) -> None:
        if self.value_type not in SCENARIO_VALUE_TYPES:
            raise ValueError(f"{self.name}: value type {self.value_type!r} is not one of {', '.join(VALUE_TYPES)}")
        if self.scope not in SCOPES:
            raise ValueError(f"{self.name}: scope {self.scope!r} is not one of {', '.join(SCOPES)}")
        if self.check is not None and self.value_type in ("text", "choice"):
            raise ValueError(f"{self.name}: words and choices have no number check")
        if (self.value_type == "choice") != bool(self.choices):
            raise ValueError(f"{self.name}: a choice lists its choices, and only a choice does")
        bind_check(self)

    @property
    def field(self) -> str:
        """The model field and form input: ``fleet_gpus``, ``workload_acceptance_rate``, ``forecast_kind``."""
        return self.name if self.scope == "scenario" else f"{self.scope}_{self.name}"

    @property
    def path(self) -> str:
        """The document path the engine reads (``workload.acceptance_rate``); "" for a forecast parameter."""
        return {
            "scenario": self.name,
            "workload": f"workload.{self.name}",
            "forecast": "",
            "training": f"training.{self.name}",
            "serving": "",
        }[self.scope]

    @property
    def never_blank(self) -> bool:
        """The scenario always holds a value: a required input of the scenario itself, or a choice that starts
        with one (the stored field is not nullable, the form refuses a blank)."""
        if self.value_type == "choice":
            return self.initial is not None
        return self.required and self.scope == "scenario"

    @property
    def takes_range(self) -> bool:
        """An uncertain input: a number of the document (not a count, not a forecast parameter: the forecast's
        ``utilization`` level takes the range; not the training plan, which is a plan rather than an uncertainty, nor
        the serving configuration, which sizing reads instead)."""
        return self.value_type in ("money", "rate", "number") and self.scope in ("scenario", "workload")


# --- The entries, read from catalogue.toml ---------------------------------------------------------------------

# Beside this module, so it ships with the package (an os path: pathlib would be one more import for the engine).
CATALOGUE_FILE = os.path.join(os.path.dirname(__file__), "catalogue.toml")
# What an option's ``kinds`` may name: one of these groups, or a list of them.
KIND_GROUPS = {
    "owned": OWNED_KINDS,
    "rental": RENTAL_KINDS,
    "hardware": OWNED_KINDS + RENTAL_KINDS,
    "api": API_KINDS,
    "all": KINDS,
}
# The recurring families of inputs, in the file's own words: each says once the facts its entries share, so an entry
# of a family writes only what is its own and two entries of one family cannot drift. An entry's own facts win; its
# check table is laid over the family's.
FAMILIES: dict[str, dict[str, dict[str, Any]]] = {
    "option": {
        # A running cost in money a year (facility, network, extras), 0 when left blank.
        "yearly_cost": {"kinds": "owned", "type": "money", "unit": "{c} per year", "check": "money", "blank": "0"},
        # A price the option cannot be costed without (capex, electricity, a rental's or the API's price).
        "price": {"type": "money", "check": {"base": "money", "required": True}},
        # An option's own value of a workload input (throughput, acceptance); blank: the workload's.
        "workload_override": {
            "overrides_workload": True,
            "blank": "the workload's",
            "placeholder": "workload's",
            "help": "Blank: the workload's.",
        },
        # An input of the finance depth (docs/money-math.md), read by the engine only when given.
        "finance": {"finance": True},
        # A term of a loan that buys owned hardware: it applies only when the option is financed with a loan.
        "loan": {"finance": True, "kinds": "owned", "when": {"financing": ["loan"]}},
        # A term of a lease of owned hardware: it applies only when the option is leased.
        "lease": {"finance": True, "kinds": "owned", "when": {"financing": ["lease"]}},
        # A term of a committed rental's commitment terms: it applies only to committed billing with a term.
        "commitment_term": {
            "finance": True,
            "kinds": "rental",
            "when": {"billing": ["committed"], "commitment_term_months": "given"},
        },
        # A fact of a rental's capacity block: it applies only to capacity-block billing.
        "capacity_block": {"kinds": "rental", "type": "count", "when": {"billing": ["capacity_block"]}},
    },
    "scenario": {
        # A training plan's allowance for what goes wrong (interruptions, checkpoints, restarts): 0 when left blank.
        "training_allowance": {
            "scope": "training",
            "type": "number",
            "check": {"lo": 0.0, "default": 0.0},
            "blank": "0",
        },
        # A positive number that sizes a training run from its model (parameters, tokens, the GPU's peak).
        "training_size": {"scope": "training", "type": "number", "check": {"lo": 0.0, "lo_open": True}},
        # A latency target of the serving configuration, in milliseconds: none when left blank.
        "latency_target": {
            "scope": "serving",
            "type": "number",
            "unit": "ms",
            "check": {"lo": 0.0, "lo_open": True},
            "blank": "no limit",
        },
    },
}
# A check written as a word, or a table's ``base``: the checks of tco.engine.fields of those names.
CHECK_BASES = {"money": money_field, "rate": rate_field, "count": count_field}
_CHECK_FACTS: dict[str, type | tuple[type, ...]] = {
    **dict.fromkeys(("lo", "hi", "default"), (int, float)),
    **dict.fromkeys(("lo_open", "hi_open", "integer", "required"), bool),
    "hint": str,
}
# ``when``'s words for a condition that is not a list of values: any value at all, or none.
WHEN_WORDS: dict[str, tuple[str, ...] | None] = {"given": None, "blank": ()}
_FLAGS = frozenset({"finance", "overrides_workload", "stored", "fixed", "first_choice_if_blank"})
_READ_APART = frozenset({"type", "kinds", "check", "choices", "when", "initial"})
# The keys an entry may have: its class's attributes, ``type`` for its value type, and the short spellings.
_KEYS = {
    cls: frozenset(field.name for field in fields(cls)) - {"name", "value_type"}
    | {"type", "blank", "first_choice_if_blank"}
    for cls in (OptionField, ScenarioField)
}


def load_catalogue(text: str) -> tuple[tuple[OptionField, ...], tuple[ScenarioField, ...]]:
    """The entries a catalogue file declares (``catalogue.toml``'s text), in its order: the options' and the
    scenario's. A table, key, family, kind group, type, check or condition it does not know is refused with a
    ValueError that names the entry and the key."""
    tables = tomllib.loads(text)
    for table, entries in tables.items():
        if table not in FAMILIES or not isinstance(entries, dict):
            raise ValueError(
                f"[{table}]: not a table of the catalogue, whose entries are [option.NAME] and [scenario.NAME]"
            )
    options = tuple(_entry(OptionField, "option", name, facts) for name, facts in tables.get("option", {}).items())
    scenario = tuple(
        _entry(ScenarioField, "scenario", name, facts) for name, facts in tables.get("scenario", {}).items()
    )
    _check_references(options)
    return options, scenario


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def _entry(cls: type[OptionField] | type[ScenarioField], table: str, name: str, written: Any) -> Any:
    where = f"[{table}.{name}]"
    if not isinstance(written, dict):
        raise ValueError(f"{where}: an entry is a table of its facts, not {written!r}")
    facts = dict(written)
    family = facts.pop("family", None)
    if family is not None:
        shared = FAMILIES[table].get(family)
        if shared is None:
            raise ValueError(f"{where}: family {family!r} is not one of {', '.join(FAMILIES[table])}")
        if isinstance(facts.get("check"), dict) and isinstance(shared.get("check"), dict):
            facts["check"] = {**shared["check"], **facts["check"]}
        facts = {**shared, **facts}
    known = _KEYS[cls]
    for key in facts:
        if key not in known:
            listed = ", ".join(sorted(known | {"family"}))
            raise ValueError(f"{where}: unknown key {key!r}; the keys of an entry here are {listed}")
    for key in ("kinds" if cls is OptionField else "scope", "type", "label"):
        if key not in facts:
            raise ValueError(f"{where}: no {key!r}")
    arguments: dict[str, Any] = {"name": name}
    for key, value in facts.items():
        if key not in _READ_APART:
            wanted = bool if key in _FLAGS else str
            if not isinstance(value, wanted):
                raise ValueError(f"{where}: {key!r} is {value!r}, not {'true or false' if wanted is bool else 'words'}")
            arguments[key] = value
    types = VALUE_TYPES if cls is OptionField else SCENARIO_VALUE_TYPES
    if facts["type"] not in types:
        raise ValueError(f"{where}: 'type' {facts['type']!r} is not one of {', '.join(types)}")
    arguments["value_type"] = facts["type"]
    if "kinds" in facts:
        arguments["kinds"] = _kinds(where, facts["kinds"])
    if "check" in facts:
        arguments["check"] = _check(where, facts["check"])
    if "choices" in facts:
        arguments["choices"] = _choices(where, facts["choices"])
    if "when" in facts:
        arguments["when"] = _when(where, facts["when"])
    if "initial" in facts:
        arguments["initial"] = _initial(where, facts["initial"])
    _blank(where, arguments)
    return cls(**arguments)


def _kinds(where: str, written: Any) -> tuple[str, ...]:
    groups = [written] if isinstance(written, str) else written
    if not isinstance(groups, list) or not groups or any(group not in KIND_GROUPS for group in groups):
        raise ValueError(
            f"{where}: 'kinds' {written!r} is not a kind group or a list of them: {', '.join(KIND_GROUPS)}"
        )
    return tuple(kind for group in groups for kind in KIND_GROUPS[group])


def _check(where: str, written: Any) -> NumberField:
    facts = {"base": written} if isinstance(written, str) else written
    if not isinstance(facts, dict):
        raise ValueError(f"{where}: 'check' {written!r} is neither a table nor one of {', '.join(CHECK_BASES)}")
    facts = dict(facts)
    base = facts.pop("base", None)
    if base is not None and base not in CHECK_BASES:
        raise ValueError(f"{where}: 'check' base {base!r} is not one of {', '.join(CHECK_BASES)}")
    for key, value in facts.items():
        if key not in _CHECK_FACTS:
            bound = " (the entry's own label and unit are bound to its check)" if key in ("label", "unit") else ""
            raise ValueError(
                f"{where}: 'check' has an unknown key {key!r}{bound}; its keys are base, {', '.join(_CHECK_FACTS)}"
            )
        if isinstance(value, bool) is not (_CHECK_FACTS[key] is bool) or not isinstance(value, _CHECK_FACTS[key]):
            wanted = {bool: "true or false", str: "words"}.get(_CHECK_FACTS[key], "a number")
            raise ValueError(f"{where}: 'check' {key} is {value!r}, not {wanted}")
    if base is None:
        return NumberField(**facts)
    try:
        return CHECK_BASES[base](**facts)
    except TypeError as error:  # money_field takes only required and default
        raise ValueError(f"{where}: 'check' base {base!r} cannot take {', '.join(facts)}: {error}") from error


def _choices(where: str, written: Any) -> tuple[tuple[str, str], ...]:
    pairs = written if isinstance(written, list) else [written]
    if not pairs or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in pairs
    ):
        raise ValueError(f"{where}: 'choices' must be a list of [value, label] pairs of words; got {written!r}")
    return tuple((value, label) for value, label in pairs)


def _when(where: str, written: Any) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    if not isinstance(written, dict):
        raise ValueError(f"{where}: 'when' must be a table of other inputs and their values; got {written!r}")
    conditions = []
    for other, allowed in written.items():
        if isinstance(allowed, str) and allowed in WHEN_WORDS:
            conditions.append((other, WHEN_WORDS[allowed]))
        elif isinstance(allowed, list) and allowed and all(isinstance(value, str) for value in allowed):
            conditions.append((other, tuple(allowed)))
        else:
            raise ValueError(
                f"{where}: 'when' {other} is {allowed!r}; write a list of its values, \"given\" (any value) or "
                '"blank" (none)'
            )
    return tuple(conditions)


def _initial(where: str, written: Any) -> Any:
    if isinstance(written, bool) or not isinstance(written, str | int | float):
        raise ValueError(f"{where}: 'initial' {written!r} is neither words nor a number")
    # A number with a decimal point is kept as written: the model stores an exact decimal (0.08).
    return Decimal(str(written)) if isinstance(written, float) else written


def _blank(where: str, arguments: dict[str, Any]) -> None:
    """``blank``: what a blank means, shown in the empty box too; ``first_choice_if_blank``: a choice's first value,
    said in its label's words."""
    said = [key for key in ("blank", "default_text", "first_choice_if_blank") if arguments.get(key, False) is not False]
    if len(said) > 1:
        raise ValueError(f"{where}: {' and '.join(repr(key) for key in said)} both say what a blank means; keep one")
    if "blank" in arguments:
        arguments["default_text"] = arguments.pop("blank")
        arguments.setdefault("placeholder", arguments["default_text"])
    if arguments.pop("first_choice_if_blank", False):
        if "default_choice" in arguments or not arguments.get("choices"):
            raise ValueError(f"{where}: 'first_choice_if_blank' goes with 'choices' and without 'default_choice'")
        value, label = arguments["choices"][0]
        arguments["default_choice"], arguments["default_text"] = value, label.lower()


def _check_references(options: tuple[OptionField, ...]) -> None:
    """Every ``when`` and ``at_most`` names another input of an option, and a value of a choice is one of its values."""
    named = {entry.name: entry for entry in options}
    for entry in options:
        for other, allowed in entry.when:
            if other not in named:
                raise ValueError(f"[option.{entry.name}]: 'when' names {other!r}, not an input of an option")
            values = {value for value, _ in named[other].choices}
            if values and allowed and not set(allowed) <= values:
                raise ValueError(
                    f"[option.{entry.name}]: 'when' {other} lists {allowed!r}; its values are {sorted(values)}"
                )
        if entry.at_most is not None and entry.at_most not in named:
            raise ValueError(f"[option.{entry.name}]: 'at_most' names {entry.at_most!r}, not an input of an option")


OPTION_FIELDS: tuple[OptionField, ...]
SCENARIO_FIELDS: tuple[ScenarioField, ...]
OPTION_FIELDS, SCENARIO_FIELDS = load_catalogue(_read(CATALOGUE_FILE))
OPTION_FIELD = {entry.name: entry for entry in OPTION_FIELDS}
SCENARIO_FIELD = {entry.field: entry for entry in SCENARIO_FIELDS}
# The file writes these values as words; the code's constants must say the same.
assert tuple(value for value, _ in OPTION_FIELD["billing"].choices) == BILLINGS
assert OPTION_FIELD["acceptance_rate"].check.hint == SCENARIO_FIELD["workload_acceptance_rate"].check.hint
assert SCENARIO_FIELD["currency"].initial == SCENARIO_FIELD["currency"].default_text == DEFAULT_CURRENCY
assert f"({DEFAULT_CURRENCY})" in SCENARIO_FIELD["currency"].help


# Typical resale curves to start a resale curve from ([age in months, share of the price]); illustrative shapes of
# the used GPU-server market, not quotes: a fast one for a generation that newer GPUs soon outclass, a slow one for
# hardware that keeps its demand.
RESALE_CURVES: dict[str, tuple[str, tuple[tuple[int, float], ...]]] = {
    "fast": ("GPU servers, fast decline", ((0, 1), (12, 0.6), (24, 0.4), (36, 0.25), (60, 0.1))),
    "slow": ("GPU servers, slow decline", ((0, 1), (12, 0.8), (24, 0.65), (36, 0.5), (60, 0.3))),
    "steady": ("Straight line to 10% at 5 years", ((0, 1), (60, 0.1))),
}

# Non-input option fields besides name and kind: where a picked Market price came from.
PRICE_SOURCE_KINDS = RENTAL_KINDS + API_KINDS
PRICE_SOURCE_TEXT = ("provider", "offering", "region", "pricing_term", "observed_on", "source_url")
# A Market price converted into the scenario's currency keeps its original and the rate (docs/money-math.md), as text so
# the decimals stay exact.
PRICE_SOURCE_FX = (
    "original_price_per_gpu_hour",
    "original_price_per_million_input_tokens",
    "original_price_per_million_output_tokens",
    "original_currency",
    "fx_rate",
    "fx_rate_date",
    "fx_source",
)
# The option inputs a picked Market price lands on, by kind: the observation's price fields of the same names.
MARKET_PRICE_FIELDS = {
    **{kind: ("price_per_gpu_hour",) for kind in RENTAL_KINDS},
    **{kind: ("price_per_million_input_tokens", "price_per_million_output_tokens") for kind in API_KINDS},
}
PRICE_SOURCE_IDS = ("price_observation_id", "snapshot_id")
# Provenance of a rental's price path taken from the Market's trend (pricing.trends): which index, over which weeks,
# the fitted change and its interval (decimal text), on which day it was adopted. Rentals only.
PRICE_PATH_SOURCE_TEXT = ("gpu_model", "pricing_term", "currency", "change_per_year", "low", "high")
PRICE_PATH_SOURCE_DATES = ("first_week", "last_day", "adopted_on")
PRICE_PATH_SOURCE_COUNTS = ("months", "weeks", "offerings")

OVERRIDES = tuple(entry.name for entry in OPTION_FIELDS if entry.overrides_workload)
# Inputs of one option that must stay ordered: (the smaller, the larger), checked on a document, a sweep's every cell
# and a batch of variants.
AT_MOST_PAIRS = tuple((entry.name, entry.at_most) for entry in OPTION_FIELDS if entry.at_most)


def at_most_message(small: str, large: str, values: tuple[float, float] | None = None, currency: str = "") -> str:
    """ "Idle power, whole option (3.5 kW) cannot be more than the power at full load, whole option (2 kW)", in the
    entries' words; without ``values``, the rule alone."""
    low, high = OPTION_FIELD[small], OPTION_FIELD[large]
    if values is None:
        return f"{low.label} cannot be more than the {high.label[:1].lower()}{high.label[1:]}"

    def amount(value: float, unit: str) -> str:
        return f"{fmt(value)} {unit_text(unit, currency or DEFAULT_CURRENCY)}".strip()

    return (
        f"{low.label} ({amount(values[0], low.unit)}) cannot be more than the {high.label[:1].lower()}"
        f"{high.label[1:]} ({amount(values[1], high.unit)})"
    )


def option_fields(kind: str) -> tuple[OptionField, ...]:
    """The inputs of an option of ``kind``, in document order (none for an unknown kind)."""
    return tuple(entry for entry in OPTION_FIELDS if kind in entry.kinds)


def fields_for_kind(kind: str) -> tuple[str, ...]:
    return tuple(entry.name for entry in option_fields(kind))


def fields_of_type(*value_types: str) -> frozenset[str]:
    return frozenset(entry.name for entry in OPTION_FIELDS if entry.value_type in value_types)


def numbers_for_kind(kind: str) -> dict[str, NumberField]:
    """The numeric fields an option of ``kind`` may carry, with their checks (the finance inputs are read on their
    own: ``finance_option_fields``)."""
    return {entry.name: entry.check for entry in option_fields(kind) if entry.check is not None and not entry.finance}


def finance_option_fields(kind: str) -> tuple[OptionField, ...]:
    """The finance inputs of an option of ``kind`` (docs/money-math.md "Finance depth"), in document order."""
    return tuple(entry for entry in option_fields(kind) if entry.finance)


def allowed_option_fields(kind: str) -> tuple[str, ...]:
    choices = tuple(entry.name for entry in option_fields(kind) if entry.value_type == "choice" and not entry.finance)
    source = ("price_source",) if kind in PRICE_SOURCE_KINDS else ()
    path_source = ("price_path_source",) if kind in RENTAL_KINDS else ()
    return ("name", "kind", *numbers_for_kind(kind), *choices, *source, *path_source)


# Converted or re-centred money is rounded half up to the cent, except unit prices: a cent is a large share of a
# price per kWh or per GPU-hour, and it is multiplied by millions of units, so those keep four decimal places.
UNIT_PRICE_FIELDS = frozenset(
    {
        "price_per_gpu_hour",
        "burst_price_per_gpu_hour",
        "on_demand_price_per_gpu_hour",
        "electricity_per_kwh",
        "price_per_million_input_tokens",
        "price_per_million_output_tokens",
    }
)
CENT = Decimal("0.01")
UNIT_PRICE_STEP = Decimal("0.0001")


def money_step(name: str) -> Decimal:
    """The step a money input ``name`` is rounded to when the app computes it (a conversion, a moved range)."""
    return UNIT_PRICE_STEP if name in UNIT_PRICE_FIELDS else CENT


# --- The scenario's tables -------------------------------------------------------------------------------------

# The serving configuration's bounds: a request, a bucket's rate and the buckets a scenario keeps.
MAX_SERVING_TOKENS = 10_000_000
MAX_REQUESTS_PER_SECOND = 1_000_000.0
MAX_BUCKETS = 50
assert SCENARIO_FIELD["serving_context_tokens"].check.hi == MAX_SERVING_TOKENS  # the file says it in digits
BUCKET_REQUESTS = NumberField("Requests per second", lo=0.0, lo_open=True, hi=MAX_REQUESTS_PER_SECOND)
BUCKET_INPUT_TOKENS = NumberField("Input tokens", lo=1, hi=MAX_SERVING_TOKENS, integer=True, unit="tokens")
BUCKET_OUTPUT_TOKENS = NumberField("Output tokens", lo=1, hi=MAX_SERVING_TOKENS, integer=True, unit="tokens")

# Each month's utilization, checked on its own ("Month 5: Utilization must be ..."); the forecast's level is the entry.
UTILIZATION = rate_field("Utilization", hint=SCENARIO_FIELD["utilization"].check.hint)


def top_numbers() -> dict[str, NumberField]:
    """The engine's checks of the scenario's numbers, by document key (read when called, so an entry added to the
    catalogue is checked at once)."""
    return {
        entry.name: entry.check
        for entry in SCENARIO_FIELDS
        if entry.scope == "scenario" and entry.check is not None and entry.stored and not entry.finance
    }


# The engine's checks of the scenario's numbers, by document key (validation, sweeps, variants, the tornado).
TOP_NUMBERS: dict[str, NumberField] = top_numbers()
# The scenario's numbers a sweep, a range or a batch of variants may move (not the horizon: it sets the months).
VARIED_TOP_NUMBERS: dict[str, NumberField] = {
    name: spec for name, spec in TOP_NUMBERS.items() if not SCENARIO_FIELD[name].fixed
}
# The finance depth's scenario inputs, put in the normalised document only when given.
FINANCE_TOP_NUMBERS: dict[str, NumberField] = {
    entry.name: entry.check for entry in SCENARIO_FIELDS if entry.finance and entry.check is not None
}
FINANCE_TOP_FIELDS = tuple(entry.name for entry in SCENARIO_FIELDS if entry.finance)
REFRESH_POLICIES = tuple(value for value, _ in SCENARIO_FIELD["refresh_policy"].choices)
WORKLOAD_NUMBERS: dict[str, NumberField] = {
    entry.name: entry.check for entry in SCENARIO_FIELDS if entry.scope == "workload" and entry.check is not None
}
TRAINING_NUMBERS: dict[str, NumberField] = {
    entry.name: entry.check for entry in SCENARIO_FIELDS if entry.scope == "training" and entry.check is not None
}
# The three ways to size a run: its GPU-hours, or the model's parameters and tokens at an MFU of the GPU's peak.
TRAINING_SIZE_FIELDS = ("params_billion", "tokens_billion", "mfu", "peak_tflops")


def option_value(option: Mapping[str, Any], name: str) -> Any:
    """An option input's value, or its entry's default when the document leaves it out (a finance input is read by
    the engine only when given, so a normalised document may lack it): the one place a consumer finds a default."""
    value = option.get(name)
    return OPTION_FIELD[name].default if value is None else value


def scenario_value(document: Mapping[str, Any], name: str) -> Any:
    """A top-level input's value (``tax_rate``, ``refresh_policy``), or its entry's default when left out."""
    value = document.get(name)
    return SCENARIO_FIELD[name].default if value is None else value


def input_fields_of_type(*value_types: str) -> frozenset[str]:
    """The model fields of every catalogued input of ``value_types``, the options' and the scenario's (``capex``,
    ``discount_rate``, ``workload_acceptance_rate``; ``utilization`` names the forecast's level)."""
    scenario = {entry.field for entry in SCENARIO_FIELDS if entry.value_type in value_types}
    return fields_of_type(*value_types) | scenario


def scenario_fields(*scopes: str) -> tuple[ScenarioField, ...]:
    """The scenario's inputs of ``scopes`` (all when none), in document order."""
    return tuple(entry for entry in SCENARIO_FIELDS if not scopes or entry.scope in scopes)


def scenario_inputs() -> tuple[ScenarioField, ...]:
    """The inputs the editor saves one at a time: the scenario's, the workload's and the training plan's stored
    ones, in document order (the forecast's parameters are saved together by its own form)."""
    return tuple(entry for entry in scenario_fields("scenario", "workload", "training") if entry.stored)


def scenario_path_field(path: str) -> ScenarioField | None:
    """The entry of a document path (``discount_rate``, ``workload.acceptance_rate``, ``utilization``)."""
    return next((entry for entry in SCENARIO_FIELDS if entry.path == path), None)
