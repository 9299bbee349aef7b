"""View models for the scenario editor: one FieldView per input, engine problems mapped onto them.

An option input's label, help, placeholder, choices and input mode come from the engine's catalogue
(``tco.engine.catalogue``); the scenario's own inputs from the Scenario model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.urls import reverse

from pricing.selectors import newer_observations
from tco.engine.catalogue import RATE_HELP, OptionField, fields_of_type
from tco.engine.catalogue import option_fields as catalogue_fields
from tco.engine.errors import OPTION_PATH
from tco.engine.fields import TOP_NUMBERS, NumberField, fmt
from tco.models import Scenario, ScenarioOption
from tco.web.inputs import PERCENT_FIELDS

# The editor's sections, as the page names them: what a "to complete" line or a message starts with.
SECTION_LABELS = {
    "basics": "Scenario",
    "workload": "Workload",
    "forecast": "Utilization forecast",
    "options": "Options",
}

# Money inputs get the currency in their label, rates a hint: the option inputs' value types come from the catalogue.
MONEY_FIELDS = fields_of_type("money") | {"burst_price_per_gpu_hour"}
SCENARIO_BASICS = ("currency", "horizon_months", "discount_rate", "fleet_gpus", "burst_price_per_gpu_hour")
WORKLOAD_FIELDS = (
    "workload_tokens_per_second_per_gpu",
    "workload_output_tokens_per_response",
    "workload_input_tokens_per_response",
    "workload_acceptance_rate",
)


def style_of(name: str) -> str:
    """How an input's value is written: "percent" (rates and shares), "money" (thousands separators) or ""."""
    return "percent" if name in PERCENT_FIELDS else "money" if name in MONEY_FIELDS else ""


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

    @property
    def dom_id(self) -> str:
        return f"f-{self.key}"

    def refuse(self, text: str, message: str) -> None:
        """Show what the user typed with the reason it was not saved, and the stored value beside it."""
        self.stored, self.text, self.error, self.refused = self.text, text, message, True


@dataclass
class OptionView:
    option: ScenarioOption
    index: int
    fields: list[FieldView]
    name_field: FieldView
    error: str = ""
    diligence: list[Any] = field(default_factory=list)
    newer_price: Any = None  # a newer Market observation of the picked offering (pricing.selectors)

    @property
    def key(self) -> str:
        return f"o{self.option.pk}"

    @property
    def range_fields(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in catalogue_fields(self.option.kind) if entry.takes_range)


def _label(label: str, name: str, currency: str) -> str:
    if name in MONEY_FIELDS:
        label = f"{label}, {currency}"
    return label[0].upper() + label[1:]


def _help(text: str, name: str, check: NumberField | None = None) -> str:
    """The input's help plus how to write it: rates as 8% or 0.08, whole numbers with their range."""
    if name in PERCENT_FIELDS:
        text = (text + " " if text else "") + RATE_HELP
    if check is not None and check.integer and check.lo is not None and check.hi is not None:
        text = (text + " " if text else "") + f"A whole number from {fmt(check.lo)} to {fmt(check.hi)}."
    return text


def _choices(entry: OptionField) -> tuple[tuple[str, str], ...]:
    """A blank first choice that stands for the engine's default, the catalogue's first: "On demand (default)"."""
    if not entry.choices:
        return ()
    return (("", f"{entry.choices[0][1]} (default)"), *entry.choices)


def scenario_field(scenario: Scenario, name: str, errors: dict[str, str]) -> FieldView:
    key = f"s-{name}"
    url = reverse("tco:scenario_field", args=[scenario.pk])
    inputmode = (
        "text"
        if name in ("currency", "name")
        else ("numeric" if name in ("horizon_months", "fleet_gpus") else "decimal")
    )
    return FieldView(
        key=key,
        name=name,
        label=_label(str(Scenario._meta.get_field(name).verbose_name), name, scenario.currency_code),
        text=input_text(getattr(scenario, name), style_of(name)),
        url=url,
        error=errors.get(key, ""),
        help=_help(str(Scenario._meta.get_field(name).help_text), name, TOP_NUMBERS.get(name)),
        inputmode=inputmode,
    )


def option_fields(option: ScenarioOption, currency: str, errors: dict[str, str]) -> list[FieldView]:
    url = reverse("tco:option_field", args=[option.scenario_id, option.pk])
    views = []
    for entry in catalogue_fields(option.kind):
        name = entry.name
        key = f"o{option.pk}-{name}"
        views.append(
            FieldView(
                key=key,
                name=name,
                label=_label(entry.label, name, currency),
                text=input_text(getattr(option, name), style_of(name)),
                url=url,
                error=errors.get(key, ""),
                help=_help(entry.help, name, entry.check),
                assumed=name in option.assumed_fields,
                choices=_choices(entry),
                placeholder=entry.placeholder,
                inputmode="numeric" if entry.is_integer else "decimal",
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
    if path in SCENARIO_BASICS or path in ("name", "schema"):
        return f"s-{path}"
    return "general"


def error_map(problems: Iterable[Any], option_ids: Sequence[int]) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for problem in problems:
        path = problem["path"] if isinstance(problem, dict) else problem.path
        message = problem["message"] if isinstance(problem, dict) else problem.message
        grouped.setdefault(problem_key(path, option_ids), []).append(message)
    return {key: " ".join(dict.fromkeys(messages)) for key, messages in grouped.items()}
