"""pricing 0001-0017 squashed into one migration (Django's squashmigrations): a fresh database gets the tables in 50
operations instead of 82, each of which made Django re-render the model states. It `replaces` 0001-0017, so a
database that has them applied treats this one as applied; the old files stay until every deployment has run them.
The backfills of 0003, 0004, 0009 and 0017 were elided (nothing to fill on a fresh database)."""

import django.core.validators
import django.db.models.deletion
import pricing.importers.registry
import pricing.models
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    replaces = [
        ("pricing", "0001_initial"),
        ("pricing", "0002_import_files_and_sources"),
        ("pricing", "0003_snapshot_membership"),
        ("pricing", "0004_aliases_channels_and_row_counts"),
        ("pricing", "0005_provider_kind_labels_from_lib"),
        ("pricing", "0006_exchange_rates"),
        ("pricing", "0007_snapshot_job_times"),
        ("pricing", "0008_provider_and_gpu_model_updated_at"),
        ("pricing", "0009_current_prices"),
        ("pricing", "0010_snapshot_job_model"),
        ("pricing", "0011_snapshot_warnings"),
        ("pricing", "0012_import_source_format_choices_from_registry"),
        ("pricing", "0013_observation_upfront_fee"),
        ("pricing", "0014_job_heartbeat"),
        ("pricing", "0015_per_token_api_prices"),
        ("pricing", "0016_language_models_and_throughput_library"),
        ("pricing", "0017_price_feed_in_the_natural_key"),
    ]

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="GpuModel",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=60, unique=True)),
                ("vendor", models.CharField(default="NVIDIA", max_length=40)),
                ("memory_gb", models.PositiveIntegerField()),
                (
                    "memory_bandwidth_tb_per_s",
                    models.DecimalField(blank=True, decimal_places=2, max_digits=6, null=True),
                ),
                ("tdp_watts", models.PositiveIntegerField(blank=True, null=True)),
                (
                    "form_factor",
                    models.CharField(
                        choices=[("SXM", "SXM"), ("PCIe", "PCIe"), ("NVL", "NVL"), ("other", "Other")],
                        default="other",
                        max_length=10,
                    ),
                ),
                (
                    "typical_server_capex_per_gpu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="Configured server price divided by its GPUs; an assumption to replace with a quote.",
                        max_digits=12,
                        null=True,
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["vendor", "name"],
            },
        ),
        migrations.CreateModel(
            name="Provider",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("hyperscaler", "Hyperscaler"),
                            ("neocloud", "Neocloud"),
                            ("marketplace", "Marketplace"),
                            ("api", "Managed model API"),
                        ],
                        max_length=20,
                    ),
                ),
                ("website", models.URLField(blank=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="PriceSnapshot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "source",
                    models.CharField(
                        help_text="Where the file came from: upload, command, schedule name.", max_length=200
                    ),
                ),
                ("file_name", models.CharField(blank=True, max_length=500)),
                ("url", models.URLField(blank=True, max_length=1000)),
                ("format", models.CharField(max_length=20)),
                ("provider_name", models.CharField(blank=True, max_length=100)),
                ("sha256", models.CharField(db_index=True, max_length=64)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("imported", "Imported"),
                            ("duplicate", "Already imported"),
                            ("rejected", "Rejected"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("rows_total", models.PositiveIntegerField(default=0)),
                ("rows_imported", models.PositiveIntegerField(default=0)),
                ("rows_skipped", models.PositiveIntegerField(default=0)),
                ("rows_unchanged", models.PositiveIntegerField(default=0)),
                ("errors", models.JSONField(blank=True, default=list)),
                ("skipped", models.JSONField(blank=True, default=list)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "default_observed_on",
                    models.DateField(
                        blank=True,
                        help_text="Used for rows without a date of their own (SkyPilot files have none).",
                        null=True,
                    ),
                ),
                (
                    "origin",
                    models.CharField(
                        choices=[
                            ("upload", "Upload"),
                            ("command", "Command"),
                            ("schedule", "Schedule"),
                            ("seed", "Demo data"),
                        ],
                        default="command",
                        max_length=20,
                    ),
                ),
                (
                    "processed_by",
                    models.CharField(blank=True, help_text="Host and process that ran the import.", max_length=200),
                ),
                (
                    "contents_recorded",
                    models.BooleanField(
                        default=True,
                        help_text="False for an import made before each snapshot recorded every row of its file: only the rows it stored first are known, not those it shared with earlier imports.",
                    ),
                ),
                (
                    "error_count",
                    models.PositiveIntegerField(default=0, help_text="Errors found; at most the first 100 are kept."),
                ),
                ("held_back", models.JSONField(blank=True, default=list)),
                ("merged", models.JSONField(blank=True, default=list)),
                (
                    "prices_known",
                    models.PositiveIntegerField(default=0, help_text="Observations of the file already stored."),
                ),
                ("prices_new", models.PositiveIntegerField(default=0, help_text="Observations stored by this import.")),
                ("providers_created", models.JSONField(blank=True, default=list)),
                (
                    "rows_held_back",
                    models.PositiveIntegerField(
                        default=0, help_text="Rows naming a GPU or provider to map first (third-party catalogs only)."
                    ),
                ),
                (
                    "rows_merged",
                    models.PositiveIntegerField(
                        default=0,
                        help_text="Rows folded into another row's observation (zones of a region with one price).",
                    ),
                ),
                (
                    "sent_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the job was last handed to the workers; empty: not (yet) sent.",
                        null=True,
                    ),
                ),
                (
                    "started_at",
                    models.DateTimeField(blank=True, help_text="When a worker (or a command) claimed it.", null=True),
                ),
                (
                    "warnings",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Prices imported as the file gives them that look wrong, with why.",
                    ),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the worker running it last said it is alive; empty: no worker beats.",
                        null=True,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="PriceObservation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("offering", models.CharField(max_length=200)),
                ("gpus_per_instance", models.PositiveSmallIntegerField()),
                ("region", models.CharField(blank=True, max_length=100)),
                (
                    "pricing_term",
                    models.CharField(
                        choices=[
                            ("on_demand", "On demand"),
                            ("spot", "Spot"),
                            ("reserved_1y", "Reserved 1 year"),
                            ("reserved_3y", "Reserved 3 years"),
                            ("committed", "Committed contract"),
                        ],
                        max_length=20,
                    ),
                ),
                ("observed_on", models.DateField()),
                ("price_per_instance_hour", models.DecimalField(decimal_places=6, max_digits=14)),
                ("price_per_gpu_hour", models.DecimalField(decimal_places=6, max_digits=14)),
                ("currency", models.CharField(default="USD", max_length=3)),
                ("source_url", models.URLField(blank=True, max_length=1000)),
                (
                    "gpu_model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="observations", to="pricing.gpumodel"
                    ),
                ),
                (
                    "snapshot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="observations",
                        to="pricing.pricesnapshot",
                    ),
                ),
                (
                    "provider",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="observations", to="pricing.provider"
                    ),
                ),
                (
                    "channel",
                    models.ForeignKey(
                        blank=True,
                        help_text="The aggregator this offer was listed through; blank when the provider sells it directly.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="resold_observations",
                        to="pricing.provider",
                    ),
                ),
                (
                    "upfront_fee",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        help_text="A reservation's one-off fee for the whole instance, already spread over the term's hours in the prices above (AWS's Partial and All Upfront terms); blank when there is none.",
                        max_digits=14,
                        null=True,
                    ),
                ),
            ],
            options={
                "ordering": ["price_per_gpu_hour"],
                "indexes": [
                    models.Index(fields=["gpu_model", "pricing_term", "observed_on"], name="price_obs_model_term_date")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=(
                            "provider",
                            "offering",
                            "gpu_model",
                            "gpus_per_instance",
                            "region",
                            "pricing_term",
                            "observed_on",
                        ),
                        name="price_observation_natural_key",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="GpuAlias",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("alias", models.CharField(max_length=80, unique=True)),
                (
                    "gpu_model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="aliases", to="pricing.gpumodel"
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "GPU aliases",
                "ordering": ["alias"],
            },
        ),
        migrations.CreateModel(
            name="ProviderAlias",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("alias", models.CharField(max_length=100, unique=True)),
                (
                    "provider",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="aliases", to="pricing.provider"
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "provider aliases",
                "ordering": ["alias"],
            },
        ),
        migrations.CreateModel(
            name="UnmappedName",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(choices=[("gpu", "GPU model"), ("provider", "Provider")], max_length=10)),
                ("name", models.CharField(max_length=200)),
                ("rows", models.PositiveIntegerField(help_text="Rows held back in the latest import naming it.")),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "snapshot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="pricing.pricesnapshot"
                    ),
                ),
            ],
            options={
                "ordering": ["-rows", "name"],
                "constraints": [models.UniqueConstraint(fields=("kind", "name"), name="unmapped_name_unique")],
            },
        ),
        migrations.CreateModel(
            name="PriceImportFile",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("content", models.BinaryField()),
                ("size_bytes", models.PositiveIntegerField()),
                (
                    "snapshot",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="import_file",
                        to="pricing.pricesnapshot",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="ExchangeRate",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "base",
                    models.CharField(
                        help_text="ISO 4217 code of the currency one unit of which is priced.", max_length=3
                    ),
                ),
                ("quote", models.CharField(help_text="ISO 4217 code the rate is expressed in.", max_length=3)),
                ("rate", models.DecimalField(decimal_places=10, help_text="Units of quote per 1 base.", max_digits=24)),
                ("rate_date", models.DateField()),
                (
                    "source",
                    models.CharField(
                        help_text="Who published the rate, e.g. ECB euro reference rates.", max_length=200
                    ),
                ),
                (
                    "imported_from",
                    models.CharField(
                        blank=True,
                        help_text="The file or URL it was imported from; blank when typed in.",
                        max_length=500,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["-rate_date", "base", "quote"],
                "indexes": [models.Index(fields=["base", "quote", "rate_date"], name="exchange_rate_pair_date")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("base", "quote", "rate_date", "source"), name="exchange_rate_once_per_day"
                    ),
                    models.CheckConstraint(condition=models.Q(("rate__gt", 0)), name="exchange_rate_positive"),
                ],
            },
        ),
        migrations.CreateModel(
            name="SnapshotObservation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "observation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="pricing.priceobservation",
                    ),
                ),
                (
                    "snapshot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="pricing.pricesnapshot",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("snapshot", "observation"), name="snapshot_observation_unique")
                ],
            },
        ),
        migrations.CreateModel(
            name="ImportSource",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                (
                    "location",
                    models.CharField(
                        help_text="A file path in the import folder (PRICE_IMPORT_DIR; relative paths are taken from it) or an https URL on an allowed host (PRICE_IMPORT_URL_HOSTS). A folder, or a URL ending in /, is a SkyPilot catalog tree: <cloud>/vms.csv of every cloud, one snapshot per provider.",
                        max_length=1000,
                    ),
                ),
                (
                    "format",
                    models.CharField(choices=pricing.importers.registry.format_choices, default="auto", max_length=20),
                ),
                ("cadence_hours", models.PositiveIntegerField(default=24)),
                ("enabled", models.BooleanField(default=True)),
                ("last_run_at", models.DateTimeField(blank=True, null=True)),
                (
                    "last_snapshot",
                    models.ForeignKey(
                        blank=True,
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="pricing.pricesnapshot",
                    ),
                ),
                (
                    "provider",
                    models.ForeignKey(
                        blank=True,
                        help_text="Required for SkyPilot catalogs.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        to="pricing.provider",
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="CurrentPrice",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("offering", models.CharField(max_length=200)),
                ("gpus_per_instance", models.PositiveSmallIntegerField()),
                ("region", models.CharField(blank=True, max_length=100)),
                (
                    "pricing_term",
                    models.CharField(
                        choices=[
                            ("on_demand", "On demand"),
                            ("spot", "Spot"),
                            ("reserved_1y", "Reserved 1 year"),
                            ("reserved_3y", "Reserved 3 years"),
                            ("committed", "Committed contract"),
                        ],
                        max_length=20,
                    ),
                ),
                ("observed_on", models.DateField()),
                ("price_per_gpu_hour", models.DecimalField(decimal_places=6, max_digits=14)),
                ("currency", models.CharField(max_length=3)),
                (
                    "gpu_model",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="pricing.gpumodel",
                    ),
                ),
                (
                    "observation",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="current",
                        to="pricing.priceobservation",
                    ),
                ),
                (
                    "provider",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="pricing.provider",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["price_per_gpu_hour"], name="current_price_price"),
                    models.Index(
                        fields=["gpu_model", "pricing_term", "price_per_gpu_hour"], name="current_price_model_term"
                    ),
                ],
                "constraints": [],
            },
        ),
        migrations.RemoveConstraint(
            model_name="priceobservation",
            name="price_observation_natural_key",
        ),
        migrations.AddField(
            model_name="currentprice",
            name="price_per_million_input_tokens",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name="currentprice",
            name="price_per_million_output_tokens",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name="priceobservation",
            name="price_per_million_cached_input_tokens",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name="priceobservation",
            name="price_per_million_input_tokens",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name="priceobservation",
            name="price_per_million_output_tokens",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AlterField(
            model_name="currentprice",
            name="gpu_model",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="pricing.gpumodel",
            ),
        ),
        migrations.AlterField(
            model_name="currentprice",
            name="gpus_per_instance",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="currentprice",
            name="price_per_gpu_hour",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AlterField(
            model_name="priceobservation",
            name="gpu_model",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="observations",
                to="pricing.gpumodel",
            ),
        ),
        migrations.AlterField(
            model_name="priceobservation",
            name="gpus_per_instance",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="priceobservation",
            name="price_per_gpu_hour",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AlterField(
            model_name="priceobservation",
            name="price_per_instance_hour",
            field=models.DecimalField(blank=True, decimal_places=6, max_digits=14, null=True),
        ),
        migrations.AddConstraint(
            model_name="currentprice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", False)),
                fields=("provider", "offering", "gpu_model", "gpus_per_instance", "region", "pricing_term"),
                name="current_price_offering",
            ),
        ),
        migrations.AddConstraint(
            model_name="currentprice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", True)),
                fields=("provider", "offering", "region", "pricing_term"),
                name="current_price_api_offering",
            ),
        ),
        migrations.AddConstraint(
            model_name="priceobservation",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", False)),
                fields=(
                    "provider",
                    "offering",
                    "gpu_model",
                    "gpus_per_instance",
                    "region",
                    "pricing_term",
                    "observed_on",
                ),
                name="price_observation_natural_key",
            ),
        ),
        migrations.AddConstraint(
            model_name="priceobservation",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", True)),
                fields=("provider", "offering", "region", "pricing_term", "observed_on"),
                name="price_observation_api_key",
            ),
        ),
        migrations.AddConstraint(
            model_name="priceobservation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("gpu_model__isnull", False),
                        ("gpus_per_instance__isnull", False),
                        ("price_per_gpu_hour__isnull", False),
                        ("price_per_instance_hour__isnull", False),
                        ("price_per_million_cached_input_tokens__isnull", True),
                        ("price_per_million_input_tokens__isnull", True),
                        ("price_per_million_output_tokens__isnull", True),
                    ),
                    models.Q(
                        ("gpu_model__isnull", True),
                        ("gpus_per_instance__isnull", True),
                        ("price_per_gpu_hour__isnull", True),
                        ("price_per_instance_hour__isnull", True),
                        ("price_per_million_input_tokens__isnull", False),
                        ("price_per_million_output_tokens__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="price_observation_gpu_or_token_price",
            ),
        ),
        migrations.CreateModel(
            name="LanguageModel",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                (
                    "hf_id",
                    models.CharField(
                        blank=True,
                        help_text="e.g. meta-llama/Llama-3.1-70B-Instruct",
                        max_length=200,
                        verbose_name="Hugging Face id",
                    ),
                ),
                (
                    "params_billion",
                    models.DecimalField(
                        decimal_places=3,
                        help_text="All parameters, every expert of a mixture of experts included: all of them sit in memory.",
                        max_digits=9,
                        validators=[django.core.validators.MinValueValidator(Decimal("0.001"))],
                        verbose_name="parameters (billions)",
                    ),
                ),
                (
                    "active_params_billion",
                    models.DecimalField(
                        blank=True,
                        decimal_places=3,
                        help_text="Parameters one token passes through (a mixture of experts' routed share); blank for a dense model.",
                        max_digits=9,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(Decimal("0.001"))],
                        verbose_name="active parameters (billions)",
                    ),
                ),
                ("layers", models.PositiveSmallIntegerField(help_text="num_hidden_layers")),
                ("attention_heads", models.PositiveSmallIntegerField(help_text="num_attention_heads")),
                (
                    "kv_heads",
                    models.PositiveSmallIntegerField(
                        help_text="num_key_value_heads (equal to the attention heads without grouped queries)",
                        verbose_name="KV heads",
                    ),
                ),
                (
                    "head_dim",
                    models.PositiveSmallIntegerField(
                        help_text="head_dim, else hidden_size / num_attention_heads", verbose_name="head size"
                    ),
                ),
                (
                    "kv_lora_rank",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="Multi-head latent attention (DeepSeek-V3): kv_lora_rank; blank for ordinary attention.",
                        null=True,
                        verbose_name="latent KV rank",
                    ),
                ),
                (
                    "qk_rope_head_dim",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="Multi-head latent attention: qk_rope_head_dim, cached beside the latent; blank otherwise.",
                        null=True,
                        verbose_name="rotary key size",
                    ),
                ),
                (
                    "aliases",
                    models.TextField(
                        blank=True,
                        help_text="Other names result files give it, one a line (llama2-70b, nvidia/DeepSeek-R1-0528-FP4-V2); matched like GPU names: case, spaces, dashes and underscores do not matter.",
                    ),
                ),
                (
                    "source_url",
                    models.URLField(blank=True, help_text="The published configuration read.", max_length=500),
                ),
                ("notes", models.TextField(blank=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="gpus_per_node",
            field=models.PositiveSmallIntegerField(
                default=8,
                help_text="GPUs in one server (8 in an HGX or OAM board; 4 in a GB200/GB300 compute tray): the largest tensor-parallel group that stays inside one machine.",
                validators=[django.core.validators.MinValueValidator(1)],
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="memory_gib",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="The memory a runtime sees on one GPU, in GiB (2^30 bytes): what CUDA or ROCm reports as the total (vLLM prints it at start-up), less than the datasheet's figure because the driver and ECC keep a share. An 80 GB H100 shows 79.18 GiB (measured with vLLM, llm-d benchmark); where no measurement is recorded, the datasheet's GB times 79.18/80, the share an H100 leaves. Sizing divides this memory.",
                max_digits=8,
                null=True,
                validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="peak_dense_tflops_fp16",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="Peak dense (not 2:4 sparse) tensor TFLOPs at 16 bits (BF16, or FP16 where the GPU has no BF16), from the vendor's datasheet; half the sparse figure a datasheet marks with an asterisk. Blank: unknown.",
                max_digits=9,
                null=True,
                validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="peak_dense_tflops_fp4",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="Peak dense tensor TFLOPs at FP4, from the datasheet. Blank: the GPU has no FP4 tensor cores.",
                max_digits=9,
                null=True,
                validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="peak_dense_tflops_fp8",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="Peak dense tensor TFLOPs at FP8, from the datasheet. Blank: the GPU has no FP8 tensor cores.",
                max_digits=9,
                null=True,
                validators=[django.core.validators.MinValueValidator(Decimal("0.01"))],
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="spec_source",
            field=models.CharField(
                blank=True,
                help_text="Where the memory, TFLOPs and power come from: the vendor's datasheet or whitepaper (address).",
                max_length=500,
            ),
        ),
        migrations.CreateModel(
            name="ThroughputImport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "sent_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the job was last handed to the workers; empty: not (yet) sent.",
                        null=True,
                    ),
                ),
                (
                    "started_at",
                    models.DateTimeField(blank=True, help_text="When a worker (or a command) claimed it.", null=True),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the worker running it last said it is alive; empty: no worker beats.",
                        null=True,
                    ),
                ),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("error", models.TextField(blank=True)),
                ("format", models.CharField(max_length=20)),
                ("file_name", models.CharField(blank=True, max_length=500)),
                ("sha256", models.CharField(db_index=True, max_length=64)),
                (
                    "origin",
                    models.CharField(
                        choices=[
                            ("upload", "Upload"),
                            ("command", "Command"),
                            ("schedule", "Schedule"),
                            ("seed", "Demo data"),
                        ],
                        default="command",
                        max_length=20,
                    ),
                ),
                (
                    "given",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="What the import gave for rows whose file lacks it: gpu, model, tp, precision, input_tokens, measured_on.",
                    ),
                ),
                (
                    "content",
                    models.BinaryField(
                        help_text="An upload's bytes, kept until a worker has imported them.", null=True
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("imported", "Imported"),
                            ("rejected", "Rejected"),
                            ("failed", "Failed"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                (
                    "rows_total",
                    models.PositiveIntegerField(
                        default=0, help_text="Records the file held (one may give a median and a p99 measurement)."
                    ),
                ),
                ("rows_new", models.PositiveIntegerField(default=0, help_text="Measurements this import stored.")),
                (
                    "rows_known",
                    models.PositiveIntegerField(default=0, help_text="Measurements of the file already stored."),
                ),
                (
                    "rows_refused",
                    models.PositiveIntegerField(default=0, help_text="Records refused, each with its reason."),
                ),
                (
                    "refused",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="[{line, column, value, reason}]: every refused record (the first 5,000 kept); line 0: the file.",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ThroughputSource",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100, unique=True)),
                (
                    "location",
                    models.CharField(
                        help_text="A file path in the import folder (PRICE_IMPORT_DIR; relative paths are taken from it) or an https URL on an allowed host (PRICE_IMPORT_URL_HOSTS).",
                        max_length=1000,
                    ),
                ),
                (
                    "format",
                    models.CharField(choices=pricing.models.throughput_format_choices, default="auto", max_length=20),
                ),
                (
                    "given",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text='What the file lacks, as the import command\'s options: {"gpu": "H100 SXM", "tp": 2, "precision": "bf16"} for a vllm bench serve result, {"input_tokens": 1024} for an MLPerf summary.',
                    ),
                ),
                ("cadence_hours", models.PositiveIntegerField(default=24)),
                ("enabled", models.BooleanField(default=True)),
                ("last_run_at", models.DateTimeField(blank=True, null=True)),
                (
                    "last_import",
                    models.ForeignKey(
                        blank=True,
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="pricing.throughputimport",
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.CreateModel(
            name="ThroughputMeasurement",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("model_name", models.CharField(help_text="The model as the source names it.", max_length=200)),
                (
                    "precision",
                    models.CharField(
                        help_text="The weights' precision as the source names it (fp8, fp4).", max_length=20
                    ),
                ),
                (
                    "weight_bits",
                    models.PositiveSmallIntegerField(
                        choices=[(16, "16-bit (BF16/FP16)"), (8, "8-bit (FP8/INT8)"), (4, "4-bit (FP4/INT4)")]
                    ),
                ),
                (
                    "kv_bits",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="The KV cache's bits; blank when the source omits it.",
                        null=True,
                        verbose_name="KV bits",
                    ),
                ),
                (
                    "tp",
                    models.PositiveSmallIntegerField(
                        validators=[django.core.validators.MinValueValidator(1)], verbose_name="tensor-parallel GPUs"
                    ),
                ),
                (
                    "concurrency",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Requests in flight at once; blank when the source does not publish it (MLPerf).",
                        null=True,
                        validators=[django.core.validators.MinValueValidator(1)],
                    ),
                ),
                ("input_tokens", models.PositiveIntegerField(validators=[django.core.validators.MinValueValidator(1)])),
                (
                    "output_tokens",
                    models.PositiveIntegerField(validators=[django.core.validators.MinValueValidator(1)]),
                ),
                (
                    "output_tokens_per_second_per_gpu",
                    models.FloatField(
                        validators=[django.core.validators.MinValueValidator(0.0)],
                        verbose_name="output tokens per second per GPU",
                    ),
                ),
                (
                    "ttft_ms",
                    models.FloatField(
                        blank=True,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(0.0)],
                        verbose_name="time to first token (ms)",
                    ),
                ),
                (
                    "tpot_ms",
                    models.FloatField(
                        blank=True,
                        null=True,
                        validators=[django.core.validators.MinValueValidator(0.0)],
                        verbose_name="time per output token (ms)",
                    ),
                ),
                (
                    "statistic",
                    models.CharField(
                        choices=[("median", "Median"), ("p99", "99th percentile")], default="median", max_length=10
                    ),
                ),
                (
                    "source",
                    models.CharField(help_text="Where the figures come from: an address or words.", max_length=1000),
                ),
                (
                    "measured_on",
                    models.DateField(blank=True, help_text="When it was measured; blank when unknown.", null=True),
                ),
                (
                    "hardware",
                    models.CharField(blank=True, help_text="The system measured: GPUs, host, network.", max_length=300),
                ),
                (
                    "software",
                    models.CharField(blank=True, help_text="Serving engine and version, image.", max_length=300),
                ),
                (
                    "configuration",
                    models.CharField(
                        blank=True,
                        help_text="Other settings that tell runs apart (expert parallelism, scenario).",
                        max_length=300,
                    ),
                ),
                ("row_key", models.CharField(editable=False, max_length=64, unique=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "gpu_model",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="throughput_measurements",
                        to="pricing.gpumodel",
                    ),
                ),
                (
                    "language_model",
                    models.ForeignKey(
                        blank=True,
                        help_text="The catalogue's model the row's model name matches; blank when none does.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="throughput_measurements",
                        to="pricing.languagemodel",
                    ),
                ),
                (
                    "throughput_import",
                    models.ForeignKey(
                        blank=True,
                        help_text="The import that stored it; blank when typed by hand.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="measurements",
                        to="pricing.throughputimport",
                    ),
                ),
            ],
            options={
                "ordering": [
                    "gpu_model",
                    "model_name",
                    "tp",
                    "input_tokens",
                    "output_tokens",
                    "concurrency",
                    "statistic",
                ],
                "indexes": [
                    models.Index(
                        fields=["gpu_model", "language_model", "weight_bits", "statistic"], name="throughput_lookup"
                    )
                ],
            },
        ),
        migrations.RemoveConstraint(
            model_name="currentprice",
            name="current_price_offering",
        ),
        migrations.RemoveConstraint(
            model_name="currentprice",
            name="current_price_api_offering",
        ),
        migrations.RemoveConstraint(
            model_name="priceobservation",
            name="price_observation_natural_key",
        ),
        migrations.RemoveConstraint(
            model_name="priceobservation",
            name="price_observation_api_key",
        ),
        migrations.AddField(
            model_name="priceobservation",
            name="feed",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The price feed (the import format) that published this price: two feeds may price one offering differently on one day (LiteLLM's openrouter/* entries and OpenRouter's own file), and both are kept.",
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="currentprice",
            name="feed",
            field=models.CharField(
                blank=True, db_default="", default="", help_text="As the observation's: one per feed.", max_length=20
            ),
        ),
        migrations.AddConstraint(
            model_name="currentprice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", False)),
                fields=("provider", "offering", "gpu_model", "gpus_per_instance", "region", "pricing_term", "feed"),
                name="current_price_offering",
            ),
        ),
        migrations.AddConstraint(
            model_name="currentprice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", True)),
                fields=("provider", "offering", "region", "pricing_term", "feed"),
                name="current_price_api_offering",
            ),
        ),
        migrations.AddConstraint(
            model_name="priceobservation",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", False)),
                fields=(
                    "provider",
                    "offering",
                    "gpu_model",
                    "gpus_per_instance",
                    "region",
                    "pricing_term",
                    "observed_on",
                    "feed",
                ),
                name="price_observation_natural_key",
            ),
        ),
        migrations.AddConstraint(
            model_name="priceobservation",
            constraint=models.UniqueConstraint(
                condition=models.Q(("gpu_model__isnull", True)),
                fields=("provider", "offering", "region", "pricing_term", "observed_on", "feed"),
                name="price_observation_api_key",
            ),
        ),
    ]
