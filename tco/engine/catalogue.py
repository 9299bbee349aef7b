"""The input catalogue: every input a scenario document carries, with every fact about it, once (docs/money-math.md).

Two tables of the same shape. ``OPTION_FIELDS`` holds the inputs of an option; ``SCENARIO_FIELDS`` those of the
scenario itself, its workload and its utilization forecast (``ScenarioField``, below the options).

One ``OptionField`` per field, in document order: the kinds it applies to, its value type (money / rate / count /
number / choice / list), how the engine reads and bounds it (``check``, whose ``default`` applies when it is
omitted), the default in words, its one label and its unit, help text and placeholder.

How an entry is written: its name, kinds (a scenario input: its scope), value type, label and unit positionally,
then the rest by keyword: ``OptionField("pue", _OWNED, "number", "PUE", "ratio", check=NumberField(...),
**_blank("1"), help=...)``. ``**_blank(words, placeholder)`` says what a blank means and what the empty box shows.
An input of a recurring family is written with the family's function, which holds the facts the family shares:
``_yearly_cost`` (money a year, 0 when blank), ``_price`` (required money), ``_workload_override``, ``_finance``
(read only when given) and its ``_loan``, ``_lease`` and ``_commitment_term`` (the ``when`` of each),
``_capacity_block``, ``_first_if_blank`` (a choice whose blank is its first choice); for the scenario
``_training_allowance``, ``_training_size`` and ``_latency_target``. A new input that fits a family is one line.

Everything else derives from the entries: the engine's per-kind tables below (``numbers_for_kind``,
``allowed_option_fields``, ``OVERRIDES``), the model's fields (``tco.models.fields.option_model_field``), the
editor's inputs (``tco.web.viewmodels.fields``) and the inputs in words (``tco.presentation.inputs``).
Adding an input is one entry here, its math, and the model field with its migration.

Framework-free like the rest of the engine. The entry is a small frozen dataclass so that later facts (a
low/likely/high range for a Monte Carlo analysis, a currency) are one more attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from lib.currencies import DEFAULT_CURRENCY
from lib.kinds import API_KINDS, BILLINGS, CAPACITY_BLOCK, COMMITTED, KINDS, ON_DEMAND, OWNED_KINDS, RENTAL_KINDS

from .fields import NumberField, count_field, fmt, money_field, rate_field, unit_text

# A list is a finance input made of several numbers (a resale curve, a price path by year), read by the engine's
# finance checks (tco.engine.finance_fields).
VALUE_TYPES = ("money", "rate", "count", "number", "choice", "list")
# A scenario also has inputs that are words (its name, its currency) or a list (a pasted forecast column).
SCENARIO_VALUE_TYPES = (*VALUE_TYPES, "text")
BILLING_LABELS = {ON_DEMAND: "On demand", COMMITTED: "Committed", CAPACITY_BLOCK: "Capacity block"}
RATE_HELP = "Write 8% or 0.08: with % it is a percentage, a bare number is a fraction (8 would mean 800%)."

ACCEPTANCE_HINT = " (0.9 means 90%)"
UTILIZATION_HINT = " (0.55 means 55%)"

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


class _Entry:
    """What an option's and a scenario's entry read the same way from their value type, check and default choice."""

    value_type: str
    check: NumberField | None
    default_choice: str | None

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
    percentage) is written after its values; ``check`` is None only for a choice or a list. A finance input
    (``finance``) is read by the engine only when given; ``default_choice`` is a choice's value when it is blank, and
    ``when`` the other inputs' values it applies with (see ``applies``)."""

    name: str
    kinds: tuple[str, ...]
    value_type: str
    label: str
    unit: str = ""
    check: NumberField | None = None
    default_text: str | None = None
    help: str = ""
    placeholder: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    overrides_workload: bool = False
    finance: bool = False
    default_choice: str | None = None
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


_OWNED = OWNED_KINDS
_RENTAL = RENTAL_KINDS
_HARDWARE = OWNED_KINDS + RENTAL_KINDS

# The recurring families of inputs (below, and the scenario's above SCENARIO_FIELDS): each says once the facts its
# entries share, so an entry of a family writes only what is its own and two entries of one family cannot drift.


def _blank(means: str, placeholder: str | None = None) -> dict[str, str]:
    """What a blank input means, in words (``default_text``), and the placeholder the editor shows in it (the same
    words unless shorter ones are given): ``**_blank("0")``, ``**_blank("the fleet size", "fleet size")``."""
    return {"default_text": means, "placeholder": means if placeholder is None else placeholder}


def _yearly_cost(name: str, label: str, kinds: tuple[str, ...] = _OWNED, help: str = "") -> OptionField:
    """A running cost in money a year (facility, network, extras), 0 when left blank."""
    return OptionField(name, kinds, "money", label, "{c} per year", money_field(), help=help, **_blank("0"))


def _price(name: str, kinds: tuple[str, ...], label: str, unit: str, **facts: Any) -> OptionField:
    """A price the option cannot be costed without (capex, electricity, a rental's or the API's price)."""
    return OptionField(name, kinds, "money", label, unit, money_field(required=True), **facts)


def _workload_override(
    name: str, kinds: tuple[str, ...], value_type: str, label: str, unit: str, check: NumberField
) -> OptionField:
    """An option's own value of a workload input (throughput, acceptance); blank: the workload's."""
    return OptionField(
        name,
        kinds,
        value_type,
        label,
        unit,
        check,
        **_blank("the workload's", "workload's"),
        help="Blank: the workload's.",
        overrides_workload=True,
    )


def _finance(
    name: str, kinds: tuple[str, ...], value_type: str, label: str, unit: str = "", **facts: Any
) -> OptionField:
    """An input of the finance depth (docs/money-math.md), read by the engine only when given."""
    return OptionField(name, kinds, value_type, label, unit, finance=True, **facts)


def _loan(name: str, value_type: str, label: str, unit: str = "", **facts: Any) -> OptionField:
    """A term of a loan that buys owned hardware: it applies only when the option is financed with a loan."""
    return _finance(name, _OWNED, value_type, label, unit, when=(("financing", ("loan",)),), **facts)


def _lease(name: str, value_type: str, label: str, unit: str = "", **facts: Any) -> OptionField:
    """A term of a lease of owned hardware: it applies only when the option is leased."""
    return _finance(name, _OWNED, value_type, label, unit, when=(("financing", ("lease",)),), **facts)


def _commitment_term(name: str, value_type: str, label: str, unit: str = "", **facts: Any) -> OptionField:
    """A term of a committed rental's commitment terms: it applies only to committed billing with a term."""
    when = (("billing", (COMMITTED,)), ("commitment_term_months", None))
    return _finance(name, _RENTAL, value_type, label, unit, when=when, **facts)


def _capacity_block(name: str, label: str, unit: str, check: NumberField, help: str) -> OptionField:
    """A fact of a rental's capacity block: it applies only to capacity-block billing."""
    return OptionField(name, _RENTAL, "count", label, unit, check, help=help, when=(("billing", (CAPACITY_BLOCK,)),))


def _first_if_blank(*choices: tuple[str, str]) -> dict[str, Any]:
    """A choice's choices, blank meaning the first one (its default in words is its label, in lower case)."""
    return {"choices": choices, "default_choice": choices[0][0], "default_text": choices[0][1].lower()}


OPTION_FIELDS: tuple[OptionField, ...] = (
    # Owned and secondary hardware.
    OptionField(
        "gpu_count",
        _OWNED,
        "count",
        "GPU count",
        "GPUs",
        check=count_field(),
        **_blank("the fleet size", "fleet size"),
        help="Blank: the fleet size.",
    ),
    _price(
        "capex",
        _OWNED,
        "Capex, whole option",
        "{c}",
        help="Purchase price of all the option's hardware (servers, GPUs, spares, installation), paid in month 1.",
    ),
    OptionField(
        "residual_value",
        _OWNED,
        "money",
        "Residual value",
        "{c}",
        check=money_field(),
        help="Expected resale value of all the option's hardware at the end of its life.",
        when=(("resale_curve", ()),),
        at_most="capex",
        **_blank("0"),
    ),
    OptionField(
        "useful_life_years",
        _OWNED,
        "number",
        "Useful life",
        "years",
        check=NumberField(lo=0.0, hi=50.0, lo_open=True, required=True),
    ),
    OptionField(
        "cost_of_capital",
        _OWNED,
        "rate",
        "Cost of capital",
        "fraction per year",
        check=rate_field(default=0.0),
        **_blank("0"),
    ),
    OptionField(
        "power_kw", _OWNED, "number", "Power at full load, whole option", "kW", check=NumberField(lo=0.0, required=True)
    ),
    OptionField(
        "idle_power_kw",
        _OWNED,
        "number",
        "Idle power, whole option",
        "kW",
        check=NumberField(lo=0.0),
        **_blank("same as full load"),
        help="All the option's servers, idle. Blank: same as full load.",
        at_most="power_kw",
    ),
    OptionField(
        "pue",
        _OWNED,
        "number",
        "PUE",
        "ratio",
        check=NumberField(lo=1.0, hi=3.0, default=1.0),
        **_blank("1"),
        help="Facility power ÷ IT power; blank = 1.",
    ),
    _price("electricity_per_kwh", _OWNED, "Electricity", "{c} per kWh"),
    _yearly_cost("facility_per_year", "Facility / colocation"),
    _yearly_cost("network_per_year", "Network"),
    _yearly_cost("software_per_year", "Software"),
    _yearly_cost("support_per_year", "Support"),
    _yearly_cost("operations_per_year", "Operations staff"),
    # Rentals (hyperscaler, neocloud, marketplace).
    _price("price_per_gpu_hour", _RENTAL, "Price", "{c} per GPU-hour"),
    OptionField(
        "billing",
        _RENTAL,
        "choice",
        "Billing",
        "",
        **_blank("on demand"),
        help="Blank: on demand.",
        choices=tuple(BILLING_LABELS.items()),
        default_choice=BILLINGS[0],
    ),
    OptionField(
        "committed_gpus",
        _RENTAL,
        "count",
        "Committed GPUs",
        "GPUs",
        check=count_field(),
        **_blank("the fleet size", "fleet size"),
    ),
    _capacity_block(
        "block_gpus",
        "GPUs per block",
        "GPUs",
        count_field(),
        "A capacity block rents this many GPUs together; blocks of one run go side by side.",
    ),
    _capacity_block(
        "block_days",
        "Block length",
        "days",
        NumberField(lo=1, hi=182, integer=True),
        "Paid in full when the block starts, every hour used or not (1 to 182 days).",
    ),
    # Managed model API.
    _price("price_per_million_input_tokens", API_KINDS, "Price per million input tokens", "{c}"),
    _price("price_per_million_output_tokens", API_KINDS, "Price per million output tokens", "{c}"),
    # Rentals and the API.
    _yearly_cost(
        "extras_per_year",
        "Extras: storage, egress, support",
        kinds=_RENTAL + API_KINDS,
        help="Storage, egress, support plans.",
    ),
    OptionField(
        "price_change_per_year",
        _RENTAL,
        "rate",
        "Price change",
        "fraction per year",
        check=NumberField(lo=-0.9, hi=2.0, hint=" (-0.1 means prices fall 10% a year)", default=0.0),
        help="-0.10 = prices fall 10 % a year.",
        when=(("price_change_by_year", ()),),
        **_blank("0"),
    ),
    # Any option may override the workload's throughput (hardware) and acceptance (all).
    _workload_override(
        "tokens_per_second_per_gpu",
        _HARDWARE,
        "number",
        "Output tokens per second per GPU",
        "tokens/s",
        check=NumberField(lo=0.0, lo_open=True),
    ),
    _workload_override(
        "acceptance_rate",
        KINDS,
        "rate",
        "Acceptance rate",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=ACCEPTANCE_HINT),
    ),
    # Finance depth (docs/money-math.md): tax, financing, refresh and resale of owned hardware; price paths and
    # commitment terms of rentals. The engine reads each only when it is given, so an option without them is
    # evaluated as before.
    _finance(
        "tax_depreciation",
        _OWNED,
        "choice",
        "Tax depreciation",
        default_text="straight line over the useful life",
        help="MACRS: IRS Pub 946, half-year convention.",
        choices=(
            ("macrs_3", "MACRS 3-year"),
            ("macrs_5", "MACRS 5-year"),
            ("macrs_7", "MACRS 7-year"),
            ("straight_line", "Straight line"),
            ("none", "Not deducted"),
        ),
        default_choice="straight_line",
    ),
    _finance(
        "tax_life_years",
        _OWNED,
        "number",
        "Tax life",
        "years",
        check=NumberField(lo=0.0, hi=50.0, lo_open=True),
        **_blank("the useful life", "useful life"),
        when=(("tax_depreciation", ("straight_line",)),),
    ),
    _finance(
        "bonus_depreciation",
        _OWNED,
        "rate",
        "Bonus depreciation",
        "fraction",
        check=rate_field(hint=" (1 means the whole basis in tax year 1)", default=0.0),
        help="Deducted in tax year 1; the method applies to the rest.",
        **_blank("0"),
    ),
    _finance(
        "financing",
        _OWNED,
        "choice",
        "Financing",
        default_text="cash",
        choices=(("cash", "Pay cash"), ("loan", "Loan"), ("lease", "Lease")),
        default_choice="cash",
    ),
    _loan(
        "loan_apr",
        "rate",
        "Loan APR",
        "fraction per year",
        check=rate_field(required=True),
        help="Nominal annual rate, compounded monthly.",
    ),
    _loan(
        "loan_term_months",
        "count",
        "Loan term",
        "months",
        check=NumberField(lo=1, hi=360, integer=True, required=True),
        help="Level payments at the end of each month.",
    ),
    _loan(
        "down_payment_share",
        "rate",
        "Down payment",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, hi_open=True, hint=" (0.2 means 20%)", default=0.0),
        help="Share of the price paid at purchase; the loan covers the rest.",
        **_blank("0"),
    ),
    _lease("lease_payment", "money", "Lease payment", "{c} per payment", check=money_field(required=True)),
    _lease(
        "lease_payment_interval_months",
        "count",
        "Lease payment interval",
        "months",
        check=NumberField(lo=1, hi=12, integer=True, default=1),
        default_text="monthly",
        choices=(("1", "Monthly"), ("3", "Quarterly"), ("6", "Every 6 months"), ("12", "Yearly")),
    ),
    _lease(
        "lease_term_months",
        "count",
        "Lease term",
        "months",
        check=NumberField(lo=1, hi=240, integer=True, required=True),
        help="A whole number of payment intervals, at most the horizon.",
    ),
    _lease(
        "lease_payment_timing",
        "choice",
        "Lease payment timing",
        **_first_if_blank(("advance", "In advance"), ("arrears", "In arrears")),
    ),
    _lease(
        "lease_end",
        "choice",
        "Lease end",
        **_first_if_blank(("return", "Return the hardware"), ("buyout", "Buy it out")),
    ),
    _finance(
        "lease_buyout_price",
        _OWNED,
        "money",
        "Lease buyout price",
        "{c}",
        check=money_field(default=None),
        help="Paid at the end of the lease; the hardware is then depreciated and sold like a purchase.",
        when=(("financing", ("lease",)), ("lease_end", ("buyout",))),
    ),
    _finance(
        "capex_change_per_year",
        _OWNED,
        "rate",
        "Replacement price change",
        "fraction per year",
        check=NumberField(lo=-0.9, hi=2.0, hint=" (-0.2 means new hardware costs 20% less a year)", default=0.0),
        help="Price of a replacement unit (refresh policy: replace).",
        **_blank("0"),
    ),
    _finance(
        "resale_curve",
        _OWNED,
        "list",
        "Resale curve",
        "age in months: share of the price",
        **_blank("straight line to the residual value"),
        help="E.g. 0: 100%, 12: 70%, 36: 40%. It sets the residual value: leave that blank.",
    ),
    _finance(
        "age_at_purchase_months",
        _OWNED,
        "number",
        "Age at purchase",
        "months",
        check=NumberField(lo=0.0, hi=1200.0, default=0.0),
        **_blank("0 (new)", "0"),
        help="A used unit starts this far along the resale curve.",
        when=(("resale_curve", None),),
    ),
    _finance(
        "price_change_by_year",
        _RENTAL,
        "list",
        "Price change by year",
        "fraction per year",
        **_blank("the price change per year, every year", "the price change per year"),
        help="E.g. -25%, -10%, 0%; the last repeats. Instead of a price change per year.",
        when=(("price_change_per_year", ()),),
    ),
    _finance(
        "commitment_term_months",
        _RENTAL,
        "count",
        "Commitment term",
        "months",
        check=NumberField(lo=1, hi=240, integer=True),
        default_text="none: the commitment covers the horizon at the floating price",
        help="Each term locks the price of the month it starts.",
        when=(("billing", ("committed",)),),
    ),
    _commitment_term(
        "upfront_share",
        "rate",
        "Upfront share",
        "fraction",
        check=rate_field(hint=" (0.5 means half of each term paid when it starts)", default=0.0),
        **_blank("0 (no upfront)", "0"),
        help="Share of each term paid when it starts.",
    ),
    _commitment_term(
        "after_term",
        "choice",
        "After a term",
        **_first_if_blank(("renew", "Renew"), (ON_DEMAND, "Fall back to on demand")),
    ),
    _finance(
        "on_demand_price_per_gpu_hour",
        _RENTAL,
        "money",
        "On-demand price",
        "{c} per GPU-hour",
        check=money_field(default=None),
        **_blank("the burst price, flat", "burst price"),
        help="For hours above or outside the commitment, and a capacity block's inference hours.",
        when=(("billing", (COMMITTED, CAPACITY_BLOCK)),),
    ),
)

OPTION_FIELD = {entry.name: entry for entry in OPTION_FIELDS}
# Typical resale curves to start a resale curve from ([age in months, share of the price]); illustrative shapes of
# the used GPU-server market, not quotes: a fast one for a generation that newer GPUs soon outclass, a slow one for
# hardware that keeps its demand.
RESALE_CURVES: dict[str, tuple[str, tuple[tuple[int, float], ...]]] = {
    "fast": ("GPU servers, fast decline", ((0, 1), (12, 0.6), (24, 0.4), (36, 0.25), (60, 0.1))),
    "slow": ("GPU servers, slow decline", ((0, 1), (12, 0.8), (24, 0.65), (36, 0.5), (60, 0.3))),
    "steady": ("Straight line to 10% at 5 years", ((0, 1), (60, 0.1))),
}
assert tuple(value for value, _ in OPTION_FIELD["billing"].choices) == BILLINGS

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

    name: str
    scope: str
    value_type: str
    label: str
    unit: str = ""
    check: NumberField | None = None
    initial: Any = None
    default_text: str | None = None
    help: str = ""
    placeholder: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    stored: bool = True
    finance: bool = False
    default_choice: str | None = None
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


# The serving configuration's value lists and bounds: a request, a bucket's rate and the buckets a scenario keeps.
WEIGHT_BITS = (("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8/INT8)"), ("4", "4-bit (FP4/INT4)"))
KV_BITS = (("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8)"))
MAX_SERVING_TOKENS = 10_000_000
MAX_REQUESTS_PER_SECOND = 1_000_000.0
MAX_BUCKETS = 50
BUCKET_REQUESTS = NumberField("Requests per second", lo=0.0, lo_open=True, hi=MAX_REQUESTS_PER_SECOND)
BUCKET_INPUT_TOKENS = NumberField("Input tokens", lo=1, hi=MAX_SERVING_TOKENS, integer=True, unit="tokens")
BUCKET_OUTPUT_TOKENS = NumberField("Output tokens", lo=1, hi=MAX_SERVING_TOKENS, integer=True, unit="tokens")

# Each month's utilization, checked on its own ("Month 5: Utilization must be ..."); the forecast's level is the entry.
UTILIZATION = rate_field("Utilization", hint=UTILIZATION_HINT)


def _training_allowance(name: str, label: str, unit: str, hi: float, help: str) -> ScenarioField:
    """A training plan's allowance for what goes wrong (interruptions, checkpoints, restarts): 0 when left blank."""
    check = NumberField(lo=0.0, hi=hi, default=0.0)
    return ScenarioField(name, "training", "number", label, unit, check, help=help, **_blank("0"))


def _latency_target(name: str, label: str, hi: float) -> ScenarioField:
    """A latency target of the serving configuration, in milliseconds: none when left blank."""
    check = NumberField(lo=0.0, lo_open=True, hi=hi)
    return ScenarioField(name, "serving", "number", label, "ms", check, **_blank("no limit"))


def _training_size(name: str, label: str, unit: str, help: str = "") -> ScenarioField:
    """A positive number that sizes a training run from its model (parameters, tokens, the GPU's peak)."""
    return ScenarioField(name, "training", "number", label, unit, NumberField(lo=0.0, lo_open=True), help=help)


SCENARIO_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("name", "scenario", "text", "Name"),
    ScenarioField(
        "currency",
        "scenario",
        "text",
        "Currency",
        initial=DEFAULT_CURRENCY,
        default_text=DEFAULT_CURRENCY,
        help=f"ISO code; blank means the engine default ({DEFAULT_CURRENCY}).",
    ),
    ScenarioField(
        "horizon_months",
        "scenario",
        "count",
        "Horizon",
        "months",
        check=NumberField(lo=1, hi=240, integer=True, required=True),
        initial=36,
        fixed=True,
    ),
    ScenarioField(
        "discount_rate",
        "scenario",
        "rate",
        "Discount rate",
        "fraction per year",
        check=rate_field(required=True),
        initial=Decimal("0.08"),
    ),
    ScenarioField("fleet_gpus", "scenario", "count", "Fleet size", "GPUs", check=count_field(required=True), initial=8),
    ScenarioField(
        "utilization",
        "scenario",
        "rate",
        "Utilization (forecast level)",
        "fraction",
        check=rate_field(hint=UTILIZATION_HINT),
        stored=False,
    ),
    ScenarioField(
        "burst_price_per_gpu_hour",
        "scenario",
        "money",
        "Burst price",
        "{c} per GPU-hour",
        check=money_field(default=None),
        default_text="none: no demand above capacity allowed",
        help="Paid for demand above owned capacity or a commitment.",
    ),
    # Finance depth (docs/money-math.md): read by the engine only when given, so a scenario without them is
    # evaluated as before.
    ScenarioField(
        "tax_rate",
        "scenario",
        "rate",
        "Tax rate",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, hi_open=True, hint=" (0.21 means 21%)", default=0.0),
        **_blank("0 (pre-tax)", "0"),
        help="Tax on profits: costs are deducted when paid, hardware through its tax depreciation. Below 100%.",
        finance=True,
    ),
    ScenarioField(
        "cost_of_debt",
        "scenario",
        "rate",
        "Cost of debt",
        "fraction per year",
        check=rate_field(default=None),
        default_text="none: no lease-vs-buy answer",
        help="What borrowing costs you before tax; a lease is compared with borrowing to buy at this rate after tax.",
        finance=True,
    ),
    ScenarioField(
        "refresh_policy",
        "scenario",
        "choice",
        "Refresh policy",
        default_text="keep serving past the useful life",
        default_choice="none",
        help="What happens when owned hardware reaches the end of its useful life within the horizon.",
        choices=(
            ("none", "Keep serving past the useful life"),
            ("replace", "Replace at the end of the useful life"),
            ("truncate", "Cut the comparison to the shortest life"),
        ),
        finance=True,
    ),
    # The workload: the reference a rental's and an owned option's throughput and acceptance are read against.
    ScenarioField(
        "tokens_per_second_per_gpu",
        "workload",
        "number",
        "Throughput",
        "output tokens/s per GPU",
        check=NumberField(lo=0.0, lo_open=True, required=True),
    ),
    ScenarioField(
        "output_tokens_per_response",
        "workload",
        "number",
        "Output tokens per response",
        "tokens",
        check=NumberField(lo=0.0, lo_open=True, required=True),
    ),
    ScenarioField(
        "input_tokens_per_response",
        "workload",
        "number",
        "Input tokens per response",
        "tokens",
        check=NumberField(lo=0.0, default=0.0),
        default_text="0",
    ),
    ScenarioField(
        "acceptance_rate",
        "workload",
        "rate",
        "Acceptance rate",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=ACCEPTANCE_HINT, default=1.0),
        default_text="1",
        help="Accepted responses ÷ attempted.",
    ),
    # The utilization forecast: a kind and its parameters (tco.forecast), expanded into the document's utilization.
    ScenarioField(
        "kind",
        "forecast",
        "choice",
        "Forecast shape",
        initial="flat",
        choices=(
            ("flat", "Flat"),
            ("ramp", "Linear ramp"),
            ("seasonal", "Seasonal"),
            ("pasted", "Pasted from a spreadsheet"),
        ),
    ),
    ScenarioField("flat_utilization", "forecast", "rate", "Utilization", "fraction", initial=Decimal("0.6")),
    ScenarioField("ramp_from_utilization", "forecast", "rate", "Utilization in month 1", "fraction"),
    ScenarioField("ramp_to_utilization", "forecast", "rate", "Utilization in the last month", "fraction"),
    ScenarioField("seasonal_base_utilization", "forecast", "rate", "Seasonal base utilization", "fraction"),
    ScenarioField("seasonal_amplitude", "forecast", "rate", "Seasonal amplitude", "fraction"),
    ScenarioField(
        "seasonal_peak_month",
        "forecast",
        "count",
        "Seasonal peak month",
        help="1-12, counted from the first month of the horizon.",
    ),
    ScenarioField(
        "pasted_utilization",
        "forecast",
        "text",
        "Pasted utilization",
        help="One value per month (or one value), 55% or 0.55.",
    ),
    # The training plan (docs/money-math.md "Training runs"): optional as a whole; once given, the runs per year and
    # the cluster are required, and a run is sized by its GPU-hours or by its model, tokens, MFU and peak.
    ScenarioField(
        "runs_per_year",
        "training",
        "number",
        "Training runs",
        "runs per year",
        check=NumberField(lo=0.0, lo_open=True, hi=10_000.0, required=True),
        help="Attempts started a year, failed ones included.",
    ),
    ScenarioField(
        "gpu_hours",
        "training",
        "number",
        "GPU-hours per run",
        "GPU-hours",
        check=NumberField(lo=0.0, lo_open=True),
        **_blank("from the parameters, tokens, MFU and peak", "from the model"),
        help="One attempt, without interruptions. Or leave blank and give the model's size below.",
    ),
    _training_size(
        "params_billion",
        "Model parameters",
        "billion",
        "Dense parameters; training takes 6 x parameters x tokens floating-point operations.",
    ),
    _training_size("tokens_billion", "Training tokens", "billion"),
    ScenarioField(
        "mfu",
        "training",
        "rate",
        "Model FLOPs utilization (MFU)",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=" (0.4 means 40% of the GPU's peak)"),
        help="Share of the GPU's dense peak the run achieves; 35-45% is typical for large runs.",
    ),
    _training_size(
        "peak_tflops", "GPU peak (dense)", "TFLOPS", "Dense, at the run's precision (an H100 SXM: 989 at FP16/BF16)."
    ),
    ScenarioField(
        "cluster_gpus",
        "training",
        "count",
        "Cluster size",
        "GPUs",
        check=count_field(required=True),
        help="GPUs one run uses at once; an owned option must have at least this many.",
    ),
    _training_allowance(
        "interruptions_per_million_gpu_hours",
        "Interruptions",
        "per million GPU-hours",
        1_000_000.0,
        "Llama 3's run on 16,384 GPUs: about 19.7.",
    ),
    _training_allowance(
        "checkpoint_interval_hours",
        "Checkpoint interval",
        "hours",
        8760.0,
        "An interruption loses half an interval of work on average.",
    ),
    _training_allowance(
        "restart_hours", "Restart time", "hours", 8760.0, "The whole cluster waits this long after each interruption."
    ),
    ScenarioField(
        "success_rate",
        "training",
        "rate",
        "Validated share of runs",
        "fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=" (0.5 means half the runs)", default=1.0),
        **_blank("1 (every run)", "1"),
        help="Share of runs that become a validated model version.",
    ),
    ScenarioField(
        "other_cost_per_run",
        "training",
        "money",
        "Other costs per run",
        "{c} per run",
        check=money_field(),
        help="Data preparation, evaluation.",
        **_blank("0"),
    ),
    # The serving configuration sizing starts from (docs/money-math.md "Sizing"): a model from the model catalogue,
    # its precision, the traffic and the latency target. Saved together by the sizing page's form.
    ScenarioField(
        "language_model", "serving", "text", "Language model", help="A model of the model catalogue, by its name."
    ),
    ScenarioField("weight_bits", "serving", "choice", "Weight precision", initial="16", choices=WEIGHT_BITS),
    ScenarioField("kv_bits", "serving", "choice", "KV cache precision", initial="16", choices=KV_BITS),
    ScenarioField(
        "context_tokens",
        "serving",
        "count",
        "Context per request",
        "tokens",
        check=NumberField(lo=1, hi=MAX_SERVING_TOKENS, integer=True),
        **_blank("the largest input plus output of any bucket", "largest bucket"),
        help="Tokens of KV cache one request holds at most.",
    ),
    ScenarioField(
        "traffic",
        "serving",
        "list",
        "Traffic",
        default_text="one bucket from the workload (what the fleet serves at its throughput)",
        help="One request-size bucket a line: requests per second, input tokens, output tokens (2.5, 1200, 350).",
    ),
    _latency_target("ttft_ms", "Time to first token target", 600_000.0),
    _latency_target("tpot_ms", "Time per output token target", 60_000.0),
    ScenarioField(
        "statistic",
        "serving",
        "choice",
        "Latency statistic",
        initial="median",
        help="Which statistic of the measured latencies the targets hold at.",
        choices=(("median", "Median"), ("p99", "99th percentile")),
    ),
    ScenarioField(
        "headroom",
        "serving",
        "rate",
        "Headroom",
        "fraction",
        check=rate_field(hint=" (0.2 means 20% spare capacity)", default=0.0),
        help="Capacity kept spare above the traffic.",
        **_blank("0"),
    ),
)

SCENARIO_FIELD = {entry.field: entry for entry in SCENARIO_FIELDS}


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
