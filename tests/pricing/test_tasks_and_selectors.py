from __future__ import annotations

from datetime import date

import pytest
from django.core.exceptions import ValidationError

from pricing import selectors, services, tasks
from pricing.models import (
    GpuAlias,
    GpuModel,
    ImportSource,
    PriceSnapshot,
    Provider,
    ProviderAlias,
    SnapshotOrigin,
    SnapshotStatus,
)
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,{date},"


def _queued(text: str) -> PriceSnapshot:
    return services.price_snapshot_create(
        content=text.encode(), origin=SnapshotOrigin.UPLOAD, source="upload.csv", keep_file=True
    )


def test_the_job_imports_a_pending_snapshot():
    snapshot = _queued(canonical(ROW.format(date="2026-11-01")))
    assert tasks.import_snapshot.delay(snapshot.pk).get() == SnapshotStatus.IMPORTED
    snapshot.refresh_from_db()
    assert (snapshot.status, snapshot.rows_imported) == (SnapshotStatus.IMPORTED, 1)


def test_run_due_imports_runs_each_due_source(tmp_path, settings):
    settings.PRICE_IMPORT_DIR = tmp_path
    path = tmp_path / "p.csv"
    path.write_text(canonical(ROW.format(date="2026-11-01")), encoding="utf-8")
    ImportSource.objects.create(name="a", location=str(path))
    ImportSource.objects.create(name="off", location=str(path), enabled=False)
    (snapshot_id,) = tasks.run_due_imports.delay().get()
    snapshot = PriceSnapshot.objects.get(pk=snapshot_id)
    assert (snapshot.source, snapshot.status) == ("schedule: a", SnapshotStatus.IMPORTED)


def test_latest_prices_picks_the_latest_date_of_each_offering():
    run_import(canonical(ROW.format(date="2026-10-01"), ROW.format(date="2026-10-01").replace("us-east-1", "eu")))
    run_import(canonical(ROW.format(date="2026-11-01")))
    latest = {(o.region, o.observed_on) for o in selectors.latest_prices()}
    assert latest == {("us-east-1", date(2026, 11, 1)), ("eu", date(2026, 10, 1))}


def test_latest_snapshot_per_source_and_failed_snapshots():
    run_import(canonical(ROW.format(date="2026-10-01")), source="a.csv")
    newest_a = run_import(canonical(ROW.format(date="2026-10-02")), source="a.csv")
    bad = run_import(canonical(ROW.format(date="2026-10-03").replace("23.92", "x")), source="b.csv")
    assert list(selectors.latest_snapshot_per_source()) == [bad, newest_a]
    assert list(selectors.failed_snapshots(5)) == [bad]


def test_the_overview_selectors_take_one_query_each(django_assert_num_queries):
    for day in range(1, 6):
        run_import(canonical(ROW.format(date=f"2026-10-0{day}")), source=f"{day}.csv")
    with django_assert_num_queries(1):
        assert len(list(selectors.latest_snapshot_per_source())) == 5
    with django_assert_num_queries(1):
        assert list(selectors.failed_snapshots(3)) == []


def test_an_alias_that_collides_with_another_models_alias_is_refused():
    alias = GpuAlias(alias="h100-sxm", gpu_model=GpuModel.objects.get(name="H100 PCIe"))
    with pytest.raises(ValidationError, match="matches the alias"):
        alias.full_clean()


def test_a_provider_alias_that_is_another_providers_name_or_alias_is_refused():
    lambda_, other = Provider.objects.order_by("name")[:2]
    made = ProviderAlias.objects.create(alias="first-gpu-co", provider=lambda_)
    with pytest.raises(ValidationError, match=f"is the name of the provider {other.name}"):
        ProviderAlias(alias=other.name.upper(), provider=lambda_).full_clean()
    with pytest.raises(ValidationError, match=f"matches the alias 'first-gpu-co', which means {lambda_.name}"):
        ProviderAlias(alias="First GPU Co", provider=other).full_clean()
    ProviderAlias(alias="First GPU Co", provider=lambda_).clean()  # the same provider: no collision
    assert str(made) == f"first-gpu-co → {lambda_.name}"


@pytest.mark.parametrize("model", [GpuAlias, ProviderAlias])
def test_an_alias_without_a_letter_or_digit_is_refused(model):
    with pytest.raises(ValidationError, match="at least one letter or digit"):
        model(alias=" - ").clean()


def test_an_alias_added_in_the_admin_resolves_in_the_next_import():
    GpuAlias.objects.create(alias="Hopper 80G", gpu_model=GpuModel.objects.get(name="H100 SXM"))
    snapshot = run_import(canonical(ROW.format(date="2026-11-01").replace("H100 SXM", "HOPPER_80G")))
    assert snapshot.status == SnapshotStatus.IMPORTED


def test_a_skypilot_source_without_a_provider_is_refused():
    source = ImportSource(name="x", location="fixtures/prices/skypilot/lambda/vms.csv", format="skypilot")
    with pytest.raises(ValidationError, match="choose the provider"):
        source.full_clean()


def test_a_source_url_off_the_allow_list_is_refused():
    source = ImportSource(name="x", location="https://example.com/vms.csv")
    with pytest.raises(ValidationError, match="not in PRICE_IMPORT_URL_HOSTS"):
        source.full_clean()


def test_the_admin_lists_pricing_models(admin_client):
    models = ["provider", "provideralias", "gpumodel", "gpualias", "unmappedname"]
    for name in [*models, "pricesnapshot", "priceobservation", "importsource"]:
        assert admin_client.get(f"/admin/pricing/{name}/").status_code == 200, name
