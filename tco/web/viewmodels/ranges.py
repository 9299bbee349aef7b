"""The "±" disclosure beside each catalogued numeric input: view models of input ranges for the editor."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from tco.engine import entered_values
from tco.engine.catalogue import OPTION_FIELD, SCENARIO_FIELD
from tco.models import InputRange, Scenario
from tco.selectors.uncertainty import (
    SCENARIO_RANGE_PATHS,
    likely_is_input,
    range_key,
    range_path,
    scenario_ranges,
)
from tco.web.inputs import PERCENT_FIELDS
from tco.web.viewmodels.fields import input_text, scenario_label, style_of

RATE_RANGE_FIELDS = PERCENT_FIELDS  # the forecast's level, ``utilization``, is a catalogued rate too


@dataclass
class RangeView:
    key: str  # the input's editor key: s-discount_rate, o12-capex
    field: str
    label: str
    url: str  # where the range is saved
    editor_url: str  # where the page fetches the disclosure's inputs when it is opened
    low: str = ""
    likely: str = ""
    high: str = ""
    error: str = ""
    entered: str = ""  # the input's value as the model uses it, when the range's likely is not that value
    loaded: bool = False  # its inputs are rendered (the editor asked for), not only its summary
    summary: str = ""  # the stored range as the summary shows it ("288,000 · 320,000 · 400,000"), "" when none
    refused: bool = False  # the inputs hold what was typed and refused; the summary is still the stored range

    @property
    def differs(self) -> bool:
        """The range's likely value was set apart from the input: it does not follow the input's edits."""
        return bool(self.entered)

    @property
    def is_set(self) -> bool:
        return bool(self.summary)

    @property
    def dom_id(self) -> str:
        return f"range-{self.key}"

    @property
    def percent(self) -> bool:
        return self.field in RATE_RANGE_FIELDS


def range_urls(scenario: Scenario) -> tuple[str, str]:
    """Where the scenario's ranges are saved, and where a disclosure's inputs are fetched from (``?target=``)."""
    return reverse("tco:input_range", args=[scenario.pk]), reverse("tco:input_range_editor", args=[scenario.pk])


def range_for(
    scenario: Scenario,
    key: str,
    field: str,
    label: str,
    found: InputRange | None,
    entered: float | None = None,
    *,
    urls: tuple[str, str] | None = None,
) -> RangeView:
    """``entered`` is the input's value as the model uses it: the view says so when the range's likely is not it.
    ``urls`` are the scenario's ``range_urls`` (reversed here when not given)."""
    save_url, editor_url = urls or range_urls(scenario)
    view = RangeView(
        key=key, field=field, label=label, url=save_url, editor_url=f"{editor_url}?{urlencode({'target': key})}"
    )
    if found is not None:
        entry = OPTION_FIELD.get(field) or SCENARIO_FIELD.get(field)
        style = "percent" if view.percent else style_of(entry) if entry is not None else ""
        view.low, view.likely, view.high = (input_text(getattr(found, end), style) for end in ("low", "likely", "high"))
        view.summary = f"{view.low} · {view.likely} · {view.high}"
        if entered is not None and not likely_is_input(found.likely, entered):
            view.entered = input_text(Decimal(repr(entered)), style)
    return view


def attach_ranges(context: dict[str, Any], scenario: Scenario, ranges: list[InputRange] | None = None) -> None:
    """Give every field view that takes a range its RangeView, and the forecast its own; ``ranges`` are the
    scenario's input ranges (read when not given: one query)."""
    found = {range_key(item): item for item in (scenario_ranges(scenario) if ranges is None else ranges)}
    options = [view.option for view in context["option_views"]]
    paths = {key: range_path(item, options) for key, item in found.items()}
    values = entered_values(context["document"], [path for path in paths.values() if path]) if found else {}

    urls = range_urls(scenario)

    def view_of(key: str, name: str, label: str) -> RangeView:
        return range_for(scenario, key, name, label, found.get(key), values.get(paths.get(key, "")), urls=urls)

    # A finance input takes a range once it is set: the range of a tax rate, an APR, a lease payment.
    fields = [*context["basics"], *context["workload"], *(f for f in context.get("finance", ()) if f.text)]
    for view in context["option_views"]:
        fields += [f for f in view.fields if f.name in view.range_fields]
        fields += [f for f in view.finance_fields if f.name in view.range_fields and f.text]
    for f in fields:
        if f.key.startswith("s-") and f.name not in SCENARIO_RANGE_PATHS:
            continue
        f.range = view_of(f.key, f.name, f.label)
    utilization = scenario_label(SCENARIO_FIELD["utilization"], scenario.currency_code)
    context["utilization_range"] = view_of("s-utilization", "utilization", utilization)
