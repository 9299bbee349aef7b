"""The Market filter, upload and snapshot-diff forms, and the throughput library's filter and upload."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.db.models import Q

from lib import forms as short
from lib.currencies import DEFAULT_CURRENCY
from pricing.importers import dispatch, registry
from pricing.importers.throughput import AUTO as THROUGHPUT_AUTO
from pricing.importers.throughput import FORMATS as THROUGHPUT_FORMATS
from pricing.models import (
    IMPORT_FORMAT_CHOICES,
    GpuModel,
    LanguageModel,
    PriceSnapshot,
    PricingTerm,
    Provider,
    ProviderKind,
    SnapshotStatus,
)

SORTS = [("price", "$/GPU-hour, lowest first"), ("-price", "$/GPU-hour, highest first")]


class MarketFilterForm(forms.Form):
    gpu = forms.ModelChoiceField(
        queryset=GpuModel.objects.none(), required=False, empty_label="Any GPU model", label="GPU model"
    )
    kind = short.ChoiceField(choices=[("", "Any kind"), *ProviderKind.choices], required=False, label="Provider kind")
    term = short.ChoiceField(choices=[("", "Any term"), *PricingTerm.choices], required=False, label="Pricing term")
    region = forms.CharField(required=False, max_length=100, label="Region contains")
    sort = short.ChoiceField(choices=SORTS, required=False, label="Sort by")

    def __init__(self, *args, gpu_models, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gpu"].queryset = gpu_models


class PriceUploadForm(forms.Form):
    file = forms.FileField(help_text="Canonical CSV or JSON, or a SkyPilot vms.csv; UTF-8.")
    format = short.ChoiceField(choices=IMPORT_FORMAT_CHOICES, initial=registry.AUTO)
    provider = forms.ModelChoiceField(
        queryset=Provider.objects.all(),
        required=False,
        to_field_name="name",
        empty_label="(from the file)",
        help_text="Required for SkyPilot files, which have no provider column.",
    )
    observed_on = forms.DateField(
        required=False,
        label="Observed on",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="For rows without a date (SkyPilot files have none); default today.",
    )

    def clean(self):
        cleaned = super().clean()
        chosen = registry.BY_NAME.get(cleaned.get("format", ""))
        upload = cleaned.get("file")
        if upload and cleaned.get("format"):
            self._read_within_limits(upload, cleaned["format"])
        if chosen and chosen.needs_provider and not cleaned.get("provider"):
            self.add_error("provider", f"A {chosen.label} has no provider column: choose the provider.")
        return cleaned

    def _read_within_limits(self, upload, requested: str) -> None:
        """Read the file once its format is known from its head, within that format's size limit (a feed's own, as
        the command and the schedule apply it: dispatch.size_problem); then count a CSV's rows."""
        head = upload.read(dispatch.HEAD_BYTES).decode("utf-8-sig", errors="ignore")
        upload.seek(0)
        detected, _ = registry.detect(head, requested)
        if problem := dispatch.size_problem(detected, upload.size, settings.PRICE_IMPORT_MAX_BYTES):
            self.add_error("file", f"{problem[0].upper()}{problem[1:]}. Split it into smaller files.")
            return
        self.content = upload.read()
        self._check_rows(detected, head)

    def _check_rows(self, detected, head: str) -> None:
        """Refuse a line-per-row file (a CSV) with more lines than the row limit before it is queued. A JSON
        document's newlines are not rows, whatever its format (AWS pretty-prints its offer files: 6 MB is 200,000
        lines of a few thousand products), so its entries are counted by its parser, against the same limit."""
        if head.lstrip()[:1] in ("{", "["):
            return
        max_rows = detected.max_rows or settings.PRICE_IMPORT_MAX_ROWS
        if self.content.count(b"\n") > max_rows + 1:
            self.add_error(
                "file",
                f"The file has more than {max_rows:,} rows; the limit is {max_rows:,}. Split it into smaller files.",
            )


class SnapshotDiffForm(forms.Form):
    a = forms.ModelChoiceField(queryset=PriceSnapshot.objects.none(), label="Older snapshot")
    b = forms.ModelChoiceField(queryset=PriceSnapshot.objects.none(), label="Newer snapshot")

    def __init__(self, *args, offered: int = 200, **kwargs) -> None:
        """Any diffable snapshot is accepted (by number in the URL too); the pickers offer the latest `offered` and
        those chosen: a year of daily catalogs would make pickers of thousands of options."""
        super().__init__(*args, **kwargs)
        # A duplicate file's rows are all known (recorded as its contents), so it compares like any import.
        diffable = [SnapshotStatus.IMPORTED, SnapshotStatus.DUPLICATE]
        snapshots = (
            PriceSnapshot.objects.filter(status__in=diffable)
            .only("id", "source", "created_at", "status")
            .order_by("-created_at", "-id")
        )
        chosen = {self.data.get(name, "") for name in ("a", "b")}
        listed = snapshots.filter(Q(pk__in=snapshots[:offered].values("pk")) | Q(pk__in=_ids(chosen)))
        choices = [("", "---------"), *((snapshot.pk, _snapshot_label(snapshot)) for snapshot in listed)]
        for name in ("a", "b"):
            self.fields[name].queryset = snapshots
            self.fields[name].widget.choices = choices


def _ids(values: set[str]) -> list[int]:
    return [int(value) for value in values if value.isascii() and value.isdigit() and len(value) < 19]


def _snapshot_label(snapshot: PriceSnapshot) -> str:
    repeat = ", already imported" if snapshot.status == SnapshotStatus.DUPLICATE else ""
    return f"#{snapshot.pk} {snapshot.source} ({snapshot.created_at:%Y-%m-%d %H:%M}{repeat})"


TREND_WINDOWS = [(3, "3 months"), (6, "6 months"), (12, "12 months"), (24, "24 months"), (36, "36 months")]


class PriceTrendForm(forms.Form):
    """Which index the trend page reads: a GPU model with prices, a pricing term, a window and a currency."""

    gpu = forms.ModelChoiceField(queryset=GpuModel.objects.none(), empty_label=None, label="GPU model")
    term = short.ChoiceField(choices=PricingTerm.choices, initial=PricingTerm.ON_DEMAND, label="Pricing term")
    months = short.TypedChoiceField(choices=TREND_WINDOWS, coerce=int, initial=12, label="Window")
    currency = short.ChoiceField(choices=[], initial=DEFAULT_CURRENCY, label="Currency")

    def __init__(self, *args, gpu_models, currencies, default_gpu=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gpu"].queryset = gpu_models
        self.fields["gpu"].initial = default_gpu
        self.fields["currency"].choices = [(code, code) for code in currencies or [DEFAULT_CURRENCY]]


class ThroughputFilterForm(forms.Form):
    gpu = forms.ModelChoiceField(
        queryset=GpuModel.objects.none(), required=False, empty_label="Any GPU model", label="GPU model"
    )
    model = forms.ModelChoiceField(
        queryset=LanguageModel.objects.none(), required=False, empty_label="Any model", label="Model"
    )

    def __init__(self, *args, gpu_models, language_models, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["gpu"].queryset = gpu_models
        self.fields["model"].queryset = language_models


class ThroughputUploadForm(forms.Form):
    """A throughput file and what it may lack (a vllm bench serve result names no GPU, an MLPerf summary no input
    length); the parsers say which of these a file needs when it lacks them."""

    file = forms.FileField(help_text="InferenceX agg_bmk.json, a vllm bench serve result or an MLPerf summary.")
    format = forms.ChoiceField(
        choices=[(THROUGHPUT_AUTO, "Recognise it"), *((f.name, f.label) for f in THROUGHPUT_FORMATS)],
        initial=THROUGHPUT_AUTO,
    )
    gpu = forms.ModelChoiceField(
        queryset=GpuModel.objects.all(),
        required=False,
        to_field_name="name",
        empty_label="(from the file)",
        label="GPU model",
        help_text="For a file that names no GPU (vllm bench serve).",
    )
    model = forms.CharField(
        required=False, max_length=200, help_text="For a file that names no model; for MLPerf, the benchmark to keep."
    )
    tp = forms.IntegerField(
        required=False, min_value=1, max_value=1024, label="Tensor-parallel GPUs", help_text="For vllm bench serve."
    )
    precision = forms.CharField(
        required=False, max_length=20, label="Weight precision", help_text="For a file without one: bf16, fp8, fp4."
    )
    input_tokens = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=10_000_000,
        label="Input tokens per request",
        help_text="For MLPerf, which publishes no input length per result.",
    )
    measured_on = forms.DateField(
        required=False,
        label="Measured on",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="For rows the file does not date.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        max_bytes = settings.PRICE_IMPORT_MAX_BYTES
        if upload.size > max_bytes:
            raise forms.ValidationError(
                f"The file has {upload.size:,} bytes; the limit is {max_bytes:,} bytes. Split it into smaller files."
            )
        self.content = upload.read()
        return upload

    def given(self) -> dict:
        """What the import fills in where the file is silent, as throughput_import_create takes it."""
        data = self.cleaned_data
        return {
            "gpu": data["gpu"].name if data.get("gpu") else None,
            "model": data.get("model") or None,
            "tp": data.get("tp"),
            "precision": data.get("precision") or None,
            "input_tokens": data.get("input_tokens"),
            "measured_on": data["measured_on"].isoformat() if data.get("measured_on") else None,
        }
