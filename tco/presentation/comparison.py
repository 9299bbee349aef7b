"""Two to four scenarios side by side: their answers, NPVs per option, break-even, and how their inputs differ.

Pure: each scenario comes in as ``{"id", "name", "document", "result"}`` (plus an optional ``"simulation"``,
the engine's ``simulate`` answer for its current inputs, and ``"conversion"``, the words naming the rate its result
was converted at, with ``"factor"``, one unit of its own currency in the comparison's), and the comparison goes out
as plain data, so a decision link can freeze it as it is. Every
amount is in one currency (``in_currency`` converts a result), the inputs that differ too.
"""

from __future__ import annotations

import copy
from typing import Any

from lib.currencies import DEFAULT_CURRENCY, currency_of
from tco.engine.catalogue import option_fields, scenario_fields
from tco.engine.results import MONEY_BY_MONTH, MONEY_RESULTS, MONEY_SERIES
from tco.presentation.inputs import flat_inputs

from .finance import compared_months, tax_rate_of
from .headline import headline
from .uncertainty import probability_headline


def input_differences(
    documents: list[dict], currency: str | None = None, factors: list[float] | None = None
) -> list[dict]:
    """The inputs whose value is not the same in every scenario, in words (``tco.presentation.inputs.flat_inputs``),
    every amount in ``currency`` (each document's money times its ``factors`` entry; default: its own currency);
    "—": the scenario does not have it (an option it lacks), "n/a": it does not apply to that option (a loan's APR
    on an option paid in cash). Listed only where it applies somewhere at a value other than its default (a blank
    reads as its default): what a reader needs, not every field of the catalogue."""
    factors = factors or [1.0] * len(documents)
    compared = [_comparable(document) for document in documents]
    flats = [
        flat_inputs(filled, (currency, factor) if currency else None)
        for (filled, _, _), factor in zip(compared, factors, strict=True)
    ]
    keys = list(dict.fromkeys(key for flat in flats for key in flat))
    rows = []
    for key in keys:
        values = [
            "—" if key not in flat else NOT_APPLYING if key in idle else flat[key][1]
            for flat, (_, idle, _) in zip(flats, compared, strict=True)
        ]
        chosen = [
            key in flat and key not in idle and key not in defaults
            for flat, (_, idle, defaults) in zip(flats, compared, strict=True)
        ]
        if len(set(values)) > 1 and any(chosen):
            label = next(flat[key][0] for flat in flats if key in flat)
            rows.append({"input": label, "values": values})
    return rows


NOT_APPLYING = "n/a"


def _default(entry: Any) -> Any:
    """The engine's value of an input left blank: its check's default, else what its default in words names (a
    choice's label, "monthly"; a number, "0 (no upfront)")."""
    if entry.default is not None:
        return entry.default
    text = (entry.default_text or "").strip().lower()
    for value, label in entry.choices:
        if label.lower() == text:
            return int(value) if entry.value_type == "count" else value
    first = text.split(" ", 1)[0]
    try:
        return float(first)
    except ValueError:
        return None


def _is_default(value: Any, default: Any) -> bool:
    if value is None or value == "":
        return True
    if default is None:
        return False
    try:
        return float(value) == float(default)
    except (TypeError, ValueError):
        return str(value) == str(default)


def _comparable(document: dict) -> tuple[dict, set[str], set[str]]:
    """``(the document with every blank input that has a default filled with it, the keys of inputs that do not
    apply to their option, the keys of inputs at their default)``, keys as ``flat_inputs`` writes them: a blank and
    its default typed out read the same, and an input that means nothing for its option is no difference."""
    filled = copy.deepcopy(document)
    idle: set[str] = set()
    defaults: set[str] = set()
    workload = filled.get("workload") or {}
    for entry in scenario_fields("scenario", "workload"):
        if not entry.stored or entry.field == "name":
            continue
        holder = workload if entry.scope == "workload" else filled
        if entry.scope == "workload" and not workload:
            continue
        value, default = holder.get(entry.name), _default(entry)
        if _is_default(value, default):
            defaults.add(entry.path)
            if (value is None or value == "") and default is not None:
                holder[entry.name] = default
    for option in filled.get("options") or []:
        for entry in option_fields(option["kind"]):
            key = f"{option['name']}: {entry.name}"
            if not entry.applies(option):
                idle.add(key)
                continue
            value, default = option.get(entry.name), _default(entry)
            if _is_default(value, default):
                defaults.add(key)
                if (value is None or value == "") and default is not None:
                    option[entry.name] = default
    return filled, idle, defaults


def in_currency(result: dict, currency: str, factor: float) -> dict:
    """A copy of an engine result with every amount of money multiplied by ``factor`` (one unit of the result's
    currency in ``currency``) and labelled ``currency``; shares, hours and break-even utilizations are unchanged."""
    options = []
    for option in result["options"]:
        moved = dict(option)
        for key in MONEY_RESULTS:
            if moved.get(key) is not None:
                moved[key] = moved[key] * factor
        for key in MONEY_SERIES:
            if key in moved:
                moved[key] = [value * factor for value in moved[key]]
        for key in MONEY_BY_MONTH:
            if key in moved:
                moved[key] = [[month, amount * factor] for month, amount in moved[key]]
        options.append(moved)
    return {**result, "currency": currency, "options": options}


def horizon_note(months: list[int]) -> str:
    """ "36 vs 60 months: totals cover different periods, …" when the horizons differ, else ""."""
    distinct = sorted(set(months))
    if len(distinct) < 2:
        return ""
    listed = ", ".join(str(m) for m in distinct[:-1]) + f" vs {distinct[-1]}"
    return (
        f"{listed} months: totals cover different periods, so compare the annual costs (one average year) "
        "rather than the present values."
    )


def _taxed(entry: dict) -> bool:
    """Whether a scenario's answer decides on present values after tax (as its headline does)."""
    return tax_rate_of(entry["document"], entry["result"]) > 0


def _rows(entries: list[dict], keys: str | list[str], names: list[str], cells: str) -> list[dict]:
    """Per option name, each scenario's ``key`` under ``cells`` ({"value", "currency"}; None where it has no such
    option); ``keys`` is one key for every scenario, or one per scenario."""
    keys = [keys] * len(entries) if isinstance(keys, str) else keys
    rows = []
    for name in names:
        values = []
        for entry, key in zip(entries, keys, strict=True):
            match = next((o for o in entry["result"]["options"] if o["name"] == name), None)
            currency = currency_of(entry["result"])
            values.append({"value": None if match is None else match[key], "currency": currency})
        rows.append({"option": name, cells: values})
    return rows


def comparison(entries: list[dict]) -> dict:
    """The side-by-side page's data: one card per scenario, NPV and annual-cost rows by option name (each scenario's
    NPV the one its answer decides on: after tax when it is taxed, its card's ``taxed`` then True), the
    currency, the rates other currencies went through, a note when horizons differ, input differences."""
    cards = []
    for entry in entries:
        answer = headline(entry["document"], entry["result"])
        simulation = entry.get("simulation")
        cards.append(
            {
                "id": entry["id"],
                "name": entry["name"],
                "currency": currency_of(entry["result"]),
                "sentence": answer["sentence"],
                "cheapest": answer["cheapest"]["name"] if answer.get("cheapest") else None,
                "break_even": answer.get("break_even"),
                "probability": probability_headline(simulation) if simulation else "",
                "horizon_months": compared_months(entry["result"]),
                "taxed": _taxed(entry),
                "conversion": entry.get("conversion", ""),
            }
        )
    names = list(dict.fromkeys(o["name"] for entry in entries for o in entry["result"]["options"]))
    return {
        "currency": currency_of(entries[0]["result"]),
        "conversions": [f"{entry['name']}: {entry['conversion']}" for entry in entries if entry.get("conversion")],
        "horizon_note": horizon_note([compared_months(entry["result"]) for entry in entries]),
        "scenarios": cards,
        "npv_rows": _rows(entries, ["npv_after_tax" if _taxed(entry) else "npv" for entry in entries], names, "npv"),
        "annual_rows": _rows(entries, "annual_cost", names, "annual"),
        "differences": input_differences(
            [entry["document"] for entry in entries],
            entries[0]["result"].get("currency") or DEFAULT_CURRENCY,
            [entry.get("factor", 1.0) for entry in entries],
        ),
    }
