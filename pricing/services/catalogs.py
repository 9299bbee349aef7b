"""Whole SkyPilot catalog trees (`<cloud>/vms.csv` for every cloud): one snapshot per provider.

A tree is a folder or an https URL ending in `/` (e.g. the raw GitHub URL of `catalogs/v8/`). A folder is
listed; a URL cannot be, so every cloud SkyPilot publishes VM prices for is tried and those the tree does not
have (HTTP 404) are passed over. A failure in one provider's file is recorded on its snapshot and the
others go on.
"""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path
from urllib.parse import urljoin

from pricing import fetch
from pricing.models import PriceSnapshot, SnapshotOrigin
from pricing.services.snapshots import price_snapshot_create, price_snapshot_fail, price_snapshot_import

logger = logging.getLogger(__name__)

# The clouds of skypilot-catalog/catalogs/v8 with a vms.csv (their names are provider aliases).
SKYPILOT_CLOUDS = (
    "aws",
    "azure",
    "cudo",
    "daytona",
    "do",
    "fluidstack",
    "gcp",
    "hyperbolic",
    "hyperstack",
    "ibm",
    "jarvislabs",
    "lambda",
    "lium",
    "mithril",
    "nebius",
    "oci",
    "paperspace",
    "primeintellect",
    "runpod",
    "scp",
    "seeweb",
    "shadeform",
    "spheron",
    "vast",
    "verda",
    "yotta",
)


def catalog_files(
    location: str, *, relative_to: Path | None = None, within: Path | None = None
) -> list[tuple[str, str]]:
    """(cloud, file location) for each cloud of the tree. Raises FetchError for a folder that does not exist
    (or, with `within`, lies outside that folder)."""
    if fetch.is_url(location):
        base = location if location.endswith("/") else location + "/"
        return [(cloud, urljoin(base, f"{cloud}/vms.csv")) for cloud in SKYPILOT_CLOUDS]
    folder = Path(location)
    if relative_to is not None and not folder.is_absolute():
        folder = relative_to / folder
    if within is not None:
        fetch.check_within(folder, within, location)
    if not folder.is_dir():
        raise fetch.FetchError(f"{location!r}: no such folder.", not_found=True)
    files = []
    for cloud in sorted(child for child in folder.iterdir() if child.is_dir()):
        candidates = [cloud / "vms.csv"] if (cloud / "vms.csv").is_file() else sorted(cloud.glob("vms*.csv"))
        if candidates:
            files.append((cloud.name, str(candidates[0])))
    return files


def price_catalog_import(
    *,
    location: str,
    observed_on: date | None = None,
    origin: str = SnapshotOrigin.COMMAND,
    source: str = "",
    relative_to: Path | None = None,
    within: Path | None = None,
) -> list[PriceSnapshot]:
    """Import every cloud's vms.csv of a SkyPilot catalog tree, the cloud name naming the provider.
    With `within` (schedules: PRICE_IMPORT_DIR), files outside that folder are refused."""
    snapshots = []
    for cloud, file in catalog_files(location, relative_to=relative_to, within=within):
        options = {
            "origin": origin,
            "source": f"{source or location} [{cloud}]",
            "format": "skypilot",
            "provider_name": cloud,
            "observed_on": observed_on,
        }
        try:
            fetched = fetch.read_location(file, relative_to=relative_to, within=within)
        except fetch.FetchError as exc:
            if exc.not_found and fetch.is_url(file):
                continue  # this tree has no catalog for that cloud
            snapshots.append(_failed(file, str(exc), options))
            continue
        try:
            snapshot = price_snapshot_import(
                content=fetched.content, file_name=f"{cloud}/{Path(file).name}", url=fetched.url, **options
            )
        except Exception as exc:  # one provider's crash must not stop the others
            logger.exception("catalog import of %s crashed", file)
            snapshot = _failed(file, f"the import crashed ({type(exc).__name__}); report this", options)
        snapshots.append(snapshot)
    return snapshots


def _failed(file: str, reason: str, options: dict) -> PriceSnapshot:
    snapshot = price_snapshot_create(content=b"", file_name=file, **options)
    price_snapshot_fail(snapshot_id=snapshot.pk, reason=reason)
    snapshot.refresh_from_db()
    return snapshot
