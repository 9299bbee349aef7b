"""Reference data (providers, GPU models, aliases) and imported prices (snapshots, observations).

Observations are append-only: a re-observed price on a new date is a new row, never an update.
An observation belongs to the snapshot that first recorded it; which observations each snapshot's file
contained (new or already known) is recorded separately, in SnapshotObservation.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from lib.currencies import DEFAULT_CURRENCY, currency_problem
from lib.jobs import Job, status_field
from lib.kinds import API_KINDS, RENTAL_KINDS, kind_choices
from lib.terms import PRICING_TERM_LABELS
from pricing.fetch import FetchError, check_url, check_within, is_catalog_tree
from pricing.importers import registry
from pricing.importers import throughput as throughput_formats
from pricing.names import normalise_name

# A provider sells rentals or a managed model API; the kinds and their labels are defined once in lib.kinds.
ProviderKind = models.TextChoices(
    "ProviderKind", [(kind.upper(), (kind, label)) for kind, label in kind_choices((*RENTAL_KINDS, *API_KINDS))]
)


# The terms and their labels are defined once (lib.terms); members: PricingTerm.ON_DEMAND, ...
PricingTerm = models.TextChoices(
    "PricingTerm", [(term.upper(), (term, label)) for term, label in PRICING_TERM_LABELS.items()]
)


def pricing_term_words(term: str | None) -> str:
    """A stored pricing term in words, as a sentence reads it ("on demand", "reserved 1 year"); "" for none."""
    if not term:
        return ""
    return PricingTerm(term).label.lower() if term in PricingTerm.values else term.replace("_", " ")


class FormFactor(models.TextChoices):
    SXM = "SXM", "SXM"
    PCIE = "PCIe", "PCIe"
    NVL = "NVL", "NVL"
    OTHER = "other", "Other"


class _ByNameManager(models.Manager):
    """Natural keys by name, so reference fixtures need no primary keys."""

    def get_by_natural_key(self, name: str):
        return self.get(name=name)


class _AliasManager(models.Manager):
    def get_by_natural_key(self, alias: str):
        return self.get(alias=alias)


class Provider(models.Model):
    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=ProviderKind.choices)
    website = models.URLField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)  # part of pricing.selectors.market_revision

    objects = _ByNameManager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.name,)


class _Alias(models.Model):
    """Another name of a row of ``target`` (a provider, a GPU model) that a price file may use: matched case- and
    separator-insensitively, so it may not mean what another alias already means."""

    target: str  # the foreign key naming what the alias means

    objects = _AliasManager()

    class Meta:
        abstract = True
        ordering = ["alias"]

    def __str__(self) -> str:
        return f"{self.alias} → {getattr(self, self.target)}"

    def natural_key(self) -> tuple[str]:
        return (self.alias,)

    def _meant(self, row: _Alias) -> int:
        return getattr(row, f"{self.target}_id")

    def clean(self) -> None:
        key = normalise_name(self.alias)
        if not key:
            raise ValidationError({"alias": "An alias needs at least one letter or digit."})
        self.clean_against_names(key)
        for other in type(self).objects.exclude(pk=self.pk).select_related(self.target):
            if normalise_name(other.alias) == key and self._meant(other) != self._meant(self):
                means = getattr(other, self.target)
                raise ValidationError(
                    {"alias": f"{self.alias!r} matches the alias {other.alias!r}, which means {means}."}
                )

    def clean_against_names(self, key: str) -> None:
        """Refuse an alias that is another row's own name (where names are matched as aliases are)."""


class ProviderAlias(_Alias):
    alias = models.CharField(max_length=100, unique=True)
    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="aliases")

    target = "provider"

    class Meta(_Alias.Meta):
        verbose_name_plural = "provider aliases"

    def natural_key(self) -> tuple[str]:
        return super().natural_key()

    natural_key.dependencies = ["pricing.provider"]

    def clean_against_names(self, key: str) -> None:
        for name, provider_id in Provider.objects.values_list("name", "id"):
            if normalise_name(name) == key and provider_id != self.provider_id:
                raise ValidationError({"alias": f"{self.alias!r} is the name of the provider {name}."})


def _peak_tflops_field(*, help_text: str) -> models.DecimalField:
    """A GPU's peak dense tensor TFLOPs at one precision: blank where unknown or the GPU lacks the precision."""
    return models.DecimalField(
        max_digits=9,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text=help_text,
    )


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
    memory_gib = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text="The memory a runtime sees on one GPU, in GiB (2^30 bytes): what CUDA or ROCm reports as the "
        "total (vLLM prints it at start-up), less than the datasheet's figure because the driver and ECC keep a "
        "share. An 80 GB H100 shows 79.18 GiB (measured with vLLM, llm-d benchmark); where no measurement is "
        "recorded, the datasheet's GB times 79.18/80, the share an H100 leaves. Sizing divides this memory.",
    )
    peak_dense_tflops_fp16 = _peak_tflops_field(
        help_text="Peak dense (not 2:4 sparse) tensor TFLOPs at 16 bits (BF16, or FP16 where the GPU has no BF16), "
        "from the vendor's datasheet; half the sparse figure a datasheet marks with an asterisk. Blank: unknown.",
    )
    peak_dense_tflops_fp8 = _peak_tflops_field(
        help_text="Peak dense tensor TFLOPs at FP8, from the datasheet. Blank: the GPU has no FP8 tensor cores.",
    )
    peak_dense_tflops_fp4 = _peak_tflops_field(
        help_text="Peak dense tensor TFLOPs at FP4, from the datasheet. Blank: the GPU has no FP4 tensor cores.",
    )
    gpus_per_node = models.PositiveSmallIntegerField(
        default=8,
        validators=[MinValueValidator(1)],
        help_text="GPUs in one server (8 in an HGX or OAM board; 4 in a GB200/GB300 compute tray): the largest "
        "tensor-parallel group that stays inside one machine.",
    )
    spec_source = models.CharField(
        max_length=500,
        blank=True,
        help_text="Where the memory, TFLOPs and power come from: the vendor's datasheet or whitepaper (address).",
    )
    updated_at = models.DateTimeField(auto_now=True)  # part of pricing.selectors.market_revision

    objects = _ByNameManager()

    class Meta:
        ordering = ["vendor", "name"]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.name,)


class GpuAlias(_Alias):
    alias = models.CharField(max_length=80, unique=True)
    gpu_model = models.ForeignKey(GpuModel, on_delete=models.CASCADE, related_name="aliases")

    target = "gpu_model"

    class Meta(_Alias.Meta):
        verbose_name_plural = "GPU aliases"

    def natural_key(self) -> tuple[str]:
        return super().natural_key()

    natural_key.dependencies = ["pricing.gpumodel"]


class SnapshotStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    IMPORTED = "imported", "Imported"
    DUPLICATE = "duplicate", "Already imported"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


# What became of a file's rows, in words: each row is counted once under one of these (together: the file's rows).
# Only SkyPilot-style catalogs fold zones or hold rows back, so those counts are said only when they are not zero.
ROW_COUNTS = (
    ("rows_imported", "new"),
    ("rows_unchanged", "already known"),
    ("rows_skipped", "skipped"),
    ("rows_merged", "merged"),
    ("rows_held_back", "held back"),
)
OPTIONAL_COUNTS = ("rows_merged", "rows_held_back")


class SnapshotOrigin(models.TextChoices):
    UPLOAD = "upload", "Upload"
    COMMAND = "command", "Command"
    SCHEDULE = "schedule", "Schedule"
    SEED = "seed", "Demo data"


IMPORT_FORMAT_CHOICES = registry.format_choices()

# A price is either a GPU rental's (a GPU model, its count, both hourly prices) or a model API's (no GPU, input and
# output prices per million tokens; the cached-input price is optional).
GPU_OR_TOKEN_PRICE = models.Q(
    gpu_model__isnull=False,
    gpus_per_instance__isnull=False,
    price_per_instance_hour__isnull=False,
    price_per_gpu_hour__isnull=False,
    price_per_million_input_tokens__isnull=True,
    price_per_million_output_tokens__isnull=True,
    price_per_million_cached_input_tokens__isnull=True,
) | models.Q(
    gpu_model__isnull=True,
    gpus_per_instance__isnull=True,
    price_per_instance_hour__isnull=True,
    price_per_gpu_hour__isnull=True,
    price_per_million_input_tokens__isnull=False,
    price_per_million_output_tokens__isnull=False,
)


class PriceSnapshot(Job):
    """One import of one file or URL: who, when, what it contained and what happened. An upload's import is a
    job (lib.jobs) on the imports queue; a command's, a schedule's or the demo data's runs in its own process."""

    task_name = "pricing.tasks.import_snapshot"
    noun = "import"
    kept = "Nothing from this file was imported; import it again."

    source = models.CharField(max_length=200, help_text="Where the file came from: upload, command, schedule name.")
    file_name = models.CharField(max_length=500, blank=True)
    url = models.URLField(max_length=1000, blank=True)
    format = models.CharField(max_length=20)
    provider_name = models.CharField(max_length=100, blank=True)
    sha256 = models.CharField(max_length=64, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    status = status_field(SnapshotStatus)
    error = None  # a failure is listed with the file's errors, as its reason
    rows_total = models.PositiveIntegerField(default=0)
    rows_imported = models.PositiveIntegerField(default=0)
    rows_skipped = models.PositiveIntegerField(default=0)
    rows_unchanged = models.PositiveIntegerField(default=0)
    rows_merged = models.PositiveIntegerField(
        default=0, help_text="Rows folded into another row's observation (zones of a region with one price)."
    )
    rows_held_back = models.PositiveIntegerField(
        default=0, help_text="Rows naming a GPU or provider to map first (third-party catalogs only)."
    )
    prices_new = models.PositiveIntegerField(default=0, help_text="Observations stored by this import.")
    prices_known = models.PositiveIntegerField(default=0, help_text="Observations of the file already stored.")
    errors = models.JSONField(default=list, blank=True)
    error_count = models.PositiveIntegerField(default=0, help_text="Errors found; at most the first 100 are kept.")
    skipped = models.JSONField(default=list, blank=True)
    merged = models.JSONField(default=list, blank=True)
    held_back = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(
        default=list, blank=True, help_text="Prices imported as the file gives them that look wrong, with why."
    )
    providers_created = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=20, choices=SnapshotOrigin.choices, default=SnapshotOrigin.COMMAND)
    default_observed_on = models.DateField(
        null=True, blank=True, help_text="Used for rows without a date of their own (SkyPilot files have none)."
    )
    processed_by = models.CharField(max_length=200, blank=True, help_text="Host and process that ran the import.")
    contents_recorded = models.BooleanField(
        default=True,
        help_text="False for an import made before each snapshot recorded every row of its file: "
        "only the rows it stored first are known, not those it shared with earlier imports.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.file_name or self.url} ({self.status})"

    @classmethod
    def failure_fields(cls, message: str) -> dict:
        return {"errors": [{"line": 0, "column": "", "value": "", "reason": message}]}

    @property
    def summary(self) -> str:
        if self.status == SnapshotStatus.REJECTED:
            return f"Rejected: {max(self.error_count, len(self.errors)):,} error(s); nothing was imported."
        if self.status == SnapshotStatus.FAILED:
            return "Failed: " + "; ".join(str(e.get("reason", "")) for e in self.errors[:3])
        if self.status in (SnapshotStatus.PENDING, SnapshotStatus.RUNNING):
            return f"{self.get_status_display()}…"
        parts = [f"{count} {words}" for words, count in self.row_counts]
        text = f"{', '.join(parts)} (of {self.rows_total} rows)"
        if (self.prices_new, self.prices_known) != (self.rows_imported, self.rows_unchanged):
            text += f"; prices: {self.prices_new} new, {self.prices_known} already known"
        if self.providers_created:
            text += f"; providers added: {', '.join(self.providers_created)}"
        if self.rows_held_back:
            text = f"{self.status_text}: {text}"
        return text

    @property
    def row_counts(self) -> tuple[tuple[str, int], ...]:
        """(what became of the rows, how many), in ``ROW_COUNTS`` order, the optional ones only when not zero."""
        return tuple(
            (words, getattr(self, field))
            for field, words in ROW_COUNTS
            if getattr(self, field) or field not in OPTIONAL_COUNTS
        )

    @property
    def status_text(self) -> str:
        """The status in words, said once: "Imported with 3 rows held back" when some were."""
        if self.status == SnapshotStatus.IMPORTED and self.rows_held_back:
            return f"Imported with {self.rows_held_back} rows held back"
        return self.get_status_display()


class PriceImportFile(models.Model):
    """The uploaded bytes, kept in the database so a worker on another machine can read them."""

    snapshot = models.OneToOneField(PriceSnapshot, on_delete=models.CASCADE, related_name="import_file")
    content = models.BinaryField()
    size_bytes = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"file of snapshot #{self.snapshot_id} ({self.size_bytes} bytes)"


class PriceObservation(models.Model):
    """One price of one offering on one day: a GPU rental per hour (a GPU model, its count and hourly prices), or a
    managed model API per token (no GPU: prices in $ per million input, output and cached-input tokens)."""

    snapshot = models.ForeignKey(PriceSnapshot, on_delete=models.PROTECT, related_name="observations")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="observations")
    offering = models.CharField(max_length=200)
    gpu_model = models.ForeignKey(
        GpuModel, null=True, blank=True, on_delete=models.PROTECT, related_name="observations"
    )
    gpus_per_instance = models.PositiveSmallIntegerField(null=True, blank=True)
    region = models.CharField(max_length=100, blank=True)
    pricing_term = models.CharField(max_length=20, choices=PricingTerm.choices)
    observed_on = models.DateField()
    feed = models.CharField(
        max_length=20,
        blank=True,
        default="",
        db_default="",
        help_text="The price feed (the import format) that published this price: two feeds may price one offering "
        "differently on one day (LiteLLM's openrouter/* entries and OpenRouter's own file), and both are kept.",
    )
    channel = models.ForeignKey(
        Provider,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="resold_observations",
        help_text="The aggregator this offer was listed through; blank when the provider sells it directly.",
    )
    price_per_instance_hour = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    price_per_gpu_hour = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    upfront_fee = models.DecimalField(
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="A reservation's one-off fee for the whole instance, already spread over the term's hours in the "
        "prices above (AWS's Partial and All Upfront terms); blank when there is none.",
    )
    price_per_million_input_tokens = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    price_per_million_output_tokens = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    price_per_million_cached_input_tokens = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=3, default=DEFAULT_CURRENCY)
    source_url = models.URLField(max_length=1000, blank=True)

    class Meta:
        ordering = ["price_per_gpu_hour"]
        constraints = [
            # Two keys, because a NULL is never equal to another in a unique index (SQLite and PostgreSQL).
            models.UniqueConstraint(
                fields=[
                    "provider",
                    "offering",
                    "gpu_model",
                    "gpus_per_instance",
                    "region",
                    "pricing_term",
                    "observed_on",
                    "feed",
                ],
                condition=models.Q(gpu_model__isnull=False),
                name="price_observation_natural_key",
            ),
            models.UniqueConstraint(
                fields=["provider", "offering", "region", "pricing_term", "observed_on", "feed"],
                condition=models.Q(gpu_model__isnull=True),
                name="price_observation_api_key",
            ),
            models.CheckConstraint(condition=GPU_OR_TOKEN_PRICE, name="price_observation_gpu_or_token_price"),
        ]
        indexes = [models.Index(fields=["gpu_model", "pricing_term", "observed_on"], name="price_obs_model_term_date")]

    def __str__(self) -> str:
        return f"{self.provider} {self.offering} {self.region} {self.pricing_term} {self.observed_on}"

    @property
    def is_per_token(self) -> bool:
        return self.gpu_model_id is None

    @property
    def feed_name(self) -> str:
        """The feed this price came from, in words: "LiteLLM", "OpenRouter"."""
        return registry.feed_name(self.feed)


class CurrentPrice(models.Model):
    """The latest observation of one offering as one feed prices it (an observation's natural key without its
    date; two feeds pricing one offering are two rows, each said with its feed): what the Market,
    the price picker and the newer-price notices read, one row per offering however many dates were imported.

    Derived from the observations and kept by every import in the transaction that stores them
    (``pricing.services.current_prices_record``): the newest ``observed_on`` wins (an older catalog imported
    after a newer one changes nothing), ties by observation id. The columns the Market filters, orders, counts and
    charts by are copied from the observation, so it reads this table and joins the observations of one page."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="+", db_index=False)
    offering = models.CharField(max_length=200)
    gpu_model = models.ForeignKey(
        GpuModel, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    gpus_per_instance = models.PositiveSmallIntegerField(null=True, blank=True)
    region = models.CharField(max_length=100, blank=True)
    pricing_term = models.CharField(max_length=20, choices=PricingTerm.choices)
    feed = models.CharField(
        max_length=20, blank=True, default="", db_default="", help_text="As the observation's: one per feed."
    )
    observation = models.OneToOneField(PriceObservation, on_delete=models.CASCADE, related_name="current")
    observed_on = models.DateField()
    price_per_gpu_hour = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    price_per_million_input_tokens = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    price_per_million_output_tokens = models.DecimalField(max_digits=14, decimal_places=6, null=True, blank=True)
    currency = models.CharField(max_length=3)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "offering", "gpu_model", "gpus_per_instance", "region", "pricing_term", "feed"],
                condition=models.Q(gpu_model__isnull=False),
                name="current_price_offering",
            ),
            models.UniqueConstraint(
                fields=["provider", "offering", "region", "pricing_term", "feed"],
                condition=models.Q(gpu_model__isnull=True),
                name="current_price_api_offering",
            ),
        ]
        indexes = [
            models.Index(fields=["price_per_gpu_hour"], name="current_price_price"),
            models.Index(fields=["gpu_model", "pricing_term", "price_per_gpu_hour"], name="current_price_model_term"),
        ]

    def __str__(self) -> str:
        return f"{self.provider_id} {self.offering} {self.region} {self.pricing_term}: {self.observed_on}"


class UnmappedName(models.Model):
    """A GPU or provider name third-party catalogs use that no alias maps yet; its rows were held back.

    Kept up to date by every import: the count is that of the latest import naming it, and the entry goes
    away once an alias makes the name known (import the file again to pick its rows up)."""

    class Kind(models.TextChoices):
        GPU = "gpu", "GPU model"
        PROVIDER = "provider", "Provider"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=200)
    rows = models.PositiveIntegerField(help_text="Rows held back in the latest import naming it.")
    snapshot = models.ForeignKey(PriceSnapshot, on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-rows", "name"]
        constraints = [models.UniqueConstraint(fields=["kind", "name"], name="unmapped_name_unique")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name!r}: {self.rows} rows held back"


class SnapshotObservation(models.Model):
    """One row of a snapshot's file: the observation it matched, whether this import stored it or an earlier one."""

    snapshot = models.ForeignKey(PriceSnapshot, on_delete=models.CASCADE, related_name="memberships")
    observation = models.ForeignKey(PriceObservation, on_delete=models.CASCADE, related_name="memberships")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "observation"], name="snapshot_observation_unique"),
        ]

    def __str__(self) -> str:
        return f"snapshot #{self.snapshot_id} contains observation #{self.observation_id}"


class ScheduledSource(models.Model):
    """What every file imported on a schedule has (Celery beat, or `manage.py run_scheduled_imports`): a name, its
    cadence, whether it runs, when it last ran, and the checks of its cadence and of its location (a file in the
    import folder or an https URL on an allowed host). A price ImportSource and a ThroughputSource add what they
    import and how."""

    name = models.CharField(max_length=100, unique=True)
    cadence_hours = models.PositiveIntegerField(default=24)
    enabled = models.BooleanField(default=True)
    last_run_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def check_schedule(self) -> None:
        """The cadence (at most hourly) and the location (within PRICE_IMPORT_DIR, or an allowed URL)."""
        if self.cadence_hours is not None and self.cadence_hours < 1:
            raise ValidationError({"cadence_hours": "Run at most once an hour: use 1 or more."})
        import_dir = Path(settings.PRICE_IMPORT_DIR)
        try:
            if "://" in self.location:
                check_url(self.location)
            else:
                check_within(import_dir / self.location, import_dir, self.location)
        except FetchError as exc:
            raise ValidationError({"location": str(exc)}) from None


class ImportSource(ScheduledSource):
    """A price file path or URL imported on a schedule."""

    location = models.CharField(
        max_length=1000,
        help_text="A file path in the import folder (PRICE_IMPORT_DIR; relative paths are taken from it) or an "
        "https URL on an allowed host (PRICE_IMPORT_URL_HOSTS). A folder, or a URL ending in /, is a SkyPilot "
        "catalog tree: <cloud>/vms.csv of every cloud, one snapshot per provider.",
    )
    # A callable, so a format added to the registry needs no migration.
    format = models.CharField(max_length=20, choices=registry.format_choices, default=registry.AUTO)
    provider = models.ForeignKey(
        Provider, null=True, blank=True, on_delete=models.PROTECT, help_text="Required for SkyPilot catalogs."
    )
    last_snapshot = models.ForeignKey(
        PriceSnapshot, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )

    def clean(self) -> None:
        tree = is_catalog_tree(self.location, relative_to=Path(settings.PRICE_IMPORT_DIR))
        chosen = registry.BY_NAME.get(self.format)
        if chosen and chosen.needs_provider and not self.provider_id and not tree:
            raise ValidationError({"provider": f"A {chosen.label} has no provider column: choose the provider."})
        self.check_schedule()


class ExchangeRate(models.Model):
    """``1 base = rate quote`` on ``rate_date``, from ``source``: imported (ECB reference rates) or typed in the admin.

    Money moves between currencies only through one of these (docs/money-math.md); cross rates are computed through EUR
    (``pricing.fx.cross``), never stored.
    """

    base = models.CharField(max_length=3, help_text="ISO 4217 code of the currency one unit of which is priced.")
    quote = models.CharField(max_length=3, help_text="ISO 4217 code the rate is expressed in.")
    rate = models.DecimalField(max_digits=24, decimal_places=10, help_text="Units of quote per 1 base.")
    rate_date = models.DateField()
    source = models.CharField(max_length=200, help_text="Who published the rate, e.g. ECB euro reference rates.")
    imported_from = models.CharField(
        max_length=500, blank=True, help_text="The file or URL it was imported from; blank when typed in."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-rate_date", "base", "quote"]
        constraints = [
            models.UniqueConstraint(fields=["base", "quote", "rate_date", "source"], name="exchange_rate_once_per_day"),
            models.CheckConstraint(condition=models.Q(rate__gt=0), name="exchange_rate_positive"),
        ]
        indexes = [models.Index(fields=["base", "quote", "rate_date"], name="exchange_rate_pair_date")]

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate.normalize():f} {self.quote} on {self.rate_date} ({self.source})"

    def clean(self) -> None:
        errors = {}
        for name in ("base", "quote"):
            code = (getattr(self, name) or "").strip().upper()
            setattr(self, name, code)
            problem = currency_problem(code)
            if problem:
                errors[name] = problem
        if not errors and self.base == self.quote:
            errors["quote"] = "A rate converts between two different currencies."
        if self.rate is not None and self.rate <= 0:
            errors["rate"] = "A rate must be more than 0."
        if errors:
            raise ValidationError(errors)


# ---- the workload side: language models and measured serving throughput -------------------------------------------


class LanguageModel(models.Model):
    """An open language model's shape, as its published configuration (config.json) gives it: what sizing needs to
    tell whether it fits a GPU (weights from the parameters, KV cache per token from layers, KV heads and head
    size, or from the latent rank for multi-head latent attention)."""

    name = models.CharField(max_length=100, unique=True)
    hf_id = models.CharField(
        max_length=200, blank=True, verbose_name="Hugging Face id", help_text="e.g. meta-llama/Llama-3.1-70B-Instruct"
    )
    params_billion = models.DecimalField(
        max_digits=9,
        decimal_places=3,
        validators=[MinValueValidator(Decimal("0.001"))],
        verbose_name="parameters (billions)",
        help_text="All parameters, every expert of a mixture of experts included: all of them sit in memory.",
    )
    active_params_billion = models.DecimalField(
        max_digits=9,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.001"))],
        verbose_name="active parameters (billions)",
        help_text="Parameters one token passes through (a mixture of experts' routed share); blank for a dense model.",
    )
    layers = models.PositiveSmallIntegerField(help_text="num_hidden_layers")
    attention_heads = models.PositiveSmallIntegerField(help_text="num_attention_heads")
    kv_heads = models.PositiveSmallIntegerField(
        verbose_name="KV heads", help_text="num_key_value_heads (equal to the attention heads without grouped queries)"
    )
    head_dim = models.PositiveSmallIntegerField(
        verbose_name="head size", help_text="head_dim, else hidden_size / num_attention_heads"
    )
    kv_lora_rank = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        verbose_name="latent KV rank",
        help_text="Multi-head latent attention (DeepSeek-V3): kv_lora_rank; blank for ordinary attention.",
    )
    qk_rope_head_dim = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        verbose_name="rotary key size",
        help_text="Multi-head latent attention: qk_rope_head_dim, cached beside the latent; blank otherwise.",
    )
    aliases = models.TextField(
        blank=True,
        help_text="Other names result files give it, one a line (llama2-70b, nvidia/DeepSeek-R1-0528-FP4-V2); "
        "matched like GPU names: case, spaces, dashes and underscores do not matter.",
    )
    source_url = models.URLField(max_length=500, blank=True, help_text="The published configuration read.")
    notes = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = _ByNameManager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str]:
        return (self.name,)

    @property
    def is_latent(self) -> bool:
        return self.kv_lora_rank is not None

    def names(self) -> list[str]:
        """Every name it answers to: its own, its Hugging Face id and that id's last part, its aliases."""
        found = [self.name, self.hf_id, self.hf_id.rsplit("/", 1)[-1], *self.aliases.splitlines()]
        return [name.strip() for name in found if name.strip()]

    def clean(self) -> None:
        errors = {}
        for field in ("layers", "attention_heads", "kv_heads", "head_dim"):
            value = getattr(self, field)
            if value is not None and value < 1:
                label = self._meta.get_field(field).verbose_name
                errors[field] = f"A model has at least one {label.rstrip('s')}: use 1 or more."
        heads, kv_heads = self.attention_heads, self.kv_heads
        if heads and kv_heads and "kv_heads" not in errors:
            if kv_heads > heads:
                errors["kv_heads"] = f"{kv_heads} KV heads is more than the {heads} attention heads."
            elif heads % kv_heads:
                errors["kv_heads"] = (
                    f"The {heads} attention heads do not divide into groups of {kv_heads} KV heads: "
                    "the KV heads must divide the attention heads."
                )
        if (self.kv_lora_rank is None) != (self.qk_rope_head_dim is None):
            missing = "qk_rope_head_dim" if self.qk_rope_head_dim is None else "kv_lora_rank"
            errors[missing] = "Latent attention needs both the latent KV rank and the rotary key size."
        params, active = self.params_billion, self.active_params_billion
        if params is not None and active is not None and active > params:
            errors["active_params_billion"] = f"{active} billion active is more than the {params} billion in all."
        if errors:
            raise ValidationError(errors)


class Statistic(models.TextChoices):
    """Which statistic of a run's latencies a measured row carries."""

    MEDIAN = "median", "Median"
    P99 = "p99", "99th percentile"


class WeightBits(models.IntegerChoices):
    BITS_16 = 16, "16-bit (BF16/FP16)"
    BITS_8 = 8, "8-bit (FP8/INT8)"
    BITS_4 = 4, "4-bit (FP4/INT4)"


class ThroughputImportStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    IMPORTED = "imported", "Imported"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


class ThroughputImport(Job):
    """One imported throughput file (InferenceX, vllm bench serve, MLPerf summary): what it held and what became of
    each row. An upload's import is a job on the imports queue; a command's runs in its own process."""

    task_name = "pricing.tasks.import_throughput"
    noun = "throughput import"
    kept = "Nothing from this file was imported; import it again."

    format = models.CharField(max_length=20)
    file_name = models.CharField(max_length=500, blank=True)
    sha256 = models.CharField(max_length=64, db_index=True)
    origin = models.CharField(max_length=20, choices=SnapshotOrigin.choices, default=SnapshotOrigin.COMMAND)
    given = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the import gave for rows whose file lacks it: gpu, model, tp, precision, input_tokens, "
        "measured_on.",
    )
    content = models.BinaryField(
        null=True, editable=False, help_text="An upload's bytes, kept until a worker has imported them."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    status = status_field(ThroughputImportStatus)
    rows_total = models.PositiveIntegerField(
        default=0, help_text="Records the file held (one may give a median and a p99 measurement)."
    )
    rows_new = models.PositiveIntegerField(default=0, help_text="Measurements this import stored.")
    rows_known = models.PositiveIntegerField(default=0, help_text="Measurements of the file already stored.")
    rows_refused = models.PositiveIntegerField(default=0, help_text="Records refused, each with its reason.")
    refused = models.JSONField(
        default=list,
        blank=True,
        help_text="[{line, column, value, reason}]: every refused record (the first 5,000 kept); line 0: the file.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.file_name} ({self.status})"

    @property
    def summary(self) -> str:
        if self.status == ThroughputImportStatus.FAILED:
            return f"Failed: {self.error}"
        if self.status == ThroughputImportStatus.REJECTED and not self.rows_total:
            return "Rejected: " + "; ".join(str(entry.get("reason", "")) for entry in self.refused[:3])
        if self.status in (ThroughputImportStatus.PENDING, ThroughputImportStatus.RUNNING):
            return f"{self.get_status_display()}…"
        text = f"{self.rows_new} new, {self.rows_known} already known measurements"
        return f"{text}; {self.rows_refused} of {self.rows_total} records refused"


class ThroughputMeasurement(models.Model):
    """One measured operating point of one model served on one GPU type: output tokens per second per GPU at a
    tensor-parallel degree, a concurrency and a request shape, with the latencies at one statistic.

    Append-only like prices: the same measurement imported again adds nothing (``row_key``, a digest of every
    field that says what was measured and what came out), and a newer run is a new row beside the older one."""

    gpu_model = models.ForeignKey(GpuModel, on_delete=models.PROTECT, related_name="throughput_measurements")
    language_model = models.ForeignKey(
        LanguageModel,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="throughput_measurements",
        help_text="The catalogue's model the row's model name matches; blank when none does.",
    )
    model_name = models.CharField(max_length=200, help_text="The model as the source names it.")
    precision = models.CharField(max_length=20, help_text="The weights' precision as the source names it (fp8, fp4).")
    weight_bits = models.PositiveSmallIntegerField(choices=WeightBits.choices)
    kv_bits = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name="KV bits", help_text="The KV cache's bits; blank when the source omits it."
    )
    tp = models.PositiveSmallIntegerField(verbose_name="tensor-parallel GPUs", validators=[MinValueValidator(1)])
    concurrency = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Requests in flight at once; blank when the source does not publish it (MLPerf).",
    )
    input_tokens = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    output_tokens = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    output_tokens_per_second_per_gpu = models.FloatField(
        validators=[MinValueValidator(0.0)], verbose_name="output tokens per second per GPU"
    )
    ttft_ms = models.FloatField(
        null=True, blank=True, verbose_name="time to first token (ms)", validators=[MinValueValidator(0.0)]
    )
    tpot_ms = models.FloatField(
        null=True, blank=True, verbose_name="time per output token (ms)", validators=[MinValueValidator(0.0)]
    )
    statistic = models.CharField(max_length=10, choices=Statistic.choices, default=Statistic.MEDIAN)
    source = models.CharField(max_length=1000, help_text="Where the figures come from: an address or words.")
    measured_on = models.DateField(null=True, blank=True, help_text="When it was measured; blank when unknown.")
    hardware = models.CharField(max_length=300, blank=True, help_text="The system measured: GPUs, host, network.")
    software = models.CharField(max_length=300, blank=True, help_text="Serving engine and version, image.")
    configuration = models.CharField(
        max_length=300, blank=True, help_text="Other settings that tell runs apart (expert parallelism, scenario)."
    )
    throughput_import = models.ForeignKey(
        ThroughputImport,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="measurements",
        help_text="The import that stored it; blank when typed by hand.",
    )
    row_key = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["gpu_model", "model_name", "tp", "input_tokens", "output_tokens", "concurrency", "statistic"]
        indexes = [
            models.Index(fields=["gpu_model", "language_model", "weight_bits", "statistic"], name="throughput_lookup"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.model_name} on {self.gpu_model} tp {self.tp} at {self.concurrency} "
            f"({self.input_tokens}/{self.output_tokens}): {self.output_tokens_per_second_per_gpu:g} tok/s/GPU"
        )

    def save(self, *args, **kwargs) -> None:
        if not self.row_key:
            self.row_key = self.compute_row_key()
        super().save(*args, **kwargs)

    def compute_row_key(self) -> str:
        """A digest of what was measured and what came out: the same measurement from any file is one row, a
        different result (another run, another date) another row. Names compare as GPU names do."""
        figures = (self.output_tokens_per_second_per_gpu, self.ttft_ms, self.tpot_ms)
        key = [
            self.gpu_model_id,
            normalise_name(self.model_name),
            normalise_name(self.precision),
            self.weight_bits,
            self.kv_bits,
            self.tp,
            self.concurrency,
            self.input_tokens,
            self.output_tokens,
            self.statistic,
            *(None if value is None else round(float(value), 6) for value in figures),
            self.measured_on.isoformat() if self.measured_on else None,
            self.hardware.strip(),
            self.software.strip(),
            self.configuration.strip(),
        ]
        return hashlib.sha256(json.dumps(key).encode("utf-8")).hexdigest()

    def clean(self) -> None:
        errors = {}
        if self.gpu_model_id and self.output_tokens_per_second_per_gpu is not None:
            same = ThroughputMeasurement.objects.filter(row_key=self.compute_row_key()).exclude(pk=self.pk)
            if first := same.values_list("pk", flat=True).first():
                errors["output_tokens_per_second_per_gpu"] = f"This measurement is in the library already (#{first})."
        if self.ttft_ms is None and self.tpot_ms is None:
            errors["ttft_ms"] = "Give the time to first token or the time per output token (or both)."
        if not (self.source or "").strip():
            errors["source"] = "Say where the figures come from: an address, or your own run in words."
        if errors:
            raise ValidationError(errors)


def throughput_format_choices() -> list[tuple[str, str]]:
    """Recognise it, or one of the throughput parsers' formats (a callable: a new format needs no migration)."""
    return [(throughput_formats.AUTO, "Recognise it"), *((f.name, f.label) for f in throughput_formats.FORMATS)]


# What a scheduled throughput source may give for rows its file lacks (as the import command's options).
THROUGHPUT_GIVEN_KEYS = ("gpu", "model", "tp", "precision", "input_tokens")


class ThroughputSource(ScheduledSource):
    """A throughput result file or URL imported on a schedule, like a price ImportSource: a benchmark that
    republishes its agg_bmk.json, a lab's nightly vllm bench run."""

    location = models.CharField(
        max_length=1000,
        help_text="A file path in the import folder (PRICE_IMPORT_DIR; relative paths are taken from it) or an "
        "https URL on an allowed host (PRICE_IMPORT_URL_HOSTS).",
    )
    format = models.CharField(max_length=20, choices=throughput_format_choices, default=throughput_formats.AUTO)
    given = models.JSONField(
        default=dict,
        blank=True,
        help_text='What the file lacks, as the import command\'s options: {"gpu": "H100 SXM", "tp": 2, '
        '"precision": "bf16"} for a vllm bench serve result, {"input_tokens": 1024} for an MLPerf summary.',
    )
    last_import = models.ForeignKey(
        ThroughputImport, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )

    def clean(self) -> None:
        if not isinstance(self.given, dict):
            raise ValidationError({"given": 'Give an object of names and values, e.g. {"gpu": "H100 SXM"}.'})
        if unknown := sorted(set(self.given) - set(THROUGHPUT_GIVEN_KEYS)):
            known = ", ".join(THROUGHPUT_GIVEN_KEYS)
            raise ValidationError({"given": f"Unknown key {unknown[0]!r}: a source may give {known}."})
        self.check_schedule()
