"""Reference data (providers, GPU models, aliases, unmapped names, import sources, exchange rates, language models)
for staff editors, and throughput measured by hand; snapshots, observations and imported measurements read-only."""

from __future__ import annotations

from django.contrib import admin

from pricing import services
from pricing.models import (
    ExchangeRate,
    GpuAlias,
    GpuModel,
    ImportSource,
    LanguageModel,
    PriceObservation,
    PriceSnapshot,
    Provider,
    ProviderAlias,
    ThroughputImport,
    ThroughputMeasurement,
    ThroughputSource,
    UnmappedName,
)


class ProviderAliasInline(admin.TabularInline):
    model = ProviderAlias
    extra = 1


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "website"]
    list_filter = ["kind"]
    search_fields = ["name", "aliases__alias"]
    inlines = [ProviderAliasInline]


@admin.register(ProviderAlias)
class ProviderAliasAdmin(admin.ModelAdmin):
    list_display = ["alias", "provider"]
    search_fields = ["alias", "provider__name"]


@admin.register(UnmappedName)
class UnmappedNameAdmin(admin.ModelAdmin):
    """Names third-party catalogs use that nothing maps yet: add a GPU alias (or a provider or provider alias),
    then import the file again to pick up the rows held back."""

    list_display = ["name", "kind", "rows", "snapshot", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["name"]
    readonly_fields = ["kind", "name", "rows", "snapshot", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False


class GpuAliasInline(admin.TabularInline):
    model = GpuAlias
    extra = 1


@admin.register(GpuModel)
class GpuModelAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "vendor",
        "form_factor",
        "memory_gb",
        "memory_gib",
        "memory_bandwidth_tb_per_s",
        "peak_dense_tflops_fp16",
        "peak_dense_tflops_fp8",
        "peak_dense_tflops_fp4",
        "tdp_watts",
        "gpus_per_node",
    ]
    list_filter = ["vendor", "form_factor"]
    search_fields = ["name", "aliases__alias"]
    inlines = [GpuAliasInline]


@admin.register(GpuAlias)
class GpuAliasAdmin(admin.ModelAdmin):
    list_display = ["alias", "gpu_model"]
    search_fields = ["alias", "gpu_model__name"]


@admin.register(PriceSnapshot)
class PriceSnapshotAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "source",
        "file_name",
        "origin",
        "status",
        "rows_imported",
        "rows_skipped",
        "rows_held_back",
        "created_at",
    ]
    list_filter = ["status", "format", "origin"]
    readonly_fields = [f.name for f in PriceSnapshot._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its prices are history; deleting it would take them along


@admin.register(PriceObservation)
class PriceObservationAdmin(admin.ModelAdmin):
    list_display = [
        "provider",
        "offering",
        "gpu_model",
        "gpus_per_instance",
        "region",
        "pricing_term",
        "observed_on",
        "price_per_gpu_hour",
        "currency",
        "channel",
    ]
    list_filter = ["pricing_term", "provider__kind", "gpu_model"]
    list_select_related = ["provider", "gpu_model", "channel"]
    search_fields = ["offering", "provider__name", "region"]
    # Newest first through the primary key: the model's price order would sort millions of rows for each page.
    ordering = ["-id"]
    show_full_result_count = False  # a filtered list does not count every observation again

    # History is never overwritten: prices arrive only through imports and are never edited or deleted.
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ImportSource)
class ImportSourceAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "location",
        "format",
        "provider",
        "cadence_hours",
        "enabled",
        "last_run_at",
        "last_snapshot",
    ]
    list_filter = ["enabled", "format"]
    search_fields = ["name", "location"]
    readonly_fields = ["last_run_at", "last_snapshot"]


@admin.register(ExchangeRate)
class ExchangeRateAdmin(admin.ModelAdmin):
    """Rates are typed in here or imported (`import_fx_rates`); cross rates via EUR are computed, never stored."""

    list_display = ["rate_date", "base", "quote", "rate", "source", "imported_from"]
    list_filter = ["source", "base", "quote"]
    search_fields = ["base", "quote", "source"]
    date_hierarchy = "rate_date"
    readonly_fields = ["imported_from", "created_by", "created_at"]

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(LanguageModel)
class LanguageModelAdmin(admin.ModelAdmin):
    """The model catalogue: seeded from published configurations (load_reference); add your own here."""

    list_display = ["name", "params_billion", "layers", "attention_heads", "kv_heads", "head_dim", "kv_lora_rank"]
    search_fields = ["name", "hf_id", "aliases"]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        linked = services.throughput_models_link()  # measurements imported before the model was known by this name
        if linked:
            self.message_user(request, f"{linked} measured throughput rows now name {obj}.")


@admin.register(ThroughputImport)
class ThroughputImportAdmin(admin.ModelAdmin):
    list_display = ["id", "file_name", "format", "origin", "status", "rows_new", "rows_known", "rows_refused"]
    list_filter = ["status", "format", "origin"]
    readonly_fields = [f.name for f in ThroughputImport._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its measurements are history; deleting it would take them along


@admin.register(ThroughputMeasurement)
class ThroughputMeasurementAdmin(admin.ModelAdmin):
    """Measured throughput: imported rows are history (read only); add your own measurement with its source."""

    list_display = [
        "gpu_model",
        "model_name",
        "precision",
        "tp",
        "concurrency",
        "input_tokens",
        "output_tokens",
        "output_tokens_per_second_per_gpu",
        "ttft_ms",
        "tpot_ms",
        "statistic",
        "measured_on",
    ]
    list_filter = ["gpu_model", "statistic", "weight_bits", "language_model"]
    list_select_related = ["gpu_model"]
    search_fields = ["model_name", "source", "hardware", "software"]
    readonly_fields = ["throughput_import", "created_by", "created_at"]
    exclude = ["row_key"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # a measurement is what it was; a new run is a new row

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(ThroughputSource)
class ThroughputSourceAdmin(admin.ModelAdmin):
    """Throughput result files or URLs imported on a schedule, beside the price import sources."""

    list_display = ["name", "location", "format", "cadence_hours", "enabled", "last_run_at", "last_import"]
    list_filter = ["enabled", "format"]
    search_fields = ["name", "location"]
    readonly_fields = ["last_run_at", "last_import"]
