"""Writes of the pricing app (HackSoft-style services: keyword-only `<entity>_<verb>()` functions)."""

from __future__ import annotations

from pricing.services.catalogs import price_catalog_import
from pricing.services.reference import demo_prices_load, demo_throughput_load, reference_data_load
from pricing.services.snapshots import (
    BULK_BATCH_SIZE,
    price_snapshot_create,
    price_snapshot_fail,
    price_snapshot_import,
    price_snapshot_queue,
    price_snapshot_run,
)
from pricing.services.sources import import_source_run, import_sources_run_due, price_file_open
from pricing.services.throughput import (
    throughput_import,
    throughput_import_create,
    throughput_import_fail,
    throughput_import_queue,
    throughput_import_run,
    throughput_models_link,
    throughput_source_run,
    throughput_sources_run_due,
)

__all__ = [
    "BULK_BATCH_SIZE",
    "demo_prices_load",
    "demo_throughput_load",
    "import_source_run",
    "import_sources_run_due",
    "price_catalog_import",
    "price_file_open",
    "price_snapshot_create",
    "price_snapshot_fail",
    "price_snapshot_import",
    "price_snapshot_queue",
    "price_snapshot_run",
    "reference_data_load",
    "throughput_import",
    "throughput_import_create",
    "throughput_import_fail",
    "throughput_import_queue",
    "throughput_import_run",
    "throughput_models_link",
    "throughput_source_run",
    "throughput_sources_run_due",
]
