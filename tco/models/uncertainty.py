"""Decisions under uncertainty: input ranges kept per scenario, and the simulation runs.

A range belongs to one catalogued numeric input: a scenario input (``utilization``, ``discount_rate``,
``burst_price_per_gpu_hour``, ``workload.<field>``) when ``option`` is null, else an option field. Its
document path (``options[1].price_per_gpu_hour``) follows the option's place in the scenario, so
deleting an option deletes its ranges and never shifts another option's.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from simple_history.models import HistoricalRecords

from lib.jobs import Job, soft_time_limit, status_field
from tco.models.fields import decimal_field
from tco.models.option import ScenarioOption
from tco.models.scenario import Scenario


class InputRange(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="input_ranges")
    option = models.ForeignKey(ScenarioOption, null=True, blank=True, on_delete=models.CASCADE, related_name="ranges")
    field = models.CharField(max_length=60, help_text="The input: an option field, or a scenario path.")
    low = decimal_field("low", required=True)
    likely = decimal_field("likely", required=True)
    high = decimal_field("high", required=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["scenario", "field"], condition=models.Q(option__isnull=True), name="range_once_per_input"
            ),
            models.UniqueConstraint(
                fields=["option", "field"], condition=models.Q(option__isnull=False), name="range_once_per_option_input"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.field}: {self.low} / {self.likely} / {self.high}"


class UncertaintyStatus(models.TextChoices):
    PENDING = "pending", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class UncertaintyRun(Job):
    """Simulation, tornado and fleet plan of one version of a scenario: a job (lib.jobs) that ends done, failed
    or cancelled. ``progress`` (0-1) is written by the job as it goes, ``cancel_requested`` is read by it between
    batches. The inputs (document, ranges, load profile) are frozen at queue time so the result always belongs to
    them.
    """

    task_name = "tco.tasks.scenario_simulate"
    noun = "simulation"
    kept = "Your ranges are saved; run it again."
    requeue_fields = {"progress": 0.0, "stage": ""}

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="uncertainty_runs")
    scenario_version = models.PositiveIntegerField()
    status = status_field(UncertaintyStatus)
    progress = models.FloatField(default=0.0)
    stage = models.CharField(max_length=40, blank=True)
    cancel_requested = models.BooleanField(default=False)
    document = models.JSONField(help_text="The tco-scenario/1 document.")
    uncertainty = models.JSONField(default=dict, help_text="{path: {low, likely, high}}.")
    trials = models.PositiveIntegerField(default=20000)
    seed = models.PositiveIntegerField(default=0)
    load_profile = models.JSONField(default=list, blank=True, help_text="GPUs busy per hour.")
    load_profile_source = models.CharField(max_length=200, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="{simulation, tornado, fleet_plan}.")
    figures = models.JSONField(null=True, blank=True)
    problems = models.JSONField(default=list, blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["scenario", "status", "-id"], name="uncertainty_run_latest")]

    @classmethod
    def over_time_message(cls) -> str:
        limit = soft_time_limit(cls.task_name)
        return (
            f"The simulation took longer than its {limit} s limit and was stopped. "
            "Your ranges are saved; try fewer trials."
        )

    def __str__(self) -> str:
        return f"uncertainty run #{self.pk} of {self.scenario_id} v{self.scenario_version} ({self.status})"

    @property
    def percent(self) -> int:
        return round(self.progress * 100)
