"""Hostile price files and sources (importer side): bounded work, bounded errors, nothing echoed,
nothing read outside the import folder."""

from __future__ import annotations

import time

import pytest
from django.core.exceptions import ValidationError

from pricing import fetch
from pricing.models import ImportSource, PriceSnapshot, SnapshotStatus
from pricing.services import import_sources_run_due
from tests.pricing.conftest import HEADER, canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

GOOD = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,"
PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


def test_a_header_of_a_million_columns_is_refused_quickly_before_parsing():
    text = ",".join(f"c{i}" for i in range(1_000_000)) + "\n" + "x\n"
    started = time.monotonic()
    snapshot = run_import(text)
    assert time.monotonic() - started < 5  # was minutes: columns.count() for every column
    assert snapshot.status == SnapshotStatus.REJECTED
    (error,) = snapshot.errors
    assert error["reason"].startswith("the header has 1,000,000 columns; the limit is")
    assert error["value"] == ""


def test_a_line_longer_than_the_cap_is_refused_naming_its_line():
    text = canonical(GOOD, GOOD.replace("gpu_8x_h100_sxm5", "x" * 200_000))
    snapshot = run_import(text)
    (error,) = snapshot.errors
    assert error["line"] == 3
    assert "characters; the limit is" in error["reason"]
    assert error["value"] == ""


def test_the_error_list_of_a_rejected_file_is_capped_and_says_how_many_more():
    text = canonical(*(GOOD.replace("23.92", f"-{i + 1}") for i in range(1000)))
    snapshot = run_import(text)
    assert snapshot.status == SnapshotStatus.REJECTED
    assert len(snapshot.errors) == 101
    assert snapshot.errors[-1]["reason"].startswith("… and 900 more errors not listed")
    assert "1000 error" in snapshot.summary or "1,000 error" in snapshot.summary


def test_a_file_that_is_not_a_price_file_is_refused_without_echoing_its_contents():
    snapshot = run_import(PASSWD)
    assert snapshot.status == SnapshotStatus.REJECTED
    shown = repr(snapshot.errors)
    assert "root" not in shown and "daemon" not in shown and "/bin" not in shown


@pytest.fixture
def import_dir(settings, tmp_path):
    folder = tmp_path / "imports"
    folder.mkdir()
    settings.PRICE_IMPORT_DIR = folder
    return folder


def test_a_scheduled_file_source_outside_the_import_folder_is_refused(import_dir, tmp_path):
    secret = tmp_path / ".env"
    secret.write_text("DJANGO_SECRET_KEY=hunter2\n", encoding="utf-8")
    for location in (str(secret), "../.env", "/etc/passwd"):
        source = ImportSource(name="x", location=location)
        with pytest.raises(ValidationError, match="PRICE_IMPORT_DIR"):
            source.full_clean()
    ImportSource.objects.create(name="sneaky", location=str(secret))  # saved past the form, e.g. by a script
    (snapshot,) = import_sources_run_due()
    assert snapshot.status == SnapshotStatus.FAILED
    assert "outside the import folder" in snapshot.errors[0]["reason"]
    assert "hunter2" not in repr(PriceSnapshot.objects.values())


def test_a_symlink_out_of_the_import_folder_is_refused(import_dir, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text(HEADER + GOOD + "\n", encoding="utf-8")
    (import_dir / "link.csv").symlink_to(secret)
    with pytest.raises(fetch.FetchError, match="outside the import folder"):
        fetch.read_path("link.csv", relative_to=import_dir, within=import_dir)


def test_a_scheduled_file_source_inside_the_import_folder_imports(import_dir):
    (import_dir / "prices.csv").write_text(HEADER + GOOD + "\n", encoding="utf-8")
    ImportSource.objects.create(name="ok", location="prices.csv")
    (snapshot,) = import_sources_run_due()
    assert snapshot.status == SnapshotStatus.IMPORTED


def test_a_nul_in_a_json_field_name_is_rejected_and_stored_on_every_database(reference):
    # A JSON file may spell NUL as \u0000; the rejection echoes the field name, and PostgreSQL's jsonb refuses
    # \u0000 (SQLite takes it): the rejection must still be saved, with the NUL shown as U+2400.
    snapshot = run_import('[{"provider": "Lambda", "bad\\u0000field": 1}]', format="canonical")
    snapshot.refresh_from_db()
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "\x00" not in str(snapshot.errors)
    assert "bad\u2400field" in str(snapshot.errors)


def test_a_nul_in_a_json_cell_is_an_error_naming_the_field_not_a_database_failure(reference):
    # PostgreSQL text refuses NUL: a \u0000 in an accepted cell used to fail the import there (SQLite stored it).
    record = (
        '[{"provider": "Lambda", "provider_kind": "neocloud", "gpu_model": "H100 SXM", "gpus_per_instance": 8, '
        '"offering": "gpu\\u0000x", "region": "us-east-1", "pricing_term": "on_demand", "price_per_gpu_hour": 2.99, '
        '"currency": "USD", "observed_on": "2026-11-01", "source_url": "https://lambda.ai/pricing"}]'
    )
    snapshot = run_import(record, format="canonical")
    assert snapshot.status == SnapshotStatus.REJECTED
    assert [(e["line"], e["column"]) for e in snapshot.errors] == [(1, "offering")]
    assert "NUL" in snapshot.errors[0]["reason"]
