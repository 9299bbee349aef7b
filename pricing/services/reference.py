"""Reference data (`manage.py load_reference`, part of every deployment), demo prices and demo throughput
(`manage.py seed_demo`)."""

from __future__ import annotations

import hashlib
import json
from datetime import date
from pathlib import Path

from django.db import transaction

from pricing.models import (
    GpuAlias,
    GpuModel,
    LanguageModel,
    PriceSnapshot,
    Provider,
    ProviderAlias,
    SnapshotOrigin,
    SnapshotStatus,
    ThroughputImport,
    ThroughputImportStatus,
)
from pricing.services.snapshots import price_snapshot_import
from pricing.services.throughput import throughput_import

# A GPU model's sizing figures, filled from the fixture on a row that has none yet (no spec_source): a deployment
# that loaded its GPU models before these figures existed gets them, and a row edited in the admin keeps its own.
GPU_SPEC_FIELDS = (
    "memory_gib",
    "peak_dense_tflops_fp16",
    "peak_dense_tflops_fp8",
    "peak_dense_tflops_fp4",
    "gpus_per_node",
    "spec_source",
)


def reference_data_load(*, path: Path) -> dict[str, int]:
    """Create the providers, provider aliases, GPU models, GPU aliases and language models of a reference fixture
    that are missing, and give GPU models without a spec source the fixture's sizing figures.

    Rows that already exist (matched by name) are otherwise left as they are, so edits made in the admin survive.
    """
    records = json.loads(Path(path).read_text(encoding="utf-8"))
    by_model: dict[str, list[dict]] = {}
    for record in records:
        by_model.setdefault(record["model"], []).append(record["fields"])
    created = {}
    with transaction.atomic():
        known = set(Provider.objects.values_list("name", flat=True))
        new = [Provider(**f) for f in by_model.get("pricing.provider", []) if f["name"] not in known]
        created["providers"] = len(Provider.objects.bulk_create(new))
        provider_ids = dict(Provider.objects.values_list("name", "id"))
        known = set(ProviderAlias.objects.values_list("alias", flat=True))
        new = [
            ProviderAlias(alias=f["alias"], provider_id=provider_ids[f["provider"][0]])
            for f in by_model.get("pricing.provideralias", [])
            if f["alias"] not in known
        ]
        created["provider_aliases"] = len(ProviderAlias.objects.bulk_create(new))
        known = set(GpuModel.objects.values_list("name", flat=True))
        new = [GpuModel(**f) for f in by_model.get("pricing.gpumodel", []) if f["name"] not in known]
        created["gpu_models"] = len(GpuModel.objects.bulk_create(new))
        created["gpu_specs"] = _gpu_specs_fill(by_model.get("pricing.gpumodel", []))
        model_ids = dict(GpuModel.objects.values_list("name", "id"))
        known = set(GpuAlias.objects.values_list("alias", flat=True))
        new = [
            GpuAlias(alias=f["alias"], gpu_model_id=model_ids[f["gpu_model"][0]])
            for f in by_model.get("pricing.gpualias", [])
            if f["alias"] not in known
        ]
        created["aliases"] = len(GpuAlias.objects.bulk_create(new))
        known = set(LanguageModel.objects.values_list("name", flat=True))
        new = [LanguageModel(**f) for f in by_model.get("pricing.languagemodel", []) if f["name"] not in known]
        created["language_models"] = len(LanguageModel.objects.bulk_create(new))
    return created


def _gpu_specs_fill(records: list[dict]) -> int:
    """Give the GPU models without a spec source the fixture's sizing figures; how many were filled."""
    specs = {f["name"]: f for f in records if f.get("spec_source")}
    blank = list(GpuModel.objects.filter(spec_source="", name__in=specs))
    for gpu in blank:
        for field in GPU_SPEC_FIELDS:
            if field in specs[gpu.name]:
                setattr(gpu, field, specs[gpu.name][field])
    return GpuModel.objects.bulk_update(blank, GPU_SPEC_FIELDS) if blank else 0


def demo_prices_load(*, manifest: Path) -> list[PriceSnapshot]:
    """Import the demo price files a manifest lists, skipping files already imported with the same options."""
    snapshots = []
    for entry in json.loads(manifest.read_text(encoding="utf-8")):
        content = (manifest.parent / entry["path"]).read_bytes()
        sha256 = hashlib.sha256(content).hexdigest()
        provider_name = entry.get("provider", "")
        done = PriceSnapshot.objects.filter(
            sha256=sha256,
            provider_name=provider_name,
            status__in=[SnapshotStatus.IMPORTED, SnapshotStatus.DUPLICATE],
        )
        if done.exists():
            continue
        observed_on = date.fromisoformat(entry["observed_on"]) if entry.get("observed_on") else None
        snapshot = price_snapshot_import(
            content=content,
            origin=SnapshotOrigin.SEED,
            source=f"demo: {entry['path']}",
            file_name=entry["path"],
            url=entry.get("source_url", ""),
            format=entry.get("format", "auto"),
            provider_name=provider_name,
            observed_on=observed_on,
        )
        snapshots.append(snapshot)
    return snapshots


def demo_throughput_load(*, manifest: Path) -> list[ThroughputImport]:
    """Import the demo throughput files a manifest lists, skipping files already imported."""
    imports = []
    for entry in json.loads(manifest.read_text(encoding="utf-8")):
        content = (manifest.parent / entry["path"]).read_bytes()
        sha256 = hashlib.sha256(content).hexdigest()
        if ThroughputImport.objects.filter(sha256=sha256, status=ThroughputImportStatus.IMPORTED).exists():
            continue
        imports.append(
            throughput_import(
                content=content,
                file_name=entry["path"],
                format=entry.get("format", "auto"),
                given=entry.get("given", {}),
                origin=SnapshotOrigin.SEED,
            )
        )
    return imports
