from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing.models import GpuModel, PriceObservation, PriceSnapshot, Provider, SnapshotStatus
from pricing.services.current_prices import current_prices_record
from tests.pricing.conftest import SAMPLES, canonical, import_sample, run_import

pytestmark = pytest.mark.usefixtures("reference")

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,{date},"
PAGES = [
    ("pricing:market", {}),
    ("pricing:snapshot_list", {}),
    ("pricing:snapshot_diff", {}),
    ("pricing:price_import", {}),
    ("pricing:price_trend", {}),
]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        *PAGES,
        ("pricing:snapshot_detail", {"pk": 1}),
        ("pricing:snapshot_status", {"pk": 1}),
        ("pricing:price_history", {"pk": 1}),
    ],
)
def test_every_page_requires_login(client, name, kwargs):
    response = client.get(reverse(name, kwargs=kwargs))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_market_lists_the_latest_price_per_offering(viewer_client):
    run_import(canonical(ROW.format(date="2026-10-01").replace("23.92", "30.00")))
    run_import(canonical(ROW.format(date="2026-11-01")))
    response = viewer_client.get(reverse("pricing:market"))
    rows = list(response.context["page"].object_list)
    assert [(r.offering, r.observed_on) for r in rows] == [("gpu_8x_h100_sxm5", date(2026, 11, 1))]
    html = response.content.decode()
    assert "$2.99" in html and "$3.75" not in html
    assert "Neocloud" in html  # the kind is written, not only coloured
    assert "Not apples-to-apples" in html


def test_the_market_filters_by_gpu_kind_term_and_region(viewer_client):
    import_sample("nebius/vms.csv", "Nebius")
    import_sample("aws/vms-excerpt.csv", "AWS")
    h100 = GpuModel.objects.get(name="H100 SXM")
    response = viewer_client.get(
        reverse("pricing:market"), {"gpu": h100.pk, "kind": "hyperscaler", "term": "on_demand", "region": "us-east"}
    )
    rows = list(response.context["page"].object_list)
    assert {(r.offering, r.region) for r in rows} == {("p5.48xlarge", "us-east-1"), ("p5.48xlarge", "us-east-2")}


def test_the_market_sorts_by_price_per_gpu_hour(viewer_client):
    import_sample("hyperstack/vms.csv", "Hyperstack")
    cheap_first = [r.price_per_gpu_hour for r in viewer_client.get(reverse("pricing:market")).context["page"]]
    dear_first = [
        r.price_per_gpu_hour for r in viewer_client.get(reverse("pricing:market"), {"sort": "-price"}).context["page"]
    ]
    assert cheap_first == sorted(cheap_first)
    assert dear_first == sorted(cheap_first, reverse=True)


def test_the_market_answers_htmx_with_the_results_region_only(viewer_client):
    run_import(canonical(ROW.format(date="2026-11-01")))
    response = viewer_client.get(reverse("pricing:market"), {"term": "on_demand"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert "gpu_8x_h100" in html and 'id="market-results"' in html
    assert "<html" not in html and 'class="filters' not in html


def test_the_market_chart_compares_providers_grouped_by_kind(viewer_client):
    import_sample("lambda/vms.csv", "Lambda")
    import_sample("aws/vms-excerpt.csv", "AWS")
    response = viewer_client.get(reverse("pricing:market"))
    figure = response.context["figure"]
    assert {trace["name"]: trace["x"] for trace in figure["data"]} == {"Hyperscaler": ["AWS"], "Neocloud": ["Lambda"]}
    assert 'id="figure-compare"' in response.content.decode()
    assert "plotly-cartesian-4.1.1.min.js" in response.content.decode()


def _observations(snapshot: PriceSnapshot, count: int) -> list[PriceObservation]:
    provider, gpu = Provider.objects.get(name="Lambda"), GpuModel.objects.get(name="H100 SXM")
    return [
        PriceObservation(
            snapshot=snapshot,
            provider=provider,
            offering=f"box-{i % 50}",
            gpu_model=gpu,
            gpus_per_instance=8,
            region=f"region-{i // 50}",
            pricing_term="on_demand",
            observed_on=date(2026, 11, 1) - timedelta(days=i % 3),
            price_per_instance_hour=Decimal(20) + i % 7,
            price_per_gpu_hour=(Decimal(20) + i % 7) / 8,
        )
        for i in range(count)
    ]


def test_the_market_makes_as_many_queries_for_10_000_observations_as_for_10(viewer_client):
    snapshot = PriceSnapshot.objects.create(source="bulk", format="canonical-csv", sha256="0" * 64)
    current_prices_record(observations=PriceObservation.objects.bulk_create(_observations(snapshot, 10)))
    with CaptureQueriesContext(connection) as few:
        assert viewer_client.get(reverse("pricing:market")).status_code == 200
    PriceObservation.objects.all().delete()
    current_prices_record(observations=PriceObservation.objects.bulk_create(_observations(snapshot, 10_000)))
    with CaptureQueriesContext(connection) as many:
        response = viewer_client.get(reverse("pricing:market"))
    assert response.context["page"].paginator.count > 100
    assert len(many) == len(few)


def test_the_snapshot_list_makes_as_many_queries_for_many_snapshots_as_for_few(viewer_client):
    run_import(canonical(ROW.format(date="2026-11-01")))
    with CaptureQueriesContext(connection) as few:
        viewer_client.get(reverse("pricing:snapshot_list"))
    for day in range(2, 30):
        run_import(canonical(ROW.format(date=f"2026-10-{day:02d}")))
    with CaptureQueriesContext(connection) as many:
        viewer_client.get(reverse("pricing:snapshot_list"))
    assert len(many) == len(few)


def test_the_history_page_charts_one_offering_across_snapshots(viewer_client):
    run_import(canonical(ROW.format(date="2026-10-01").replace("23.92", "30.00")))
    run_import(canonical(ROW.format(date="2026-11-01")))
    latest = PriceObservation.objects.get(observed_on=date(2026, 11, 1))
    response = viewer_client.get(reverse("pricing:price_history", kwargs={"pk": latest.pk}))
    (trace,) = response.context["figure"]["data"]
    assert trace["x"] == ["2026-10-01", "2026-11-01"]
    assert trace["y"] == [3.75, 2.99]


def test_the_snapshot_list_shows_status_counts_and_errors(viewer_client):
    run_import(canonical(ROW.format(date="2026-11-01")), source="good.csv")
    bad = run_import(canonical(ROW.format(date="2026-11-01").replace("23.92", "-1")), source="bad.csv")
    html = viewer_client.get(reverse("pricing:snapshot_list")).content.decode()
    assert "good.csv" in html and "bad.csv" in html
    assert "Rejected" in html and "Imported" in html
    assert reverse("pricing:snapshot_detail", kwargs={"pk": bad.pk}) + "#errors" in html


def test_a_rejected_snapshot_shows_every_error(viewer_client):
    bad = run_import(canonical(ROW.format(date="2026-11-01").replace("23.92", "-1").replace("on_demand", "x")))
    html = viewer_client.get(reverse("pricing:snapshot_detail", kwargs={"pk": bad.pk})).content.decode()
    assert "Errors (2)" in html
    assert "negative price" in html and "unknown pricing term" in html
    assert "nothing from this file was stored" in html


def test_the_diff_shows_added_removed_and_changed_prices(viewer_client):
    old = run_import(canonical(ROW.format(date="2026-10-01"), ROW.format(date="2026-10-01").replace("us-east-1", "eu")))
    new = run_import(
        canonical(
            ROW.format(date="2026-11-01").replace("23.92", "25.60"),
            ROW.format(date="2026-11-01").replace("us-east-1", "asia"),
        )
    )
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": old.pk, "b": new.pk})
    diff = response.context["diff"]
    assert [(c.region, c.old_price_per_gpu_hour, c.new_price_per_gpu_hour) for c in diff.changed] == [
        ("us-east-1", Decimal("2.99"), Decimal("3.2"))
    ]
    assert [c.region for c in diff.added] == ["asia"]
    assert [c.region for c in diff.removed] == ["eu"]
    assert "$2.99" in response.content.decode() and "→ $3.20" in response.content.decode()


def test_the_diff_explains_an_invalid_choice(viewer_client):
    response = viewer_client.get(reverse("pricing:snapshot_diff"), {"a": 999, "b": "x"})
    assert response.status_code == 200
    assert response.context["diff"] is None
    assert "Select a valid choice" in response.content.decode()


def test_viewers_cannot_import(viewer_client):
    assert viewer_client.get(reverse("pricing:price_import")).status_code == 403
    upload = SimpleUploadedFile("p.csv", canonical(ROW.format(date="2026-11-01")).encode())
    assert viewer_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"}).status_code == 403
    assert not PriceSnapshot.objects.exists()


def test_the_market_offers_import_to_editors_only(editor_client, viewer):
    assert reverse("pricing:price_import") in editor_client.get(reverse("pricing:market")).content.decode()
    editor_client.force_login(viewer)
    assert reverse("pricing:price_import") not in editor_client.get(reverse("pricing:market")).content.decode()


def test_an_upload_is_stored_and_queued_then_polled_until_it_finishes(
    editor_client, django_capture_on_commit_callbacks
):
    upload = SimpleUploadedFile("lambda.csv", (SAMPLES / "lambda/vms.csv").read_bytes())
    data = {"file": upload, "format": "skypilot", "provider": "Lambda", "observed_on": "2026-11-01"}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = editor_client.post(reverse("pricing:price_import"), data)
    snapshot = PriceSnapshot.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("pricing:snapshot_detail", kwargs={"pk": snapshot.pk})
    assert snapshot.status == SnapshotStatus.PENDING
    assert bytes(snapshot.import_file.content) == (SAMPLES / "lambda/vms.csv").read_bytes()
    assert len(callbacks) == 1

    status_url = reverse("pricing:snapshot_status", kwargs={"pk": snapshot.pk})
    page = editor_client.get(response["Location"]).content.decode()
    assert f'hx-get="{status_url}"' in page and 'hx-trigger="every 1s"' in page
    polling = editor_client.get(status_url, headers={"HX-Request": "true"})
    assert polling.status_code == 200
    assert "Pending" in polling.content.decode()

    callbacks[0]()  # the job runs (in-process here; on a worker in scale-out mode)
    finished = editor_client.get(status_url, headers={"HX-Request": "true"})
    assert finished.status_code == 286  # htmx stops polling
    html = finished.content.decode()
    assert "340 new, 0 already known, 17 skipped" in html
    assert "hx-trigger" not in html
    assert PriceObservation.objects.count() == 340


def test_an_upload_over_the_size_cap_is_refused_with_a_clear_message(editor_client, settings):
    settings.PRICE_IMPORT_MAX_BYTES = 100
    upload = SimpleUploadedFile("big.csv", b"x" * 101)
    response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"})
    assert response.status_code == 400
    assert "The file has 101 bytes; the limit is 100 (PRICE_IMPORT_MAX_BYTES)." in response.content.decode()
    assert not PriceSnapshot.objects.exists()


def test_an_upload_is_held_to_its_formats_own_size_limit_once_its_format_is_known(editor_client, settings):
    """A feed with a limit of its own (an Azure Retail Prices page: 64 MiB) is not refused at the smaller global
    limit, by upload as by the command; a canonical file, which has none, is held to the global one."""
    settings.PRICE_IMPORT_MAX_BYTES = 100
    page = {
        "BillingCurrency": "USD",
        "Items": [{"retailPrice": 0, "armRegionName": "eastus", "productName": "Virtual Machines NC Series"}],
        "NextPageLink": None,
    }
    feed = SimpleUploadedFile("azure.json", json.dumps(page).encode(), content_type="application/json")
    assert feed.size > 100
    response = editor_client.post(
        reverse("pricing:price_import"), {"file": feed, "format": "auto", "observed_on": "2026-11-01"}
    )
    assert response.status_code == 302
    snapshot = PriceSnapshot.objects.get()
    assert not any("limit" in str(error) for error in snapshot.errors)
    assert snapshot.file_name == "azure.json"  # queued for import, not refused at the form

    canonical_file = SimpleUploadedFile("big.csv", b"x" * 101)
    refused = editor_client.post(reverse("pricing:price_import"), {"file": canonical_file, "format": "auto"})
    assert refused.status_code == 400 and PriceSnapshot.objects.count() == 1


def test_an_upload_over_the_row_cap_is_refused_with_a_clear_message(editor_client, settings):
    settings.PRICE_IMPORT_MAX_ROWS = 3
    rows = [ROW.format(date=f"2026-10-0{d}") for d in range(1, 6)]
    upload = SimpleUploadedFile("rows.csv", canonical(*rows).encode())
    response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"})
    assert response.status_code == 400
    assert "The file has more than 3 rows; the limit is 3." in response.content.decode()


def test_a_skypilot_upload_needs_a_provider(editor_client):
    upload = SimpleUploadedFile("vms.csv", (SAMPLES / "hyperstack/vms.csv").read_bytes())
    response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "skypilot"})
    assert response.status_code == 400
    assert "A SkyPilot catalog vms.csv has no provider column: choose the provider." in response.content.decode()


def test_a_bad_upload_ends_rejected_with_its_errors(editor_client, django_capture_on_commit_callbacks):
    upload = SimpleUploadedFile("bad.csv", canonical(ROW.format(date="2026-13-01")).encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = editor_client.post(reverse("pricing:price_import"), {"file": upload, "format": "auto"})
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.status == SnapshotStatus.REJECTED
    assert snapshot.errors[0]["column"] == "observed_on"
    page = editor_client.get(response["Location"]).content.decode()
    assert "not a valid calendar date" in page


def test_the_charts_json_is_valid_for_the_page(viewer_client):
    run_import(canonical(ROW.format(date="2026-11-01")))
    html = viewer_client.get(reverse("pricing:market")).content.decode()
    start = html.index('<script id="figure-compare" type="application/json">') + len(
        '<script id="figure-compare" type="application/json">'
    )
    figure = json.loads(html[start : html.index("</script>", start)])
    assert figure["layout"]["yaxis"]["title"]["text"] == "USD per GPU-hour"


def test_the_pager_keeps_the_filters_and_names_its_links():
    from django.core.paginator import Paginator
    from django.template.loader import render_to_string

    page = Paginator(range(30), 10).page(2)
    html = render_to_string("_pager.html", {"page": page, "query": "gpu=3"})
    assert '?gpu=3&amp;page=1">← Previous' in html and '?gpu=3&amp;page=3">Next →' in html
    html = render_to_string("_pager.html", {"page": page, "previous_label": "← Newer", "next_label": "Older →"})
    assert '"?page=1">← Newer' in html and '"?page=3">Older →' in html
    assert render_to_string("_pager.html", {"page": Paginator(range(3), 10).page(1)}).strip() == ""
