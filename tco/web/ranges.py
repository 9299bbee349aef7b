"""The "±" disclosure beside each catalogued numeric input: view models of input ranges for the editor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from tco.models import InputRange, Scenario, ScenarioOption
from tco.selectors.uncertainty import SCENARIO_RANGE_PATHS, option_range_fields, range_key, scenario_ranges
from tco.web.fields import input_text
from tco.web.inputs import PERCENT_FIELDS

RATE_RANGE_FIELDS = PERCENT_FIELDS | {"utilization"}


@dataclass
class RangeView:
    key: str  # the input's editor key: s-discount_rate, o12-capex
    field: str
    label: str
    url: str
    low: str = ""
    likely: str = ""
    high: str = ""
    error: str = ""

    @property
    def is_set(self) -> bool:
        return bool(self.low)

    @property
    def dom_id(self) -> str:
        return f"range-{self.key}"

    @property
    def percent(self) -> bool:
        return self.field in RATE_RANGE_FIELDS


def range_view(scenario: Scenario, key: str, field: str, label: str, found: InputRange | None) -> RangeView:
    view = RangeView(key=key, field=field, label=label, url=reverse("tco:input_range", args=[scenario.pk]))
    if found is not None:
        view.low, view.likely, view.high = (input_text(getattr(found, name)) for name in ("low", "likely", "high"))
    return view


def range_for_field(scenario: Scenario, option: ScenarioOption | None, view: Any) -> RangeView | None:
    """The RangeView of one field view (one query), or None when its input takes no range: for a field
    re-rendered alone, e.g. with a message about what was typed."""
    if option is None and view.name not in SCENARIO_RANGE_PATHS:
        return None
    if option is not None and view.name not in option_range_fields(option):
        return None
    found = InputRange.objects.filter(scenario=scenario, option=option, field=view.name).first()
    return range_view(scenario, view.key, view.name, view.label, found)


def attach_ranges(context: dict[str, Any], scenario: Scenario) -> None:
    """Give every field view that takes a range its RangeView (one query), and the forecast its own."""
    found = {range_key(item): item for item in scenario_ranges(scenario)}
    fields = [*context["basics"], *context["workload"]]
    for view in context["option_views"]:
        fields += [f for f in view.fields if f.name in view.range_fields]
    for f in fields:
        if f.key.startswith("s-") and f.name not in SCENARIO_RANGE_PATHS:
            continue
        f.range = range_view(scenario, f.key, f.name, f.label, found.get(f.key))
    key = "s-utilization"
    context["utilization_range"] = range_view(scenario, key, "utilization", "Utilization level", found.get(key))
