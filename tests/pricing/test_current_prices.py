"""The latest price of each offering (pricing.selectors.latest_prices) read from the current-price table that
imports keep: checked against a brute-force reading of every observation, whatever order catalogs arrive in."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import RunPython
from django.urls import reverse

from pricing import selectors
from pricing.models import CurrentPrice, GpuModel, PriceObservation, SnapshotStatus
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

PROVIDERS = [("Lambda", "neocloud"), ("AWS", "hyperscaler"), ("RunPod", "marketplace")]
GPUS = ["H100 SXM", "A100 80GB SXM", "L40S"]
OFFERINGS = ["gpu-box", "big-box"]
REGIONS = ["us-east-1", "eu-west-1", ""]
TERMS = ["on_demand", "spot"]
PRICES = [Decimal("2.000000"), Decimal("2.500000"), Decimal("3.000000")]  # few prices: many ties to order
FIRST = date(2026, 9, 1)
KEY = ("provider_id", "offering", "gpu_model_id", "gpus_per_instance", "region", "pricing_term")


def _random_catalogs(seed: int) -> list[list[str]]:
    """Canonical rows of ~40 offerings, each on several of 6 dates, split into 4 files imported in random order
    (so an older catalog often arrives after a newer one); the same offering and date has one price everywhere."""
    rng = random.Random(seed)
    rows: dict[tuple, str] = {}
    for _ in range(40):
        (provider, kind), gpu = rng.choice(PROVIDERS), rng.choice(GPUS)
        offering, region, term, gpus = rng.choice(OFFERINGS), rng.choice(REGIONS), rng.choice(TERMS), rng.choice([1, 8])
        for day in rng.sample(range(6), rng.randint(1, 4)):
            observed_on = FIRST + timedelta(days=7 * day)
            key = (provider, gpu, gpus, offering, region, term, observed_on)
            price, currency = rng.choice(PRICES), rng.choice(["USD", "USD", "EUR"])
            rows.setdefault(
                key, f'{provider},{kind},{gpu},{gpus},{offering},"{region}",{term},,{price},{currency},{observed_on},'
            )
    files: list[list[str]] = [[] for _ in range(4)]
    for row in rows.values():
        files[rng.randrange(4)].append(row)
    rng.shuffle(files)
    return [file for file in files if file]


def _import_all(files: list[list[str]]) -> None:
    for number, rows in enumerate(files):
        snapshot = run_import(canonical(*rows), source=f"catalog {number}")
        assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors


def _brute_force_latest() -> dict[tuple, PriceObservation]:
    """Every observation read, the newest of each offering kept (ties by id, though the natural key forbids them)."""
    newest: dict[tuple, PriceObservation] = {}
    for observation in PriceObservation.objects.select_related("provider"):
        key = tuple(getattr(observation, name) for name in KEY)
        kept = newest.get(key)
        if kept is None or (observation.observed_on, observation.pk) > (kept.observed_on, kept.pk):
            newest[key] = observation
    return newest


def _expected(rows, *, descending: bool = False) -> list[int]:
    """The Market's order: price, then provider name, offering, region, and the id so that every tie is broken."""
    sign = -1 if descending else 1
    ordered = sorted(rows, key=lambda o: (sign * o.price_per_gpu_hour, o.provider.name, o.offering, o.region, o.pk))
    return [o.pk for o in ordered]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_latest_prices_match_a_brute_force_reading_of_every_observation(seed):
    _import_all(_random_catalogs(seed))
    latest = list(_brute_force_latest().values())
    assert [o.observation_id for o in selectors.latest_prices()] == _expected(latest)
    assert [o.observation_id for o in selectors.latest_prices(descending=True)] == _expected(latest, descending=True)
    h100 = GpuModel.objects.get(name="H100 SXM")
    filters = [
        ({"gpu_model_id": h100.pk}, lambda o: o.gpu_model_id == h100.pk),
        ({"provider_kind": "neocloud"}, lambda o: o.provider.kind == "neocloud"),
        ({"pricing_term": "spot"}, lambda o: o.pricing_term == "spot"),
        ({"region": "EU"}, lambda o: "eu" in o.region),
        (
            {"gpu_model_id": h100.pk, "pricing_term": "on_demand"},
            lambda o: o.gpu_model_id == h100.pk and o.pricing_term == "on_demand",
        ),
    ]
    for query, keep in filters:
        assert [o.observation_id for o in selectors.latest_prices(**query)] == _expected(filter(keep, latest)), query


@pytest.mark.parametrize("seed", [4, 5])
def test_the_current_table_holds_one_row_per_offering_pointing_at_its_latest_observation(seed):
    _import_all(_random_catalogs(seed))
    current = {
        tuple(getattr(row, name) for name in KEY): (
            row.observation_id,
            row.observed_on,
            row.price_per_gpu_hour,
            row.currency,
        )
        for row in CurrentPrice.objects.all()
    }
    latest = _brute_force_latest().items()
    expected = {key: (o.pk, o.observed_on, o.price_per_gpu_hour, o.currency) for key, o in latest}
    assert current == expected


ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,{price},USD,{date},"


def test_an_older_catalog_imported_after_a_newer_one_leaves_the_newer_price_current():
    run_import(canonical(ROW.format(price="3.49", date="2026-11-20")))
    older = run_import(canonical(ROW.format(price="3.99", date="2026-11-01")))
    assert older.status == SnapshotStatus.IMPORTED and older.prices_new == 1
    (current,) = CurrentPrice.objects.all()
    assert (current.observed_on, current.price_per_gpu_hour) == (date(2026, 11, 20), Decimal("3.49"))
    assert [o.price_per_gpu_hour for o in selectors.latest_prices()] == [Decimal("3.49")]
    newer = run_import(canonical(ROW.format(price="3.29", date="2026-12-01")))
    assert CurrentPrice.objects.get().observation.snapshot_id == newer.pk


def test_a_rejected_or_repeated_file_leaves_the_current_table_as_it_was():
    run_import(canonical(ROW.format(price="3.49", date="2026-11-20")))
    before = list(CurrentPrice.objects.values_list("observation_id", "observed_on", "price_per_gpu_hour"))
    newer, bad = ROW.format(price="3.29", date="2026-12-01"), ROW.format(price="x", date="2026-12-02")
    rejected = run_import(canonical(newer, bad))
    repeated = run_import(canonical(ROW.format(price="3.49", date="2026-11-20")))
    assert (rejected.status, repeated.status) == (SnapshotStatus.REJECTED, SnapshotStatus.DUPLICATE)
    assert list(CurrentPrice.objects.values_list("observation_id", "observed_on", "price_per_gpu_hour")) == before


def _backfill() -> RunPython:
    """The data migration filling the current table from the observations stored before it existed (found by its
    name, whatever number it is given)."""
    loader = MigrationLoader(connection)
    (migration,) = [m for (app, name), m in loader.disk_migrations.items() if app == "pricing" and "current" in name]
    (operation,) = [op for op in migration.operations if isinstance(op, RunPython)]
    return operation


def test_the_migration_fills_the_current_table_from_the_observations_already_stored():
    _import_all(_random_catalogs(6))
    columns = (*KEY, "observation_id", "observed_on", "price_per_gpu_hour", "currency")
    expected = set(CurrentPrice.objects.values_list(*columns))
    CurrentPrice.objects.all().delete()  # as a database migrated from before the table existed
    _backfill().code(apps, SimpleNamespace(connection=connection))  # it needs the editor's connection alone
    filled = set(CurrentPrice.objects.values_list(*columns))
    assert filled == expected
    assert {row[-4] for row in filled} == {o.pk for o in _brute_force_latest().values()}


@pytest.mark.parametrize("sort", ["", "-price"])
def test_every_market_page_is_its_slice_of_the_whole_order_first_to_last(viewer_client, monkeypatch, sort):
    """Pages past the middle are read from the other end (a deep offset would walk every row before it)."""
    from pricing import views

    monkeypatch.setattr(views, "PAGE_SIZE", 4)
    _import_all(_random_catalogs(7))
    ordered = [o.observation_id for o in selectors.latest_prices(descending=sort == "-price")]
    pages = math.ceil(len(ordered) / 4)
    assert pages >= 5
    for number in range(1, pages + 1):
        response = viewer_client.get(reverse("pricing:market"), {"page": number, "sort": sort})
        shown = [row.observation_id for row in response.context["page"].object_list]
        assert shown == ordered[(number - 1) * 4 : number * 4], number
