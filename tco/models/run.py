"""An evaluation of one version of a scenario: the document sent to the engine and what came back."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from lib.jobs import Job, JobStatus
from tco.models.scenario import Scenario

RunStatus = JobStatus  # an evaluation ends done or failed: exactly the job states


class ScenarioRun(Job):
    """An evaluation job (lib.jobs). The document is frozen at queue time, so a run's document, result and
    figures always belong together (decision links copy them)."""

    task_name = "tco.tasks.scenario_evaluate"
    noun = "evaluation"
    kept = "Your inputs are saved; change a value to compute again."

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    scenario_version = models.PositiveIntegerField(help_text="The scenario version this run was computed for.")
    document = models.JSONField(help_text="The tco-scenario/1 document evaluated.")
    result = models.JSONField(null=True, blank=True, help_text="The engine's tco-result/1.")
    figures = models.JSONField(null=True, blank=True, help_text="Plotly figure dicts keyed by chart name.")
    problems = models.JSONField(default=list, blank=True, help_text="[{path, message}] when the engine refused.")
    engine_version = models.CharField(max_length=20, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["scenario", "status", "-id"], name="scenario_run_latest")]

    def __str__(self) -> str:
        return f"run #{self.pk} of {self.scenario_id} v{self.scenario_version} ({self.status})"
