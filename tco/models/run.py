"""An evaluation of one version of a scenario: the document sent to the engine and what came back."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from tco.models.scenario import Scenario


class RunStatus(models.TextChoices):
    PENDING = "pending", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class ScenarioRun(models.Model):
    """Status pending → running → done/failed. The document is frozen at queue time, so a run's
    document, result and figures always belong together (decision links copy them)."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    scenario_version = models.PositiveIntegerField(help_text="The scenario version this run was computed for.")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING)
    document = models.JSONField(help_text="The tco-scenario/1 document evaluated.")
    result = models.JSONField(null=True, blank=True, help_text="The engine's tco-result/1.")
    figures = models.JSONField(null=True, blank=True, help_text="Plotly figure dicts keyed by chart name.")
    problems = models.JSONField(default=list, blank=True, help_text="[{path, message}] when the engine refused.")
    error = models.TextField(blank=True)
    engine_version = models.CharField(max_length=20, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its job was last handed to the workers; empty: the broker could not be reached.",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["scenario", "status", "-id"], name="scenario_run_latest")]

    def __str__(self) -> str:
        return f"run #{self.pk} of {self.scenario_id} v{self.scenario_version} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in (RunStatus.DONE, RunStatus.FAILED)

    @property
    def is_delayed(self) -> bool:
        """Pending with no worker on it: its job could not be sent, or was sent long ago and may have been lost."""
        from config.jobs import resend_before

        return self.status == RunStatus.PENDING and (self.sent_at is None or self.sent_at < resend_before())

    @property
    def is_stuck(self) -> bool:
        """Running past its hard time limit: its worker died (the sweeper fails it)."""
        from config.jobs import stuck_before

        started = self.started_at
        return (
            self.status == RunStatus.RUNNING
            and started is not None
            and started < stuck_before("tco.tasks.scenario_evaluate", timezone.now())
        )
