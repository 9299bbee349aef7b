"""Validation of one option of a scenario document (the defaults and rules of docs/money-math.md)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from lib.kinds import BILLINGS, KINDS, OWNED_KINDS, RENTAL_KINDS

from .catalogue import (
    AT_MOST_PAIRS,
    OPTION_FIELD,
    OVERRIDES,
    PRICE_PATH_SOURCE_COUNTS,
    PRICE_PATH_SOURCE_DATES,
    PRICE_PATH_SOURCE_TEXT,
    PRICE_SOURCE_FX,
    PRICE_SOURCE_IDS,
    PRICE_SOURCE_TEXT,
    allowed_option_fields,
    at_most_message,
    numbers_for_kind,
)
from .checker import Checker, has_control_characters
from .fields import describe, shorten
from .finance_fields import FinanceOptionChecks, finance_fields


class OptionChecker(FinanceOptionChecks, Checker):
    """Reads ``options``: kind-specific fields, the documented defaults, cross-field rules, unique names."""

    def options(self, value: Any, doc: dict[str, Any]) -> list[dict[str, Any]]:
        if value is None or (isinstance(value, list | tuple) and not value):
            self.require("options", "Options", "add at least one way to own or rent capacity", verb="are")
            return []
        if not isinstance(value, list | tuple) or not value:
            self.add("options", f"Options must be a non-empty list; got {describe(value)}")
            return []
        options = []
        seen: dict[str, int] = {}
        for i, raw in enumerate(value):
            option = self.option(raw, f"options[{i}]", doc)
            name = option.get("name")
            if name is not None:
                if name in seen:
                    self.add(
                        f"options[{i}].name",
                        f"Option name '{name}' is already used by option {seen[name] + 1}; names must be unique",
                    )
                else:
                    seen[name] = i
            options.append(option)
        return options

    def option(self, raw: Any, path: str, doc: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(raw, Mapping):
            self.add(path, f"Each option must be an object with a name and a kind; got {describe(raw)}")
            return {}
        option: dict[str, Any] = {"name": self.text(raw, "name", f"{path}.name", "Option name")}
        kind = raw.get("kind")
        if kind not in KINDS:
            got = "nothing" if kind is None else describe(kind)
            self.add(f"{path}.kind", f"Kind must be one of {', '.join(KINDS)}; got {got}")
            return option
        option["kind"] = kind
        allowed = (*allowed_option_fields(kind), *finance_fields(kind))
        self.unknown_fields(raw, allowed, f"{path}.", f"an {kind} option" if kind == "api" else f"a {kind} option")
        for key, spec in numbers_for_kind(kind).items():
            number = self.number(raw, key, spec, f"{path}.{key}")
            if number is not None:
                option[key] = number
        workload_given = self.workload_given
        for key in OVERRIDES:
            if raw.get(key) is not None and not workload_given:
                self.add(
                    f"{path}.{key}",
                    "An override of throughput or acceptance needs a scenario workload to compare with; "
                    "add the workload or remove the override",
                )
        if kind in OWNED_KINDS:
            self.owned_defaults(raw, option, path, doc)
        elif kind in RENTAL_KINDS:
            self.rental_extras(raw, option, path, doc)
        else:
            if not workload_given:
                self.add(
                    "workload",
                    f"The API option '{option['name'] or 'without a name'}' is priced per token, so the scenario "
                    "needs a workload (throughput and tokens per response)",
                )
            self.price_source(raw, option, path)
        self.finance_option(raw, option, path, doc)
        return {key: option[key] for key in allowed if key in option}

    def owned_defaults(self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: dict[str, Any]) -> None:
        if raw.get("gpu_count") is None:
            option["gpu_count"] = doc["fleet_gpus"]
            self.derived.add(f"{path}.gpu_count")
        if raw.get("idle_power_kw") is None and "power_kw" in option:
            option["idle_power_kw"] = option["power_kw"]
            self.derived.add(f"{path}.idle_power_kw")
        for small, large in AT_MOST_PAIRS:
            low, high = option.get(small), option.get(large)
            if low is not None and high is not None and low > high:
                self.add(f"{path}.{small}", at_most_message(small, large, (low, high), self.currency_code))

    def rental_extras(self, raw: Mapping[str, Any], option: dict[str, Any], path: str, doc: dict[str, Any]) -> None:
        if raw.get("committed_gpus") is None:
            option["committed_gpus"] = doc["fleet_gpus"]
            self.derived.add(f"{path}.committed_gpus")
        billing = raw.get("billing")
        if billing is None:
            option["billing"] = OPTION_FIELD["billing"].default
        elif billing in BILLINGS:
            option["billing"] = billing
        else:
            self.add(f"{path}.billing", f"Billing must be one of {', '.join(BILLINGS)}; got {describe(billing)}")
        self.price_source(raw, option, path)
        self.provenance(
            raw,
            option,
            path,
            "price_path_source",
            "a price path source",
            whole=PRICE_PATH_SOURCE_COUNTS,
            dates=PRICE_PATH_SOURCE_DATES,
            known=PRICE_PATH_SOURCE_TEXT + PRICE_PATH_SOURCE_DATES + PRICE_PATH_SOURCE_COUNTS,
        )

    def price_source(self, raw: Mapping[str, Any], option: dict[str, Any], path: str) -> None:
        self.provenance(
            raw,
            option,
            path,
            "price_source",
            "a price source",
            whole=PRICE_SOURCE_IDS,
            dates=("observed_on", "fx_rate_date"),
            known=PRICE_SOURCE_TEXT + PRICE_SOURCE_FX + PRICE_SOURCE_IDS,
        )

    def provenance(
        self,
        raw: Mapping[str, Any],
        option: dict[str, Any],
        path: str,
        name: str,
        what: str,
        *,
        whole: tuple[str, ...],
        dates: tuple[str, ...],
        known: tuple[str, ...],
    ) -> None:
        """A provenance object (``price_source``, ``price_path_source``): known keys only, each text or a whole
        number (``whole`` keys must be whole numbers, ``dates`` ISO dates), kept verbatim."""
        source = raw.get(name)
        if source is None:
            return
        path = f"{path}.{name}"
        if not isinstance(source, Mapping):
            self.add(path, f"{what[2:].capitalize()} must be an object; got {describe(source)}")
            return
        self.unknown_fields(source, known, f"{path}.", what)
        for key, value in source.items():
            if value is None or key not in known:
                continue
            if isinstance(value, bool) or not isinstance(value, str | int):
                self.add(
                    f"{path}.{key}",
                    f"{what[2:].capitalize()} values must be text or whole numbers; got {describe(value)}",
                )
            elif isinstance(value, str) and has_control_characters(value):
                self.add(f"{path}.{key}", f"Must not contain control characters such as NUL; got {shorten(value)!r}")
            elif key in whole and not isinstance(value, int):
                noun = "whole-number id" if key.endswith("_id") else "whole number"
                self.add(f"{path}.{key}", f"Must be a {noun}; got {describe(value)}")
            elif key in dates and not _is_iso_date(value):
                first, last = OBSERVED_YEARS
                label = {"observed_on": "Observed-on", "fx_rate_date": "The exchange rate's date"}.get(key, "The date")
                self.add(
                    f"{path}.{key}",
                    f"{label} must be a date such as 2026-09-01 (years {first}-{last}); got {describe(value)}",
                )
        option[name] = dict(source)


# A Market price observed outside these years is a typo (year 0001, 9999), not a price to keep.
OBSERVED_YEARS = (2000, 2099)
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def _is_iso_date(value: Any) -> bool:
    """YYYY-MM-DD, a real day, in OBSERVED_YEARS (no "20260901", no year 0001)."""
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        return False
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return False
    return OBSERVED_YEARS[0] <= day.year <= OBSERVED_YEARS[1]
