"""Scheduled sources of the paged feeds, served page by page by a local http.server on 127.0.0.1 (never the network).

As in test_fetch, `https://prices.example` resolves (by the `fetch.resolve` seam) to a public documentation
address and the swapped-in connection carries each request to the local server, after the same address check a
real connection makes. The pages are the recorded captures of fixtures/prices/feeds/ and ../shared/data/.
"""

from __future__ import annotations

import dataclasses
import http.client
import http.server
import json
import socket
import threading
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest

from pricing import fetch
from pricing.importers import registry
from pricing.models import ImportSource, PriceObservation, SnapshotStatus
from pricing.services import import_source_run
from tests.pricing.conftest import FIXTURES, REPO

GCP_PAGE = (FIXTURES / "prices" / "feeds" / "gcp-skus-opencost.json").read_bytes()
TOKEN = json.loads(GCP_PAGE)["nextPageToken"]
AZURE_PAGE = (
    REPO / ".." / "shared" / "data" / "price-feeds" / "azure" / "retail-prices-M8ms-eastus-reservation.excerpt.json"
)
OFFER = (FIXTURES / "prices" / "feeds" / "aws-p4d-capacity-block-opencost.json").read_bytes()
PUBLIC = "93.184.215.14"
pytestmark = pytest.mark.usefixtures("reference")


def _azure_page(items: list, next_link: str | None) -> bytes:
    return json.dumps({"BillingCurrency": "USD", "Items": items, "NextPageLink": next_link}).encode()


class _Pages(http.server.BaseHTTPRequestHandler):
    """Azure: /azure -> page 2 -> no more; /azure-loop links to itself. GCP: the opencost page, whose
    nextPageToken leads to a last page holding its GPU SKU again for the 1-year commitment."""

    def do_GET(self):
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.server.requests.append(self.path)
        items = json.loads(AZURE_PAGE.read_bytes())
        if parts.path == "/azure":
            body = _azure_page(items[:1], "https://prices.example:443/azure2?$skip=1")
        elif parts.path == "/azure2":
            body = _azure_page(items[1:], None)
        elif parts.path == "/azure-loop":
            body = _azure_page(items[:1], "https://prices.example/azure-loop")
        elif parts.path == "/offer.json":
            body = OFFER
        elif parts.path == "/v1/services/6F81-5844-456A/skus" and query.get("pageToken") == [TOKEN]:
            page = json.loads(GCP_PAGE)
            gpu = next(sku for sku in page["skus"] if sku["category"]["resourceGroup"] == "GPU")
            gpu["category"]["usageType"] = "Commit1Yr"  # changed for this test: a second page to follow
            body = json.dumps({"skus": [gpu], "nextPageToken": ""}).encode()
        elif parts.path == "/v1/services/6F81-5844-456A/skus":
            body = GCP_PAGE
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def served(settings, monkeypatch):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    port = httpd.server_address[1]
    settings.PRICE_IMPORT_URL_HOSTS = ["prices.example"]
    monkeypatch.setattr(fetch, "resolve", lambda host, port: {"prices.example": [PUBLIC]}[host])

    class ToLocalServer(http.client.HTTPConnection):
        def __init__(self, host, *args, context=None, **kwargs):
            super().__init__(host, *args, **kwargs)

        def connect(self):
            assert fetch.public_address(self.host, 443) == PUBLIC
            self.sock = socket.create_connection(("127.0.0.1", port), self.timeout)

    monkeypatch.setattr(fetch._CheckedHTTPS, "connection_class", ToLocalServer)
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _run(location: str, format: str = registry.AUTO):
    source = ImportSource.objects.create(name="feed", location=location, format=format)
    (snapshot,) = import_source_run(source=source)
    return snapshot


def test_a_scheduled_azure_source_follows_next_page_links_to_the_last_page(served):
    snapshot = _run("https://prices.example/azure")
    assert served.requests == ["/azure", "/azure2?$skip=1"]
    assert (snapshot.status, snapshot.format, snapshot.rows_total) == (SnapshotStatus.IMPORTED, "azure-retail", 2)


def test_a_source_past_its_page_limit_fails_saying_so(served, monkeypatch):
    azure = registry.BY_NAME["azure-retail"]
    monkeypatch.setitem(registry.BY_NAME, "azure-retail", dataclasses.replace(azure, max_pages=3))
    snapshot = _run("https://prices.example/azure-loop", format="azure-retail")
    assert len(served.requests) == 3
    assert snapshot.status == SnapshotStatus.FAILED
    assert "more than 3 pages" in snapshot.errors[0]["reason"]


def test_a_scheduled_billing_catalog_source_follows_next_page_tokens(served):
    snapshot = _run("https://prices.example/v1/services/6F81-5844-456A/skus?currencyCode=USD")
    assert (
        served.requests[1] == f"/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageToken={TOKEN.replace('=', '%3D')}"
    )
    assert (snapshot.status, snapshot.rows_total) == (SnapshotStatus.IMPORTED, 8)
    gpu_only = PriceObservation.objects.filter(offering__startswith="A100 GPU only")
    terms = sorted(gpu_only.values_list("region", "pricing_term", "price_per_gpu_hour"))
    assert terms[:2] == [
        ("us-central1", "on_demand", Decimal("2.933908")),
        ("us-central1", "reserved_1y", Decimal("2.933908")),
    ]
    assert len(terms) == 6
    # No 1-year core and memory rates on either page: the commitment prices the GPU alone.
    assert (
        not PriceObservation.objects.filter(pricing_term="reserved_1y")
        .exclude(offering__startswith="A100 GPU")
        .exists()
    )


def test_a_next_page_off_the_allowed_hosts_is_refused(served, settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["prices.example:8443", "prices.example"]
    page = _azure_page([], "https://elsewhere.example/azure2")
    with pytest.raises(fetch.FetchError, match=r"host 'elsewhere\.example' is not in PRICE_IMPORT_URL_HOSTS"):
        fetch.fetch_pages(
            "https://prices.example/azure",
            next_page=registry.BY_NAME["azure-retail"].next_page,
            max_pages=5,
            max_bytes=10_000,
            first=page,
        )


def test_a_scheduled_offer_file_url_is_spooled_to_disk_and_streamed(served, settings):
    settings.PRICE_IMPORT_MAX_BYTES = 1000  # the offer file is 4,721 bytes: the format's own limit applies
    snapshot = _run("https://prices.example/offer.json", format="aws-price-list")
    assert (snapshot.status, snapshot.prices_new) == (SnapshotStatus.IMPORTED, 1)
    assert PriceObservation.objects.get().source_url == "https://prices.example/offer.json"


def test_an_offer_file_past_the_formats_limit_is_refused_while_it_downloads(served, monkeypatch):
    aws = registry.BY_NAME["aws-price-list"]
    monkeypatch.setitem(registry.BY_NAME, "aws-price-list", dataclasses.replace(aws, max_bytes=4000))
    snapshot = _run("https://prices.example/offer.json", format="aws-price-list")
    assert snapshot.status == SnapshotStatus.FAILED
    assert "larger than the format's limit of 4,000 bytes" in snapshot.errors[0]["reason"]


def test_pages_past_the_formats_size_limit_are_refused(served, monkeypatch):
    azure = registry.BY_NAME["azure-retail"]
    monkeypatch.setitem(registry.BY_NAME, "azure-retail", dataclasses.replace(azure, max_bytes=1000))
    snapshot = _run("https://prices.example/azure-loop", format="azure-retail")
    assert snapshot.status == SnapshotStatus.FAILED
    assert "its pages come to more than the format's limit of 1,000 bytes" in snapshot.errors[0]["reason"]
