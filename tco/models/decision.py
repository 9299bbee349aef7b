"""Decisions on a scenario: the brief (question, workload, seven questions), append-only decision records,
frozen snapshots and the links that show them to people without an account."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import models
from django.utils import timezone

from tco.models.scenario import Scenario

# The seven questions to answer before choosing cloud, neocloud, new or secondary hardware
# (background article 004), as (key, short label, the question asked, what a good answer covers).
BRIEF_QUESTIONS: tuple[tuple[str, str, str, str], ...] = (
    (
        "requirements",
        "Workload requirements",
        "What does the workload need?",
        "Model size and precision, GPU memory, latency target, throughput and concurrency.",
    ),
    (
        "utilization",
        "Expected utilization",
        "How much of the capacity will really be used?",
        "Normal and peak use over the next 12 to 36 months, and how sure we are.",
    ),
    (
        "data_location",
        "Data and workload location",
        "Where must the data and the workload run?",
        "Privacy, security, compliance, latency and geography constraints.",
    ),
    (
        "infrastructure",
        "Infrastructure readiness",
        "Can our infrastructure carry it?",
        "Power, cooling, rack space, storage and network capacity for dense GPU servers.",
    ),
    (
        "time_to_capacity",
        "Time to capacity",
        "How soon is the capacity needed?",
        "Cloud and neocloud availability against lead times for new or secondary hardware.",
    ),
    (
        "support",
        "Support ownership",
        "Who carries support and operational risk?",
        "Hardware failures, firmware, software, spare parts and service cover: whose job each is.",
    ),
    (
        "economics",
        "Full economics",
        "Does the whole cost picture hold up?",
        "GPU-hour price, capex, opex, utilization, support, power, network and residual value together.",
    ),
)
BRIEF_KEYS = tuple(key for key, _, _, _ in BRIEF_QUESTIONS)


class ImmutableRowError(RuntimeError):
    """A frozen row was about to be changed; frozen rows are only ever created (or deleted with their scenario)."""


class _FrozenQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Refuse every bulk change of a frozen row."""
        raise ImmutableRowError(f"{self.model.__name__} rows are immutable: create a new one instead of updating.")


class ScenarioBrief(models.Model):
    """What leadership reads before the numbers: the question, the workload in words, and the seven answers.

    A blank answer means the question is still open.
    """

    scenario = models.OneToOneField(Scenario, on_delete=models.CASCADE, related_name="brief")
    question = models.CharField(
        "decision question", max_length=300, blank=True, help_text="Blank: “Which option should we choose?”"
    )
    workload_brief = models.TextField("workload brief", blank=True)
    answer_requirements = models.TextField(blank=True)
    answer_utilization = models.TextField(blank=True)
    answer_data_location = models.TextField(blank=True)
    answer_infrastructure = models.TextField(blank=True)
    answer_time_to_capacity = models.TextField(blank=True)
    answer_support = models.TextField(blank=True)
    answer_economics = models.TextField(blank=True)
    # Optimistic locking of the brief alone: its text never changes the numbers, so it has its own version.
    version = models.PositiveIntegerField(default=1)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"brief of {self.scenario_id}"

    def answer(self, key: str) -> str:
        return getattr(self, f"answer_{key}")


class DecisionAction(models.TextChoices):
    DECIDED = "decided", "Decided"
    REOPENED = "reopened", "Re-opened"


class DecisionRecord(models.Model):
    """One step of a scenario's decision: decided (which option, why) or re-opened. Append-only."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="decision_records")
    action = models.CharField(max_length=10, choices=DecisionAction.choices)
    option_name = models.CharField(max_length=200, blank=True, help_text="The chosen option, as named then.")
    option_kind = models.CharField(max_length=20, blank=True)
    rationale = models.TextField(blank=True)
    scenario_version = models.PositiveIntegerField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    objects = _FrozenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["scenario", "-created_at", "-id"], name="decision_record_latest")]

    def __str__(self) -> str:
        return f"{self.get_action_display()} {self.option_name} ({self.scenario_id})"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ImmutableRowError("Decision records are append-only: record a new decision or re-open instead.")
        super().save(*args, **kwargs)


class DecisionSnapshot(models.Model):
    """Everything a decision link shows, frozen at creation as canonical JSON (sorted keys, no spaces).

    ``content`` is kept as text, not a JSON column, so the bytes hashed are the bytes served back forever.
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="decision_snapshots")
    content = models.TextField()
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the content, hex.")
    engine_version = models.CharField(max_length=20)
    scenario_version = models.PositiveIntegerField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    objects = _FrozenQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"snapshot {self.content_hash[:12]} of {self.scenario_id} v{self.scenario_version}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ImmutableRowError("Decision snapshots are immutable: create a new link for new numbers.")
        super().save(*args, **kwargs)

    @property
    def data(self) -> dict:
        cached = getattr(self, "_data", None)
        if cached is None:
            cached = self._data = json.loads(self.content)
        return cached


class DecisionLinkQuerySet(models.QuerySet):
    def live(self) -> DecisionLinkQuerySet:
        """Links that still open: neither revoked nor expired (``status`` says the same of one link)."""
        return self.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())


class DecisionLink(models.Model):
    """A secret URL to one snapshot. Only the SHA-256 of the token is stored; the token is shown once."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="decision_links")
    snapshot = models.OneToOneField(DecisionSnapshot, on_delete=models.CASCADE, related_name="link")
    token_hash = models.CharField(max_length=64, unique=True)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    open_count = models.PositiveIntegerField(default=0)
    last_opened_at = models.DateTimeField(null=True, blank=True)

    objects = DecisionLinkQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"link to {self.snapshot_id} (expires {self.expires_at:%Y-%m-%d})"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def status(self) -> str:
        if self.is_revoked:
            return "revoked"
        return "expired" if self.is_expired else "active"
