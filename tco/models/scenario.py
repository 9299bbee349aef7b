"""A scenario: fleet, horizon, forecast and workload; maps one-to-one to a tco-scenario/1 document."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from tco.forecast import Forecast
from tco.models.fields import decimal_field

SCHEMA = "tco-scenario/1"

# Workload fields live on the scenario as workload_<key>; the document nests them under "workload".
WORKLOAD_KEYS = (
    "tokens_per_second_per_gpu",
    "output_tokens_per_response",
    "input_tokens_per_response",
    "acceptance_rate",
)


# The scenario's own inputs the editor may change, by stored type (the forecast has its own form).
SCENARIO_TEXT_FIELDS = frozenset({"name", "currency"})
SCENARIO_INTEGER_FIELDS = frozenset({"horizon_months", "fleet_gpus"})
SCENARIO_DECIMAL_FIELDS = frozenset(
    {
        "discount_rate",
        "burst_price_per_gpu_hour",
        *(f"workload_{key}" for key in WORKLOAD_KEYS),
    }
)
SCENARIO_EDITABLE_FIELDS = SCENARIO_TEXT_FIELDS | SCENARIO_INTEGER_FIELDS | SCENARIO_DECIMAL_FIELDS
REQUIRED_SCENARIO_FIELDS = frozenset({"name", "horizon_months", "fleet_gpus", "discount_rate"})


class ForecastKind(models.TextChoices):
    FLAT = "flat", "Flat"
    RAMP = "ramp", "Linear ramp"
    SEASONAL = "seasonal", "Seasonal"
    PASTED = "pasted", "Pasted from a spreadsheet"


class Scenario(models.Model):
    name = models.CharField(max_length=200)
    currency = models.CharField(
        max_length=3, blank=True, default="USD", help_text="ISO code; blank means the engine default (USD)."
    )
    horizon_months = models.PositiveSmallIntegerField("horizon (months)", default=36)
    discount_rate = decimal_field("discount rate (per year)", required=True)
    fleet_gpus = models.PositiveIntegerField("fleet (GPUs)", default=8)
    burst_price_per_gpu_hour = decimal_field(
        "burst price (per GPU-hour)", help_text="Paid for demand above owned capacity or a commitment."
    )

    workload_tokens_per_second_per_gpu = decimal_field("output tokens per second per GPU")
    workload_output_tokens_per_response = decimal_field("output tokens per response")
    workload_input_tokens_per_response = decimal_field("input tokens per response")
    workload_acceptance_rate = decimal_field("acceptance rate", help_text="Accepted responses ÷ attempted, 0-1.")

    # The utilization forecast: a kind plus its parameters (tco.forecast.Forecast); expanded into the document's list.
    forecast_kind = models.CharField(max_length=10, choices=ForecastKind.choices, default=ForecastKind.FLAT)
    forecast_flat_utilization = decimal_field("utilization")
    forecast_ramp_from_utilization = decimal_field("ramp from")
    forecast_ramp_to_utilization = decimal_field("ramp to")
    forecast_seasonal_base_utilization = decimal_field("seasonal base")
    forecast_seasonal_amplitude = decimal_field("seasonal amplitude")
    forecast_seasonal_peak_month = models.PositiveSmallIntegerField(
        "peak month", null=True, blank=True, help_text="1-12, counted from the first month of the horizon."
    )
    forecast_pasted_utilization = models.JSONField(
        "pasted utilization", default=list, blank=True, help_text="Fractions 0-1, one per month (or one value)."
    )

    # Every change of currency, newest last (tco.services.currency): a conversion names its rate, date and source.
    # Not part of the document: it is the provenance of the money inputs, shown in history, links and workbooks.
    currency_conversions = models.JSONField(
        "currency conversion", default=list, blank=True, help_text="[{from, to, mode, rate, rate_date, source, at}]."
    )

    # Optimistic locking: every change to the scenario or its options bumps it; a save carrying
    # an older version is refused.
    version = models.PositiveIntegerField(default=1)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="scenarios"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def currency_code(self) -> str:
        return self.currency or "USD"

    @property
    def forecast(self) -> Forecast:
        """The stored forecast as one value object (kind and parameters)."""
        return Forecast.from_model(self)

    def utilization_values(self) -> list[float]:
        """The forecast as the document's `utilization` list (1 value or one per month)."""
        return self.forecast.expand(self.horizon_months)

    def to_document(self, options: list | None = None) -> dict:
        """The tco-scenario/1 document; omitted (null) inputs are left out for the engine's defaults."""
        from tco.documents import scenario_to_document

        return scenario_to_document(self, list(self.options.all()) if options is None else options)
