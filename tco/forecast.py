"""Utilization forecasts: the ``Forecast`` value object (a kind + its parameters) expands into monthly values;
parse a pasted column.

No database: used by the scenario model, the ``forecast_update`` service, the forecast editor and its tests.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from lib.errors import AppError
from lib.numbers import NumberTextError, read_decimal
from tco.engine.catalogue import scenario_fields


class ForecastError(AppError, ValueError):
    """A forecast parameter that cannot be used: `field` names it, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


def ramp(*, start: float, end: float, horizon_months: int) -> list[float]:
    """Linear from `start` in month 1 to `end` in the last month."""
    if horizon_months <= 1:
        return [start]
    step = (end - start) / (horizon_months - 1)
    return [start + step * m for m in range(horizon_months)]


def seasonal(*, base: float, amplitude: float, peak_month: int, horizon_months: int) -> list[float]:
    """A 12-month cosine cycle: `base + amplitude` in the peak month, `base - amplitude` six months later.

    Month 1 is the first month of the horizon, so peak_month 12 means the 12th, 24th, ... months.
    """
    return [base + amplitude * math.cos(2 * math.pi * (m - peak_month) / 12) for m in range(1, horizon_months + 1)]


# The seven parameters, and the Scenario field that stores each (also the forecast form's input name, except
# the pasted column whose input is "forecast_pasted"): the catalogue's forecast entries but its kind.
_PARAMETERS = {
    entry.name.removesuffix("_utilization"): entry for entry in scenario_fields("forecast") if entry.name != "kind"
}
MODEL_FIELDS = {name: entry.field for name, entry in _PARAMETERS.items()}
FORM_FIELDS = {**MODEL_FIELDS, "pasted": "forecast_pasted"}
DECIMAL_PARAMETERS = tuple(name for name, entry in _PARAMETERS.items() if entry.is_percent)
# The parameters each kind reads (and a change of that kind writes; the others' are kept for switching back).
KIND_PARAMETERS = {
    "flat": ("flat",),
    "ramp": ("ramp_from", "ramp_to"),
    "seasonal": ("seasonal_base", "seasonal_amplitude", "seasonal_peak_month"),
    "pasted": ("pasted",),
}


@dataclass(frozen=True)
class Forecast:
    """A utilization forecast: its kind and the seven parameters, as the scenario stores them and the editor posts.

    Used by the Scenario model (``Scenario.forecast``), the ``forecast_update`` service, the forecast view and the
    page context, so the parameters travel together instead of as seven loose arguments.
    """

    kind: str
    flat: Decimal | None = None
    ramp_from: Decimal | None = None
    ramp_to: Decimal | None = None
    seasonal_base: Decimal | None = None
    seasonal_amplitude: Decimal | None = None
    seasonal_peak_month: int | None = None
    pasted: tuple[float, ...] = ()

    @classmethod
    def from_model(cls, scenario: Any) -> Forecast:
        """The forecast stored on a Scenario (its ``forecast_kind`` and ``forecast_*`` fields)."""
        values = {name: getattr(scenario, field) for name, field in MODEL_FIELDS.items()}
        return cls(kind=scenario.forecast_kind, **{**values, "pasted": tuple(values["pasted"] or ())})

    def model_fields(self) -> dict[str, Any]:
        """The Scenario fields this forecast sets: its kind and that kind's parameters."""
        fields: dict[str, Any] = {"forecast_kind": self.kind}
        for name in KIND_PARAMETERS.get(self.kind, ()):
            value = getattr(self, name)
            fields[MODEL_FIELDS[name]] = list(value) if name == "pasted" else value
        return fields

    def expand(self, horizon_months: int) -> list[float]:
        """The document's ``utilization`` list. Missing parameters give an empty list (the engine names it)."""
        if self.kind == "flat":
            return [] if self.flat is None else [float(self.flat)]
        if self.kind == "ramp":
            if self.ramp_from is None or self.ramp_to is None:
                return []
            return ramp(start=float(self.ramp_from), end=float(self.ramp_to), horizon_months=horizon_months)
        if self.kind == "seasonal":
            if self.seasonal_base is None or self.seasonal_amplitude is None or self.seasonal_peak_month is None:
                return []
            return seasonal(
                base=float(self.seasonal_base),
                amplitude=float(self.seasonal_amplitude),
                peak_month=int(self.seasonal_peak_month),
                horizon_months=horizon_months,
            )
        return [float(v) for v in self.pasted]

    def problems(self) -> list[ForecastError]:
        """Problems with the parameters of a flat, ramp or seasonal forecast, named by form field."""
        problems: list[ForecastError] = []

        def share(name: str, label: str) -> None:
            field, value = FORM_FIELDS[name], getattr(self, name)
            if value is None:
                problems.append(ForecastError(field, f"enter the {label} as a share between 0 and 1 (or a percentage)"))
            elif not 0 <= value <= 1:
                typed = format((Decimal(str(value)) * 100).normalize(), "f")  # as the input shows it: 150%
                problems.append(ForecastError(field, f"{label} must be between 0% and 100%; got {typed}%"))

        base, amplitude, peak = self.seasonal_base, self.seasonal_amplitude, self.seasonal_peak_month
        if self.kind == "flat":
            share("flat", "utilization")
        elif self.kind == "ramp":
            share("ramp_from", "starting utilization")
            share("ramp_to", "final utilization")
        elif self.kind == "seasonal":
            share("seasonal_base", "base utilization")
            if amplitude is None or amplitude < 0:
                problems.append(ForecastError("forecast_seasonal_amplitude", "enter an amplitude of 0 or more"))
            elif base is not None and not 0 <= base - amplitude <= base + amplitude <= 1:
                problems.append(
                    ForecastError(
                        "forecast_seasonal_amplitude",
                        f"base ± amplitude must stay within 0-1: {base} ± {amplitude} "
                        f"spans {base - amplitude} to {base + amplitude}",
                    )
                )
            if peak is None or not 1 <= peak <= 12:
                problems.append(ForecastError("forecast_seasonal_peak_month", "enter a peak month from 1 to 12"))
        return problems


_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+\s*%?", re.ASCII)


def parse_share(text: str) -> Decimal:
    """'55%', '55 %', '0.55' or '0,55' → Decimal('0.55'). Raises ValueError with a readable reason.

    Numbers are read by lib.numbers (digits 0-9 only, no 1_0, no 1E999999999); a comma is a decimal comma here.
    """
    raw = text.strip()
    if _DECIMAL_COMMA.fullmatch(raw):
        raw = raw.replace(",", ".")
    try:
        value = read_decimal(raw, percent=True)
    except NumberTextError as error:
        raise ValueError(f"{error}; write e.g. 55% or 0.55") from None
    if value is None:
        raise ValueError("a value is missing; write e.g. 55% or 0.55")
    if not raw.endswith("%") and value > 1:
        number = raw.strip()
        raise ValueError(f"{number} is above 1; write {number}% for a percentage or a fraction like 0.55")
    if not 0 <= value <= 1:
        raise ValueError(f"{text.strip()} is outside 0-100 %")
    return value


def parse_pasted_column(text: str, *, horizon_months: int | None = None) -> list[float]:
    """One number per line (a spreadsheet column); % or fractions; blank lines at the ends ignored.

    Raises ForecastError naming the line (1-based, as pasted) and the value.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    values: list[float] = []
    for number, line in enumerate(lines[first:], start=first + 1):
        cell = line.strip()
        if not cell:
            raise ForecastError("forecast_pasted", f"line {number} is empty; paste one number per month")
        if "\t" in cell or ";" in cell:
            raise ForecastError("forecast_pasted", f"line {number} has several columns ({cell!r}); paste one column")
        try:
            values.append(float(parse_share(cell)))
        except ValueError as error:
            raise ForecastError("forecast_pasted", f"line {number}: {error}") from None
    if not values:
        raise ForecastError("forecast_pasted", "paste at least one number")
    if horizon_months is not None and len(values) not in (1, horizon_months):
        raise ForecastError(
            "forecast_pasted",
            f"{len(values)} values pasted; paste 1 value or exactly {horizon_months} (one per month of the horizon)",
        )
    return values


def mean_utilization(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def starting_parameters(*, kind: str, current: Sequence[float], horizon_months: int) -> dict[str, str]:
    """Form values for a newly chosen forecast kind, continuing the current forecast.

    Flat takes the current mean; a ramp runs from the current first to last month; a seasonal
    cycle keeps the mean with a ±10-point swing peaking in month 12; a pasted column lists the
    current monthly values. Keyed by the forecast form's field names.
    """
    months = [float(v) for v in current] if current else [0.6]
    if len(months) == 1:
        months = months * horizon_months
    mean = sum(months) / len(months)

    def text(value: float) -> str:
        return format(Decimal(str(round(value, 4))).normalize(), "f")

    if kind == "flat":
        return {"forecast_flat_utilization": text(mean)}
    if kind == "ramp":
        return {"forecast_ramp_from_utilization": text(months[0]), "forecast_ramp_to_utilization": text(months[-1])}
    if kind == "seasonal":
        swing = min(0.1, mean, 1 - mean)
        return {
            "forecast_seasonal_base_utilization": text(mean),
            "forecast_seasonal_amplitude": text(swing),
            "forecast_seasonal_peak_month": "12",
        }
    return {"forecast_pasted": "\n".join(text(v) for v in months)}
