from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from pricing.models import ImportSource, PriceObservation, PriceSnapshot, Provider, SnapshotStatus
from tests.pricing.conftest import SAMPLES, canonical

pytestmark = pytest.mark.usefixtures("reference")

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,"


def command(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def price_file(tmp_path, settings):
    settings.PRICE_IMPORT_DIR = tmp_path  # where scheduled sources may read

    def write(text: str, name: str = "prices.csv"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def test_import_prices_prints_a_one_line_summary(price_file):
    out, err = command("import_prices", price_file(canonical(ROW)))
    assert out.count("\n") == 1
    assert "imported: 1 new, 0 already known, 0 skipped (of 1 rows)" in out
    assert err == ""


def test_import_prices_says_when_nothing_is_new(price_file):
    path = price_file(canonical(ROW))
    command("import_prices", path)
    out, _ = command("import_prices", path)
    assert "duplicate: 0 new, 1 already known" in out
    assert "nothing new" in out


def test_import_prices_reads_a_skypilot_file_with_provider_and_date():
    out, _ = command(
        "import_prices",
        str(SAMPLES / "vast/vms.csv"),
        "--format",
        "skypilot",
        "--provider",
        "vast",
        "--observed-on",
        "2026-11-01",
    )
    assert "63 new" in out
    assert set(PriceObservation.objects.values_list("observed_on", flat=True)).pop().isoformat() == "2026-11-01"


def test_import_prices_lists_every_error_on_stderr_and_exits_non_zero(price_file):
    bad = canonical(ROW.replace("23.92", "-1", 1), ROW.replace("us-east-1", "eu", 1).replace("on_demand", "x", 1))
    err = io.StringIO()
    with pytest.raises(CommandError, match="Rejected: 2 error"):
        call_command("import_prices", price_file(bad), stdout=io.StringIO(), stderr=err)
    lines = err.getvalue().splitlines()
    assert lines[0] == "line 2, column price_per_instance_hour, value '-1': negative price"
    assert lines[1].startswith("line 3, column pricing_term, value 'x': unknown pricing term")
    assert PriceObservation.objects.count() == 0


def test_import_prices_exits_with_status_1_from_the_command_line(price_file, capsys):
    from pricing.management.commands.import_prices import Command

    path = price_file(canonical(ROW.replace("23.92", "abc", 1)))
    with pytest.raises(SystemExit) as exit_info:
        Command().run_from_argv(["manage.py", "import_prices", path])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "line 2, column price_per_instance_hour, value 'abc': not a number" in err
    assert "Rejected: 1 error(s); nothing was imported." in err


def test_import_prices_rejects_a_missing_file():
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_prices", "/nonexistent/prices.csv")


def test_import_prices_rejects_a_malformed_date_option(price_file):
    with pytest.raises(CommandError, match="is not a date"):
        call_command("import_prices", price_file(canonical(ROW)), "--observed-on", "1/11/2026")


def test_import_prices_refuses_urls_off_the_allow_list():
    with pytest.raises(CommandError, match="not in PRICE_IMPORT_URL_HOSTS"):
        call_command("import_prices", "https://example.com/prices.csv")


def test_export_prices_writes_canonical_csv(price_file):
    command("import_prices", price_file(canonical(ROW)))
    out, _ = command("export_prices")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:3] == ["provider", "provider_kind", "gpu_model"]
    assert rows[1] == [
        "Lambda",
        "neocloud",
        "H100 SXM",
        "8",
        "gpu_8x_h100_sxm5",
        "us-east-1",
        "on_demand",
        "23.92",
        "2.99",
        "USD",
        "2026-11-01",
        "",
        "",
        "",
        "",
    ]


def test_export_prices_neutralises_formula_text_and_keeps_numbers(price_file):
    hostile = ROW.replace("gpu_8x_h100_sxm5", "=HYPERLINK(1)", 1).replace("us-east-1", "@region", 1)
    command(
        "import_prices",
        price_file(canonical(hostile, ROW.replace("us-east-1", "-x", 1).replace("gpu_8x_h100_sxm5", "+box", 1))),
    )
    out, _ = command("export_prices")
    rows = (
        {row[4]: row for row in csv.DictReader(io.StringIO(out)).reader}
        if False
        else list(csv.DictReader(io.StringIO(out)))
    )
    offerings = {row["offering"]: row for row in rows}
    assert set(offerings) == {"'=HYPERLINK(1)", "'+box"}
    assert offerings["'=HYPERLINK(1)"]["region"] == "'@region"
    assert offerings["'+box"]["region"] == "'-x"
    assert offerings["'+box"]["price_per_gpu_hour"] == "2.99"


def test_an_export_imports_back_as_a_duplicate(price_file):
    command("import_prices", price_file(canonical(ROW.replace("gpu_8x_h100_sxm5", "-dash", 1), ROW)))
    out, _ = command("export_prices")
    again, _ = command("import_prices", price_file(out, "export.csv"))
    assert "duplicate: 0 new, 2 already known" in again


def test_export_prices_of_one_snapshot(price_file):
    command("import_prices", price_file(canonical(ROW)))
    command("import_prices", price_file(canonical(ROW.replace("2026-11-01", "2026-11-02", 1)), "b.csv"))
    second = PriceSnapshot.objects.order_by("id").last()
    out, _ = command("export_prices", "--snapshot", str(second.pk))
    assert [row["observed_on"] for row in csv.DictReader(io.StringIO(out))] == ["2026-11-02"]


def test_export_prices_latest_keeps_one_row_per_offering(price_file):
    command("import_prices", price_file(canonical(ROW, ROW.replace("2026-11-01", "2026-10-01", 1))))
    out, _ = command("export_prices", "--latest")
    assert [row["observed_on"] for row in csv.DictReader(io.StringIO(out))] == ["2026-11-01"]


def test_export_prices_refuses_an_unknown_snapshot():
    with pytest.raises(CommandError, match="no such snapshot"):
        call_command("export_prices", "--snapshot", "999")


def test_run_scheduled_imports_runs_due_sources_once(price_file):
    ImportSource.objects.create(name="lambda file", location=price_file(canonical(ROW)), cadence_hours=24)
    out, _ = command("run_scheduled_imports")
    assert "schedule: lambda file: snapshot" in out and "imported" in out
    out, _ = command("run_scheduled_imports")
    assert out.strip() == "No scheduled import is due."


def test_run_scheduled_imports_all_ignores_the_cadence(price_file):
    ImportSource.objects.create(name="lambda file", location=price_file(canonical(ROW)), cadence_hours=24)
    command("run_scheduled_imports")
    out, _ = command("run_scheduled_imports", "--all")
    assert "duplicate" in out


def test_a_scheduled_skypilot_source_uses_its_provider(settings):
    settings.PRICE_IMPORT_DIR = SAMPLES
    source = ImportSource.objects.create(
        name="hyperstack",
        location=str(SAMPLES / "hyperstack/vms.csv"),
        format="skypilot",
        provider=Provider.objects.get(name="Hyperstack"),
    )
    command("run_scheduled_imports")
    source.refresh_from_db()
    assert source.last_snapshot.status == SnapshotStatus.IMPORTED
    assert source.last_run_at is not None
    assert PriceObservation.objects.filter(provider__name="Hyperstack").count() == 25


def test_a_scheduled_source_that_cannot_be_read_is_recorded_as_failed(settings, tmp_path):
    settings.PRICE_IMPORT_DIR = tmp_path
    ImportSource.objects.create(name="gone", location="prices.csv")
    _, err = command("run_scheduled_imports")
    assert "schedule: gone" in err and "failed" in err
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.status == SnapshotStatus.FAILED
    assert "no such file" in snapshot.errors[0]["reason"]
