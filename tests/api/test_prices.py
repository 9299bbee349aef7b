"""Prices and imports through the API: the Market's selectors and the import page's service, paginated and filtered;
an upload is a snapshot to poll."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pricing import services
from pricing.models import CurrentPrice, PriceSnapshot, SnapshotOrigin

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HEADER = (
    "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
    "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
)


@pytest.fixture
def prices(db):
    services.reference_data_load(path=FIXTURES / "reference.json")
    services.price_snapshot_import(
        content=(FIXTURES / "prices" / "published-2026-09.csv").read_bytes(),
        origin=SnapshotOrigin.COMMAND,
        source="published",
    )
    later = HEADER + "CoreWeave,neocloud,H100 SXM,8,HGX H100,,on_demand,47.20,5.90,USD,2026-10-01,\n"
    services.price_snapshot_import(content=later.encode(), origin=SnapshotOrigin.COMMAND, source="later")


def test_current_prices_cheapest_first_with_their_provenance(reader_api, prices):
    page = json.loads(reader_api.get("/api/v1/prices").content)
    assert page["count"] == CurrentPrice.objects.filter(gpu_model__isnull=False).count() > 1
    gpu_hour = [item["price_per_gpu_hour"] for item in page["items"]]
    assert gpu_hour == sorted(gpu_hour)
    coreweave = next(item for item in page["items"] if item["provider"] == "CoreWeave")
    assert coreweave["price_per_gpu_hour"] == 5.9 and coreweave["observed_on"] == "2026-10-01"
    assert coreweave["gpu_model"] == "H100 SXM" and coreweave["currency"] == "USD" and coreweave["snapshot_id"]
    dearest = json.loads(reader_api.get("/api/v1/prices", {"ordering": "-price"}).content)["items"]
    assert [item["price_per_gpu_hour"] for item in dearest] == sorted(gpu_hour, reverse=True)


def test_prices_filter_by_gpu_provider_term_kind_and_region(reader_api, prices):
    def names(**query) -> set[str]:
        return {item["provider"] for item in json.loads(reader_api.get("/api/v1/prices", query).content)["items"]}

    assert names(provider="coreweave") == {"CoreWeave"}
    assert names(kind="hyperscaler") and all(
        item["provider_kind"] == "hyperscaler"
        for item in json.loads(reader_api.get("/api/v1/prices", {"kind": "hyperscaler"}).content)["items"]
    )
    assert names(gpu="h100 sxm") >= {"CoreWeave"}
    assert names(term="on_demand") == names()
    assert names(region="no-such-region") == set()


def test_an_unknown_gpu_model_is_a_404_naming_it(reader_api, prices):
    response = reader_api.get("/api/v1/prices", {"gpu": "Z9000"})
    assert response.status_code == 404 and "Z9000" in json.loads(response.content)["detail"]


def test_a_bad_filter_value_is_a_422(reader_api, prices):
    assert reader_api.get("/api/v1/prices", {"term": "forever"}).status_code == 422
    assert reader_api.get("/api/v1/prices", {"kind": "shop"}).status_code == 422


def test_a_prices_history_is_every_observation_of_its_offering(reader_api, prices):
    page = json.loads(reader_api.get("/api/v1/prices", {"provider": "CoreWeave"}).content)
    current = page["items"][0]
    history = json.loads(reader_api.get(f"/api/v1/prices/{current['id']}/history").content)
    assert [(item["observed_on"], item["price_per_gpu_hour"]) for item in history["items"]] == [
        ("2026-09-01", 49.24 / 8),  # the instance price over its 8 GPUs (the file's 6.16 is rounded)
        ("2026-10-01", 5.9),
    ]
    newest = json.loads(reader_api.get(f"/api/v1/prices/{current['id']}/history", {"ordering": "-observed_on"}).content)
    assert newest["items"][0]["observed_on"] == "2026-10-01"


def test_an_upload_is_a_snapshot_to_poll(editor_api, prices, run_jobs):
    content = HEADER + "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,,on_demand,23.92,2.99,USD,2026-11-01,\n"
    with run_jobs():
        response = editor_api.post("/api/v1/imports", data={"file": _upload(content), "format": "canonical"})
    assert response.status_code == 202
    snapshot = json.loads(response.content)
    polled = json.loads(editor_api.get(f"/api/v1/imports/{snapshot['id']}").content)
    assert polled["finished"] and polled["status"] == "imported" and polled["prices_new"] == 1
    assert "1 new price stored" in polled["message"]
    listed = json.loads(editor_api.get("/api/v1/imports", {"status": "imported"}).content)
    assert snapshot["id"] in [item["id"] for item in listed["items"]]


def test_a_rejected_upload_says_which_rows(editor_api, prices, run_jobs):
    content = HEADER + "Lambda,neocloud,H100 SXM,8,x,,on_demand,23.92,9.99,USD,2026-11-01,\n"
    with run_jobs():
        snapshot = json.loads(editor_api.post("/api/v1/imports", data={"file": _upload(content)}).content)
    polled = json.loads(editor_api.get(f"/api/v1/imports/{snapshot['id']}").content)
    assert polled["status"] == "rejected" and polled["errors"]


def test_a_skypilot_upload_without_a_provider_is_refused_with_the_pages_words(editor_api, prices):
    response = editor_api.post("/api/v1/imports", data={"file": _upload("x"), "format": "skypilot"})
    assert response.status_code == 422
    assert json.loads(response.content)["errors"][0]["path"] == "provider"
    assert not PriceSnapshot.objects.filter(source="api upload").exists()


def test_only_an_editors_write_token_imports(reader_api, viewer_api, prices):
    for api in (reader_api, viewer_api):
        assert api.post("/api/v1/imports", data={"file": _upload(HEADER)}).status_code == 403


def _upload(text: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("prices.csv", text.encode(), content_type="text/csv")
