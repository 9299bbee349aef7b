"""Read side of actuals: a decided scenario's imported bills and GPU use picked by its mapping rules, converted into
its currency through the dated exchange rates, and held against its frozen plan (tco.engine.actuals)."""

from __future__ import annotations

import calendar
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import Count, Max, Sum

from pricing.fx import Rate
from pricing.models import ExchangeRate
from pricing.selectors import exchange_rate
from tco.engine.actuals import Actual, Comparison, compare, month_label
from tco.engine.validation import validate
from tco.models import ActualsImport, ActualsPlan, BillingLine, MappingRule, UtilizationSample

RENTAL_KINDS_BILLED_AS_USED = ("hyperscaler", "neocloud", "marketplace")


@dataclass
class Breakdown:
    """Cost of one month x provider x service x SKU x option (None = unmapped), in the billing currency and the
    scenario's."""

    month: str
    provider: str
    service: str
    sku: str
    option: str | None
    currency: str
    billed_cost: Decimal
    converted: float | None
    gpu_hours: float


@dataclass
class PlanView:
    plan: ActualsPlan
    comparison: Comparison
    breakdown: list[Breakdown] = field(default_factory=list)
    unmapped_cost: float = 0.0
    unmapped_unconverted: dict[str, Decimal] = field(default_factory=dict)  # currency -> amount without a rate
    missing_rates: list[str] = field(default_factory=list)
    rates_used: list[str] = field(default_factory=list)
    by_tag: dict[str, float] = field(default_factory=dict)


def _tag_matches(rule_tag: str, tags: str) -> bool:
    if not tags:
        return False
    key, _, value = rule_tag.partition("=")
    try:
        parsed = json.loads(tags)
    except ValueError:
        return rule_tag in tags
    if not isinstance(parsed, dict) or key.strip() not in parsed:
        return False
    return not value or str(parsed[key.strip()]) == value.strip()


def rule_option(rules: Iterable[MappingRule], *, provider: str, service: str, sku: str, resource: str, tags: str):
    """The option of the first rule every given field of which matches (case-insensitive), or None."""
    for rule in rules:
        if rule.provider and rule.provider.lower() != provider.lower():
            continue
        if rule.service and rule.service.lower() != service.lower():
            continue
        if rule.sku and rule.sku.lower() != sku.lower():
            continue
        if rule.resource and rule.resource.lower() != resource.lower():
            continue
        if rule.tag and not _tag_matches(rule.tag, tags):
            continue
        return rule.option_name
    return None


def plan_months(plan: ActualsPlan) -> list[str]:
    return [month_label(plan.start_month, i) for i in range(1, int(plan.document["horizon_months"]) + 1)]


def _month_end(label: str) -> date:
    year, month = (int(part) for part in label.split("-"))
    return date(year, month, calendar.monthrange(year, month)[1])


def actuals_stamp(plan: ActualsPlan) -> str:
    """What plan against actual depends on, as one key: the plan, its rules, the imports and the exchange rates. Any
    import, rule or rate added or removed changes it, so a view kept under it is never stale."""
    imports = ActualsImport.objects.aggregate(last=Max("id"), count=Count("id"))
    rates = ExchangeRate.objects.aggregate(last=Max("id"), count=Count("id"))
    rules = list(
        plan.rules.values_list("id", "position", "option_name", "provider", "service", "sku", "resource", "tag")
    )
    digest = hashlib.sha256(repr((rules, plan.start_month, plan.months_in_a_row)).encode()).hexdigest()[:16]
    return (
        f"{plan.pk}:{plan.decision_id}:{plan.created_at.timestamp()}:{imports['last']}:{imports['count']}:"
        f"{rates['last']}:{rates['count']}:{digest}"
    )


def plan_comparison(plan: ActualsPlan) -> PlanView:
    """Plan against actual for a plan: billing lines and GPU use of the plan's months, each mapped to an option by
    the first matching rule (unmapped cost kept apart, never dropped), converted at the rate dated the month's end
    (the nearest stored, docs/money-math.md), and compared month by month."""
    doc = validate(plan.document)
    currency = doc["currency"]
    kinds = {option["name"]: option["kind"] for option in doc["options"]}
    rules = list(plan.rules.all())
    months = plan_months(plan)
    rates: dict[tuple[str, str], Rate | None] = {}
    cost: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    billed_hours: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    busy: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    allocated: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    view = PlanView(plan=plan, comparison=None)  # type: ignore[arg-type]
    # Grouped in the database by what the page shows and what the rules match: resource and tags only when a rule
    # names one, so a plan over millions of rows reads a few hundred groups.
    fields = ["month", "provider", "service", "sku", "currency"]
    fields += [
        name
        for name, used in (("resource", any(r.resource for r in rules)), ("tags", any(r.tag for r in rules)))
        if used
    ]
    lines = (
        BillingLine.objects.filter(month__in=months)
        .values(*fields)
        .annotate(billed=Sum("billed_cost"), hours=Sum("gpu_hours"))
        .order_by(*fields)
    )
    grouped: dict[tuple, Breakdown] = {}
    for line in lines.iterator(chunk_size=5000):
        option = rule_option(
            rules,
            provider=line["provider"],
            service=line["service"],
            sku=line["sku"],
            resource=line.get("resource", ""),
            tags=line.get("tags", ""),
        )
        key = (line["month"], line["currency"])
        if key not in rates:
            rates[key] = exchange_rate(line["currency"], currency, on=_month_end(line["month"]))
            if rates[key] is None:
                view.missing_rates.append(f"{line['currency']} → {currency} for {line['month']}")
            elif rates[key].base != rates[key].quote:
                view.rates_used.append(f"{line['month']}: {rates[key].describe()}")
        rate = rates[key]
        amount = line["billed"] or Decimal(0)
        converted = None if rate is None else float(rate.convert(amount))
        if option is not None and converted is not None:
            cost[line["month"]][option] += converted
            billed_hours[line["month"]][option] += line["hours"] or 0.0
        elif option is None:
            if converted is None:
                view.unmapped_unconverted[line["currency"]] = (
                    view.unmapped_unconverted.get(line["currency"], Decimal(0)) + amount
                )
            else:
                view.unmapped_cost += converted
        group_key = (line["month"], line["provider"], line["service"], line["sku"], option, line["currency"])
        entry = grouped.get(group_key)
        if entry is None:
            entry = grouped[group_key] = Breakdown(*group_key, Decimal(0), 0.0, 0.0)
        entry.billed_cost += amount
        entry.converted = None if converted is None or entry.converted is None else entry.converted + converted
        entry.gpu_hours += line["hours"] or 0.0
    view.breakdown = list(grouped.values())
    view.by_tag = _tag_totals(months, currency, rates)
    samples = UtilizationSample.objects.filter(month__in=months).values(
        "month", "provider", "service", "resource", "gpu_model", "busy_gpu_hours", "gpu_hours"
    )
    for sample in samples.iterator(chunk_size=5000):
        option = rule_option(
            rules,
            provider=sample["provider"],
            service=sample["service"],
            sku=sample["gpu_model"],
            resource=sample["resource"],
            tags="",
        )
        if option is None:
            continue
        if sample["busy_gpu_hours"] is not None:
            busy[sample["month"]][option] += sample["busy_gpu_hours"]
        else:
            allocated[sample["month"]][option] += sample["gpu_hours"]
    actuals: dict[str, dict[str, Actual]] = {}
    for month in months:
        names = set(cost[month]) | set(busy[month]) | set(allocated[month]) | set(billed_hours[month])
        if not names:
            continue
        actuals[month] = {}
        for name in names:
            measured = busy[month].get(name)
            if measured is None:
                measured = allocated[month].get(name)
            if measured is None and kinds.get(name) in RENTAL_KINDS_BILLED_AS_USED and billed_hours[month].get(name):
                measured = billed_hours[month][name]  # a rental on demand is billed for the hours it runs
            actuals[month][name] = Actual(
                cost=cost[month].get(name, 0.0),
                busy_gpu_hours=measured,
                billed_gpu_hours=billed_hours[month].get(name, 0.0),
            )
    chosen = plan.decision.option_name
    view.comparison = compare(
        doc,
        plan.result,
        chosen=chosen,
        start_month=plan.start_month,
        actuals=actuals,
        months_in_a_row=plan.months_in_a_row,
    )
    return view


def _tag_totals(months: list[str], currency: str, rates: dict) -> dict[str, float]:
    """Cost by tag (``key=value``) in the scenario's currency; a line with several tags counts under each."""
    totals: dict[str, float] = {}
    rows = (
        BillingLine.objects.filter(month__in=months)
        .exclude(tags="")
        .values("month", "currency", "tags")
        .annotate(billed=Sum("billed_cost"))
    )
    for row in rows.iterator(chunk_size=5000):
        rate = rates.get((row["month"], row["currency"]))
        if rate is None:
            continue
        try:
            tags = json.loads(row["tags"]) or {}
            items = tags.items()
        except (ValueError, AttributeError):
            continue
        converted = float(rate.convert(row["billed"] or Decimal(0)))
        for key, value in items:
            totals[f"{key}={value}"] = totals.get(f"{key}={value}", 0.0) + converted
    return totals


def billing_export_rows(month: str) -> list[dict]:
    """One row per provider, service and SKU of a month (and currency: money never adds across currencies)."""
    rows = (
        BillingLine.objects.filter(month=month)
        .values("provider", "service", "sku", "currency")
        .annotate(billed=Sum("billed_cost"), effective=Sum("effective_cost"), hours=Sum("gpu_hours"))
        .order_by("provider", "service", "sku", "currency")
    )
    return list(rows)


def recent_imports(limit: int = 20) -> list[ActualsImport]:
    return list(ActualsImport.objects.select_related("imported_by")[:limit])


def plan_for(scenario) -> ActualsPlan | None:
    return ActualsPlan.objects.select_related("decision").filter(scenario=scenario).first()


def turned_plans() -> list[ActualsPlan]:
    """Decisions whose verdict has turned: the Overview's notice."""
    return list(ActualsPlan.objects.filter(verdict_holds=False).select_related("scenario").order_by("scenario__name"))


def actuals_notice(scenario) -> str:
    """The stored verdict in words when it has turned ("" while the decision holds or has no actuals)."""
    row = ActualsPlan.objects.filter(scenario=scenario, verdict_holds=False).values_list("verdict_text", flat=True)
    return row.first() or ""
