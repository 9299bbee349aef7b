"""Django forms for the scenario page: every input is read and validated here before a service sees it.

Each number is a ``NumberText`` field, which reads what a finance user types through ``lib.numbers`` (the one reader
of every input: "324,000", "$324,000.50", "8%") and refuses a value the database cannot store exactly. The page
saves one input at a time, so the edit forms (``ScenarioInputForm`` and one ``OptionInputForm`` subclass per option
kind, its fields derived from the engine's catalogue) validate the one input a request posts. Ranges and whether
the document is complete are the engine's (the services call it).
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from lib.currencies import currency_problem
from lib.numbers import NumberTextError, read_decimal, read_integer
from pricing.forms import TREND_WINDOWS
from pricing.models import GpuModel, PriceObservation
from tco.documents import FieldProblem, to_decimal
from tco.engine.catalogue import OptionField
from tco.engine.catalogue import option_fields as catalogue_fields
from tco.forecast import DECIMAL_PARAMETERS, FORM_FIELDS, Forecast, ForecastError, parse_pasted_column
from tco.models import DiligenceStatus, ForecastKind, OptionKind
from tco.models.scenario import WORKLOAD_KEYS

NAME_MAX_LENGTH = 200


class NumberText(forms.Field):
    """A number as typed (blank is None: the engine's default, or a value still to complete)."""

    def __init__(self, *, percent: bool = False, integer: bool = False, **kwargs: Any) -> None:
        self.percent, self.integer = percent, integer
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "error_messages", {"required": "required: enter a whole number" if integer else "required: enter a number"}
        )
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Decimal | int | None:
        text = "" if value is None else str(value)
        try:
            number = read_integer(text) if self.integer else read_decimal(text, percent=self.percent)
        except NumberTextError as error:
            raise ValidationError(str(error), code="number") from None
        if number is None or self.integer:
            return number
        problems: list[FieldProblem] = []
        stored = to_decimal(number, "", problems)
        if problems:
            raise ValidationError(problems[0].message, code="precision")
        return stored


class NameText(forms.CharField):
    def __init__(self, what: str, **kwargs: Any) -> None:
        super().__init__(
            max_length=NAME_MAX_LENGTH,
            error_messages={
                "required": f"required: give the {what} a name",
                "max_length": f"at most {NAME_MAX_LENGTH} characters (got %(show_value)d)",
            },
            **kwargs,
        )


class CurrencyCode(forms.CharField):
    """An ISO 4217 code ("eur" is EUR); blank is the engine's default, USD."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def to_python(self, value: Any) -> str:
        code = super().to_python(value).upper()
        problem = currency_problem(code) if code else None
        if problem:
            raise ValidationError(problem, code="currency")
        return code


class InputForm(forms.Form):
    """Validates the one input an edit posts: the page saves every input on its own, as a spreadsheet does.

    ``name`` is that input (None when the request posts none of the form's inputs, or several)."""

    NOT_INPUTS = ("version", "csrfmiddlewaretoken")

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        posted = [name for name in self.fields if name in data]
        self.name = posted[0] if len(posted) == 1 else None
        self.unknown = [key for key in data if key not in self.fields and key not in self.NOT_INPUTS]
        if posted and len(posted) > 1:
            self.unknown = posted
        self.fields = {name: field for name, field in self.fields.items() if name == self.name}

    @property
    def not_one_input(self) -> str:
        """Why the request is not one edit (a form of the page always posts one input), for a 400."""
        if self.name is not None:
            return ""
        if not self.unknown:
            return "Nothing was posted to save: post one input."
        shown = ", ".join(key[:40] for key in self.unknown[:5])
        return f"{shown} cannot be edited here: post one input at a time."

    @property
    def text(self) -> str:
        """What the user typed into the input, for showing it back when it is refused."""
        return self.data.get(self.name, "") if self.name else ""

    @property
    def value(self) -> Any:
        return self.cleaned_data[self.name]

    @property
    def message(self) -> str:
        return " ".join(self.errors.get(self.name, []))


class ScenarioInputForm(InputForm):
    """The scenario's own inputs and its workload."""

    name = NameText("scenario")
    currency = CurrencyCode()
    horizon_months = NumberText(integer=True, required=True)
    discount_rate = NumberText(percent=True, required=True)
    fleet_gpus = NumberText(integer=True, required=True)
    burst_price_per_gpu_hour = NumberText()
    workload_tokens_per_second_per_gpu = NumberText()
    workload_output_tokens_per_response = NumberText()
    workload_input_tokens_per_response = NumberText()
    workload_acceptance_rate = NumberText(percent=True)


assert {f"workload_{key}" for key in WORKLOAD_KEYS} <= set(ScenarioInputForm.base_fields)


class OptionInputForm(InputForm):
    """An option's inputs; ``option_input_form(kind)`` adds the kind's fields from the catalogue."""

    name = NameText("option")


def _catalogue_field(entry: OptionField) -> forms.Field:
    if entry.value_type == "choice":
        words = " or ".join(label.lower() for _, label in entry.choices)
        return forms.ChoiceField(
            choices=(("", ""), *entry.choices),
            required=False,
            error_messages={"invalid_choice": f"%(value)s: choose {words}"},
        )
    return NumberText(percent=entry.value_type == "rate", integer=entry.is_integer)


@functools.cache
def option_input_form(kind: str) -> type[OptionInputForm]:
    """The edit form of one option kind: its name plus every catalogue input of the kind."""
    fields = {entry.name: _catalogue_field(entry) for entry in catalogue_fields(kind)}
    return type(f"{kind.title()}OptionInputForm", (OptionInputForm,), fields)


class ForecastForm(forms.Form):
    """The utilization forecast: a kind and its parameters (percent or fractions; a pasted column, one per line).

    Switching kinds with blank parameters starts from ``starting`` (that kind's saved parameters, else values that
    reproduce the current forecast), so a click on "Linear ramp" is a forecast at once."""

    forecast_kind = forms.ChoiceField(
        choices=ForecastKind.choices,
        error_messages={"invalid_choice": "%(value)s is not a forecast kind; choose flat, ramp, seasonal or pasted"},
    )
    forecast_flat_utilization = NumberText(percent=True)
    forecast_ramp_from_utilization = NumberText(percent=True)
    forecast_ramp_to_utilization = NumberText(percent=True)
    forecast_seasonal_base_utilization = NumberText(percent=True)
    forecast_seasonal_amplitude = NumberText(percent=True)
    forecast_seasonal_peak_month = NumberText(integer=True)
    forecast_pasted = forms.CharField(required=False, strip=False)

    def __init__(self, data: Any, *, horizon_months: int, starting: dict[str, str] | None = None) -> None:
        data = data.copy()
        for name, text in (starting or {}).items():
            if not str(data.get(name, "")).strip():
                data[name] = text
        super().__init__(data)
        self.horizon_months = horizon_months

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        params: dict[str, Any] = {name: cleaned[FORM_FIELDS[name]] for name in DECIMAL_PARAMETERS}
        params["seasonal_peak_month"] = cleaned[FORM_FIELDS["seasonal_peak_month"]]
        if cleaned["forecast_kind"] == ForecastKind.PASTED:
            try:
                params["pasted"] = tuple(
                    parse_pasted_column(cleaned["forecast_pasted"], horizon_months=self.horizon_months)
                )
            except ForecastError as error:
                raise ValidationError(error.message) from None
        cleaned["forecast"] = Forecast(kind=cleaned["forecast_kind"], **params)
        return cleaned

    @property
    def message(self) -> str:
        """Every problem in one line, each named by its input ("Ramp to: ..."), for the editor's one message."""
        labels = {
            "forecast_kind": "Shape",
            "forecast_flat_utilization": "Utilization",
            "forecast_ramp_from_utilization": "From",
            "forecast_ramp_to_utilization": "To",
            "forecast_seasonal_base_utilization": "Base",
            "forecast_seasonal_amplitude": "Amplitude",
            "forecast_seasonal_peak_month": "Peak month",
            "forecast_pasted": "Pasted column",
        }
        parts = []
        for name, messages in self.errors.items():
            text = " ".join(messages)
            parts.append(text if name == "__all__" else f"{labels.get(name, name)}: {text}")
        return " ".join(parts)


class OptionAddForm(forms.Form):
    kind = forms.ChoiceField(
        choices=OptionKind.choices, error_messages={"invalid_choice": "Choose a kind of option (%(value)s?)."}
    )
    gpu_model = forms.ModelChoiceField(
        GpuModel.objects.all(),
        required=False,
        error_messages={"invalid_choice": "That GPU model no longer exists; choose another."},
    )


class PricePickForm(forms.Form):
    observation = forms.ModelChoiceField(
        PriceObservation.objects.select_related("provider"),
        error_messages={
            "invalid_choice": "That Market price no longer exists.",
            "required": "That Market price no longer exists.",
        },
    )


class PriceTrendAdoptForm(forms.Form):
    """Which window of the Market's trend a rental's price path follows."""

    months = forms.TypedChoiceField(
        choices=TREND_WINDOWS,
        coerce=int,
        error_messages={"invalid_choice": "Choose a window of 3, 6, 12, 24 or 36 months."},
    )


class DiligenceForm(forms.Form):
    status = forms.ChoiceField(
        choices=DiligenceStatus.choices,
        error_messages={"invalid_choice": "Choose a status (%(value)s is not one)."},
    )
    warranty_months = NumberText(integer=True)
    note = forms.CharField(required=False, max_length=2000)

    @property
    def message(self) -> str:
        labels = {"status": "Status", "warranty_months": "Warranty months", "note": "Note"}
        return " ".join(f"{labels[name]}: {' '.join(messages)}" for name, messages in self.errors.items())
