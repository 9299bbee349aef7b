"""What the Actuals page shows: plan against actual per option and month, to date, the break-even per month, the
cost by provider, service and SKU (mapped or not) and by tag, and the verdict in words."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from lib.formatting import DASH, format_money, format_pct, format_signed_money, format_signed_number, format_unit_money
from tco.engine.actuals import month_words
from tco.selectors.actuals import PlanView, plan_comparison, plan_for

FIGURE_LABELS = (
    ("cost", "Cost", "money"),
    ("busy_gpu_hours", "Busy GPU-hours", "hours"),
    ("utilization", "Utilization", "pct"),
    ("price_per_gpu_hour", "Price per GPU-hour", "unit"),
    ("cost_per_accepted_output", "Cost per accepted response", "unit"),
)


@dataclass(frozen=True)
class Cell:
    """Plan, actual and actual - plan of one figure, as shown (formatted here once: a 24-month table has hundreds)."""

    plan: str
    actual: str
    variance: str


def _shown(value: float | None, kind: str, currency: str, *, signed: bool = False) -> str:
    if value is None:
        return DASH
    if kind == "money":
        return format_signed_money(value, currency) if signed else format_money(value, currency)
    if kind == "pct":
        return format_pct(value, plus=signed)
    if kind == "unit":
        return format_unit_money(value, currency)
    return format_signed_number(value) if signed else f"{value:,.0f}"


def _cell(plan: float | None, actual: float | None, variance: float | None, kind: str, currency: str) -> Cell:
    return Cell(
        _shown(plan, kind, currency), _shown(actual, kind, currency), _shown(variance, kind, currency, signed=True)
    )


@dataclass(frozen=True)
class MonthLine:
    month: str
    words: str
    cells: list[Cell]
    break_even: str


def option_tables(view: PlanView, currency: str) -> list[dict]:
    """One table per option (the decided one first): a line per month and one to date."""
    comparison = view.comparison
    tables = []
    for option in sorted(comparison.options, key=lambda o: o.name != comparison.chosen):
        lines = [
            MonthLine(
                month=row.month,
                words=month_words(row.month),
                cells=[
                    _cell(
                        getattr(row.plan, name), getattr(row.actual, name), getattr(row.variance, name), kind, currency
                    )
                    for name, _, kind in FIGURE_LABELS
                ],
                break_even=format_pct(comparison.break_even_by_month.get(row.month))
                if option.name == comparison.chosen
                else DASH,
            )
            for row in option.months
        ]
        to_date = [
            _cell(
                getattr(option.plan_to_date, name),
                getattr(option.actual_to_date, name),
                getattr(option.variance_to_date, name),
                kind,
                currency,
            )
            for name, _, kind in FIGURE_LABELS
        ]
        tables.append(
            {
                "name": option.name,
                "kind": option.kind,
                "chosen": option.name == comparison.chosen,
                "lines": lines,
                "to_date": to_date,
            }
        )
    return tables


def breakdown_rows(view: PlanView, currency: str, limit: int = 200) -> list[dict]:
    """Cost by month, provider, service and SKU with the option it maps to ("unmapped" when none)."""
    rows = sorted(view.breakdown, key=lambda b: (b.month, b.option is not None, b.provider, b.service, b.sku))
    return [
        {
            "month": b.month,
            "provider": b.provider,
            "service": b.service,
            "sku": b.sku,
            "option": b.option,
            "currency": b.currency,
            "billed_cost": format_money(b.billed_cost, b.currency, places=2),
            "converted": format_money(b.converted, currency, places=2) if b.converted is not None else DASH,
            "gpu_hours": f"{b.gpu_hours:,.1f}",
        }
        for b in rows[:limit]
    ]


def provider_totals(view: PlanView) -> list[dict]:
    totals: dict[tuple[str, str], float] = defaultdict(float)
    for b in view.breakdown:
        if b.converted is not None:
            totals[(b.provider, b.option or "")] += b.converted
    return [{"provider": p, "option": o, "cost": c} for (p, o), c in sorted(totals.items())]


def tag_totals(view: PlanView, limit: int = 50) -> list[tuple[str, float]]:
    return sorted(view.by_tag.items(), key=lambda item: -abs(item[1]))[:limit]


def link_actuals(scenario) -> dict | None:
    """Plan against actual of the decided option for a decision link's page (None without a plan attached)."""
    plan = plan_for(scenario)
    if plan is None:
        return None
    view = plan_comparison(plan)
    currency = plan.document.get("currency", "USD")
    return {
        "plan": plan,
        "verdict": view.comparison.verdict,
        "tables": [table for table in option_tables(view, currency) if table["chosen"]],
        "figure_labels": FIGURE_LABELS,
        "currency": currency,
    }
