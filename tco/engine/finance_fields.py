"""How the engine reads the option inputs of the finance depth (docs/money-math.md "Finance depth"), and the rules
that tie them together.

Tax depreciation, financing (cash, loan, lease), the price path of replacement units, the resale curve and the age
of a used unit for owned and secondary hardware; the price path by year and commitment terms for rentals. Every one
is optional, and an option that carries none of them is evaluated exactly as before.

Each input is a catalogue entry (``tco.engine.catalogue``, ``finance=True``: label, bounds, choices, when it
applies); the tables below are derived from it. The two list-valued inputs (``resale_curve``,
``price_change_by_year``) are read here. Every problem carries a code: ``required``, ``out_of_range``, ``conflict``
or ``invalid``.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from lib.kinds import OWNED_KINDS, RENTAL_KINDS

from .catalogue import FINANCE_TOP_FIELDS, OPTION_FIELD, OptionField, finance_option_fields, option_value
from .fields import NumberField, check_number, describe, fmt

MAX_CURVE_POINTS = 50
MAX_PRICE_YEARS = 20
PRICE_CHANGE = NumberField("Price change per year", lo=-0.9, hi=2.0, hint=" (-0.1 means prices fall 10% a year)")
LEASE_INTERVALS = tuple(int(value) for value, _ in OPTION_FIELD["lease_payment_interval_months"].choices)
CURVE_AGE = NumberField("Resale curve age", lo=0.0, hi=1200.0, unit="months")
CURVE_SHARE = NumberField("Resale curve share", lo=0.0, hi=1.0, hint=" (0.6 means 60% of the price)")


def _numbers(entries: tuple[OptionField, ...]) -> dict[str, NumberField]:
    return {entry.name: entry.check for entry in entries if entry.check is not None}


def _choices(entries: tuple[OptionField, ...]) -> dict[str, tuple[str, ...]]:
    return {entry.name: tuple(value for value, _ in entry.choices) for entry in entries if entry.value_type == "choice"}


def _applying_when(entries: tuple[OptionField, ...], name: str, value: str) -> tuple[str, ...]:
    """The inputs that apply only when input ``name`` is ``value`` (a loan's, a lease's, a commitment's)."""
    return tuple(entry.name for entry in entries if (name, (value,)) in entry.when)


_OWNED_ENTRIES = finance_option_fields(OWNED_KINDS[0])
_RENTAL_ENTRIES = finance_option_fields(RENTAL_KINDS[0])
OWNED_NUMBERS = _numbers(_OWNED_ENTRIES)
OWNED_CHOICES = _choices(_OWNED_ENTRIES)
RENTAL_NUMBERS = _numbers(_RENTAL_ENTRIES)
RENTAL_CHOICES = _choices(_RENTAL_ENTRIES)

# The inputs each way of financing brings (a loan's APR, a lease's payment); those whose entry is ``required`` it
# cannot do without.
FINANCING_FIELDS = {
    means: _applying_when(_OWNED_ENTRIES, "financing", means) for means, _ in OPTION_FIELD["financing"].choices
}
LOAN_FIELDS = FINANCING_FIELDS["loan"]
LEASE_FIELDS = FINANCING_FIELDS["lease"]
COMMITMENT_FIELDS = _applying_when(_RENTAL_ENTRIES, "billing", "committed")
OWNED_FINANCE_FIELDS = (*OWNED_NUMBERS, *OWNED_CHOICES, "resale_curve")
RENTAL_FINANCE_FIELDS = (*RENTAL_NUMBERS, *RENTAL_CHOICES, "price_change_by_year")


def finance_fields(kind: str) -> tuple[str, ...]:
    """The finance inputs an option of ``kind`` may carry."""
    if kind in OWNED_KINDS:
        return OWNED_FINANCE_FIELDS
    if kind in RENTAL_KINDS:
        return RENTAL_FINANCE_FIELDS
    return ()


def finance_numbers(kind: str) -> dict[str, NumberField]:
    """The numeric finance inputs of ``kind`` (what a sweep or a range may move)."""
    if kind in OWNED_KINDS:
        return OWNED_NUMBERS
    if kind in RENTAL_KINDS:
        return RENTAL_NUMBERS
    return {}


def ranged_finance_numbers(kind: str) -> dict[str, NumberField]:
    """The finance numbers a sweep, a range or a swing may move: all but the whole-number terms and intervals, which
    decide the schedule (compare scenarios with different terms instead)."""
    return {key: spec for key, spec in finance_numbers(kind).items() if not spec.integer}


def fixed_by_refresh(doc: Mapping[str, Any], name: str) -> bool:
    """The useful life decides the replacement cycle (and the effective horizon) under replace and truncate, so it
    cannot vary there."""
    return name == "useful_life_years" and doc.get("refresh_policy") in ("replace", "truncate")


REFRESH_FIXED = "the useful life decides the refresh cycle under the refresh policy replace or truncate"


class FinanceOptionChecks:
    """Mixed into the option checker: reads an option's finance inputs into ``option`` (only those given) and checks
    the rules that tie them together and to the horizon."""

    add: Any  # the Checker's: add(path, message, code)
    currency_code: str  # the Checker's: the document's currency

    def finance_option(self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: Mapping[str, Any]) -> None:
        kind = option["kind"]
        if not any(raw.get(key) is not None for key in finance_fields(kind)):
            return  # every rule below concerns a finance input that was given
        numbers_ = finance_numbers(kind)
        choices = OWNED_CHOICES if kind in OWNED_KINDS else RENTAL_CHOICES if kind in RENTAL_KINDS else {}
        for key, spec in numbers_.items():
            if raw.get(key) is not None:
                value = self._finance_number(raw[key], spec, f"{path}.{key}")
                if value is not None:
                    option[key] = value
        interval = option.get("lease_payment_interval_months")
        if interval is not None and interval not in LEASE_INTERVALS:
            del option["lease_payment_interval_months"]
            self.add(
                f"{path}.lease_payment_interval_months",
                f"Lease payment interval must be 1, 3, 6 or 12 months; got {fmt(interval)}",
                "out_of_range",
            )
        for key, allowed in choices.items():
            value = raw.get(key)
            if value is None:
                continue
            if value in allowed:
                option[key] = value
            else:
                self.add(f"{path}.{key}", f"Must be one of {', '.join(allowed)}; got {describe(value)}", "invalid")
        if kind in OWNED_KINDS:
            if raw.get("resale_curve") is not None:
                curve = self._resale_curve(raw["resale_curve"], f"{path}.resale_curve")
                if curve is not None:
                    option["resale_curve"] = curve
            self._owned_rules(raw, option, path, doc)
        elif kind in RENTAL_KINDS:
            if raw.get("price_change_by_year") is not None:
                path_ = f"{path}.price_change_by_year"
                changes = self._price_changes(raw["price_change_by_year"], path_)
                if changes is not None:
                    option["price_change_by_year"] = changes
                if raw.get("price_change_per_year") is not None:
                    self.add(
                        path_,
                        "Give either a price change per year or a price change by year, not both",
                        "conflict",
                    )
            self._commitment_rules(raw, option, path, doc)

    def _finance_number(self, value: Any, spec: NumberField, path: str) -> float | int | None:
        number, message = check_number(value, spec, self.currency_code)
        if message:
            real = isinstance(value, numbers.Real | Decimal) and not isinstance(value, bool)
            self.add(path, message, "out_of_range" if real else "invalid")
        return number

    def _owned_rules(self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: Mapping[str, Any]) -> None:
        financing = option_value(option, "financing")
        method = option_value(option, "tax_depreciation")
        if key_given(raw, "tax_life_years") and method != "straight_line":
            self.add(
                f"{path}.tax_life_years",
                f"A tax life applies to straight-line tax depreciation; this option uses {method}",
                "conflict",
            )
        for means, keys in FINANCING_FIELDS.items():
            for key in keys:
                if key_given(raw, key) and financing != means:
                    self.add(
                        f"{path}.{key}",
                        f"{_label(key)} applies to a {means}; this option is financed by {financing}",
                        "conflict",
                    )
                elif financing == means and OPTION_FIELD[key].required and not key_given(raw, key):
                    self.add(f"{path}.{key}", f"A {means} needs its {_lower_first(_label(key))}", "required")
        if financing == "lease":
            self._lease_rules(raw, option, path, doc)
        if key_given(raw, "resale_curve") and key_given(raw, "residual_value"):
            self.add(
                f"{path}.residual_value",
                "A resale curve sets the residual value (its share at the end of the useful life); remove one of them",
                "conflict",
            )
        curve, start = option.get("resale_curve"), option.get("age_at_purchase_months")
        if curve is not None and start is not None and _curve_at(curve, start) == 0:
            self.add(
                f"{path}.age_at_purchase_months",
                f"At {fmt(start)} months the resale curve is worth nothing, so a unit bought that old has no price "
                "to follow; buy it younger or extend the curve",
                "conflict",
            )
        if key_given(raw, "age_at_purchase_months") and not key_given(raw, "resale_curve"):
            self.add(
                f"{path}.age_at_purchase_months",
                "The age at purchase places a used unit along a resale curve; add the resale curve",
                "conflict",
            )

    def _lease_rules(self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: Mapping[str, Any]) -> None:
        end = option_value(option, "lease_end")
        if end == "buyout" and not key_given(raw, "lease_buyout_price"):
            self.add(f"{path}.lease_buyout_price", "A lease ending in a buyout needs the buyout price", "required")
        if end == "return" and key_given(raw, "lease_buyout_price"):
            self.add(
                f"{path}.lease_buyout_price",
                "A returned lease has no buyout price; set the lease end to buyout or remove the price",
                "conflict",
            )
        term, horizon = option.get("lease_term_months"), doc.get("horizon_months")
        interval = option_value(option, "lease_payment_interval_months")
        if term is None:
            return
        if horizon is not None and term > horizon:
            self.add(
                f"{path}.lease_term_months",
                f"A lease of {term} months is longer than the horizon of {horizon} months",
                "out_of_range",
            )
        if interval in LEASE_INTERVALS and term % interval:
            self.add(
                f"{path}.lease_term_months",
                f"A lease of {term} months is not a whole number of {interval}-month payment intervals",
                "conflict",
            )
        refresh = doc.get("refresh_policy") or "none"
        if end == "return" and refresh == "none" and horizon is not None and term < horizon:
            self.add(
                f"{path}.lease_term_months",
                f"The returned lease ends at month {term}, before the horizon of {horizon} months, so nothing serves "
                "the rest; set the refresh policy to replace or truncate, end the lease in a buyout, or lease longer",
                "conflict",
            )

    def _commitment_rules(
        self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: Mapping[str, Any]
    ) -> None:
        billing = option.get("billing")
        for key in COMMITMENT_FIELDS:
            if key_given(raw, key) and billing != "committed":
                self.add(f"{path}.{key}", f"{_label(key)} applies to committed billing", "conflict")
        term, horizon = option.get("commitment_term_months"), doc.get("horizon_months")
        if term is not None and horizon is not None and term > horizon:
            self.add(
                f"{path}.commitment_term_months",
                f"A commitment term of {term} months runs past the horizon of {horizon} months",
                "out_of_range",
            )
        outside_terms = (
            term is not None
            and horizon is not None
            and (horizon % term if option_value(option, "after_term") == "renew" else term < horizon)
        )
        if (
            outside_terms
            and option.get("on_demand_price_per_gpu_hour") is None
            and doc.get("burst_price_per_gpu_hour") is None
        ):
            self.add(
                f"{path}.on_demand_price_per_gpu_hour",
                "Months after the last whole commitment term are bought on demand; set an on-demand price per "
                "GPU-hour (or the scenario's burst price)",
                "required",
            )
        if term is None:
            for key in ("upfront_share", "after_term"):
                if key_given(raw, key):
                    self.add(f"{path}.{key}", f"{_label(key)} needs a commitment term", "conflict")

    def _resale_curve(self, value: Any, path: str) -> list[list[float]] | None:
        if not isinstance(value, Sequence) or isinstance(value, str) or not value:
            self.add(
                path, f"A resale curve is a list of [age in months, share] points; got {describe(value)}", "invalid"
            )
            return None
        if len(value) > MAX_CURVE_POINTS:
            self.add(path, f"A resale curve takes at most {MAX_CURVE_POINTS} points; got {len(value)}", "out_of_range")
            return None
        points: list[list[float]] = []
        for k, point in enumerate(value):
            if not isinstance(point, Sequence) or isinstance(point, str) or len(point) != 2:
                self.add(f"{path}[{k}]", f"Each point is [age in months, share]; got {describe(point)}", "invalid")
                return None
            age = self._finance_number(point[0], CURVE_AGE, f"{path}[{k}]")
            share = self._finance_number(point[1], CURVE_SHARE, f"{path}[{k}]")
            if age is None or share is None:
                return None
            points.append([float(age), float(share)])
        if points[0] != [0.0, 1.0]:
            self.add(
                f"{path}[0]",
                f"A resale curve starts at age 0 with share 1 (the price paid); got [{fmt(points[0][0])}, "
                f"{fmt(points[0][1])}]",
                "conflict",
            )
            return None
        for k in range(1, len(points)):
            (age0, share0), (age1, share1) = points[k - 1], points[k]
            if age1 <= age0:
                self.add(
                    f"{path}[{k}]",
                    f"Resale curve ages must rise; {fmt(age1)} months follows {fmt(age0)} months",
                    "conflict",
                )
                return None
            if share1 > share0:
                self.add(
                    f"{path}[{k}]",
                    f"Resale curve shares must not rise with age; {fmt(share1)} at {fmt(age1)} months follows "
                    f"{fmt(share0)}",
                    "conflict",
                )
                return None
        return points

    def _price_changes(self, value: Any, path: str) -> list[float] | None:
        if not isinstance(value, Sequence) or isinstance(value, str) or not value:
            self.add(path, f"A price change by year is a list of yearly changes; got {describe(value)}", "invalid")
            return None
        if len(value) > MAX_PRICE_YEARS:
            self.add(
                path, f"A price path takes at most {MAX_PRICE_YEARS} yearly changes; got {len(value)}", "out_of_range"
            )
            return None
        changes = [self._finance_number(item, PRICE_CHANGE, f"{path}[{k}]") for k, item in enumerate(value)]
        return None if None in changes else [float(c) for c in changes]


def effective_horizon_problems(doc: Mapping[str, Any], horizon: int) -> list[tuple[str, str]]:
    """``(path, message)`` for terms that run past the effective horizon ``horizon`` (the refresh policy truncate)."""
    problems = []
    for i, option in enumerate(doc["options"]):
        for key, what in (("lease_term_months", "A lease"), ("commitment_term_months", "A commitment term")):
            term = option.get(key)
            if term is not None and term > horizon:
                problems.append(
                    (
                        f"options[{i}].{key}",
                        f"{what} of {term} months runs past the effective horizon of {horizon} months (the refresh "
                        "policy truncate cuts the comparison to the shortest owned cycle)",
                    )
                )
    return problems


def _curve_at(curve: list[list[float]], age: float) -> float:
    """The curve's share at ``age`` (linear between points, flat past the last)."""
    for (age0, share0), (age1, share1) in itertools.pairwise(curve):
        if age <= age1:
            return share0 + (share1 - share0) * (age - age0) / (age1 - age0)
    return curve[-1][1]


def key_given(raw: Mapping[str, Any], key: str) -> bool:
    return raw.get(key) is not None


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _label(key: str) -> str:
    spec = OWNED_NUMBERS.get(key) or RENTAL_NUMBERS.get(key)
    return spec.label if spec else key.replace("_", " ").capitalize()


def uses_finance(doc: Mapping[str, Any]) -> bool:
    """Whether a normalised document carries any finance input (then its results carry the after-tax figures)."""
    if any(key in doc for key in FINANCE_TOP_FIELDS):
        return True
    return any(key in option for option in doc.get("options", ()) for key in finance_fields(option.get("kind", "")))
