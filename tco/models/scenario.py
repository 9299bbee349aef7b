"""A scenario: fleet, horizon, forecast and workload; maps one-to-one to a tco-scenario/1 document."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from tco.engine.catalogue import SCENARIO_FIELD
from tco.forecast import Forecast
from tco.models.fields import scenario_model_field

SCHEMA = "tco-scenario/1"

# The forecast kinds and their labels are the catalogue's; members: ForecastKind.FLAT, ...
ForecastKind = models.TextChoices(
    "ForecastKind", [(value.upper(), (value, label)) for value, label in SCENARIO_FIELD["forecast_kind"].choices]
)


def _label(name: str) -> str:
    return SCENARIO_FIELD[name].label


class Scenario(models.Model):
    # The catalogued inputs (tco.engine.catalogue.SCENARIO_FIELDS): labels, help texts and defaults come from there.
    name = models.CharField(_label("name"), max_length=200)
    currency = models.CharField(
        _label("currency"),
        max_length=3,
        blank=True,
        default=SCENARIO_FIELD["currency"].initial,
        help_text=SCENARIO_FIELD["currency"].help,
    )
    horizon_months = scenario_model_field("horizon_months")
    discount_rate = scenario_model_field("discount_rate")
    fleet_gpus = scenario_model_field("fleet_gpus")
    burst_price_per_gpu_hour = scenario_model_field("burst_price_per_gpu_hour")
    # Finance depth: after tax, the cost of debt a lease is compared at, what happens to hardware past its life.
    tax_rate = scenario_model_field("tax_rate")
    cost_of_debt = scenario_model_field("cost_of_debt")
    refresh_policy = scenario_model_field("refresh_policy")

    workload_tokens_per_second_per_gpu = scenario_model_field("workload_tokens_per_second_per_gpu")
    workload_output_tokens_per_response = scenario_model_field("workload_output_tokens_per_response")
    workload_input_tokens_per_response = scenario_model_field("workload_input_tokens_per_response")
    workload_acceptance_rate = scenario_model_field("workload_acceptance_rate")

    # The training plan (docs/money-math.md "Training runs"): none when every field is blank.
    training_runs_per_year = scenario_model_field("training_runs_per_year")
    training_gpu_hours = scenario_model_field("training_gpu_hours")
    training_params_billion = scenario_model_field("training_params_billion")
    training_tokens_billion = scenario_model_field("training_tokens_billion")
    training_mfu = scenario_model_field("training_mfu")
    training_peak_tflops = scenario_model_field("training_peak_tflops")
    training_cluster_gpus = scenario_model_field("training_cluster_gpus")
    training_interruptions_per_million_gpu_hours = scenario_model_field("training_interruptions_per_million_gpu_hours")
    training_checkpoint_interval_hours = scenario_model_field("training_checkpoint_interval_hours")
    training_restart_hours = scenario_model_field("training_restart_hours")
    training_success_rate = scenario_model_field("training_success_rate")
    training_other_cost_per_run = scenario_model_field("training_other_cost_per_run")

    # The utilization forecast: a kind plus its parameters (tco.forecast.Forecast); expanded into the document's list.
    forecast_kind = scenario_model_field("forecast_kind")
    forecast_flat_utilization = scenario_model_field("forecast_flat_utilization")
    forecast_ramp_from_utilization = scenario_model_field("forecast_ramp_from_utilization")
    forecast_ramp_to_utilization = scenario_model_field("forecast_ramp_to_utilization")
    forecast_seasonal_base_utilization = scenario_model_field("forecast_seasonal_base_utilization")
    forecast_seasonal_amplitude = scenario_model_field("forecast_seasonal_amplitude")
    forecast_seasonal_peak_month = scenario_model_field("forecast_seasonal_peak_month")
    forecast_pasted_utilization = models.JSONField(
        _label("forecast_pasted_utilization"),
        default=list,
        blank=True,
        help_text=SCENARIO_FIELD["forecast_pasted_utilization"].help,
    )

    # The serving configuration sizing starts from (tco.services.sizing): not part of the document; sizing writes
    # its answer (fleet, GPU counts, throughput) into the inputs above and the options.
    serving_language_model = scenario_model_field("serving_language_model")
    serving_weight_bits = scenario_model_field("serving_weight_bits")
    serving_kv_bits = scenario_model_field("serving_kv_bits")
    serving_context_tokens = scenario_model_field("serving_context_tokens")
    serving_traffic = scenario_model_field("serving_traffic")
    serving_ttft_ms = scenario_model_field("serving_ttft_ms")
    serving_tpot_ms = scenario_model_field("serving_tpot_ms")
    serving_statistic = scenario_model_field("serving_statistic")
    serving_headroom = scenario_model_field("serving_headroom")
    # What the last "apply to the scenario" wrote and from which measured rows (tco.services.sizing): provenance, like
    # an option's price_source, shown beside the figures it set; emptied when one of them is typed over.
    sizing_applied = models.JSONField(
        "sizing applied",
        null=True,
        blank=True,
        help_text="{run, at, gpu, fleet_gpus, tokens_per_second_per_gpu, rows}.",
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
        return self.currency or SCENARIO_FIELD["currency"].default_text

    @property
    def forecast(self) -> Forecast:
        """The stored forecast as one value object (kind and parameters)."""
        return Forecast.from_model(self)

    def utilization_values(self) -> list[float]:
        """The forecast as the document's `utilization` list (1 value or one per month)."""
        return self.forecast.expand(self.horizon_months)
