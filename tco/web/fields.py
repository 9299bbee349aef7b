"""View models for the scenario editor: one FieldView per input, engine problems mapped onto them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.urls import reverse

from tco.engine.errors import OPTION_PATH
from tco.models import DILIGENCE_ITEMS, Scenario, ScenarioOption
from tco.models.option import fields_for_kind

MONEY_FIELDS = frozenset(
    {
        "capex",
        "residual_value",
        "facility_per_year",
        "network_per_year",
        "software_per_year",
        "support_per_year",
        "operations_per_year",
        "price_per_gpu_hour",
        "extras_per_year",
        "price_per_million_input_tokens",
        "price_per_million_output_tokens",
        "electricity_per_kwh",
        "burst_price_per_gpu_hour",
    }
)
RATE_FIELDS = frozenset(
    {"discount_rate", "cost_of_capital", "price_change_per_year", "acceptance_rate", "workload_acceptance_rate"}
)
SCENARIO_BASICS = ("currency", "horizon_months", "discount_rate", "fleet_gpus", "burst_price_per_gpu_hour")
WORKLOAD_FIELDS = (
    "workload_tokens_per_second_per_gpu",
    "workload_output_tokens_per_response",
    "workload_input_tokens_per_response",
    "workload_acceptance_rate",
)
OPTION_PLACEHOLDERS = {
    "gpu_count": "fleet size",
    "idle_power_kw": "same as full load",
    "pue": "1",
    "residual_value": "0",
    "cost_of_capital": "0",
    "billing": "on demand",
    "committed_gpus": "fleet size",
    "extras_per_year": "0",
    "price_change_per_year": "0",
    "tokens_per_second_per_gpu": "workload's",
    "acceptance_rate": "workload's",
    "facility_per_year": "0",
    "network_per_year": "0",
    "software_per_year": "0",
    "support_per_year": "0",
    "operations_per_year": "0",
}


def input_text(value: Any) -> str:
    """A stored value as the user would type it: 320000, 0.08, blank for None."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
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

    @property
    def dom_id(self) -> str:
        return f"f-{self.key}"


@dataclass
class OptionView:
    option: ScenarioOption
    index: int
    fields: list[FieldView]
    name_field: FieldView
    error: str = ""
    diligence: list[Any] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"o{self.option.pk}"


def _label(model: type, name: str, currency: str) -> str:
    label = str(model._meta.get_field(name).verbose_name)
    if name in MONEY_FIELDS:
        label = f"{label}, {currency}"
    return label[0].upper() + label[1:]


def _help(model: type, name: str) -> str:
    text = str(model._meta.get_field(name).help_text)
    if name in RATE_FIELDS:
        text = (text + " " if text else "") + "A fraction: 0.08 or 8%."
    return text


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
        label=_label(Scenario, name, scenario.currency_code),
        text=input_text(getattr(scenario, name)),
        url=url,
        error=errors.get(key, ""),
        help=_help(Scenario, name),
        inputmode=inputmode,
    )


def option_fields(option: ScenarioOption, currency: str, errors: dict[str, str]) -> list[FieldView]:
    url = reverse("tco:option_field", args=[option.scenario_id, option.pk])
    views = []
    for name in fields_for_kind(option.kind):
        key = f"o{option.pk}-{name}"
        choices = (
            (("", "On demand (default)"), ("on_demand", "On demand"), ("committed", "Committed"))
            if name == "billing"
            else ()
        )
        views.append(
            FieldView(
                key=key,
                name=name,
                label=_label(ScenarioOption, name, currency),
                text=input_text(getattr(option, name)),
                url=url,
                error=errors.get(key, ""),
                help=_help(ScenarioOption, name),
                assumed=name in option.assumed_fields,
                choices=choices,
                placeholder=OPTION_PLACEHOLDERS.get(name, ""),
                inputmode="numeric" if name in ("gpu_count", "committed_gpus") else "decimal",
            )
        )
    return views


def option_views(scenario: Scenario, options: Iterable[ScenarioOption], errors: dict[str, str]) -> list[OptionView]:
    currency = scenario.currency_code
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


@dataclass
class ErrorMap:
    """Engine problems keyed by editor element; messages of one element joined."""

    by_key: dict[str, str]
    keys_with_inputs: set[str]

    def get(self, key: str, default: str = "") -> str:
        return self.by_key.get(key, default)

    def orphans(self) -> list[str]:
        """Messages whose element is not on the page (shown in the general box)."""
        return [message for key, message in self.by_key.items() if key not in self.keys_with_inputs]


def error_map(problems: Iterable[Any], option_ids: Sequence[int]) -> dict[str, str]:
    grouped: dict[str, list[str]] = {}
    for problem in problems:
        path = problem["path"] if isinstance(problem, dict) else problem.path
        message = problem["message"] if isinstance(problem, dict) else problem.message
        grouped.setdefault(problem_key(path, option_ids), []).append(message)
    return {key: " ".join(dict.fromkeys(messages)) for key, messages in grouped.items()}


def diligence_choices() -> list[tuple[str, str, str]]:
    return list(DILIGENCE_ITEMS)
