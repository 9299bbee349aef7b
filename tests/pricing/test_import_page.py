"""The import page and its result box: one clear result, counts that add up, a template to start from."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pricing.importers import CANONICAL_COLUMNS
from pricing.models import PriceObservation, PriceSnapshot
from tests.pricing.conftest import canonical, import_sample, run_import

pytestmark = pytest.mark.usefixtures("reference")

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,"
OTHER_ROW = "Nebius,neocloud,H100 SXM,8,gpu-h100-sxm,eu-north1,on_demand,,2.95,USD,2026-11-01,"


@pytest.fixture
def upload(editor_client, django_capture_on_commit_callbacks):
    """Upload a file and follow to its snapshot page, the import job run as the upload commits (embedded mode)."""

    def post(content: bytes, name: str = "prices.csv", *, run: bool = True):
        data = {"file": SimpleUploadedFile(name, content), "format": "auto"}
        with django_capture_on_commit_callbacks(execute=run):
            response = editor_client.post(reverse("pricing:price_import"), data)
        assert response.status_code == 302
        return editor_client.get(response["Location"])

    return post


def _result_box(html: str) -> str:
    start = html.index(">", html.index('id="snapshot-status"')) + 1
    return html[start : html.index("</section>", start)]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_a_rejected_upload_shows_one_result_without_a_queued_banner_or_a_repeated_status(upload):
    response = upload(canonical(ROW.replace("23.92", "-1")).encode())

    html = response.content.decode()
    assert response.status_code == 200
    assert "queued" not in html.lower()
    assert 'class="messages"' not in html  # no banner above the result box
    box = _text(_result_box(html))
    assert box.count("Rejected") == 1, box
    assert "Rejected Rejected" not in box and "Rejected:" not in box
    assert box.startswith("Rejected 1 problem found; nothing from this file was stored.")


def test_the_result_never_shows_the_worker_host_or_pid(upload):
    response = upload(canonical(ROW).encode())

    snapshot = PriceSnapshot.objects.get()
    assert "pid" in snapshot.processed_by  # still recorded for the admin and the logs
    html = response.content.decode()
    assert snapshot.processed_by not in html
    assert not re.search(r"\bpid\b", _text(html))


def test_a_waiting_import_says_it_waits_and_polls(upload):
    response = upload(canonical(ROW).encode(), run=False)
    assert "queued" not in response.content.decode().lower()
    box = _text(_result_box(response.content.decode()))
    assert box.startswith("Pending The file is stored and waits for a worker")
    assert 'id="snapshot-status"' in response.content.decode()
    assert 'hx-trigger="every 1s"' in response.content.decode()


def test_the_counts_of_a_canonical_file_add_up_to_its_rows(upload):
    run_import(canonical(ROW))
    response = upload(canonical(ROW, OTHER_ROW).encode())

    result = response.context["result"]
    snapshot = PriceSnapshot.objects.latest("pk")
    assert dict(result.counts) == {"new": 1, "already known": 1, "skipped": 0}
    assert sum(count for _, count in result.counts) == result.rows_total == snapshot.rows_total == 2
    assert "2 rows in the file: 1 new, 1 already known, 0 skipped." in _text(response.content.decode())


def test_the_counts_of_a_skypilot_file_with_skipped_rows_add_up_to_its_rows(editor_client):
    snapshot = import_sample("lambda/vms.csv", "Lambda")
    response = editor_client.get(reverse("pricing:snapshot_detail", kwargs={"pk": snapshot.pk}))

    result = response.context["result"]
    assert sum(count for _, count in result.counts) == result.rows_total == 357
    assert "357 rows in the file: 340 new, 0 already known, 17 skipped." in _text(response.content.decode())


def test_the_import_page_offers_a_template_of_the_canonical_file(editor_client):
    page = editor_client.get(reverse("pricing:price_import")).content.decode()
    assert reverse("pricing:price_import_template") in page

    response = editor_client.get(reverse("pricing:price_import_template"))

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert tuple(rows[0]) == CANONICAL_COLUMNS
    assert len(rows) == 3


def test_the_template_imports_as_it_is(editor_client, upload):
    template = editor_client.get(reverse("pricing:price_import_template")).content

    response = upload(template, name="prices-template.csv")

    assert response.context["result"].status == "Imported"
    assert dict(response.context["result"].counts)["new"] == 2
    prices = {o.provider.name: float(o.price_per_gpu_hour) for o in PriceObservation.objects.select_related("provider")}
    assert prices == {"Lambda": pytest.approx(2.99), "AWS": pytest.approx(6.88)}  # 55.04 / 8 GPUs
