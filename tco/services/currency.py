"""Changing a scenario's currency: every money input converted at one named rate, or relabelled (docs/money-math.md).

Money moves between currencies only through a dated rate with its source. When the currency changes, the user
says whether the inputs are to be converted at a named rate or were already in the new currency; either way it
is one versioned change, each rewritten input recorded in the history, and the change itself (with the rate, its
date and source) recorded on the scenario (``currency_conversions``) for the history, decision links and workbooks.

A converted money input is ``amount * rate`` rounded half up to the cent, unit prices (per GPU-hour, per kWh, per
million tokens) to four decimal places (``tco.engine.catalogue.money_step``; exact Decimal arithmetic, so the stored
number is the one a person computes by hand); the ranges on money inputs (low, likely, high) are converted the same
way, so a range centred on its input stays centred on it. Rates and shares are not money and are not converted.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from lib.currencies import currency_problem
from lib.errors import AppError
from pricing.fx import Rate
from tco.engine.catalogue import MARKET_PRICE_FIELDS, PRICE_SOURCE_FX, fields_of_type, money_step, scenario_fields
from tco.models import InputRange, Scenario, ScenarioOption
from tco.models.fields import LARGEST_STORED
from tco.selectors.uncertainty import MONEY_RANGE_FIELDS
from tco.services.common import Change, claim_version, recompute_if_valid, set_history_user

OPTION_MONEY_FIELDS = tuple(sorted(fields_of_type("money")))
# Every money input of the scenario itself, its workload and its training plan (the other costs per run).
SCENARIO_MONEY_FIELDS = tuple(
    entry.field for entry in scenario_fields("scenario", "workload", "training") if entry.is_money
)


class CurrencyChangeError(AppError, ValueError):
    """The change cannot be made as asked (unknown code, a rate for other currencies); nothing is written."""


@dataclass(frozen=True)
class TooLarge:
    """A money input (or one end of a money range) that a rate would take past what an input stores."""

    owner: str  # the option's name; "" for an input of the scenario itself
    field: str
    end: str  # "low", "likely" or "high" for a range's end; "" for the input itself
    value: Decimal  # in the rate's base
    converted: Decimal  # in the rate's quote
    largest: Decimal  # the largest value (in the rate's base) that still converts


class TooLargeToConvert(CurrencyChangeError):
    """The rate would take ``too_large`` past ``limit``, what an input stores; the caller words each one
    (``tco.presentation.currency.too_large_words``), this message only counts them."""

    def __init__(self, rate: Rate, too_large: list[TooLarge], limit: Decimal) -> None:
        self.rate, self.too_large, self.limit = rate, too_large, limit
        super().__init__(
            f"Not converted: at 1 {rate.base} = {rate.rate_text} {rate.quote} {len(too_large)} input(s) would be too "
            f"large to store (an input holds at most {limit:,}). Nothing was changed: lower them, or keep the "
            "numbers as they are."
        )


def money_inputs(scenario: Scenario, options: list[ScenarioOption]) -> int:
    """How many money inputs hold a value (what a currency change would convert)."""
    count = sum(getattr(scenario, name) is not None for name in SCENARIO_MONEY_FIELDS)
    for option in options:
        count += sum(getattr(option, name) is not None for name in OPTION_MONEY_FIELDS)
    return count


def scenario_change_currency(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    currency: str,
    rate: Rate | None,
) -> Change:
    """Set the scenario's currency. With `rate` (old → new currency) every money input of the scenario and its
    options is converted; without, the inputs are relabelled (the user says they were already in `currency`).

    A converted Market price keeps its provenance: the original price and currency and the rate(s) it went
    through; converted back into its original currency it is the original price again.
    """
    currency = currency.strip().upper()
    problem = currency_problem(currency)
    if problem:
        raise CurrencyChangeError(problem)
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
        old = fresh.currency_code
        if rate is not None and (rate.base, rate.quote) != (old, currency):
            raise CurrencyChangeError(
                f"That rate converts {rate.base}→{rate.quote}; this change is {old}→{currency}: "
                "reload the page and choose again."
            )
        options = list(fresh.options.all())
        if rate is not None and (too_large := _too_large(fresh, options, rate)):
            raise TooLargeToConvert(rate, too_large, LARGEST_STORED)
        fresh.currency = currency
        if rate is not None:
            for name in SCENARIO_MONEY_FIELDS:
                _convert_field(fresh, name, rate)
        if old != currency:
            fresh.currency_conversions = [*fresh.currency_conversions, _record(old, currency, rate)]
        set_history_user(fresh, user)
        fresh.save()
        if rate is not None:
            for option in options:
                fields = MARKET_PRICE_FIELDS.get(option.kind, ()) if option.price_source else ()
                picked = {name: getattr(option, name) for name in fields if getattr(option, name) is not None}
                for name in OPTION_MONEY_FIELDS:
                    _convert_field(option, name, rate)
                if picked:
                    _convert_source(option, picked, rate)
                if option.prefill_note:  # its typical figures are in the old currency: say so beside them
                    option.prefill_note += f" (Figures in {old}; the inputs were converted at {rate.describe()}.)"
                set_history_user(option, user)
                option.save()
            for item in InputRange.objects.filter(scenario=fresh, field__in=MONEY_RANGE_FIELDS):
                for name in ("low", "likely", "high"):
                    _convert_field(item, name, rate, field=item.field)
                set_history_user(item, user)
                item.save()
        return recompute_if_valid(scenario=fresh, user=user)


def converted(amount: Decimal, rate: Rate, step: Decimal) -> Decimal:
    """``amount`` (in the rate's base) in its quote, rounded half up to ``step``, computed exactly."""
    with localcontext() as context:
        context.prec = 60
        return (amount * rate.rate).quantize(step, rounding=ROUND_HALF_UP)


def _too_large(scenario: Scenario, options: list[ScenarioOption], rate: Rate) -> list[TooLarge]:
    """Each money input (or end of a money range) that `rate` would take past what an input stores."""
    found = []

    def check(owner: str, field: str, value: Decimal | None, end: str = "") -> None:
        step = money_step(field)
        if value is None or abs(converted(value, rate, step)) <= LARGEST_STORED:
            return
        largest = (LARGEST_STORED / rate.rate).quantize(step, rounding=ROUND_DOWN)
        found.append(TooLarge(owner, field, end, value, converted(value, rate, step), largest))

    for name in SCENARIO_MONEY_FIELDS:
        check("", name, getattr(scenario, name))
    names = {option.pk: option.name for option in options}
    for option in options:
        for name in OPTION_MONEY_FIELDS:
            check(option.name, name, getattr(option, name))
    for item in InputRange.objects.filter(scenario=scenario, field__in=MONEY_RANGE_FIELDS).order_by("pk"):
        for end in ("low", "likely", "high"):
            check(names.get(item.option_id, ""), item.field, getattr(item, end), end)
    return found


def _convert_field(instance: Any, name: str, rate: Rate, *, field: str = "") -> None:
    """Convert ``instance.name``, rounded as the input ``field`` (default ``name``; a range's ends as its input)."""
    value = getattr(instance, name)
    if value is not None:
        setattr(instance, name, converted(value, rate, money_step(field or name)))


def _record(old: str, new: str, rate: Rate | None) -> dict[str, str]:
    """What the scenario keeps of one currency change (``tco.presentation.currency`` says it in words)."""
    entry = {"from": old, "to": new, "mode": "relabel", "at": timezone.now().isoformat(timespec="seconds")}
    if rate is not None:
        entry.update(
            mode="convert",
            rate=rate.rate_text,
            rate_date=rate.rate_date.isoformat() if rate.rate_date else "",
            source=rate.source,
            via=rate.via,
        )
    return entry


def _convert_source(option: ScenarioOption, picked: dict[str, Decimal], rate: Rate) -> None:
    """The provenance of a Market price after `rate` (`picked`: its prices before, by input): its originals and every
    rate it went through; back in the currency it was published in, the original prices exactly."""
    source = dict(option.price_source)
    original_currency = source.get("original_currency")
    if original_currency is None:  # picked in the old currency: those prices are the originals
        source.update({f"original_{name}": format(price.normalize(), "f") for name, price in picked.items()})
        source.update(
            original_currency=rate.base,
            fx_rate=rate.rate_text,
            fx_rate_date=rate.rate_date.isoformat() if rate.rate_date else None,
            fx_source=rate.source + (f" (cross rate via {rate.via})" if rate.via else ""),
        )
    elif original_currency == rate.quote:
        for name in picked:
            if f"original_{name}" in source:
                setattr(option, name, Decimal(source[f"original_{name}"]))
        for key in PRICE_SOURCE_FX:
            source.pop(key, None)
    else:  # a second conversion: the rates multiply, both sources named
        source.update(
            fx_rate=format((Decimal(source["fx_rate"]) * rate.rate).normalize(), "f"),
            fx_rate_date=rate.rate_date.isoformat() if rate.rate_date else None,
            fx_source=f"{source.get('fx_source')} ({source.get('fx_rate_date')}), then {rate.source}",
        )
    option.price_source = source
