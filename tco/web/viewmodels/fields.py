"""View models for the scenario editor: one FieldView per input, engine problems mapped onto them.

Every input's label, unit, help, placeholder, choices and input mode come from the engine's catalogue
(``tco.engine.catalogue``): an option's from ``OPTION_FIELDS``, the scenario's and the workload's from
``SCENARIO_FIELDS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.urls import reverse

from pricing.selectors import newer_observations
from tco.engine.catalogue import (
    RATE_HELP,
    RESALE_CURVES,
    SCENARIO_FIELD,
    OptionField,
    ScenarioField,
    scenario_inputs,
    scenario_path_field,
)
from tco.engine.catalogue import option_fields as catalogue_fields
from tco.engine.fields import NumberField, fmt, input_name
from tco.engine.paths import OPTION_PATH
from tco.models import Scenario, ScenarioOption
from tco.presentation.inputs import InputFact, lower_first, option_fact, scenario_fact, value_words
from tco.web.forms import PricePickerQueryForm, list_input_text

# The editor's sections, as the page names them: what a "to complete" line or a message starts with.
SECTION_LABELS = {
    "basics": "Scenario",
    "finance": "Tax and financing",
    "workload": "Workload",
    "training": "Training",
    "forecast": "Utilization forecast",
    "options": "Options",
}

INPUT_MODES = {"text": "text", "count": "numeric", "list": "text"}  # by value type; every other number is "decimal"


def style_of(entry: OptionField | ScenarioField) -> str:
    """How an input's value is written: "percent" (rates and shares), "money" (thousands separators) or ""."""
    return "percent" if entry.is_percent else "money" if entry.is_money else ""


def input_label(entry: OptionField | ScenarioField, currency: str) -> str:
    """The editor's label of an input: its one label, then its unit ("Burst price (USD per GPU-hour)", "Useful life
    (years)"), the words every message about it starts with (``tco.engine.fields.input_name``)."""
    return input_name(entry.label, entry.unit, currency)


scenario_label = input_label


def input_text(value: Any, style: str = "") -> str:
    """A stored value as the user would type it: 320,000 for money, 8% for a percentage, blank for None.

    What is shown reads back to the same value (lib.numbers reads "320,000" and "8%")."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        if style == "percent":
            return format((value * 100).normalize(), "f") + "%"
        return format(value.normalize(), ",f" if style == "money" else "f")
    return str(value)


@dataclass
class FieldView:
    key: str
    name: str
    label: str
    text: str
    url: str
    error: str = ""
    help: str = ""
    assumed: bool = False
    choices: Sequence[tuple[str, str]] = ()
    placeholder: str = ""
    inputmode: str = "decimal"
    range: Any = None  # its "±" range (tco.web.viewmodels.ranges.RangeView) when the input takes one
    refused: bool = False  # ``text`` is what the user typed and was refused (``error``): not saved
    stored: str = ""  # the stored value as text, shown beside a refused input (Esc restores it)
    presets: Sequence[tuple[str, str]] = ()  # values to start from (typical resale curves), as (text, label)
    preview: str = ""  # a resale curve's points as an SVG polyline's ``points``
    words: str = ""  # a folded input's stored value in words, for its group's summary ("loan APR 7% per year")
    missing: bool = False  # required and blank: the scenario cannot be evaluated until it is filled in

    @property
    def dom_id(self) -> str:
        return f"f-{self.key}"

    @property
    def needs_eyes(self) -> bool:
        """The user must see it: it holds an error (a refused value too) or is still to be filled in."""
        return bool(self.error) or self.missing

    def refuse(self, text: str, message: str) -> None:
        """Show what the user typed with the reason it was not saved, and the stored value beside it."""
        self.stored, self.text, self.error, self.refused = self.text, text, message, True


@dataclass(frozen=True)
class Fold:
    """Inputs folded in a closed disclosure (the tax and financing inputs of the scenario and of each option): its
    summary says in words what they hold, and it is open whenever one of them needs the user's eyes."""

    dom_id: str  # the disclosure's id; its title's is ``<dom_id>-title``
    fields: Sequence[FieldView]
    help: str = ""

    @property
    def words(self) -> str:
        """ "loan, loan APR 7% per year, MACRS 5-year"; "" when none holds a value."""
        return ", ".join(f.words for f in self.fields if f.words)

    @property
    def open(self) -> bool:
        return any(f.needs_eyes for f in self.fields)


def folded_words(fact: InputFact | None, value: Any, currency: str) -> str:
    """A folded input's stored value in words: a choice by its own words ("loan", "MACRS 5-year"), anything else
    after its label ("loan APR 7% per year"); "" when blank."""
    if fact is None or value is None or value == "" or value == []:
        return ""
    words = value_words(fact, value, currency)
    return lower_first(words) if fact.value_type == "choice" else f"{lower_first(fact.label)} {words}"


@dataclass
class OptionView:
    option: ScenarioOption
    index: int
    fields: list[FieldView]
    name_field: FieldView
    error: str = ""
    diligence: list[Any] = field(default_factory=list)
    newer_price: Any = None  # a newer Market observation of the picked offering (pricing.selectors)
    finance_fields: list[FieldView] = field(default_factory=list)  # "Tax and financing": those that apply

    @property
    def key(self) -> str:
        return f"o{self.option.pk}"

    @property
    def finance(self) -> Fold:
        return Fold(f"finance-{self.option.pk}", self.finance_fields)

    @property
    def picker_form(self) -> PricePickerQueryForm:
        """The price picker's search, starting from the option's GPU model (a model API's: the model's name)."""
        gpu = self.option.gpu_model.name if self.option.gpu_model_id else ""
        form = PricePickerQueryForm(auto_id=f"pick-%s-{self.option.pk}", initial={"gpu": gpu}, label_suffix="")
        if not self.option.is_rental:
            form.fields["gpu"].label = "Model"
        return form

    @property
    def range_fields(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in catalogue_fields(self.option.kind) if entry.takes_range)


def _help(text: str, percent: bool, check: NumberField | None = None) -> str:
    """The input's help plus how to write it: rates as 8% or 0.08, whole numbers with their range."""
    if percent:
        text = (text + " " if text else "") + RATE_HELP
    if check is not None and check.integer and check.lo is not None and check.hi is not None:
        text = (text + " " if text else "") + f"A whole number from {fmt(check.lo)} to {fmt(check.hi)}."
    return text


def _choices(entry: OptionField | ScenarioField, *, blank: bool = True) -> tuple[tuple[str, str], ...]:
    """A blank first choice that stands for the engine's default, in the catalogue's words ("On demand (default)",
    "Straight line over the useful life (default)")."""
    if not entry.choices:
        return ()
    if not blank:
        return entry.choices
    words = entry.default_text or entry.choices[0][1]
    return (("", f"{words[:1].upper()}{words[1:]} (default)"), *entry.choices)


CURVE_WIDTH, CURVE_HEIGHT = 160, 48


def curve_points(curve: Sequence[Sequence[float]] | None) -> str:
    """A resale curve as SVG polyline points in a CURVE_WIDTH x CURVE_HEIGHT box: age across, share up; flat past
    the last point to a quarter beyond it."""
    if not curve:
        return ""
    points = [(float(age), float(share)) for age, share in curve]
    end = points[-1][0] * 1.25 or 12.0
    points.append((end, points[-1][1]))
    return " ".join(
        f"{age / end * CURVE_WIDTH:.1f},{(1 - min(max(share, 0.0), 1.0)) * CURVE_HEIGHT:.1f}" for age, share in points
    )


def _presets(name: str) -> tuple[tuple[str, str], ...]:
    if name != "resale_curve":
        return ()
    return tuple((list_input_text(name, [list(p) for p in points]), label) for label, points in RESALE_CURVES.values())


def scenario_field(scenario: Scenario, name: str, errors: dict[str, str]) -> FieldView:
    entry = SCENARIO_FIELD[name]
    key = f"s-{name}"
    return FieldView(
        key=key,
        name=name,
        label=scenario_label(entry, scenario.currency_code),
        text=input_text(getattr(scenario, name), style_of(entry)),
        url=reverse("tco:scenario_field", args=[scenario.pk]),
        error=errors.get(key, ""),
        help=_help(entry.help, entry.is_percent, entry.check),
        choices=_choices(entry, blank=not entry.never_blank),
        placeholder=entry.placeholder,
        inputmode=INPUT_MODES.get(entry.value_type, "decimal"),
    )


def scenario_sections(scenario: Scenario, errors: dict[str, str]) -> tuple[list[FieldView], list[FieldView]]:
    """The editor's "Scenario" and "Workload" sections: every catalogued input the editor saves one at a time
    (the name is the page's title, the forecast has its own form, the finance inputs their own section)."""
    views: dict[str, list[FieldView]] = {"scenario": [], "workload": [], "training": []}
    for entry in scenario_inputs():
        if entry.field != "name" and not entry.finance:
            views[entry.scope].append(scenario_field(scenario, entry.field, errors))
    return views["scenario"], views["workload"]


def scenario_training_section(scenario: Scenario, errors: dict[str, str]) -> list[FieldView]:
    """The scenario's "Training" section: the training plan's inputs (docs/money-math.md "Training runs"). Without a
    plan only its first input, the runs per year, is shown; the others once a plan is begun."""
    entries = [entry for entry in scenario_inputs() if entry.scope == "training"]
    begun = any(getattr(scenario, entry.field) is not None or f"s-{entry.field}" in errors for entry in entries)
    return [scenario_field(scenario, entry.field, errors) for entry in (entries if begun else entries[:1])]


SCENARIO_FINANCE_HELP = "Optional. A tax rate adds the after-tax answer; the cost of debt, the lease-versus-buy answer."


def scenario_finance_section(scenario: Scenario, errors: dict[str, str]) -> list[FieldView]:
    """The scenario's "Tax and financing" section: tax rate, cost of debt, refresh policy (folded: each in words)."""
    views, currency = [], scenario.currency_code
    for entry in scenario_inputs():
        if entry.finance:
            view = scenario_field(scenario, entry.field, errors)
            view.words = folded_words(scenario_fact(entry.field), getattr(scenario, entry.field), currency)
            views.append(view)
    return views


def _option_text(option: ScenarioOption, entry: OptionField) -> str:
    value = getattr(option, entry.name)
    return list_input_text(entry.name, value) if entry.value_type == "list" else input_text(value, style_of(entry))


def option_fields(
    option: ScenarioOption, currency: str, errors: dict[str, str], *, finance: bool = False
) -> list[FieldView]:
    """The option's inputs of the main section, or with ``finance`` those of its "Tax and financing" section, that
    apply (a loan's with a loan, a buyout price with a buyout, no residual value beside a resale curve) or hold a
    value or a problem."""
    url = reverse("tco:option_field", args=[option.scenario_id, option.pk])
    values = {entry.name: getattr(option, entry.name) for entry in catalogue_fields(option.kind)}
    views = []
    for entry in catalogue_fields(option.kind):
        name = entry.name
        key = f"o{option.pk}-{name}"
        if entry.finance != finance:
            continue
        if not entry.applies(values) and values[name] in (None, "") and key not in errors:
            continue
        views.append(
            FieldView(
                key=key,
                name=name,
                label=input_label(entry, currency),
                text=_option_text(option, entry),
                url=url,
                error=errors.get(key, ""),
                help=_help(entry.help, entry.is_percent, entry.check),
                assumed=name in option.assumed_fields,
                choices=_choices(entry),
                placeholder=entry.placeholder,
                inputmode=INPUT_MODES.get(entry.value_type, "decimal"),
                presets=_presets(name),
                preview=curve_points(values[name]) if name == "resale_curve" else "",
                words=folded_words(option_fact(name), values[name], currency) if finance else "",
            )
        )
    return views


def option_views(scenario: Scenario, options: Iterable[ScenarioOption], errors: dict[str, str]) -> list[OptionView]:
    currency = scenario.currency_code
    options = list(options)
    newer = newer_observations(option.price_observation_id for option in options if option.price_observation_id)
    views = []
    for index, option in enumerate(options):
        name_key = f"o{option.pk}-name"
        name_field = FieldView(
            key=name_key,
            name="name",
            label="Name",
            text=option.name,
            url=reverse("tco:option_field", args=[scenario.pk, option.pk]),
            error=errors.get(name_key, ""),
            inputmode="text",
        )
        items = sorted(option.diligence_items.all(), key=lambda item: item.position) if option.is_owned else []
        views.append(
            OptionView(
                option=option,
                index=index,
                fields=option_fields(option, currency, errors),
                finance_fields=option_fields(option, currency, errors, finance=True),
                name_field=name_field,
                error=errors.get(f"o{option.pk}", ""),
                diligence=items,
                newer_price=newer.get(option.price_observation_id),
            )
        )
    return views


def problem_key(path: str, option_ids: Sequence[int]) -> str:
    """The editor element a document path belongs to: `options[1].capex` → `o<id>-capex`.

    Paths that name no single input map to their section (`o<id>`, `options`, `forecast`,
    `workload`) or to `general`.
    """
    match = OPTION_PATH.match(path)
    if match:
        index = int(match.group(1))
        if index >= len(option_ids):
            return "options"
        option_key = f"o{option_ids[index]}"
        name = match.group(2)
        if name == "price_source":
            return f"{option_key}-price_per_gpu_hour"
        return f"{option_key}-{name}" if name else option_key
    if path == "options":
        return "options"
    if path.startswith("utilization"):
        return "forecast"
    if path.startswith("workload."):
        return f"s-workload_{path.split('.', 1)[1].split('.')[0].split('[')[0]}"
    if path == "workload":
        return "workload"
    entry = scenario_path_field(path)
    if entry is not None and entry.stored:
        return f"s-{entry.field}"
    return "s-schema" if path == "schema" else "general"


def error_map(problems: Iterable[Any], option_ids: Sequence[int]) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for problem in problems:
        path = problem["path"] if isinstance(problem, dict) else problem.path
        message = problem["message"] if isinstance(problem, dict) else problem.message
        grouped.setdefault(problem_key(path, option_ids), []).append(message)
    return {key: " ".join(dict.fromkeys(messages)) for key, messages in grouped.items()}
