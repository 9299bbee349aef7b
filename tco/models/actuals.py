"""Actuals: imported bills and GPU use, and what a decided scenario keeps to hold them against its plan.

Imports are the organisation's, not one scenario's: a bill serves every decision whose mapping rules pick its
lines. Money is stored in the billing currency; it is converted into a scenario's currency only when compared,
through the dated exchange rates (docs/money-math.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from tco.models.decision import DecisionRecord
from tco.models.scenario import Scenario

MONEY = {"max_digits": 24, "decimal_places": 10}


class ActualsKind(models.TextChoices):
    FOCUS = "focus", "FOCUS billing export"
    OWNED = "owned", "Owned costs (invoices, energy)"
    DCGM = "dcgm", "DCGM exporter scrape"
    PROMETHEUS = "prometheus", "Prometheus query result"
    OPENCOST = "opencost", "OpenCost allocation response"


class ActualsImport(models.Model):
    """One imported file: its name, SHA-256 (the same bytes twice add nothing), what it held and what was wrong."""

    kind = models.CharField(max_length=12, choices=ActualsKind.choices)
    file_name = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64, unique=True)
    rows_read = models.PositiveBigIntegerField(default=0)
    lines_kept = models.PositiveIntegerField(default=0, help_text="Grouped billing lines or utilization samples.")
    problems = models.JSONField(default=list, blank=True)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    imported_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-imported_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.file_name}"


class BillingLine(models.Model):
    """The billed rows of one month, provider, service, SKU, resource, tags, charge category, currency and GPU.

    Owned costs (invoices, energy) are billing lines too: provider "Owned", service the kind of cost."""

    source = models.ForeignKey(ActualsImport, on_delete=models.CASCADE, related_name="billing_lines")
    month = models.CharField(max_length=7, help_text="YYYY-MM of ChargePeriodStart, in UTC.")
    provider = models.CharField(max_length=200)
    service = models.CharField(max_length=200, blank=True)
    sku = models.CharField(max_length=300, blank=True)
    resource = models.CharField(max_length=500, blank=True)
    tags = models.TextField(blank=True, help_text="The row's Tags as written (a JSON object).")
    charge_category = models.CharField(max_length=40, blank=True)
    currency = models.CharField(max_length=3)
    gpu_model = models.CharField(max_length=100, blank=True)
    gpus_per_instance = models.PositiveIntegerField(default=0)
    billed_cost = models.DecimalField(**MONEY)
    effective_cost = models.DecimalField(**MONEY)
    list_cost = models.DecimalField(**MONEY, default=0)
    gpu_hours = models.FloatField(default=0.0)
    row_count = models.PositiveIntegerField(default=1)

    class Meta:
        indexes = [models.Index(fields=["month", "provider", "service", "sku"], name="billing_line_month")]

    def __str__(self) -> str:
        return f"{self.month} {self.provider} {self.service} {self.sku}"


class UtilizationSample(models.Model):
    """Measured GPU use of one GPU (or allocation) in one month: busy GPU-hours out of the hours observed.

    ``provider`` names where it came from (DCGM, Prometheus, OpenCost) so mapping rules can pick it;
    ``resource`` is the host, node or instance; ``busy_gpu_hours`` is None when the source does not measure use
    (OpenCost allocates GPU-hours, it does not see them busy)."""

    source = models.ForeignKey(ActualsImport, on_delete=models.CASCADE, related_name="samples")
    month = models.CharField(max_length=7)
    provider = models.CharField(max_length=40)
    service = models.CharField(max_length=200, blank=True, help_text="Cluster or namespace, when the source says.")
    resource = models.CharField(max_length=500, blank=True)
    gpu = models.CharField(max_length=200, blank=True, help_text="The GPU's UUID or index.")
    gpu_model = models.CharField(max_length=100, blank=True)
    busy_gpu_hours = models.FloatField(null=True, blank=True)
    gpu_hours = models.FloatField(default=0.0, help_text="GPU-hours observed (or allocated).")
    cost = models.DecimalField(**MONEY, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)

    def __str__(self) -> str:
        return f"{self.month} {self.provider} {self.resource} {self.gpu}"


class ActualsPlan(models.Model):
    """What a decided scenario keeps to be held against actuals: the plan frozen when actuals were attached (the
    document and its result, so a later version of the scenario changes nothing here), the calendar month of plan
    month 1, how many months in a row below the break-even turn the verdict, and the verdict last worked out."""

    scenario = models.OneToOneField(Scenario, on_delete=models.CASCADE, related_name="actuals_plan")
    decision = models.ForeignKey(DecisionRecord, on_delete=models.PROTECT, related_name="+")
    start_month = models.CharField(max_length=7, help_text="The calendar month of the plan's month 1 (YYYY-MM).")
    months_in_a_row = models.PositiveSmallIntegerField(default=3)
    document = models.JSONField()
    result = models.JSONField()
    verdict_holds = models.BooleanField(default=True)
    verdict_since = models.CharField(max_length=7, blank=True)
    verdict_text = models.CharField(max_length=300, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    warned_since = models.CharField(
        max_length=7, blank=True, help_text="The turn the owner was e-mailed about (one e-mail per turn)."
    )
    warned_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"actuals of {self.scenario_id} from {self.start_month}"


class MappingRule(models.Model):
    """Lines matching every non-blank field go to ``option_name``; the first matching rule (by position) wins.

    ``tag`` is ``key=value`` (or a bare key) looked up in a billing line's Tags."""

    plan = models.ForeignKey(ActualsPlan, on_delete=models.CASCADE, related_name="rules")
    position = models.PositiveIntegerField(default=0)
    option_name = models.CharField(max_length=200)
    provider = models.CharField(max_length=200, blank=True)
    service = models.CharField(max_length=200, blank=True)
    sku = models.CharField(max_length=300, blank=True)
    resource = models.CharField(max_length=500, blank=True)
    tag = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"rule {self.position} -> {self.option_name}"
