"""Reference data (providers, GPU models, aliases) and imported prices (snapshots, observations).

Observations are append-only: a re-observed price on a new date is a new row, never an update.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ProviderKind(models.TextChoices):
    HYPERSCALER = "hyperscaler", "Hyperscaler"
    NEOCLOUD = "neocloud", "Neocloud"
    MARKETPLACE = "marketplace", "Marketplace"
    API = "api", "Model API"


class PricingTerm(models.TextChoices):
    ON_DEMAND = "on_demand", "On demand"
    SPOT = "spot", "Spot"
    RESERVED_1Y = "reserved_1y", "Reserved 1 year"
    RESERVED_3Y = "reserved_3y", "Reserved 3 years"
    COMMITTED = "committed", "Committed contract"


class FormFactor(models.TextChoices):
    SXM = "SXM", "SXM"
    PCIE = "PCIe", "PCIe"
    NVL = "NVL", "NVL"
    OTHER = "other", "Other"


class Provider(models.Model):
    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=ProviderKind.choices)
    website = models.URLField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class GpuModel(models.Model):
    """One chip in one form factor: H100 SXM, H100 PCIe and H100 NVL are three models."""

    name = models.CharField(max_length=60, unique=True)
    vendor = models.CharField(max_length=40, default="NVIDIA")
    memory_gb = models.PositiveIntegerField()
    memory_bandwidth_tb_per_s = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    tdp_watts = models.PositiveIntegerField(null=True, blank=True)
    form_factor = models.CharField(max_length=10, choices=FormFactor.choices, default=FormFactor.OTHER)
    typical_server_capex_per_gpu = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="Configured server price divided by its GPUs; an assumption to replace with a quote.",
    )

    class Meta:
        ordering = ["vendor", "name"]

    def __str__(self) -> str:
        return self.name


class GpuAlias(models.Model):
    """A name a price file may use for a GPU model; matched case- and separator-insensitively."""

    alias = models.CharField(max_length=80, unique=True)
    gpu_model = models.ForeignKey(GpuModel, on_delete=models.CASCADE, related_name="aliases")

    class Meta:
        ordering = ["alias"]
        verbose_name_plural = "GPU aliases"

    def __str__(self) -> str:
        return f"{self.alias} → {self.gpu_model}"


class SnapshotStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    IMPORTED = "imported", "Imported"
    DUPLICATE = "duplicate", "Already imported"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


class PriceSnapshot(models.Model):
    """One import of one file or URL: who, when, what it contained and what happened."""

    source = models.CharField(max_length=200, help_text="Where the file came from: upload, command, schedule name.")
    file_name = models.CharField(max_length=500, blank=True)
    url = models.URLField(max_length=1000, blank=True)
    format = models.CharField(max_length=20)
    provider_name = models.CharField(max_length=100, blank=True)
    sha256 = models.CharField(max_length=64, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, choices=SnapshotStatus.choices, default=SnapshotStatus.PENDING)
    rows_total = models.PositiveIntegerField(default=0)
    rows_imported = models.PositiveIntegerField(default=0)
    rows_skipped = models.PositiveIntegerField(default=0)
    rows_unchanged = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True)
    skipped = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.file_name or self.url} ({self.status})"


class PriceObservation(models.Model):
    snapshot = models.ForeignKey(PriceSnapshot, on_delete=models.PROTECT, related_name="observations")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="observations")
    offering = models.CharField(max_length=200)
    gpu_model = models.ForeignKey(GpuModel, on_delete=models.PROTECT, related_name="observations")
    gpus_per_instance = models.PositiveSmallIntegerField()
    region = models.CharField(max_length=100, blank=True)
    pricing_term = models.CharField(max_length=20, choices=PricingTerm.choices)
    observed_on = models.DateField()
    price_per_instance_hour = models.DecimalField(max_digits=14, decimal_places=6)
    price_per_gpu_hour = models.DecimalField(max_digits=14, decimal_places=6)
    currency = models.CharField(max_length=3, default="USD")
    source_url = models.URLField(max_length=1000, blank=True)

    class Meta:
        ordering = ["price_per_gpu_hour"]
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "provider",
                    "offering",
                    "gpu_model",
                    "gpus_per_instance",
                    "region",
                    "pricing_term",
                    "observed_on",
                ],
                name="price_observation_natural_key",
            ),
        ]
        indexes = [models.Index(fields=["gpu_model", "pricing_term", "observed_on"], name="price_obs_model_term_date")]

    def __str__(self) -> str:
        return f"{self.provider} {self.offering} {self.region} {self.pricing_term} {self.observed_on}"
