"""Vast.ai search results (`vast-offers`). The capture is Vast's own `search.json` from its CLI repository
(fixtures/prices/feeds/vast/SOURCE.md): one host's 1-, 2-, 4- and 6-GPU RTX 4090 bundles. The offers written here
say so, each to show one rule. Per-GPU price = dph_total ÷ num_gpus, worked out by hand in the comments."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pricing.importers import registry
from pricing.models import PriceObservation, SnapshotStatus
from tests.pricing.conftest import FIXTURES, OBSERVED, run_import

pytestmark = pytest.mark.usefixtures("reference")

CAPTURE = FIXTURES / "prices" / "feeds" / "vast" / "search.json"


def stored() -> dict[str, tuple]:
    return {
        o.offering: (o.provider.name, o.gpu_model.name, o.gpus_per_instance, o.region, o.pricing_term,
                     o.price_per_instance_hour, o.price_per_gpu_hour)
        for o in PriceObservation.objects.select_related("provider", "gpu_model")
    }  # fmt: skip


def offer(**fields) -> dict:
    """An offer written for a test, with the fields the importer reads (values as Vast writes them)."""
    base = {"machine_id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "gpu_ram": 24564, "dph_total": 0.5,
            "geolocation": "Texas, US", "verification": "verified", "rentable": True}  # fmt: skip
    return base | fields


def test_auto_detects_a_vast_search_result_and_it_is_a_format_choice():
    chosen, variant = registry.detect(CAPTURE.read_text())
    assert (chosen.name, variant) == ("vast-offers", "vast-offers")
    assert "vast-offers" in registry.format_names()


def test_each_bundle_of_one_host_is_its_own_offering_priced_per_gpu():
    snapshot = run_import(CAPTURE.read_bytes(), observed_on=OBSERVED)
    assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, "vast-offers")
    # 0.40138888888888885 / 1, 0.8013888888888888 / 2, 1.6013888888888888 / 4, 2.401388888888889 / 6,
    # each kept to a millionth, half up.
    assert stored() == {
        "machine 31508: 1x RTX 4090": ("Vast.ai", "RTX 4090", 1, "Alberta, CA", "on_demand",
                                       Decimal("0.401389"), Decimal("0.401389")),
        "machine 31508: 2x RTX 4090": ("Vast.ai", "RTX 4090", 2, "Alberta, CA", "on_demand",
                                       Decimal("0.801389"), Decimal("0.400694")),
        "machine 31508: 4x RTX 4090": ("Vast.ai", "RTX 4090", 4, "Alberta, CA", "on_demand",
                                       Decimal("1.601389"), Decimal("0.400347")),
        "machine 31508: 6x RTX 4090": ("Vast.ai", "RTX 4090", 6, "Alberta, CA", "on_demand",
                                       Decimal("2.401389"), Decimal("0.400231")),
    }  # fmt: skip
    assert {o.observed_on for o in PriceObservation.objects.all()} == {OBSERVED}
    assert (snapshot.rows_total, snapshot.rows_imported, snapshot.prices_new) == (4, 4, 4)


def test_the_snapshot_names_each_unverified_or_unrentable_offer_it_kept():
    snapshot = run_import(CAPTURE.read_bytes(), observed_on=OBSERVED)
    unverified = "Vast has not verified the host (verification: deverified)"
    rented_out = "not rentable when the search ran (rented out)"
    flagged = {(w["value"], "verified" if unverified in w["reason"] else "rentable") for w in snapshot.warnings}
    assert all(unverified in w["reason"] or rented_out in w["reason"] for w in snapshot.warnings)
    assert flagged == {
        ("machine 31508: 1x RTX 4090", "verified"),
        ("machine 31508: 2x RTX 4090", "verified"),
        ("machine 31508: 4x RTX 4090", "verified"),
        ("machine 31508: 6x RTX 4090", "verified"),
        ("machine 31508: 2x RTX 4090", "rentable"),
        ("machine 31508: 4x RTX 4090", "rentable"),
        ("machine 31508: 6x RTX 4090", "rentable"),
    }


def test_one_gpus_memory_picks_the_a100_part_and_an_unknown_gpu_is_held_back():
    """Written offers: 2x A100 SXM4 of 81,920 MiB each is the 80 GB part (163,840 MiB in all), 40,960 MiB the
    40 GB one; 2 x 1.20 = 2.40 an hour is 1.20 per GPU-hour."""
    offers = {"offers": [
        offer(machine_id=7, gpu_name="A100 SXM4", num_gpus=2, gpu_ram=81920, gpu_total_ram=163840, dph_total=2.4),
        offer(machine_id=8, gpu_name="A100 SXM4", num_gpus=2, gpu_ram=40960, gpu_total_ram=81920, dph_total=1.6),
        offer(machine_id=9, gpu_name="Quantum Widget 9000"),
    ]}  # fmt: skip
    snapshot = run_import(json.dumps(offers).encode(), observed_on=OBSERVED)
    assert {name: values[1:3] + values[6:] for name, values in stored().items()} == {
        "machine 7: 2x A100 SXM4": ("A100 80GB SXM", 2, Decimal("1.2")),
        "machine 8: 2x A100 SXM4": ("A100 40GB SXM", 2, Decimal("0.8")),
    }
    assert [(entry["value"], entry["name"]) for entry in snapshot.held_back] == [
        ("machine 9: 1x Quantum Widget 9000", "Quantum Widget 9000")
    ]
    assert snapshot.warnings == []  # verified and rentable: nothing to say


def test_offers_without_gpus_or_price_are_skipped_with_their_reason():
    offers = [
        offer(machine_id=1, num_gpus=0),
        offer(machine_id=2, dph_total=0),
        offer(machine_id=3, num_gpus=1.5),
        "not an offer",
    ]
    snapshot = run_import(json.dumps(offers).encode(), format="vast-offers", observed_on=OBSERVED)
    assert [entry["reason"] for entry in snapshot.skipped] == [
        "no GPU in the offer",
        "no price (dph_total missing or not above 0)",
        "num_gpus 1.5 is not a whole number of GPUs",
        "not an offer object",
    ]
    assert PriceObservation.objects.count() == 0


def test_a_json_file_that_is_no_search_result_is_rejected_when_named_vast_offers():
    snapshot = run_import(b'{"dph_total": 1, "num_gpus": 1}', format="vast-offers", observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "expected a Vast search result" in snapshot.errors[0]["reason"]
