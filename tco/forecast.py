"""Utilization forecasts: the ``Forecast`` value object (a kind + its parameters) expands into monthly values;
parse a pasted column.

No database: used by the scenario model, the ``forecast_update`` service, the forecast editor and its tests.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from lib.errors import AppError
from lib.numbers import NumberTextError, read_decimal
from tco.engine.catalogue import SCENARIO_FIELD, scenario_fields


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
        kind = FORECAST_KINDS.get(self.kind, FORECAST_KINDS["pasted"])
        if any(getattr(self, name) is None for name in kind.parameters):
            return []
        return kind.expand(self, horizon_months)

    def problems(self) -> list[ForecastError]:
        """Problems with the parameters of a flat, ramp or seasonal forecast, named by form field."""
        kind = FORECAST_KINDS.get(self.kind)
        return kind.problems(self) if kind is not None else []


def _share(forecast: Forecast, name: str, label: str) -> list[ForecastError]:
    field, value = FORM_FIELDS[name], getattr(forecast, name)
    if value is None:
        return [ForecastError(field, f"enter the {label} as a share between 0 and 1 (or a percentage)")]
    if not 0 <= value <= 1:
        typed = format((Decimal(str(value)) * 100).normalize(), "f")  # as the input shows it: 150%
        return [ForecastError(field, f"{label} must be between 0% and 100%; got {typed}%")]
    return []


def _seasonal_problems(forecast: Forecast) -> list[ForecastError]:
    base, amplitude, peak = forecast.seasonal_base, forecast.seasonal_amplitude, forecast.seasonal_peak_month
    problems = _share(forecast, "seasonal_base", "base utilization")
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


def _text(value: float) -> str:
    return format(Decimal(str(round(value, 4))).normalize(), "f")


def _seasonal_start(months: list[float]) -> dict[str, str]:
    mean = sum(months) / len(months)
    return {
        "forecast_seasonal_base_utilization": _text(mean),
        "forecast_seasonal_amplitude": _text(min(0.1, mean, 1 - mean)),
        "forecast_seasonal_peak_month": "12",
    }


@dataclass(frozen=True)
class ForecastKindSpec:
    """One forecast kind, everything about it: the parameters it reads (and a change of kind writes; the others'
    are kept for switching back), how it expands into months, what it refuses, and the form values it starts
    from when chosen, continuing the current forecast (``months``: the current one, month by month)."""

    parameters: tuple[str, ...]
    expand: Callable[[Forecast, int], list[float]]
    problems: Callable[[Forecast], list[ForecastError]]
    start: Callable[[list[float]], dict[str, str]]


# The forecast kinds, one entry each (their values and labels are the catalogue's forecast "kind" choices): a new
# kind is one entry here and one choice there.
FORECAST_KINDS: dict[str, ForecastKindSpec] = {
    "flat": ForecastKindSpec(
        ("flat",),
        lambda f, horizon: [float(f.flat)],
        lambda f: _share(f, "flat", "utilization"),
        lambda months: {"forecast_flat_utilization": _text(sum(months) / len(months))},
    ),
    "ramp": ForecastKindSpec(
        ("ramp_from", "ramp_to"),
        lambda f, horizon: ramp(start=float(f.ramp_from), end=float(f.ramp_to), horizon_months=horizon),
        lambda f: _share(f, "ramp_from", "starting utilization") + _share(f, "ramp_to", "final utilization"),
        lambda months: {
            "forecast_ramp_from_utilization": _text(months[0]),
            "forecast_ramp_to_utilization": _text(months[-1]),
        },
    ),
    "seasonal": ForecastKindSpec(
        ("seasonal_base", "seasonal_amplitude", "seasonal_peak_month"),
        lambda f, horizon: seasonal(
            base=float(f.seasonal_base),
            amplitude=float(f.seasonal_amplitude),
            peak_month=int(f.seasonal_peak_month),
            horizon_months=horizon,
        ),
        _seasonal_problems,
        _seasonal_start,
    ),
    "pasted": ForecastKindSpec(
        ("pasted",),
        lambda f, horizon: [float(v) for v in f.pasted],
        lambda f: [],  # the pasted column is read (and refused) by the form, value by value
        lambda months: {"forecast_pasted": "\n".join(_text(v) for v in months)},
    ),
}
if tuple(FORECAST_KINDS) != tuple(value for value, _ in SCENARIO_FIELD["forecast_kind"].choices):
    raise ImportError("each forecast kind is one FORECAST_KINDS entry and one choice of the catalogue's forecast kind")
# The parameters each kind reads (and a change of that kind writes; the others' are kept for switching back).
KIND_PARAMETERS = {name: kind.parameters for name, kind in FORECAST_KINDS.items()}


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
    return FORECAST_KINDS.get(kind, FORECAST_KINDS["pasted"]).start(months)
