"""A scenario document's inputs in words: label, value, unit, and how a person reads it (decision page, Excel).

Inputs the document leaves out take the engine's defaults (docs/money-math.md); they are listed with the default
in words, so a reader sees every assumption the numbers rest on.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from lib.formatting import format_money, format_pct, round_half_up
from lib.kinds import kind_label
from tco.engine.catalogue import option_fields

# (document key, label, unit, default in words when omitted); "{c}" in a unit is the currency. The options' inputs
# are the engine catalogue's (export_label, unit, default_text).
SCENARIO_INPUTS = (
    ("horizon_months", "horizon", "months", None),
    ("discount_rate", "discount rate", "fraction per year", None),
    ("fleet_gpus", "fleet", "GPUs", None),
    ("burst_price_per_gpu_hour", "burst price", "{c} per GPU-hour", "none (no demand above capacity allowed)"),
)
WORKLOAD_INPUTS = (
    ("tokens_per_second_per_gpu", "output tokens per second per GPU", "tokens/s", None),
    ("output_tokens_per_response", "output tokens per response", "tokens", None),
    ("input_tokens_per_response", "input tokens per response", "tokens", None),
    ("acceptance_rate", "acceptance rate", "fraction", None),
)
UTILIZATION_LABELS = {
    "mean": "utilization, forecast mean",
    "low": "utilization, lowest month",
    "high": "utilization, highest month",
}


def value_text(value: Any, unit: str, currency: str) -> str:
    """How a person reads one input: "$324,000", "$3.99", "8.0%", "10.2", "on demand"."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.replace("_", " ")
    if unit == currency or unit.startswith(f"{currency} per year"):
        return format_money(value, currency, places=0 if float(value) == int(value) else 2)
    if unit.startswith(currency):
        return format_money(value, currency, places=max(2, _places(value)))
    if unit.startswith("fraction"):
        return format_pct(value)
    return f"{round_half_up(value, _places(value)):,}"


def _places(value: float | int) -> int:
    """Decimals to show a typed-in input without losing digits (at most 6)."""
    exponent = Decimal(repr(value)).normalize().as_tuple().exponent
    return min(max(0, -int(exponent)), 6)


def _row(applies_to: str, kind: str, key: str, label: str, unit: str, default: str | None, source: dict, c: str):
    unit = unit.format(c=c)
    present = key in source and source[key] is not None
    value = source[key] if present else None
    text = value_text(value, unit, c) if present else f"default: {default}" if default else "—"
    return {
        "applies_to": applies_to,
        "kind": kind,
        "key": key,
        "label": label,
        "value": value,
        "unit": unit,
        "unit_text": unit_text(unit, c) if present and not isinstance(value, str) else "",
        "text": text,
        "is_default": not present,
    }


def unit_text(unit: str, currency: str) -> str:
    """The unit beside a formatted value, minus what the value already says: "$24,000 per year", "8.0% per year"."""
    return unit.removeprefix("fraction").removeprefix(currency).strip()


def utilization_summary(utilization: list[float]) -> dict:
    """Mean, lowest and highest month of the forecast as fractions."""
    return {"mean": sum(utilization) / len(utilization), "low": min(utilization), "high": max(utilization)}


def input_groups(document: dict) -> list[dict]:
    """Inputs grouped for reading: the scenario, the workload, then each option in document order."""
    c = document.get("currency", "USD")
    forecast = utilization_summary(list(document["utilization"]))
    scenario_rows = [_row("scenario", "", key, *rest, document, c) for key, *rest in SCENARIO_INPUTS]
    shown = ("mean",) if len(document["utilization"]) == 1 else ("mean", "low", "high")
    utilization_rows = [
        {
            "applies_to": "scenario",
            "kind": "",
            "key": f"utilization_{key}",
            "label": UTILIZATION_LABELS[key],
            "value": forecast[key],
            "unit": "fraction",
            "unit_text": "",
            "text": format_pct(forecast[key]),
            "is_default": False,
        }
        for key in shown
    ]
    scenario_rows[3:3] = utilization_rows  # after horizon, discount rate and fleet
    groups = [{"title": "Scenario", "kind": "", "kind_label": "", "rows": scenario_rows}]
    workload = document.get("workload")
    if workload:
        rows = [_row("workload", "", key, *rest, workload, c) for key, *rest in WORKLOAD_INPUTS]
        groups.append({"title": "Workload", "kind": "", "kind_label": "", "rows": rows})
    for option in document["options"]:
        rows = [
            _row(option["name"], option["kind"], f.name, f.export_label, f.unit, f.default_text, option, c)
            for f in option_fields(option["kind"])
        ]
        if option.get("billing", "on_demand") != "committed":
            rows = [row for row in rows if row["key"] != "committed_gpus"]
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
