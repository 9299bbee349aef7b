"""Django forms for the scenario page: every input is read and validated here before a service sees it.

Each number is a ``NumberText`` field, which reads what a finance user types through ``lib.numbers`` (the one reader
of every input: "324,000", "$324,000.50", "8%") and refuses a value the database cannot store exactly. The page
saves one input at a time, so the edit forms (``ScenarioInputForm`` and one ``OptionInputForm`` subclass per option
kind, its fields derived from the engine's catalogue) validate the one input a request posts. Ranges and whether
the document is complete are the engine's (the services call it).
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from lib import forms as short
from lib.currencies import currency_problem
from lib.numbers import NumberTextError, read_decimal, read_integer
from pricing.forms import TREND_WINDOWS
from pricing.models import GpuModel, PriceObservation, PricingTerm
from tco.documents import FieldProblem, to_decimal
from tco.engine.catalogue import OptionField, ScenarioField, scenario_fields, scenario_inputs
from tco.engine.catalogue import option_fields as catalogue_fields
from tco.engine.fields import check_number, input_name
from tco.forecast import DECIMAL_PARAMETERS, FORM_FIELDS, MODEL_FIELDS, Forecast, ForecastError, parse_pasted_column
from tco.models import DiligenceStatus, ForecastKind, OptionKind
from tco.serving import ServingError, parse_traffic, traffic_text

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


def _items(text: str) -> list[str]:
    """A list as typed: items separated by commas, semicolons or new lines (blank items dropped)."""
    return [item.strip() for item in re.split(r"[,;\n]", text) if item.strip()]


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


class ResaleCurveText(forms.Field):
    """A resale curve as typed: "0: 100%, 12: 70%, 36: 40%" (age in months: share of the price), read into the
    document's [[0, 1], [12, 0.7], [36, 0.4]]; blank is None. Whether the points rise and fall as they must is the
    engine's check."""

    EXAMPLE = "0: 100%, 12: 70%, 36: 40%"

    def to_python(self, value: Any) -> list[list[int | float]] | None:
        points = []
        for item in _items("" if value is None else str(value)):
            age, colon, share = item.partition(":")
            try:
                age_number = read_decimal(age) if colon else None
                share_number = read_decimal(share, percent=True) if colon else None
            except NumberTextError as error:
                raise ValidationError(f"“{item[:40]}”: {error}", code="number") from None
            if age_number is None or share_number is None:
                raise ValidationError(
                    f"write each point as age in months: share of the price, e.g. {self.EXAMPLE}; got “{item[:40]}”",
                    code="point",
                )
            points.append([_json_number(age_number), _json_number(share_number)])
        return points or None


class YearlyChangesText(forms.Field):
    """Yearly price changes as typed: "-25%, -10%, 0%" (the last one repeats), read into [-0.25, -0.1, 0]; blank is
    None."""

    def to_python(self, value: Any) -> list[int | float] | None:
        changes = []
        for item in _items("" if value is None else str(value)):
            try:
                change = read_decimal(item, percent=True)
            except NumberTextError as error:
                raise ValidationError(f"“{item[:40]}”: {error}", code="number") from None
            changes.append(_json_number(change))
        return changes or None


LIST_FORM_FIELDS = {"resale_curve": ResaleCurveText, "price_change_by_year": YearlyChangesText}


def _percent_text(value: Any) -> str:
    return format((Decimal(repr(value)) * 100).normalize(), "f") + "%"


def list_input_text(name: str, value: list | None) -> str:
    """A stored list as its form field reads it back: "0: 100%, 12: 70%" (a curve), "-25%, -10%, 0%" (changes)."""
    if not value:
        return ""
    if name == "resale_curve":
        return ", ".join(
            f"{format(Decimal(repr(age)).normalize(), 'f')}: {_percent_text(share)}" for age, share in value
        )
    return ", ".join(_percent_text(change) for change in value)


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
    """The scenario's own inputs and its workload; ``scenario_input_form()`` adds them from the catalogue."""


class OptionInputForm(InputForm):
    """An option's inputs; ``option_input_form(kind)`` adds the kind's fields from the catalogue."""

    name = NameText("option")


def _choice_field(entry: OptionField | ScenarioField, *, required: bool = False) -> forms.ChoiceField:
    words = " or ".join(label.lower() for _, label in entry.choices)
    return short.ChoiceField(
        choices=entry.choices if required else (("", ""), *entry.choices),
        required=required,
        error_messages={"invalid_choice": f"%(value)s: choose {words}"},
    )


def _catalogue_field(entry: OptionField) -> forms.Field:
    if entry.value_type == "choice":
        return _choice_field(entry)
    if entry.value_type == "list":
        return LIST_FORM_FIELDS[entry.name](required=False)
    if entry.choices:  # a whole number from a short list (a lease's payment interval)
        words = ", ".join(label.lower() for _, label in entry.choices)
        return short.TypedChoiceField(
            choices=(("", ""), *entry.choices),
            coerce=int,
            empty_value=None,
            required=False,
            error_messages={"invalid_choice": f"%(value)s: choose {words}"},
        )
    return NumberText(percent=entry.is_percent, integer=entry.is_integer)


# The scenario's inputs that are words: each reads its own way.
TEXT_FORM_FIELDS = {"name": lambda: NameText("scenario"), "currency": CurrencyCode}


def scenario_form_field(entry: ScenarioField) -> forms.Field:
    """The form field of one catalogued scenario input: required when the scenario can never be without it."""
    if entry.value_type == "text":
        return TEXT_FORM_FIELDS[entry.name]()
    if entry.value_type == "choice":
        return _choice_field(entry, required=entry.never_blank)
    return NumberText(percent=entry.is_percent, integer=entry.is_integer, required=entry.never_blank)


@functools.cache
def scenario_input_form() -> type[ScenarioInputForm]:
    """The edit form of the scenario's own inputs and its workload, one field per catalogue entry."""
    fields = {entry.field: scenario_form_field(entry) for entry in scenario_inputs()}
    return type("ScenarioInputForm", (ScenarioInputForm,), fields)


@functools.cache
def option_input_form(kind: str) -> type[OptionInputForm]:
    """The edit form of one option kind: its name plus every catalogue input of the kind."""
    fields = {entry.name: _catalogue_field(entry) for entry in catalogue_fields(kind)}
    return type(f"{kind.title()}OptionInputForm", (OptionInputForm,), fields)


# The forecast's parameters as the form posts them: a pasted column is posted as text, one value per line.
FORECAST_PASTED = FORM_FIELDS["pasted"]


def _forecast_form_fields() -> dict[str, forms.Field]:
    fields: dict[str, forms.Field] = {}
    for entry in scenario_fields("forecast"):
        if entry.value_type == "text":  # the pasted column, read by parse_pasted_column
            fields[FORECAST_PASTED] = forms.CharField(required=False, strip=False)
        else:
            fields[entry.field] = scenario_form_field(entry)
    return fields


class _ForecastForm(forms.Form):
    """The utilization forecast: a kind and its parameters (percent or fractions; a pasted column, one per line).

    Switching kinds with blank parameters starts from ``starting`` (that kind's saved parameters, else values that
    reproduce the current forecast), so a click on "Linear ramp" is a forecast at once."""

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
        """Every problem in one line, each named by its input's label, for the editor's one message."""
        labels = {entry.field: entry.label for entry in scenario_fields("forecast")}
        labels[FORECAST_PASTED] = labels[MODEL_FIELDS["pasted"]]
        parts = []
        for name, messages in self.errors.items():
            text = " ".join(messages)
            parts.append(text if name == "__all__" else f"{labels.get(name, name)}: {text}")
        return " ".join(parts)


ForecastForm = type("ForecastForm", (_ForecastForm,), _forecast_form_fields())


class OptionAddForm(forms.Form):
    kind = short.ChoiceField(
        choices=OptionKind.choices, error_messages={"invalid_choice": "Choose a kind of option (%(value)s?)."}
    )
    gpu_model = forms.ModelChoiceField(
        GpuModel.objects.all(),
        required=False,
        error_messages={"invalid_choice": "That GPU model no longer exists; choose another."},
    )


class PricePickerQueryForm(forms.Form):
    """What the price picker searches the Market for; its inputs' ids end with the option's id (``auto_id``)."""

    gpu = forms.CharField(required=False, label="GPU model", widget=forms.TextInput(attrs={"autocomplete": "off"}))
    provider = forms.CharField(required=False, label="Provider", widget=forms.TextInput(attrs={"autocomplete": "off"}))
    term = short.ChoiceField(choices=[("", "Any term"), *PricingTerm.choices], required=False, label="Term")


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

    months = short.TypedChoiceField(
        choices=TREND_WINDOWS,
        coerce=int,
        error_messages={"invalid_choice": "Choose a window of 3, 6, 12, 24 or 36 months."},
    )


class DiligenceForm(forms.Form):
    status = short.ChoiceField(
        choices=DiligenceStatus.choices,
        error_messages={"invalid_choice": "Choose a status (%(value)s is not one)."},
    )
    warranty_months = NumberText(integer=True)
    note = forms.CharField(required=False, max_length=2000)

    @property
    def message(self) -> str:
        labels = {"status": "Status", "warranty_months": "Warranty months", "note": "Note"}
        return " ".join(f"{labels[name]}: {' '.join(messages)}" for name, messages in self.errors.items())


class TrafficText(forms.CharField):
    """The traffic as typed, one bucket a line ("2.5, 1200, 350"), read into the stored [[2.5, 1200, 350]]."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 4}), **kwargs)

    def to_python(self, value: Any) -> list[list[float | int]]:
        try:
            return parse_traffic(super().to_python(value) or "")
        except ServingError as error:
            raise ValidationError(error.message, code="traffic") from None


def _serving_form_field(entry: ScenarioField) -> forms.Field:
    label = input_name(entry.label, entry.unit)  # the editor's words, which every message about it starts with
    help_text = entry.help + (f" Blank: {entry.default_text}." if entry.default_text else "")
    if entry.field == "serving_language_model":
        field: forms.Field = forms.ChoiceField(
            choices=(), error_messages={"required": "Choose a model to size.", "invalid_choice": "Choose a model."}
        )
    elif entry.value_type == "list":
        field = TrafficText()
    elif entry.value_type == "choice":
        field = forms.ChoiceField(choices=entry.choices)
    else:
        field = NumberText(percent=entry.is_percent, integer=entry.is_integer)
        if entry.check is not None:
            field.validators.append(functools.partial(_checked, entry=entry))
    field.label, field.help_text = label, help_text
    return field


def _checked(value: Any, *, entry: ScenarioField) -> None:
    if value is not None and entry.check is not None:
        _, message = check_number(value, entry.check)
        if message:
            raise ValidationError(message, code="out_of_range")


class _ServingForm(forms.Form):
    """The serving configuration sizing starts from, saved together: one field per catalogue entry of the "serving"
    scope, each refused at its field in the entry's words. The model is one of the model catalogue's names."""

    def __init__(self, *args: Any, model_names: list[str], read_only: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["serving_language_model"].choices = [("", "Choose a model…"), *((n, n) for n in model_names)]
        for field in self.fields.values():  # a reader sees the configuration in the same boxes, not editable
            field.disabled = read_only

    @classmethod
    def initial_from(cls, scenario: Any) -> dict[str, Any]:
        """The stored configuration as the form shows it."""
        initial = {}
        for entry in scenario_fields("serving"):
            value = getattr(scenario, entry.field)
            if entry.value_type == "list":
                value = traffic_text(value)
            elif entry.is_percent and value is not None:
                value = f"{(value * 100).normalize():f}%"
            elif value is not None and entry.value_type in ("number", "count"):
                value = f"{value.normalize():f}" if isinstance(value, Decimal) else str(value)
            initial[entry.field] = value
        return initial


ServingForm = type(
    "ServingForm", (_ServingForm,), {entry.field: _serving_form_field(entry) for entry in scenario_fields("serving")}
)
