"""A whole SkyPilot catalog tree at once: one snapshot per provider, a failure in one file stops no other."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from pricing import fetch
from pricing.models import ImportSource, PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import REPO, SAMPLES, import_sample

pytestmark = pytest.mark.usefixtures("reference")


@pytest.fixture
def tree(tmp_path):
    for cloud in ("lambda", "hyperstack"):
        (tmp_path / cloud).mkdir()
        shutil.copy(SAMPLES / cloud / "vms.csv", tmp_path / cloud / "vms.csv")
    (tmp_path / "nosuchcloud").mkdir()
    shutil.copy(SAMPLES / "hyperstack/vms.csv", tmp_path / "nosuchcloud" / "vms.csv")
    (tmp_path / "nebius").mkdir()
    (tmp_path / "nebius" / "vms.csv").write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\nbox,H100,8,twenty,eu\n", encoding="utf-8"
    )
    (tmp_path / "common").mkdir()  # accelerators.csv only: not a cloud
    shutil.copy(SAMPLES / "common/accelerators.csv", tmp_path / "common")
    return tmp_path


def test_import_catalog_makes_one_snapshot_per_provider_and_goes_on_after_a_failure(tree):
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="2 of 4 provider files were not imported"):
        call_command("import_catalog", str(tree), "--observed-on", "2026-11-01", stdout=out, stderr=err)
    statuses = dict(PriceSnapshot.objects.values_list("provider_name", "status"))
    assert statuses == {
        "hyperstack": SnapshotStatus.IMPORTED,
        "lambda": SnapshotStatus.IMPORTED,
        "nebius": SnapshotStatus.REJECTED,
        "nosuchcloud": SnapshotStatus.REJECTED,
    }
    assert "lambda: snapshot" in out.getvalue() and "340 new" in out.getvalue()
    assert "unknown provider 'nosuchcloud'" in err.getvalue() and "value 'twenty'" in err.getvalue()
    assert set(PriceObservation.objects.values_list("provider__name", flat=True)) == {"Lambda", "Hyperstack"}
    assert set(PriceObservation.objects.values_list("observed_on", flat=True)).pop().isoformat() == "2026-11-01"


def test_import_catalog_of_a_url_tries_every_cloud_and_passes_over_those_it_lacks(monkeypatch):
    base = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/"
    tried = []

    def read_location(location, *, relative_to=None, within=None):
        tried.append(location)
        if location == base + "vast/vms.csv":
            return fetch.Fetched((SAMPLES / "vast/vms.csv").read_bytes(), "vms.csv", location)
        raise fetch.FetchError(f"{location!r}: the server answered HTTP 404 Not Found.", not_found=True)

    monkeypatch.setattr(fetch, "read_location", read_location)
    out = io.StringIO()
    call_command("import_catalog", base, stdout=out)
    assert base + "gcp/vms.csv" in tried and base + "primeintellect/vms.csv" in tried
    snapshot = PriceSnapshot.objects.get()
    assert (snapshot.provider_name, snapshot.status, snapshot.url) == ("vast", "imported", base + "vast/vms.csv")


def test_import_catalog_of_a_folder_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="no such folder"):
        call_command("import_catalog", str(tmp_path / "missing"), stdout=io.StringIO())


def test_a_scheduled_source_may_point_at_a_catalog_tree(tree, settings):
    settings.PRICE_IMPORT_DIR = tree.parent
    source = ImportSource.objects.create(name="skypilot v8", location=str(tree))
    source.full_clean()  # a tree needs no provider: each cloud names its own
    err = io.StringIO()
    call_command("run_scheduled_imports", stdout=io.StringIO(), stderr=err)
    assert PriceSnapshot.objects.count() == 4
    assert set(PriceSnapshot.objects.values_list("origin", flat=True)) == {"schedule"}
    source.refresh_from_db()
    assert source.last_snapshot is not None and source.last_run_at is not None
    assert "nosuchcloud" in err.getvalue()


@pytest.mark.parametrize(
    ("relative", "provider"),
    [
        ("aws/vms-excerpt.csv", "aws"),
        ("gcp/vms-excerpt.csv", "gcp"),
        ("hyperstack/vms.csv", "hyperstack"),
        ("lambda/vms.csv", "lambda"),
        ("nebius/vms.csv", "nebius"),
        ("vast/vms.csv", "vast"),
    ],
)
def test_the_row_counts_of_every_sample_add_up(relative, provider):
    snapshot = import_sample(relative, provider)
    parts = (
        snapshot.rows_imported,
        snapshot.rows_unchanged,
        snapshot.rows_skipped,
        snapshot.rows_merged,
        snapshot.rows_held_back,
    )
    assert sum(parts) == snapshot.rows_total
    assert snapshot.prices_new == PriceObservation.objects.count()
    lines = [e["line"] for name in ("skipped", "merged", "held_back") for e in getattr(snapshot, name)]
    assert len(lines) == len(set(lines))  # each row is accounted for once


def test_export_prices_piped_into_head_ends_quietly(tmp_path):
    # its own database file, in subprocesses: no test database (a transactional one here flushed it, and the
    # groups recreated after the flush broke a later test that restores the migrated rows)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DJANGO_SECRET_KEY": "x"}
    manage = [sys.executable, str(REPO / "manage.py")]
    # The database to export, filled in one process: each start of Django costs about a second.
    fill = (
        "from django.core.management import call_command; call_command('migrate', verbosity=0); "
        f"call_command('load_reference'); call_command('import_catalog', {str(SAMPLES)!r})"
    )
    subprocess.run([*manage, "shell", "-c", fill], env=env, check=True, capture_output=True, timeout=120)
    export = subprocess.Popen([*manage, "export_prices"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = export.stdout.readline()
    export.stdout.close()  # what `| head -1` does
    _, stderr = export.communicate(timeout=60)
    assert first.startswith(b"provider,provider_kind")
    assert b"Traceback" not in stderr and b"BrokenPipe" not in stderr
    assert export.returncode == 0
