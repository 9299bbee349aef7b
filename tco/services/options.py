"""Write services for a scenario's options: add (prefilled), edit, delete, pick a Market price, follow the Market's
price trend, diligence."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from lib.errors import AppError
from lib.formatting import round_half_up
from lib.kinds import OWNED_KINDS, RENTAL_KINDS
from pricing.fx import Rate
from pricing.models import PricingTerm
from pricing.selectors import exchange_rate, price_trend
from pricing.trends import MIN_WEEKS, PriceTrend
from tco.documents import scenario_document
from tco.engine.catalogue import MARKET_PRICE_FIELDS, OPTION_FIELDS, fields_for_kind, money_step, option_fields
from tco.models import (
    DILIGENCE_KEYS,
    DiligenceStatus,
    OptionKind,
    Scenario,
    ScenarioOption,
    SecondaryDiligenceItem,
)
from tco.prefill import owned_prefill
from tco.services.common import (
    Change,
    Cleared,
    claim_version,
    recompute_if_valid,
    refuse_invalid,
    scenario_options,
    set_history_user,
)
from tco.services.currency import converted
from tco.services.scenarios import create_diligence_items
from tco.services.uncertainty import ranges_drop_where_inputs_stop_applying, ranges_follow_input

DEFAULT_NAMES = {
    OptionKind.OWNED: "Own {count}\u00d7 {gpu} (new)",
    OptionKind.SECONDARY: "Own {count}\u00d7 {gpu} (secondary)",
    OptionKind.HYPERSCALER: "Hyperscaler rental",
    OptionKind.NEOCLOUD: "Neocloud rental",
    OptionKind.MARKETPLACE: "Marketplace rental",
    OptionKind.API: "Managed model API",
}


# The option inputs "apply sizing" writes (tco.services.sizing), whose provenance a typed value replaces.
SIZED_OPTION_FIELDS = ("tokens_per_second_per_gpu", "gpu_count")


class PriceChoiceError(AppError, ValueError):
    """A Market price that cannot be used for this option (wrong currency, not a GPU rental)."""


def picked_name(source: dict[str, Any]) -> str:
    """The name a Market price gives an option: its provider and offering ("CoreWeave HGX H100")."""
    return f"{source.get('provider', '')} {source.get('offering', '')}".strip()[:200]


def _named_after_a_pick(option: ScenarioOption) -> bool:
    """The option still carries a name an earlier pick gave it (not one the user typed)."""
    return bool(option.price_source) and option.name == picked_name(option.price_source)


def _named_by_default(option: ScenarioOption) -> bool:
    return not option.name or option.name in DEFAULT_NAMES.values() or _named_after_a_pick(option)


def option_add(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    kind: str,
    gpu_model: Any = None,
    name: str = "",
) -> tuple[ScenarioOption, Change]:
    """Append an option. Owned and secondary ones start from typical figures for `gpu_model`
    (marked as assumptions); rentals and APIs start empty, to be picked from the Market or typed in."""
    if kind not in OptionKind.values:
        raise ValueError(f"{kind!r} is not an option kind")
    with transaction.atomic():
        fresh = claim_version(scenario_id=scenario.pk, expected_version=expected_version, user=user)
        position = (fresh.options.aggregate(last=Max("position"))["last"] or 0) + 1
        option = ScenarioOption(scenario=fresh, kind=kind, position=position)
        if kind in OWNED_KINDS and gpu_model is not None:
            prefill = owned_prefill(
                gpu_name=gpu_model.name,
                gpu_count=fresh.fleet_gpus,
                tdp_watts=gpu_model.tdp_watts,
                server_capex_per_gpu=gpu_model.typical_server_capex_per_gpu,
                secondary=kind == OptionKind.SECONDARY,
            )
            for field, value in prefill.values.items():
                setattr(option, field, value)
            option.gpu_model = gpu_model
            option.assumed_fields = prefill.assumed_fields
            option.prefill_note = prefill.note
        gpu = gpu_model.name if gpu_model is not None else "GPU"
        option.name = (name.strip() or DEFAULT_NAMES[kind].format(count=fresh.fleet_gpus, gpu=gpu))[:200]
        set_history_user(option, user)
        option.save()
        if kind == OptionKind.SECONDARY:
            create_diligence_items(option=option, user=user)
        return option, recompute_if_valid(scenario=fresh, user=user)


# The inputs whose value decides whether others apply (financing, billing, a commitment term, a resale curve).
DECIDING = frozenset(name for entry in OPTION_FIELDS for name, _ in entry.when)


def option_update(
    *,
    option: ScenarioOption,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    field: str,
    value: Any,
) -> Change:
    """Set one option input (already parsed). Typing a different price drops the Market provenance:
    the price is then the user's, not the observation's; typing over a throughput or GPU count sizing wrote drops
    the sizing's. A value valid on its own is saved even while the document
    still lacks other inputs; one wrong on its own or against what is stored raises EditRefused (nothing is
    written)."""
    if field != "name" and field not in fields_for_kind(option.kind):
        raise ValueError(f"{field} is not an input of a {option.kind} option")
    with transaction.atomic():
        fresh_scenario = claim_version(scenario_id=option.scenario_id, expected_version=expected_version, user=user)
        options = scenario_options(fresh_scenario)
        found = next(((i, o) for i, o in enumerate(options) if o.pk == option.pk), None)
        if found is None:
            raise ScenarioOption.DoesNotExist(f"option {option.pk} is no longer in this scenario")
        index, fresh = found
        before = scenario_document(fresh_scenario, options)
        if field in MARKET_PRICE_FIELDS.get(fresh.kind, ()) and value != getattr(fresh, field):
            if _named_after_a_pick(fresh):  # the name said whose price this was; it no longer is
                fresh.name = DEFAULT_NAMES[fresh.kind]
            fresh.price_source = None
            fresh.price_observation = None
        if field == "price_change_per_year" and value != fresh.price_change_per_year:
            fresh.price_path_source = None
        if field in SIZED_OPTION_FIELDS and value != getattr(fresh, field):  # the figure is now the user's
            fresh.throughput_source = None
        setattr(fresh, field, value)
        cleared = clear_inputs_that_stop_applying(fresh, field)
        edited = tuple(f"options[{index}].{name}" for name in (field, *cleared))
        refuse_invalid(before, scenario_document(fresh_scenario, options), edited=edited)
        if field in fresh.assumed_fields:
            fresh.assumed_fields = [name for name in fresh.assumed_fields if name != field]
        set_history_user(fresh, user)
        fresh.save()
        if cleared or field in DECIDING:  # only then can an input have stopped applying
            ranges_drop_where_inputs_stop_applying(option=fresh, user=user)
        ranges = ranges_follow_input(scenario=fresh_scenario, before=before, options=options, user=user)
        change = recompute_if_valid(scenario=fresh_scenario, user=user, ranges=ranges)
        if cleared:
            change.cleared = Cleared(fresh.pk, index, field, tuple(cleared), before)
        return change


def option_restore(
    *, option: ScenarioOption, user: AbstractBaseUser | None, expected_version: int | None, fields: list[str]
) -> Change:
    """Put back ``fields`` as they were before the option's last save: the input whose edit cleared others and the
    inputs it cleared (``Change.cleared``). Only until the next save: ``expected_version`` is the version that edit
    made, and any save since is a VersionConflict, so nothing newer is overwritten. Raises EditRefused when the
    values no longer make a whole scenario (nothing is written)."""
    known = set(fields_for_kind(option.kind))
    if not fields or any(name not in known for name in fields):
        raise ValueError(f"{', '.join(fields)}: not inputs of a {option.kind} option")
    with transaction.atomic():
        fresh_scenario = claim_version(scenario_id=option.scenario_id, expected_version=expected_version, user=user)
        options = scenario_options(fresh_scenario)
        index, fresh = next((i, o) for i, o in enumerate(options) if o.pk == option.pk)
        records = list(ScenarioOption.history.filter(id=option.pk).order_by("-history_id")[:2])
        if len(records) < 2:
            raise ValueError(f"{option.name} has no earlier save to restore from")
        before = scenario_document(fresh_scenario, options)
        for name in fields:
            setattr(fresh, name, getattr(records[1], name))
        refuse_invalid(
            before, scenario_document(fresh_scenario, options), edited=tuple(f"options[{index}].{n}" for n in fields)
        )
        set_history_user(fresh, user)
        fresh.save()
        ranges = ranges_follow_input(scenario=fresh_scenario, before=before, options=options, user=user)
        return recompute_if_valid(scenario=fresh_scenario, user=user, ranges=ranges)


def clear_inputs_that_stop_applying(option: ScenarioOption, field: str) -> list[str]:
    """Blank the inputs that an edit of ``field`` makes meaningless (a loan's APR once the option is paid in cash,
    the upfront share once the commitment term is blank), in catalogue order so that what they decide is cleared
    too. An input typed where it does not apply is left for the engine to refuse; only a choice moving away clears.
    Returns the names cleared."""
    entries = option_fields(option.kind)
    values = {entry.name: getattr(option, entry.name) for entry in entries}
    changed, cleared = {field}, []
    for entry in entries:
        decided_by_change = any(name in changed for name, _ in entry.when)
        if decided_by_change and values[entry.name] not in (None, "") and not entry.applies(values):
            values[entry.name] = "" if entry.value_type == "choice" else None
            setattr(option, entry.name, values[entry.name])
            changed.add(entry.name)
            cleared.append(entry.name)
    return cleared


def option_delete(*, option: ScenarioOption, user: AbstractBaseUser | None, expected_version: int | None) -> Change:
    with transaction.atomic():
        fresh_scenario = claim_version(scenario_id=option.scenario_id, expected_version=expected_version, user=user)
        fresh = ScenarioOption.objects.get(pk=option.pk, scenario=fresh_scenario)
        set_history_user(fresh, user)
        fresh.delete()
        return recompute_if_valid(scenario=fresh_scenario, user=user)


def price_source_for(observation: Any, rate: Rate | None = None) -> dict[str, Any]:
    """The provenance copied onto an option (the document's `price_source`). A price converted from another
    currency also keeps the original prices and currency, and the rate with its date and source
    (docs/money-math.md)."""
    source = {
        "provider": observation.provider.name,
        "offering": observation.offering,
        "region": observation.region or None,
        "pricing_term": observation.pricing_term,
        "observed_on": observation.observed_on.isoformat(),
        "source_url": observation.source_url or None,
        "price_observation_id": observation.pk,
        "snapshot_id": observation.snapshot_id,
    }
    if rate is not None and rate.base != rate.quote:
        for field in _price_fields(observation):
            source[f"original_{field}"] = format(getattr(observation, field).normalize(), "f")
        source.update(
            {
                "original_currency": rate.base,
                "fx_rate": rate.rate_text,
                "fx_rate_date": rate.rate_date.isoformat() if rate.rate_date else None,
                "fx_source": rate.source + (f" (cross rate via {rate.via})" if rate.via else ""),
            }
        )
    return source


def _price_fields(observation: Any) -> tuple[str, ...]:
    """The prices an observation gives an option: per million input and output tokens, or per GPU-hour."""
    return MARKET_PRICE_FIELDS["api" if observation.is_per_token else RENTAL_KINDS[0]]


def market_prices_in(observation: Any, currency: str) -> tuple[dict[str, Any], Rate]:
    """The observation's prices (``_price_fields``) in `currency` and the rate used (nearest its as-of date), each
    rounded as a currency conversion rounds a unit price (half up to four decimal places), or PriceChoiceError
    naming the rate to import when none is known."""
    rate = exchange_rate(observation.currency, currency, on=observation.observed_on)
    if rate is None:
        raise PriceChoiceError(
            f"That price is in {observation.currency}; this scenario is in {currency} and no "
            f"{observation.currency}→{currency} exchange rate is known. Import exchange rates "
            f"(manage.py import_fx_rates with the ECB reference-rate CSV) or enter a {observation.currency}→{currency} "
            "rate in the admin, then pick the price again."
        )
    fields = _price_fields(observation)
    return {field: converted(getattr(observation, field), rate, money_step(field)) for field in fields}, rate


def _refuse_unfit(option: ScenarioOption, observation: Any) -> None:
    """A rental takes a price per GPU-hour, a managed model API one per million input and output tokens."""
    if option.kind not in MARKET_PRICE_FIELDS:
        raise PriceChoiceError("Only rentals and managed model APIs take a Market price.")
    wanted_per_token = option.kind not in RENTAL_KINDS
    if observation.is_per_token and not wanted_per_token:
        raise PriceChoiceError(
            f"{observation.provider.name} {observation.offering} is a model API's price, priced per million tokens; "
            f"{option.name} is a GPU rental, priced per GPU-hour: pick a GPU-hour price."
        )
    if wanted_per_token and not observation.is_per_token:
        raise PriceChoiceError(
            f"{observation.provider.name} {observation.offering} is priced per GPU-hour; {option.name} is a managed "
            "model API, priced per million input and output tokens: pick a model API's price."
        )
    missing = [field for field in MARKET_PRICE_FIELDS[option.kind] if getattr(observation, field) is None]
    if missing:
        words = " and ".join(field.removeprefix("price_per_million_").replace("_", " ") for field in missing)
        raise PriceChoiceError(f"That Market price gives no price per million {words}: type the price in instead.")


def option_pick_price(
    *, option: ScenarioOption, user: AbstractBaseUser | None, expected_version: int | None, observation: Any
) -> Change:
    """Use a Market price for a rental option (its $/GPU-hour) or a managed model API option (its prices per million
    input and output tokens): the prices and their provenance are copied onto the option, so later imports never
    change them. A rental's kind follows the provider's kind. A price in another currency is converted at the rate
    nearest its as-of date (refused when no rate is known). The option is named after the price's provider and
    offering unless the user named it."""
    _refuse_unfit(option, observation)
    with transaction.atomic():
        fresh_scenario = claim_version(scenario_id=option.scenario_id, expected_version=expected_version, user=user)
        prices, rate = market_prices_in(observation, fresh_scenario.currency_code)
        before = scenario_document(fresh_scenario)
        fresh = ScenarioOption.objects.get(pk=option.pk, scenario=fresh_scenario)
        source = price_source_for(observation, rate)
        if _named_by_default(fresh):
            fresh.name = picked_name(source)
        if observation.provider.kind in RENTAL_KINDS and fresh.kind in RENTAL_KINDS:
            fresh.kind = observation.provider.kind
        for field, price in prices.items():
            setattr(fresh, field, price)
        fresh.price_source = source
        fresh.price_observation = observation
        fresh.gpu_model_id = observation.gpu_model_id
        set_history_user(fresh, user)
        fresh.save()
        ranges_follow_input(scenario=fresh_scenario, before=before, user=user)
        return recompute_if_valid(scenario=fresh_scenario, user=user)


def price_path_source_for(found: PriceTrend, *, adopted_on: date) -> dict[str, Any]:
    """The provenance of a price path taken from the Market's trend (the document's `price_path_source`): the index,
    its weeks and offerings, the fitted change and its 95 % interval (as decimal text), and the day it was adopted."""
    trend = found.trend
    return {
        "gpu_model": found.gpu_model,
        "pricing_term": found.pricing_term,
        "currency": found.currency,
        "months": found.months,
        "first_week": trend.first_week.isoformat(),
        "last_day": found.last_day.isoformat(),
        "weeks": trend.weeks,
        "offerings": found.offerings,
        "change_per_year": format(trend.change_per_year, ".6g"),
        "low": format(trend.low, ".6g"),
        "high": format(trend.high, ".6g"),
        "adopted_on": adopted_on.isoformat(),
    }


def option_adopt_price_trend(
    *, option: ScenarioOption, user: AbstractBaseUser | None, expected_version: int | None, months: int = 12
) -> Change:
    """Take the Market's trend of the option's GPU model and term over the last ``months`` months as its price path:
    ``price_change_per_year`` becomes the fitted change (to 0.01 %), recorded with its window, date and source.
    Refused (PriceChoiceError) for an option with no Market price picked, or when the Market has too few weeks."""
    if option.kind not in RENTAL_KINDS:
        raise PriceChoiceError("Only hyperscaler, neocloud and marketplace options follow a Market price trend.")
    with transaction.atomic():
        fresh_scenario = claim_version(scenario_id=option.scenario_id, expected_version=expected_version, user=user)
        options = scenario_options(fresh_scenario)
        index, fresh = next((i, o) for i, o in enumerate(options) if o.pk == option.pk)
        if fresh.gpu_model is None:
            raise PriceChoiceError("Pick a Market price first: the trend followed is that price's GPU model and term.")
        term = (fresh.price_source or {}).get("pricing_term") or PricingTerm.ON_DEMAND
        found = price_trend(gpu_model=fresh.gpu_model, pricing_term=term, months=months)
        if found.trend is None:
            raise PriceChoiceError(
                f"The Market has {len(found.index)} weeks of {fresh.gpu_model.name} "
                f"{PricingTerm(term).label.lower()} prices in {found.currency} in the last {months} months; a trend "
                f"needs at least {MIN_WEEKS}. Import more snapshots or choose a longer window."
            )
        before = scenario_document(fresh_scenario, options)
        fresh.price_change_per_year = round_half_up(found.trend.change_per_year, 4)
        fresh.price_path_source = price_path_source_for(found, adopted_on=timezone.localdate())
        refuse_invalid(
            before, scenario_document(fresh_scenario, options), edited=(f"options[{index}].price_change_per_year",)
        )
        set_history_user(fresh, user)
        fresh.save()
        ranges = ranges_follow_input(scenario=fresh_scenario, before=before, options=options, user=user)
        return recompute_if_valid(scenario=fresh_scenario, user=user, ranges=ranges)


def diligence_update(
    *,
    item: SecondaryDiligenceItem,
    user: AbstractBaseUser | None,
    expected_version: int | None,
    status: str,
    note: str,
    warranty_months: int | None = None,
) -> SecondaryDiligenceItem:
    """Record the state of one checklist item. Bumps the version (two people must not overwrite each
    other's notes) but queues no evaluation: the checklist does not enter the numbers."""
    if status not in DiligenceStatus.values:
        raise ValueError(f"{status!r} is not a checklist status")
    if item.key not in DILIGENCE_KEYS:
        raise ValueError(f"{item.key!r} is not a checklist item")
    with transaction.atomic():
        fresh_scenario = claim_version(
            scenario_id=item.option.scenario_id, expected_version=expected_version, user=user
        )
        fresh = SecondaryDiligenceItem.objects.get(pk=item.pk, option__scenario=fresh_scenario)
        fresh.status = status
        fresh.note = note.strip()
        if fresh.key == "warranty_months":
            fresh.warranty_months = warranty_months
        set_history_user(fresh, user)
        fresh.save()
        return fresh
