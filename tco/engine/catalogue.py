"""The input catalogue: every input a scenario document carries, with every fact about it, once (docs/money-math.md).

Two tables of the same shape. ``OPTION_FIELDS`` holds the inputs of an option; ``SCENARIO_FIELDS`` those of the
scenario itself, its workload and its utilization forecast (``ScenarioField``, below the options).


One ``OptionField`` per field, in document order: the kinds it applies to, its value type (money / rate / count /
number / choice / list), how the engine reads and bounds it (``check``, whose ``default`` applies when it is
omitted), the default in words, its one label and its unit, help text and placeholder. Everything else derives
from it: the engine's per-kind tables below (``numbers_for_kind``, ``allowed_option_fields``, ``OVERRIDES``), the
model's fields (``tco.models.fields.option_model_field``), the editor's inputs (``tco.web.viewmodels.fields``) and
the inputs in words (``tco.presentation.inputs``). Adding an input is one entry here, its math, and the model
field with its migration.

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


@dataclass(frozen=True)
class OptionField:
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
    def default(self) -> float | str | None:
        """The engine's value when the field is omitted (None: required, or derived from another input)."""
        return self.check.default if self.check else self.default_choice

    @property
    def required(self) -> bool:
        """The engine refuses an option without it (a finance input: whenever it applies, a loan's APR with a loan)."""
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

OPTION_FIELDS: tuple[OptionField, ...] = (
    # Owned and secondary hardware.
    OptionField(
        "gpu_count",
        _OWNED,
        "count",
        label="GPU count",
        unit="GPUs",
        check=count_field(),
        default_text="the fleet size",
        help="Blank: the fleet size.",
        placeholder="fleet size",
    ),
    OptionField(
        "capex",
        _OWNED,
        "money",
        label="Capex, whole option",
        unit="{c}",
        check=money_field(required=True),
        help="Purchase price of all the option's hardware (servers, GPUs, spares, installation), paid in month 1.",
    ),
    OptionField(
        "residual_value",
        _OWNED,
        "money",
        label="Residual value",
        unit="{c}",
        check=money_field(),
        default_text="0",
        help="Expected resale value of all the option's hardware at the end of its life.",
        placeholder="0",
        when=(("resale_curve", ()),),  # a resale curve sets it
        at_most="capex",
    ),
    OptionField(
        "useful_life_years",
        _OWNED,
        "number",
        label="Useful life",
        unit="years",
        check=NumberField(lo=0.0, hi=50.0, lo_open=True, required=True),
    ),
    OptionField(
        "cost_of_capital",
        _OWNED,
        "rate",
        label="Cost of capital",
        unit="fraction per year",
        check=rate_field(default=0.0),
        default_text="0",
        placeholder="0",
    ),
    OptionField(
        "power_kw",
        _OWNED,
        "number",
        label="Power at full load, whole option",
        unit="kW",
        check=NumberField(lo=0.0, required=True),
    ),
    OptionField(
        "idle_power_kw",
        _OWNED,
        "number",
        label="Idle power, whole option",
        unit="kW",
        check=NumberField(lo=0.0),
        default_text="same as full load",
        help="All the option's servers, idle. Blank: same as full load.",
        placeholder="same as full load",
        at_most="power_kw",
    ),
    OptionField(
        "pue",
        _OWNED,
        "number",
        label="PUE",
        unit="ratio",
        check=NumberField(lo=1.0, hi=3.0, default=1.0),
        default_text="1",
        help="Facility power ÷ IT power; blank = 1.",
        placeholder="1",
    ),
    OptionField(
        "electricity_per_kwh",
        _OWNED,
        "money",
        label="Electricity",
        unit="{c} per kWh",
        check=money_field(required=True),
    ),
    OptionField(
        "facility_per_year",
        _OWNED,
        "money",
        label="Facility / colocation",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        placeholder="0",
    ),
    OptionField(
        "network_per_year",
        _OWNED,
        "money",
        label="Network",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        placeholder="0",
    ),
    OptionField(
        "software_per_year",
        _OWNED,
        "money",
        label="Software",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        placeholder="0",
    ),
    OptionField(
        "support_per_year",
        _OWNED,
        "money",
        label="Support",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        placeholder="0",
    ),
    OptionField(
        "operations_per_year",
        _OWNED,
        "money",
        label="Operations staff",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        placeholder="0",
    ),
    # Rentals (hyperscaler, neocloud, marketplace).
    OptionField(
        "price_per_gpu_hour",
        _RENTAL,
        "money",
        label="Price",
        unit="{c} per GPU-hour",
        check=money_field(required=True),
    ),
    OptionField(
        "billing",
        _RENTAL,
        "choice",
        label="Billing",
        unit="",
        check=None,
        default_text="on demand",
        help="Blank: on demand.",
        placeholder="on demand",
        choices=tuple(BILLING_LABELS.items()),
        default_choice=BILLINGS[0],
    ),
    OptionField(
        "committed_gpus",
        _RENTAL,
        "count",
        label="Committed GPUs",
        unit="GPUs",
        check=count_field(),
        default_text="the fleet size",
        placeholder="fleet size",
    ),
    OptionField(
        "block_gpus",
        _RENTAL,
        "count",
        label="GPUs per block",
        unit="GPUs",
        check=count_field(),
        help="A capacity block rents this many GPUs together; blocks of one run go side by side.",
        when=(("billing", (CAPACITY_BLOCK,)),),
    ),
    OptionField(
        "block_days",
        _RENTAL,
        "count",
        label="Block length",
        unit="days",
        check=NumberField(lo=1, hi=182, integer=True),
        help="Paid in full when the block starts, every hour used or not (1 to 182 days).",
        when=(("billing", (CAPACITY_BLOCK,)),),
    ),
    # Managed model API.
    OptionField(
        "price_per_million_input_tokens",
        API_KINDS,
        "money",
        label="Price per million input tokens",
        unit="{c}",
        check=money_field(required=True),
    ),
    OptionField(
        "price_per_million_output_tokens",
        API_KINDS,
        "money",
        label="Price per million output tokens",
        unit="{c}",
        check=money_field(required=True),
    ),
    # Rentals and the API.
    OptionField(
        "extras_per_year",
        _RENTAL + API_KINDS,
        "money",
        label="Extras: storage, egress, support",
        unit="{c} per year",
        check=money_field(),
        default_text="0",
        help="Storage, egress, support plans.",
        placeholder="0",
    ),
    OptionField(
        "price_change_per_year",
        _RENTAL,
        "rate",
        label="Price change",
        unit="fraction per year",
        check=NumberField(lo=-0.9, hi=2.0, hint=" (-0.1 means prices fall 10% a year)", default=0.0),
        default_text="0",
        help="-0.10 = prices fall 10 % a year.",
        placeholder="0",
        when=(("price_change_by_year", ()),),  # a price path by year replaces it
    ),
    # Any option may override the workload's throughput (hardware) and acceptance (all).
    OptionField(
        "tokens_per_second_per_gpu",
        _HARDWARE,
        "number",
        label="Output tokens per second per GPU",
        unit="tokens/s",
        check=NumberField(lo=0.0, lo_open=True),
        default_text="the workload's",
        help="Blank: the workload's.",
        placeholder="workload's",
        overrides_workload=True,
    ),
    OptionField(
        "acceptance_rate",
        KINDS,
        "rate",
        label="Acceptance rate",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=ACCEPTANCE_HINT),
        default_text="the workload's",
        help="Blank: the workload's.",
        placeholder="workload's",
        overrides_workload=True,
    ),
    # Finance depth (docs/money-math.md): tax, financing, refresh and resale of owned hardware; price paths and
    # commitment terms of rentals. The engine reads each only when it is given, so an option without them is
    # evaluated as before.
    OptionField(
        "tax_depreciation",
        _OWNED,
        "choice",
        label="Tax depreciation",
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
        finance=True,
    ),
    OptionField(
        "tax_life_years",
        _OWNED,
        "number",
        label="Tax life",
        unit="years",
        check=NumberField(lo=0.0, hi=50.0, lo_open=True),
        default_text="the useful life",
        placeholder="useful life",
        finance=True,
        when=(("tax_depreciation", ("straight_line",)),),
    ),
    OptionField(
        "bonus_depreciation",
        _OWNED,
        "rate",
        label="Bonus depreciation",
        unit="fraction",
        check=rate_field(hint=" (1 means the whole basis in tax year 1)", default=0.0),
        default_text="0",
        help="Deducted in tax year 1; the method applies to the rest.",
        placeholder="0",
        finance=True,
    ),
    OptionField(
        "financing",
        _OWNED,
        "choice",
        label="Financing",
        default_text="cash",
        choices=(("cash", "Pay cash"), ("loan", "Loan"), ("lease", "Lease")),
        default_choice="cash",
        finance=True,
    ),
    OptionField(
        "loan_apr",
        _OWNED,
        "rate",
        label="Loan APR",
        unit="fraction per year",
        check=rate_field(required=True),
        help="Nominal annual rate, compounded monthly.",
        finance=True,
        when=(("financing", ("loan",)),),
    ),
    OptionField(
        "loan_term_months",
        _OWNED,
        "count",
        label="Loan term",
        unit="months",
        check=NumberField(lo=1, hi=360, integer=True, required=True),
        help="Level payments at the end of each month.",
        finance=True,
        when=(("financing", ("loan",)),),
    ),
    OptionField(
        "down_payment_share",
        _OWNED,
        "rate",
        label="Down payment",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, hi_open=True, hint=" (0.2 means 20%)", default=0.0),
        default_text="0",
        help="Share of the price paid at purchase; the loan covers the rest.",
        placeholder="0",
        finance=True,
        when=(("financing", ("loan",)),),
    ),
    OptionField(
        "lease_payment",
        _OWNED,
        "money",
        label="Lease payment",
        unit="{c} per payment",
        check=money_field(required=True),
        finance=True,
        when=(("financing", ("lease",)),),
    ),
    OptionField(
        "lease_payment_interval_months",
        _OWNED,
        "count",
        label="Lease payment interval",
        unit="months",
        check=NumberField(lo=1, hi=12, integer=True, default=1),
        default_text="monthly",
        choices=(("1", "Monthly"), ("3", "Quarterly"), ("6", "Every 6 months"), ("12", "Yearly")),
        finance=True,
        when=(("financing", ("lease",)),),
    ),
    OptionField(
        "lease_term_months",
        _OWNED,
        "count",
        label="Lease term",
        unit="months",
        check=NumberField(lo=1, hi=240, integer=True, required=True),
        help="A whole number of payment intervals, at most the horizon.",
        finance=True,
        when=(("financing", ("lease",)),),
    ),
    OptionField(
        "lease_payment_timing",
        _OWNED,
        "choice",
        label="Lease payment timing",
        default_text="in advance",
        choices=(("advance", "In advance"), ("arrears", "In arrears")),
        default_choice="advance",
        finance=True,
        when=(("financing", ("lease",)),),
    ),
    OptionField(
        "lease_end",
        _OWNED,
        "choice",
        label="Lease end",
        default_text="return the hardware",
        choices=(("return", "Return the hardware"), ("buyout", "Buy it out")),
        default_choice="return",
        finance=True,
        when=(("financing", ("lease",)),),
    ),
    OptionField(
        "lease_buyout_price",
        _OWNED,
        "money",
        label="Lease buyout price",
        unit="{c}",
        check=money_field(default=None),
        help="Paid at the end of the lease; the hardware is then depreciated and sold like a purchase.",
        finance=True,
        when=(("financing", ("lease",)), ("lease_end", ("buyout",))),
    ),
    OptionField(
        "capex_change_per_year",
        _OWNED,
        "rate",
        label="Replacement price change",
        unit="fraction per year",
        check=NumberField(lo=-0.9, hi=2.0, hint=" (-0.2 means new hardware costs 20% less a year)", default=0.0),
        default_text="0",
        help="Price of a replacement unit (refresh policy: replace).",
        placeholder="0",
        finance=True,
    ),
    OptionField(
        "resale_curve",
        _OWNED,
        "list",
        label="Resale curve",
        unit="age in months: share of the price",
        default_text="straight line to the residual value",
        help="E.g. 0: 100%, 12: 70%, 36: 40%. It sets the residual value: leave that blank.",
        placeholder="straight line to the residual value",
        finance=True,
    ),
    OptionField(
        "age_at_purchase_months",
        _OWNED,
        "number",
        label="Age at purchase",
        unit="months",
        check=NumberField(lo=0.0, hi=1200.0, default=0.0),
        default_text="0 (new)",
        help="A used unit starts this far along the resale curve.",
        placeholder="0",
        finance=True,
        when=(("resale_curve", None),),
    ),
    OptionField(
        "price_change_by_year",
        _RENTAL,
        "list",
        label="Price change by year",
        unit="fraction per year",
        default_text="the price change per year, every year",
        help="E.g. -25%, -10%, 0%; the last repeats. Instead of a price change per year.",
        placeholder="the price change per year",
        finance=True,
        when=(("price_change_per_year", ()),),
    ),
    OptionField(
        "commitment_term_months",
        _RENTAL,
        "count",
        label="Commitment term",
        unit="months",
        check=NumberField(lo=1, hi=240, integer=True),
        default_text="none: the commitment covers the horizon at the floating price",
        help="Each term locks the price of the month it starts.",
        finance=True,
        when=(("billing", ("committed",)),),
    ),
    OptionField(
        "upfront_share",
        _RENTAL,
        "rate",
        label="Upfront share",
        unit="fraction",
        check=rate_field(hint=" (0.5 means half of each term paid when it starts)", default=0.0),
        default_text="0 (no upfront)",
        help="Share of each term paid when it starts.",
        placeholder="0",
        finance=True,
        when=(("billing", ("committed",)), ("commitment_term_months", None)),
    ),
    OptionField(
        "after_term",
        _RENTAL,
        "choice",
        label="After a term",
        default_text="renew",
        choices=(("renew", "Renew"), (ON_DEMAND, "Fall back to on demand")),
        default_choice="renew",
        finance=True,
        when=(("billing", ("committed",)), ("commitment_term_months", None)),
    ),
    OptionField(
        "on_demand_price_per_gpu_hour",
        _RENTAL,
        "money",
        label="On-demand price",
        unit="{c} per GPU-hour",
        check=money_field(default=None),
        default_text="the burst price, flat",
        help="For hours above or outside the commitment, and a capacity block's inference hours.",
        placeholder="burst price",
        finance=True,
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
class ScenarioField:
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
    def required(self) -> bool:
        """The engine refuses a document without it (a workload's, only once there is a workload)."""
        return self.check is not None and self.check.required

    @property
    def never_blank(self) -> bool:
        """The scenario always holds a value: a required input of the scenario itself, or a choice that starts
        with one (the stored field is not nullable, the form refuses a blank)."""
        if self.value_type == "choice":
            return self.initial is not None
        return self.required and self.scope == "scenario"

    @property
    def default(self) -> float | str | None:
        """The engine's value when the input is omitted (None: required, or no default)."""
        return self.check.default if self.check else self.default_choice

    @property
    def is_integer(self) -> bool:
        return self.value_type == "count"

    @property
    def is_percent(self) -> bool:
        return self.value_type == "rate"

    @property
    def is_money(self) -> bool:
        return self.value_type == "money"

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

SCENARIO_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("name", "scenario", "text", label="Name"),
    ScenarioField(
        "currency",
        "scenario",
        "text",
        label="Currency",
        initial=DEFAULT_CURRENCY,
        default_text=DEFAULT_CURRENCY,
        help=f"ISO code; blank means the engine default ({DEFAULT_CURRENCY}).",
    ),
    ScenarioField(
        "horizon_months",
        "scenario",
        "count",
        label="Horizon",
        unit="months",
        check=NumberField(lo=1, hi=240, integer=True, required=True),
        initial=36,
        fixed=True,
    ),
    ScenarioField(
        "discount_rate",
        "scenario",
        "rate",
        label="Discount rate",
        unit="fraction per year",
        check=rate_field(required=True),
        initial=Decimal("0.08"),
    ),
    ScenarioField(
        "fleet_gpus",
        "scenario",
        "count",
        label="Fleet size",
        unit="GPUs",
        check=count_field(required=True),
        initial=8,
    ),
    ScenarioField(
        "utilization",
        "scenario",
        "rate",
        label="Utilization (forecast level)",
        unit="fraction",
        check=rate_field(hint=UTILIZATION_HINT),
        stored=False,
    ),
    ScenarioField(
        "burst_price_per_gpu_hour",
        "scenario",
        "money",
        label="Burst price",
        unit="{c} per GPU-hour",
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
        label="Tax rate",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, hi_open=True, hint=" (0.21 means 21%)", default=0.0),
        default_text="0 (pre-tax)",
        help="Tax on profits: costs are deducted when paid, hardware through its tax depreciation. Below 100%.",
        placeholder="0",
        finance=True,
    ),
    ScenarioField(
        "cost_of_debt",
        "scenario",
        "rate",
        label="Cost of debt",
        unit="fraction per year",
        check=rate_field(default=None),
        default_text="none: no lease-vs-buy answer",
        help="What borrowing costs you before tax; a lease is compared with borrowing to buy at this rate after tax.",
        finance=True,
    ),
    ScenarioField(
        "refresh_policy",
        "scenario",
        "choice",
        label="Refresh policy",
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
        label="Throughput",
        unit="output tokens/s per GPU",
        check=NumberField(lo=0.0, lo_open=True, required=True),
    ),
    ScenarioField(
        "output_tokens_per_response",
        "workload",
        "number",
        label="Output tokens per response",
        unit="tokens",
        check=NumberField(lo=0.0, lo_open=True, required=True),
    ),
    ScenarioField(
        "input_tokens_per_response",
        "workload",
        "number",
        label="Input tokens per response",
        unit="tokens",
        check=NumberField(lo=0.0, default=0.0),
        default_text="0",
    ),
    ScenarioField(
        "acceptance_rate",
        "workload",
        "rate",
        label="Acceptance rate",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=ACCEPTANCE_HINT, default=1.0),
        default_text="1",
        help="Accepted responses ÷ attempted.",
    ),
    # The utilization forecast: a kind and its parameters (tco.forecast), expanded into the document's utilization.
    ScenarioField(
        "kind",
        "forecast",
        "choice",
        label="Forecast shape",
        initial="flat",
        choices=(
            ("flat", "Flat"),
            ("ramp", "Linear ramp"),
            ("seasonal", "Seasonal"),
            ("pasted", "Pasted from a spreadsheet"),
        ),
    ),
    ScenarioField("flat_utilization", "forecast", "rate", label="Utilization", unit="fraction", initial=Decimal("0.6")),
    ScenarioField("ramp_from_utilization", "forecast", "rate", label="Utilization in month 1", unit="fraction"),
    ScenarioField("ramp_to_utilization", "forecast", "rate", label="Utilization in the last month", unit="fraction"),
    ScenarioField("seasonal_base_utilization", "forecast", "rate", label="Seasonal base utilization", unit="fraction"),
    ScenarioField("seasonal_amplitude", "forecast", "rate", label="Seasonal amplitude", unit="fraction"),
    ScenarioField(
        "seasonal_peak_month",
        "forecast",
        "count",
        label="Seasonal peak month",
        help="1-12, counted from the first month of the horizon.",
    ),
    ScenarioField(
        "pasted_utilization",
        "forecast",
        "text",
        label="Pasted utilization",
        help="One value per month (or one value), 55% or 0.55.",
    ),
    # The training plan (docs/money-math.md "Training runs"): optional as a whole; once given, the runs per year and
    # the cluster are required, and a run is sized by its GPU-hours or by its model, tokens, MFU and peak.
    ScenarioField(
        "runs_per_year",
        "training",
        "number",
        label="Training runs",
        unit="runs per year",
        check=NumberField(lo=0.0, lo_open=True, hi=10_000.0, required=True),
        help="Attempts started a year, failed ones included.",
    ),
    ScenarioField(
        "gpu_hours",
        "training",
        "number",
        label="GPU-hours per run",
        unit="GPU-hours",
        check=NumberField(lo=0.0, lo_open=True),
        default_text="from the parameters, tokens, MFU and peak",
        help="One attempt, without interruptions. Or leave blank and give the model's size below.",
        placeholder="from the model",
    ),
    ScenarioField(
        "params_billion",
        "training",
        "number",
        label="Model parameters",
        unit="billion",
        check=NumberField(lo=0.0, lo_open=True),
        help="Dense parameters; training takes 6 x parameters x tokens floating-point operations.",
    ),
    ScenarioField(
        "tokens_billion",
        "training",
        "number",
        label="Training tokens",
        unit="billion",
        check=NumberField(lo=0.0, lo_open=True),
    ),
    ScenarioField(
        "mfu",
        "training",
        "rate",
        label="Model FLOPs utilization (MFU)",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=" (0.4 means 40% of the GPU's peak)"),
        help="Share of the GPU's dense peak the run achieves; 35-45% is typical for large runs.",
    ),
    ScenarioField(
        "peak_tflops",
        "training",
        "number",
        label="GPU peak (dense)",
        unit="TFLOPS",
        check=NumberField(lo=0.0, lo_open=True),
        help="Dense, at the run's precision (an H100 SXM: 989 at FP16/BF16).",
    ),
    ScenarioField(
        "cluster_gpus",
        "training",
        "count",
        label="Cluster size",
        unit="GPUs",
        check=count_field(required=True),
        help="GPUs one run uses at once; an owned option must have at least this many.",
    ),
    ScenarioField(
        "interruptions_per_million_gpu_hours",
        "training",
        "number",
        label="Interruptions",
        unit="per million GPU-hours",
        check=NumberField(lo=0.0, hi=1_000_000.0, default=0.0),
        default_text="0",
        help="Llama 3's run on 16,384 GPUs: about 19.7.",
        placeholder="0",
    ),
    ScenarioField(
        "checkpoint_interval_hours",
        "training",
        "number",
        label="Checkpoint interval",
        unit="hours",
        check=NumberField(lo=0.0, hi=8760.0, default=0.0),
        default_text="0",
        help="An interruption loses half an interval of work on average.",
        placeholder="0",
    ),
    ScenarioField(
        "restart_hours",
        "training",
        "number",
        label="Restart time",
        unit="hours",
        check=NumberField(lo=0.0, hi=8760.0, default=0.0),
        default_text="0",
        help="The whole cluster waits this long after each interruption.",
        placeholder="0",
    ),
    ScenarioField(
        "success_rate",
        "training",
        "rate",
        label="Validated share of runs",
        unit="fraction",
        check=NumberField(lo=0.0, hi=1.0, lo_open=True, hint=" (0.5 means half the runs)", default=1.0),
        default_text="1 (every run)",
        help="Share of runs that become a validated model version.",
        placeholder="1",
    ),
    ScenarioField(
        "other_cost_per_run",
        "training",
        "money",
        label="Other costs per run",
        unit="{c} per run",
        check=money_field(),
        default_text="0",
        help="Data preparation, evaluation.",
        placeholder="0",
    ),
    # The serving configuration sizing starts from (docs/money-math.md "Sizing"): a model from the model catalogue,
    # its precision, the traffic and the latency target. Saved together by the sizing page's form.
    ScenarioField(
        "language_model",
        "serving",
        "text",
        label="Language model",
        help="A model of the model catalogue, by its name.",
    ),
    ScenarioField(
        "weight_bits",
        "serving",
        "choice",
        label="Weight precision",
        initial="16",
        choices=WEIGHT_BITS,
    ),
    ScenarioField(
        "kv_bits",
        "serving",
        "choice",
        label="KV cache precision",
        initial="16",
        choices=KV_BITS,
    ),
    ScenarioField(
        "context_tokens",
        "serving",
        "count",
        label="Context per request",
        unit="tokens",
        check=NumberField(lo=1, hi=MAX_SERVING_TOKENS, integer=True),
        default_text="the largest input plus output of any bucket",
        help="Tokens of KV cache one request holds at most.",
        placeholder="largest bucket",
    ),
    ScenarioField(
        "traffic",
        "serving",
        "list",
        label="Traffic",
        default_text="one bucket from the workload (what the fleet serves at its throughput)",
        help="One request-size bucket a line: requests per second, input tokens, output tokens (2.5, 1200, 350).",
    ),
    ScenarioField(
        "ttft_ms",
        "serving",
        "number",
        label="Time to first token target",
        unit="ms",
        check=NumberField(lo=0.0, lo_open=True, hi=600_000.0),
        default_text="no limit",
        placeholder="no limit",
    ),
    ScenarioField(
        "tpot_ms",
        "serving",
        "number",
        label="Time per output token target",
        unit="ms",
        check=NumberField(lo=0.0, lo_open=True, hi=60_000.0),
        default_text="no limit",
        placeholder="no limit",
    ),
    ScenarioField(
        "statistic",
        "serving",
        "choice",
        label="Latency statistic",
        initial="median",
        help="Which statistic of the measured latencies the targets hold at.",
        choices=(("median", "Median"), ("p99", "99th percentile")),
    ),
    ScenarioField(
        "headroom",
        "serving",
        "rate",
        label="Headroom",
        unit="fraction",
        check=rate_field(hint=" (0.2 means 20% spare capacity)", default=0.0),
        default_text="0",
        help="Capacity kept spare above the traffic.",
        placeholder="0",
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
