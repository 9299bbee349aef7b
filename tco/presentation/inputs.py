"""A scenario document's inputs in words: one label and one way to write each value, for every page and export.

``value_words(fact, value, currency)`` is how any input's value reads ("60 months", "8% per year", "On demand",
"$2,222,222"), and an input's ``fact`` (``scenario_fact``, ``option_fact``, ``path_fact``) gives its one label:
the editor's conflict notes, the decision page's assumptions, ranges and tornado rows, the comparison's "inputs
that differ", the scenario history and the exports' inputs table all go through them, so a raw key
(``horizon_months``) or a float's e-notation never reaches a reader. Every fact is the engine catalogue's (label,
unit, value type, default in words, choices; ``tco.engine.catalogue``), for the scenario's inputs as for an
option's.

Inputs the document leaves out take the engine's defaults (docs/money-math.md); they are listed with the default
in words, so a reader sees every assumption the numbers rest on.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from lib.currencies import currency_of
from lib.formatting import DASH, MINUS, format_money, format_pct, round_half_up
from lib.kinds import CAPACITY_BLOCK, COMMITTED, KIND_LABELS, kind_label
from tco.engine.catalogue import (
    OPTION_FIELD,
    SCENARIO_FIELD,
    OptionField,
    ScenarioField,
    option_fields,
    option_value,
    scenario_fields,
    scenario_path_field,
)
from tco.engine.paths import OPTION_PATH

MAX_PLACES = 6  # decimals kept of a typed-in number (the engine reads more; nobody types more)
PRICE_PLACES = 4  # decimals kept of a price per unit ($0.135 per kWh): beyond, a conversion's digits
PERCENT_PLACES = 4  # decimals kept of a typed-in percentage (8.125%)


@dataclass(frozen=True)
class InputFact:
    """How one input reads: its label, value type (money / rate / count / number / choice / text), unit ("{c}" is
    the currency; "fraction" a share shown as a percentage), the default in words when it is omitted, and the
    words of each choice. ``per_unit`` money (a price per GPU-hour) keeps its cents; totals are whole units."""

    key: str
    label: str
    value_type: str
    unit: str = ""
    default_text: str | None = None
    choices: tuple[tuple[str, str], ...] = ()
    per_unit: bool = False
    sheet_label: str = ""  # the spreadsheet's label, when it is not the label in lower case

    @property
    def export_label(self) -> str:
        return self.sheet_label or lower_first(self.label)


def lower_first(label: str) -> str:
    """A label as a spreadsheet row or a sentence writes it: "useful life", but "PUE" and "GPU count" as they are."""
    return label if label[1:2].isupper() else label[:1].lower() + label[1:]


def _is_per_unit(key: str, value_type: str) -> bool:
    return value_type == "money" and "_per_" in key and not key.endswith("_per_year")


def _entry_fact(entry: OptionField | ScenarioField, key: str, label: str, sheet_label: str = "") -> InputFact:
    return InputFact(
        key,
        label,
        entry.value_type,
        entry.unit,
        entry.default_text,
        entry.choices,
        per_unit=_is_per_unit(key, entry.value_type),
        sheet_label=sheet_label,
    )


def scenario_fact(field: str) -> InputFact | None:
    """A scenario, workload, forecast or serving input's facts by its model field (``horizon_months``,
    ``workload_acceptance_rate``, ``forecast_kind``, ``serving_headroom``), or the forecast's level
    (``utilization``)."""
    entry = SCENARIO_FIELD.get(field)
    if entry is None:
        return None
    return _entry_fact(entry, entry.name if entry.scope in ("scenario", "workload") else entry.field, entry.label)


def workload_fact(key: str) -> InputFact | None:
    """A workload input's facts by its document key (``acceptance_rate``)."""
    return scenario_fact(f"workload_{key}")


OPTION_EXTRA_FACTS = {
    "name": InputFact("name", "Name", "text"),
    "kind": InputFact("kind", "Kind", "choice", choices=tuple(KIND_LABELS.items())),
    "price_source": InputFact("price_source", "Market price", "text", default_text="typed in"),
}
UTILIZATION_LABELS = {
    "mean": "Utilization, forecast mean",
    "low": "Utilization, lowest month",
    "high": "Utilization, highest month",
}


def option_fact(key: str) -> InputFact | None:
    """An option input's facts, from the engine catalogue (label, unit, type, default), or name / kind / source."""
    entry = OPTION_FIELD.get(key)
    if entry is None:
        return OPTION_EXTRA_FACTS.get(key)
    return _entry_fact(entry, key, entry.label)


def path_fact(document: dict, path: str) -> tuple[str, InputFact] | None:
    """An engine input path (``utilization``, ``discount_rate``, ``workload.<key>``, ``options[i].<key>``) as
    (what it belongs to, its facts): ("Lambda 8x H100 SXM", price's facts); None for a path the document lacks."""
    if (match := OPTION_PATH.fullmatch(path)) and match[2]:
        index, key = int(match[1]), match[2]
        options = document.get("options") or []
        fact = option_fact(key)
        if index >= len(options) or fact is None:
            return None
        return str(options[index].get("name", f"option {index + 1}")), fact
    scope, _, key = path.rpartition(".")
    if scope == "workload":
        fact = workload_fact(key)
        return ("Workload", fact) if fact else None
    entry = scenario_path_field(path)
    return ("", scenario_fact(entry.field)) if entry is not None and entry.scope == "scenario" else None


def path_label(document: dict, path: str) -> str:
    """ "Lambda 8x H100 SXM: Price", "Workload: Acceptance rate", "Discount rate"; the path itself if unknown."""
    found = path_fact(document, path)
    if found is None:
        return path
    owner, fact = found
    return f"{owner}: {fact.label}" if owner else fact.label


def path_words(document: dict, path: str, value: Any) -> str:
    """The value of an engine input path in words (the ranges' low / likely / high, the tornado's swings)."""
    found = path_fact(document, path)
    if found is None:
        return _number_text(value) if _is_number(value) else str(value)
    return value_words(found[1], value, currency_of(document))


def value_words(fact: InputFact, value: Any, currency: str) -> str:
    """One value as the pages write it, its unit included: money with the currency ("$2,222,222", "EUR 2.49 per
    GPU-hour"; totals in whole units unless they have cents, prices with at least their cents), rates as
    percentages ("8% per year"), counts and numbers with separators and their unit ("60 months", "81.6 kW"), a
    choice in its words ("On demand"). An omitted value is the default in words ("0 (default)")."""
    if value is None or value == "" or (fact.value_type == "list" and isinstance(value, list | tuple) and not value):
        return f"{fact.default_text} (default)" if fact.default_text else "blank"
    if fact.value_type == "choice":
        return dict(fact.choices).get(str(value), str(value).replace("_", " "))
    if fact.value_type == "list" and isinstance(value, list | tuple):
        return _list_words(value)
    if fact.value_type == "text" or not _is_number(value):
        return _text(value)
    unit = fact.unit.replace("{c}", currency)
    if fact.value_type == "money":
        number = round_half_up(_decimal(value), MAX_PLACES)  # what is left beyond is float noise
        if fact.per_unit:
            places = max(2, _places(round_half_up(number, PRICE_PLACES)))
        else:
            places = 0 if number == number.to_integral() else 2
        return _joined(format_money(number, currency, places=places), unit.removeprefix(currency))
    if fact.value_type == "rate":
        return _joined(_percent_text(value), unit.removeprefix("fraction"))
    return _joined(_number_text(value), _unit_for(unit, value))


def _list_words(value: list | tuple) -> str:
    """A resale curve as "100% at 0 months, 70% at 12 months"; a price path by year as "-25%, -10%, then 0% a year"
    (with minus signs); traffic buckets as "2.5 requests/s of 1,200 input and 350 output tokens"."""
    if value and all(isinstance(bucket, list | tuple) and len(bucket) == 3 for bucket in value):
        return "; ".join(
            f"{_number_text(rate)} requests/s of {_number_text(tokens_in)} input and {_number_text(tokens_out)} "
            "output tokens"
            for rate, tokens_in, tokens_out in value
        )
    if value and all(isinstance(point, list | tuple) and len(point) == 2 for point in value):
        return ", ".join(
            f"{_percent_text(share)} at {_joined(_number_text(age), _unit_for('months', age))}" for age, share in value
        )
    changes = [_percent_text(change) if _is_number(change) else str(change) for change in value]
    if len(changes) == 1:
        return f"{changes[0]} a year"
    return f"{', '.join(changes[:-1])}, then {changes[-1]} a year"


def _text(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} values"
    if isinstance(value, dict):  # a Market price's provenance
        parts = [value.get("provider"), value.get("offering"), value.get("observed_on")]
        return " · ".join(str(part) for part in parts if part) or DASH
    return str(value)


def _joined(text: str, unit: str) -> str:
    unit = unit.strip()
    return f"{text} {unit}" if unit and unit != "ratio" else text


def _unit_for(unit: str, value: Any) -> str:
    """ "1 GPU", "1 year", "1 month", but "2 GPUs"."""
    if _decimal(value) == 1 and unit in ("GPUs", "years", "months", "tokens"):
        return unit[:-1]
    return unit


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _decimal(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _places(number: Decimal) -> int:
    """Decimals a typed-in number has (at most MAX_PLACES: what is left is float noise)."""
    exponent = number.normalize().as_tuple().exponent
    return min(max(0, -int(exponent)), MAX_PLACES)


def _plain(number: Decimal) -> str:
    """A Decimal with thousands separators and no trailing zeros, never in e-notation."""
    number = number.normalize()
    places = max(0, -int(number.as_tuple().exponent))
    return f"{number:,.{places}f}"


def _number_text(value: Any) -> str:
    number = _decimal(value)
    text = _plain(round_half_up(number, _places(number)))
    return MINUS + text[1:] if text.startswith("-") else text


def _percent_text(value: Any) -> str:
    percent = round_half_up(_decimal(value) * 100, PERCENT_PLACES)
    text = _plain(percent)
    return (MINUS + text[1:] if text.startswith("-") else text) + "%"


def _row(applies_to: str, kind: str, fact: InputFact, source: dict, currency: str) -> dict:
    present = source.get(fact.key) is not None
    value = source[fact.key] if present else None
    return {
        "applies_to": applies_to,
        "kind": kind,
        "key": fact.key,
        "label": fact.export_label,  # the spreadsheet's label; ``title`` is the page's
        "title": fact.label,
        "value": value,
        "unit": fact.unit.replace("{c}", currency),
        "text": value_words(fact, value, currency),
        "is_default": not present,
    }


def utilization_summary(utilization: list[float]) -> dict:
    """Mean, lowest and highest month of the forecast as fractions."""
    return {"mean": sum(utilization) / len(utilization), "low": min(utilization), "high": max(utilization)}


def _utilization_rows(forecast: dict, shown: tuple[str, ...]) -> list[dict]:
    return [
        {
            "applies_to": "scenario",
            "kind": "",
            "key": f"utilization_{key}",
            "label": UTILIZATION_LABELS[key][:1].lower() + UTILIZATION_LABELS[key][1:],
            "title": UTILIZATION_LABELS[key],
            "value": forecast[key],
            "unit": "fraction",
            "text": format_pct(forecast[key]),
            "is_default": False,
        }
        for key in shown
    ]


def input_groups(document: dict) -> list[dict]:
    """Inputs grouped for reading: the scenario, the workload, the training plan, then each option in document order.
    Each row has the page's ``title`` and ``text`` (value with unit) and the spreadsheet's ``label``, ``value`` and
    ``unit``."""
    c = currency_of(document)
    forecast = utilization_summary(list(document["utilization"]))
    scenario_rows = []
    shown = ("mean",) if len(document["utilization"]) == 1 else ("mean", "low", "high")
    for entry in scenario_fields("scenario"):
        if not entry.stored:  # the forecast, as its mean (and its lowest and highest months)
            scenario_rows += _utilization_rows(forecast, shown)
        elif entry.value_type != "text":  # the name is the page's title, the currency its money's unit
            scenario_rows.append(_row("scenario", "", scenario_fact(entry.field), document, c))
    groups = [{"title": "Scenario", "kind": "", "kind_label": "", "rows": scenario_rows}]
    workload = document.get("workload")
    if workload:
        rows = [_row("workload", "", scenario_fact(entry.field), workload, c) for entry in scenario_fields("workload")]
        groups.append({"title": "Workload", "kind": "", "kind_label": "", "rows": rows})
    training = document.get("training")
    if training:
        rows = [_row("training", "", scenario_fact(entry.field), training, c) for entry in scenario_fields("training")]
        groups.append({"title": "Training", "kind": "", "kind_label": "", "rows": rows})
    for option in document["options"]:
        rows = [
            _row(option["name"], option["kind"], option_fact(entry.name), option, c)
            for entry in option_fields(option["kind"])
            if entry.applies(option) or option.get(entry.name) is not None  # no loan terms for a cash purchase
        ]
        if option_value(option, "billing") != COMMITTED:
            rows = [row for row in rows if row["key"] != "committed_gpus"]
        if option_value(option, "billing") != CAPACITY_BLOCK:
            rows = [row for row in rows if row["key"] not in ("block_gpus", "block_days")]
        groups.append(
            {"title": option["name"], "kind": option["kind"], "kind_label": kind_label(option["kind"]), "rows": rows}
        )
    return groups


def input_rows(document: dict) -> list[dict]:
    """The same inputs as one flat list (a spreadsheet's rows). Defaults are written as text."""
    return [
        {**row, "value": row["value"] if not row["is_default"] else row["text"]}
        for group in input_groups(document)
        for row in group["rows"]
    ]


def flat_inputs(document: dict, in_currency: tuple[str, float] | None = None) -> dict[str, tuple[str, str]]:
    """Every input of a document in words, keyed by where it is (options by name, so their order does not matter):
    ``{key: (label, value)}``, e.g. ``("Lambda 8x H100 SXM: Price", "$3.99 per GPU-hour")``. ``in_currency``
    (currency, factor: one unit of the document's currency in it) writes every amount of money in that currency."""
    c, factor = in_currency or (currency_of(document), 1.0)

    def words(fact: InputFact, value: Any, currency: str) -> str:
        if factor != 1.0 and fact.value_type == "money" and _is_number(value):
            value = float(value) * factor
        return value_words(fact, value, currency)

    flat: dict[str, tuple[str, str]] = {}
    workload = document.get("workload") or {}
    for entry in scenario_fields("scenario", "workload"):
        fact = scenario_fact(entry.field)
        if not entry.stored:  # the forecast's level
            months = document["utilization"]
            shape = "flat" if len(months) == 1 else f"mean of {len(months)} months"
            flat[entry.path] = (fact.label, f"{format_pct(sum(months) / len(months))} {shape}")
        elif entry.scope == "workload":
            if workload:
                flat[entry.path] = (f"Workload: {fact.label}", words(fact, workload.get(entry.name), c))
        elif entry.field != "name":
            flat[entry.path] = (fact.label, words(fact, document.get(entry.name), c))
    training = document.get("training") or {}
    if training:
        for entry in scenario_fields("training"):
            fact = scenario_fact(entry.field)
            flat[entry.path] = (f"Training: {fact.label}", words(fact, training.get(entry.name), c))
    for option in document["options"]:
        for key in ("kind", *(entry.name for entry in option_fields(option["kind"]))):
            fact = option_fact(key)
            flat[f"{option['name']}: {key}"] = (
                f"{option['name']}: {fact.label}",
                words(fact, option.get(key), c),
            )
    return flat
