"""Rows naming a GPU or provider no alias maps: the closest known names are looked up once per name, not per row
(a 20,000-row catalog spent 51 of its 57 s on edit distances)."""

from __future__ import annotations

from datetime import date
from unittest import mock

import pytest

from pricing.importers import base
from pricing.models import GpuAlias, GpuModel, Provider, ProviderAlias, SnapshotStatus
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,SpotPrice\n"
NAMES = ["H100X", "Blackwell-Z9", "MI999"]  # unknown; the first is one edit from a known model


def _catalog(rows_per_name: int) -> bytes:
    lines = [
        f"box-{name}-{i},{name},8,96,768.0,{20 + i % 5}.0,region-{i},\n" for name in NAMES for i in range(rows_per_name)
    ]
    return (HEADER + "".join(lines)).encode()


def _known_gpu_names() -> int:
    return GpuModel.objects.count() + GpuAlias.objects.count()


def _import(content: bytes):
    return run_import(content, format="skypilot", provider_name="Lambda", observed_on=date(2026, 11, 1))


def test_closest_names_are_computed_once_per_held_back_name():
    with mock.patch.object(base, "edit_distance", wraps=base.edit_distance) as distance:
        snapshot = _import(_catalog(rows_per_name=200))
    assert (snapshot.status, snapshot.rows_held_back) == (SnapshotStatus.IMPORTED, 600)
    assert distance.call_count <= len(NAMES) * _known_gpu_names()  # was one search per row: 200 times as many
    reasons = {entry["name"]: entry["reason"] for entry in snapshot.held_back}
    assert "closest known: H100 SXM" in reasons["H100X"]
    assert {entry["reason"] for entry in snapshot.held_back if entry["name"] == "H100X"} == {reasons["H100X"]}


def test_a_rejected_file_naming_one_unknown_gpu_on_every_row_searches_once():
    rows = [f"Lambda,neocloud,H100X,8,box-{i},us-east-1,on_demand,,3.99,USD,2026-11-01," for i in range(300)]
    with mock.patch.object(base, "edit_distance", wraps=base.edit_distance) as distance:
        snapshot = run_import(canonical(*rows))
    assert snapshot.status == SnapshotStatus.REJECTED and snapshot.error_count == 300
    assert "closest known: H100 SXM" in snapshot.errors[0]["reason"]
    assert distance.call_count <= _known_gpu_names()  # one search (was 300)


def test_a_new_provider_looking_like_a_known_one_is_checked_once_per_name():
    rows = [f"Lambda Labz,neocloud,H100 SXM,8,box-{i},us-east-1,on_demand,,3.99,USD,2026-11-01," for i in range(300)]
    with mock.patch.object(base, "edit_distance", wraps=base.edit_distance) as distance:
        snapshot = run_import(canonical(*rows))
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "closest known: Lambda" in snapshot.errors[0]["reason"]
    # one typo check and one search for the closest names (was 300 of each)
    assert distance.call_count <= 2 * (Provider.objects.count() + ProviderAlias.objects.count())
