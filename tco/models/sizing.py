"""A sizing of one version of a scenario's serving configuration: the tco-sizing/1 document and what came back."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tco.models.scenario import Scenario


class SizingRun(models.Model):
    """One ``tco.engine.size`` call, stored so the sizing page shows it without running the engine on a view and
    "apply to the scenario" writes exactly what the page showed. Sizing is sub-second, so the service runs it at
    once rather than as a job; the document is frozen with the result, so the two always belong together."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="sizing_runs")
    scenario_version = models.PositiveIntegerField(help_text="The scenario version this sizing was computed for.")
    document = models.JSONField(help_text="The tco-sizing/1 document sized.")
    result = models.JSONField(null=True, blank=True, help_text="The engine's tco-sizing-result/1.")
    problems = models.JSONField(default=list, blank=True, help_text="[{path, message}] when the engine refused.")
    gpus = models.JSONField(
        default=list, blank=True, help_text="Per GPU in the document's order: {gpu_model_id, price_source, rows}."
    )
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"sizing #{self.pk} of {self.scenario_id} v{self.scenario_version}"

    @property
    def done(self) -> bool:
        return self.result is not None
