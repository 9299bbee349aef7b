"""Validation and normalisation of ``tco-scenario/1`` documents (the rules of docs/money-math.md).

``validate`` collects every problem before raising one :class:`ScenarioError`. Absent optional
fields (or ``null``) take the documented defaults; nothing else is guessed. Field bounds are listed in
:mod:`tco.engine.fields`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lib.currencies import DEFAULT_CURRENCY, is_currency
from lib.kinds import OWNED_KINDS, RENTAL_KINDS

from .catalogue import (
    FINANCE_TOP_FIELDS,
    FINANCE_TOP_NUMBERS,
    REFRESH_POLICIES,
    UTILIZATION,
    WORKLOAD_NUMBERS,
    scenario_fields,
    top_numbers,
)
from .constants import CAPACITY_TOLERANCE, HOURS_PER_MONTH, SCENARIO_SCHEMA
from .demand import expand_utilization, work_factor
from .errors import ScenarioError
from .fields import check_number, describe, fmt, read_number
from .finance_fields import effective_horizon_problems
from .finance_results import effective_horizon
from .option_rules import OptionChecker


def top_fields() -> tuple[str, ...]:
    """The fields a scenario document may have at its top, from the catalogue as it is now."""
    return (
        "schema",
        *(entry.name for entry in scenario_fields("scenario") if not entry.finance),
        "workload",
        "options",
        *FINANCE_TOP_FIELDS,
    )


TOP_FIELDS = top_fields()


def validate(document: Mapping[str, Any]) -> dict[str, Any]:
    """Return the normalised document (defaults filled, numbers as float/int) or raise ScenarioError.

    The error carries every problem found, each with its field path and a plain-language reason.
    """
    return normalise(document)[0]


def normalise(document: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """Like :func:`validate`, also returning the paths whose value came from a default of another
    field (``options[0].idle_power_kw`` from ``power_kw``; ``gpu_count``/``committed_gpus`` from
    ``fleet_gpus``), which a sweep must move together with their source."""
    checker = _DocumentChecker()
    doc = checker.document(document)
    if checker.problems:
        raise ScenarioError(checker.problems)
    return doc, frozenset(checker.derived)


def entered_document(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document as :func:`validate` reads it (defaults applied), even when it has problems: what could not be
    read is left out or None. For callers that follow inputs while the scenario is still being completed."""
    return _DocumentChecker().document(document)


class _DocumentChecker(OptionChecker):
    def document(self, document: Any) -> dict[str, Any]:
        if not isinstance(document, Mapping):
            self.add("", f"A scenario must be a JSON object; got {describe(document)}")
            return {}
        self.unknown_fields(document, top_fields(), "", "a scenario")
        doc: dict[str, Any] = {}
        schema = document.get("schema")
        if schema != SCENARIO_SCHEMA:
            got = "nothing" if schema is None else describe(schema)
            self.add("schema", f"Schema must be '{SCENARIO_SCHEMA}'; got {got}")
        doc["schema"] = SCENARIO_SCHEMA
        doc["name"] = self.text(document, "name", "name", "Scenario name")
        doc["currency"] = self.currency(document.get("currency"))
        self.currency_code = doc["currency"] or DEFAULT_CURRENCY
        for key, spec in top_numbers().items():
            doc[key] = self.number(document, key, spec, key)
        doc["utilization"] = self.utilization(document.get("utilization"), doc["horizon_months"])
        # A workload that was given but is invalid still counts as given (its own problems are reported).
        self.workload_given = document.get("workload") is not None
        doc["workload"] = self.workload(document.get("workload"))
        self.finance_scenario(document, doc)
        doc["options"] = self.options(document.get("options"), doc)
        if doc["burst_price_per_gpu_hour"] is None:
            del doc["burst_price_per_gpu_hour"]
        if doc["workload"] is None:
            del doc["workload"]
        self.capacity(doc)
        self.effective_horizon(doc)
        return doc

    def effective_horizon(self, doc: dict[str, Any]) -> None:
        """With the refresh policy truncate, no lease or commitment term may run past the shortest owned cycle."""
        if doc.get("refresh_policy") != "truncate" or self.has_problem_under("options", "horizon_months"):
            return
        for path, message in effective_horizon_problems(doc, effective_horizon(doc)):
            self.add(path, message, "out_of_range")

    # --- Finance depth: the scenario's inputs.
    def finance_scenario(self, document: Mapping[str, Any], doc: dict[str, Any]) -> None:
        """Tax rate, cost of debt and refresh policy: put in ``doc`` only when given, so a document without them
        normalises exactly as before."""
        for key, spec in FINANCE_TOP_NUMBERS.items():
            if document.get(key) is not None:
                number, message = check_number(document[key], spec, self.currency_code)
                if message:
                    self.add(key, message, "out_of_range" if isinstance(document[key], int | float) else "invalid")
                else:
                    doc[key] = number
        policy = document.get("refresh_policy")
        if policy is not None:
            if policy in REFRESH_POLICIES:
                doc["refresh_policy"] = policy
            else:
                self.add(
                    "refresh_policy",
                    f"Refresh policy must be one of {', '.join(REFRESH_POLICIES)}; got {describe(policy)}",
                    "invalid",
                )

    # --- end of the finance depth's scenario inputs.
    def currency(self, value: Any) -> str | None:
        if value is None:
            return DEFAULT_CURRENCY
        if isinstance(value, str) and re.fullmatch(r"[A-Za-z]{3}", value):
            if is_currency(value.upper()):
                return value.upper()
            self.add("currency", f"Currency must be an ISO 4217 code such as USD or EUR; got {describe(value)}")
            return None
        self.add("currency", f"Currency must be a 3-letter code such as USD or EUR; got {describe(value)}")
        return None

    def utilization(self, value: Any, horizon: int | None) -> list[float] | None:
        if value is None:
            self.require("utilization", "Utilization forecast", "one value for a flat forecast or one per month")
            return None
        if not isinstance(value, list | tuple) or not value:
            self.add(
                "utilization",
                f"Utilization must be a list of 1 value or one value per month; got {describe(value)}",
            )
            return None
        if horizon is not None and len(value) not in (1, horizon):
            self.add(
                "utilization",
                f"Utilization needs 1 value (a flat forecast) or exactly {horizon} values (one per month of "
                f"the horizon); got {len(value)}",
            )
            return None
        values = []
        for i, item in enumerate(value):
            number, code, message = read_number(item, UTILIZATION)
            if message:
                self.add(f"utilization[{i}]", message, code)
            values.append(number)
        return values if all(v is not None for v in values) else None

    def workload(self, value: Any) -> dict[str, float] | None:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            self.add("workload", f"Workload must be an object; got {describe(value)}")
            return None
        self.unknown_fields(value, tuple(WORKLOAD_NUMBERS), "workload.", "the workload")
        return {key: self.number(value, key, spec, f"workload.{key}") for key, spec in WORKLOAD_NUMBERS.items()}

    # --- demand above capacity -------------------------------------------------------------
    def capacity(self, doc: dict[str, Any]) -> None:
        """Demand above an option's capacity needs a burst price (docs/money-math.md)."""
        if doc.get("burst_price_per_gpu_hour") is not None:
            return
        if self.has_problem_under("horizon_months", "fleet_gpus", "utilization", "burst_price_per_gpu_hour"):
            return
        workload = doc.get("workload")
        if self.workload_given and (workload is None or None in workload.values()):
            return
        demand = [
            doc["fleet_gpus"] * HOURS_PER_MONTH * u
            for u in expand_utilization(doc["utilization"], doc["horizon_months"])
        ]
        for i, option in enumerate(doc["options"]):
            path = f"options[{i}]"
            kind = option.get("kind")
            if self.has_problem_under(path) or kind is None:
                continue
            if kind in OWNED_KINDS:
                gpus, what = option["gpu_count"], "owns"
            elif (
                kind in RENTAL_KINDS
                and option.get("billing") == "committed"
                and option.get("on_demand_price_per_gpu_hour") is None
            ):
                gpus, what = option["committed_gpus"], "commits to"
            else:
                continue
            capacity = gpus * HOURS_PER_MONTH
            factor = work_factor(workload, option)
            for month, d in enumerate(demand, start=1):
                if d * factor > capacity * (1 + CAPACITY_TOLERANCE):
                    self.add(
                        "burst_price_per_gpu_hour",
                        f"In month {month} '{option['name']}' needs {fmt(round(d * factor, 2))} GPU-hours "
                        f"but {what} only {gpus} GPUs ({fmt(capacity)} GPU-hours a month); set a burst price per "
                        "GPU-hour for the overflow",
                    )
                    break
