"""The export tables: results per option (the CSV), monthly cost, inputs, prices and a decision's brief.

Numbers stay numbers, unrounded (the engine's values), with their unit in the column header; ``cell`` neutralises
text a spreadsheet would run as a formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lib.currencies import DEFAULT_CURRENCY, currency_of
from lib.formatting import PRESENT_VALUE
from lib.kinds import kind_label
from lib.terms import term_label
from pricing.export import neutralise
from tco.presentation.finance import compared_months, finance_answers
from tco.presentation.inputs import input_rows

from .finance import finance_cells, finance_headers, has_finance


@dataclass
class Table:
    """A header row, data rows and (for Excel) a style per column: money, unit_money, fraction, number, int, text."""

    headers: list[str]
    rows: list[list[Any]]
    styles: list[str] = field(default_factory=list)


def cell(value: Any) -> Any:
    """Numbers stay numbers; text is neutralised; None is an empty cell."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return value
    return neutralise(str(value))


def option_table(result: dict) -> Table:
    """One row per option: the engine's per-option results (with the finance depth's after them, when present)."""
    c = currency_of(result)
    months = compared_months(result)
    columns = [
        ("option", "name", "text"),
        ("kind", "kind", "text"),
        (f"annual cost ({c})", "annual_cost", "money"),
        (f"cost per busy GPU-hour ({c})", "cost_per_gpu_hour", "unit_money"),
        (f"cost per accepted response ({c})", "cost_per_accepted_response", "unit_money"),
        (f"cost per million accepted tokens ({c})", "cost_per_million_accepted_tokens", "unit_money"),
        (f"total cost over {months} months ({c})", "total_cost", "money"),
        (f"{PRESENT_VALUE} ({c})", "npv", "money"),
        (f"resale value at horizon ({c})", "resale_value", "money"),
        (f"capital charge per year ({c})", "capital_charge_per_year", "money"),
        ("mean own utilization (fraction)", "mean_own_utilization", "fraction"),
        ("overflow over horizon (GPU-hours)", "overflow_gpu_hours", "number"),
    ]
    if "training" in result:  # docs/money-math.md "Training runs": beside the cost per accepted output
        at = next(i for i, (_, key, _) in enumerate(columns) if key == "cost_per_million_accepted_tokens") + 1
        columns[at:at] = [
            (f"cost per validated model version ({c})", "cost_per_validated_version", "money"),
            ("capacity blocks per run", "blocks_per_run", "number"),
        ]
    rows = [
        [kind_label(option[key]) if key == "kind" else option.get(key) for _, key, _ in columns]
        + [option["name"] == result["cheapest"]]
        for option in result["options"]
    ]
    headers = [header for header, _, _ in columns] + [f"cheapest by {PRESENT_VALUE}"]
    styles = [style for _, _, style in columns] + ["text"]
    if has_finance(result):
        extra_headers, extra_styles = finance_headers(result)
        headers, styles = headers + extra_headers, styles + extra_styles
        rows = [row + finance_cells(result, option) for row, option in zip(rows, result["options"], strict=True)]
    return Table(headers=headers, rows=rows, styles=styles)


def finance_results_table(result: dict) -> Table:
    """The finance depth's results per option (the workbook's sheet beside the live model): name, kind, then the
    columns ``option_table`` adds."""
    headers, styles = finance_headers(result)
    rows = [
        [option["name"], kind_label(option["kind"]), *finance_cells(result, option)] for option in result["options"]
    ]
    return Table(headers=["option", "kind", *headers], rows=rows, styles=["text", "text", *styles])


def finance_schedule_table(result: dict) -> Table:
    """Every dated finance figure, one per row: tax depreciation by tax year, replacement prices, commitment terms."""
    c = currency_of(result)
    rows: list[list[Any]] = []
    for option in result["options"]:
        name = option["name"]
        for year, amount in enumerate(option.get("tax_depreciation_by_year") or [], start=1):
            rows.append([name, "tax depreciation", "tax year", year, amount, c])
        for month, price in option.get("replacement_capex") or []:
            rows.append([name, "replacement unit bought", "month", month, price, c])
        for month, price in option.get("commitment_terms") or []:
            rows.append([name, "commitment term starts, locked price", "month", month, price, f"{c} per GPU-hour"])
    return Table(
        headers=["option", "what", "when", "number", "amount", "unit"],
        rows=rows,
        styles=["text", "text", "text", "int", "unit_money", "text"],
    )


def finance_words_table(document: dict, result: dict) -> Table:
    """The tax, financing, refresh and commitment answers in words, as the pages say them."""
    rows = [[line["option"], line["topic"], line["text"]] for line in finance_answers(document, result)]
    return Table(headers=["option", "about", "answer"], rows=rows, styles=["text", "text", "text"])


def break_even_table(result: dict) -> Table:
    """Every owned x on-demand rental pair: its break-even utilization before and after tax, and its crossover."""
    rows = [
        [pair["owned"], pair["rental"], pair["utilization"], pair.get("utilization_after_tax"), pair["crossover_month"]]
        for pair in result["break_even"]
    ]
    headers = [
        "owned option",
        "rental option",
        "break-even utilization before tax (fraction)",
        "break-even utilization after tax (fraction)",
        "cumulative crossover (month)",
    ]
    return Table(headers=headers, rows=rows, styles=["text", "text", "fraction", "fraction", "int"])


def monthly_table(document: dict, result: dict) -> Table:
    """One row per month: the forecast, each option's cash cost that month, then each option's cumulative cost."""
    c = currency_of(result)
    months = compared_months(result)
    utilization = list(document["utilization"])
    if len(utilization) == 1:
        utilization = utilization * months
    options = result["options"]
    headers = ["month", "utilization (fraction)"]
    headers += [f"{option['name']}: cost in month ({c})" for option in options]
    headers += [f"{option['name']}: cumulative cost ({c})" for option in options]
    rows = []
    for index in range(months):
        row: list[Any] = [index + 1, utilization[index]]
        row += [option["monthly_cost"][index] for option in options]
        row += [option["cumulative_cost"][index] for option in options]
        rows.append(row)
    return Table(headers=headers, rows=rows, styles=["int", "fraction"] + ["money"] * (2 * len(options)))


def inputs_table(document: dict) -> Table:
    """Every input of the document, one per row, with the option it belongs to and its unit."""
    rows = [
        [row["applies_to"], kind_label(row["kind"]) if row["kind"] else "", row["label"], _value(row), row["unit"]]
        for row in input_rows(document)
    ]
    return Table(headers=["applies to", "kind", "input", "value", "unit"], rows=rows, styles=["text"] * 5)


def prices_table(prices: list[dict]) -> Table:
    """The prices a decision rests on, with provider, as-of date and source."""
    currency = prices[0]["currency"] if prices else DEFAULT_CURRENCY
    headers = [
        "option",
        "kind",
        f"price ({currency})",
        "per",
        "origin",
        "provider",
        "offering",
        "GPU model",
        "region",
        "pricing term",
        "as of",
        "source URL",
    ]
    keys = ["option", "kind", "price", "quantity", "origin", "provider", "offering", "gpu_model", "region"]
    rows = [
        [_price_kind(entry["kind"]) if key == "kind" else entry.get(key) for key in keys]
        + [term_label(entry.get("pricing_term") or ""), entry.get("observed_on"), entry.get("source_url")]
        for entry in prices
    ]
    return Table(headers=headers, rows=rows, styles=["text", "text", "unit_money"] + ["text"] * 9)


def _value(row: dict) -> Any:
    """A number as the number; a choice or a text in the page's words ("On demand", not on_demand)."""
    value = row["value"]
    return value if isinstance(value, int | float) and not isinstance(value, bool) else row["text"]


def _price_kind(kind: str) -> str:
    return "Burst" if kind == "burst" else kind_label(kind)


def brief_table(data: dict, content_hash: str) -> Table:
    """A frozen decision in words: the question, the decision, the seven answers, and how to verify the numbers."""
    decision = data["decision"]
    brief = data["brief"]
    rows: list[list[Any]] = [
        ["scenario", data["scenario"]["name"]],
        ["question", brief["question"]],
        ["decision status", decision["status"]],
    ]
    if decision["status"] != "open":
        rows += [
            ["decided option" if decision["status"] == "decided" else "previously decided option", decision["option"]],
            ["rationale" if decision["status"] == "decided" else "reason for re-opening", decision["rationale"]],
            ["recorded by", decision["by"]],
            ["recorded at", decision["at"]],
        ]
    rows.append(["workload brief", brief["workload_brief"] or "open"])
    rows += [[question["label"], question["answer"] or "open"] for question in brief["questions"]]
    rows += [
        ["frozen at", data["frozen_at"]],
        ["scenario version", data["scenario"]["version"]],
        ["engine version", data["engine_version"]],
        ["content hash (SHA-256)", content_hash],
    ]
    return Table(headers=["item", "value"], rows=rows, styles=["text", "text"])
