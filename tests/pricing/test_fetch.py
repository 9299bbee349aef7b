"""URL fetching against a local http.server on 127.0.0.1 started by the test (never the network).

Real fetches are https to a public address only, so the tests stand the local server in for
`https://prices.example`: the host resolves (by the `fetch.resolve` seam) to a public documentation
address, and the connection class, swapped in, carries the request to the local server in plain http.
"""

from __future__ import annotations

import http.client
import http.server
import io
import re
import socket
import threading
import time

import pytest
from django.core.management import call_command

from pricing import fetch
from pricing.models import PriceObservation, PriceSnapshot
from tests.pricing.conftest import canonical

ROW = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,"
BODY = canonical(ROW).encode()


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/slow.csv":
            time.sleep(3)
        if self.path in ("/redirect", "/redirect-port"):
            self.send_response(302)
            location = "https://example.com/prices.csv"
            self.send_header("Location", getattr(self, "redirect_to", location) if "port" in self.path else location)
            self.end_headers()
            return
        if self.path == "/missing.csv":
            self.send_error(404)
            return
        body = BODY * (200 if self.path == "/big.csv" else 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        if self.path != "/unsized.csv":
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


PUBLIC = "93.184.215.14"  # a public address; the swapped-in connection never dials it


@pytest.fixture
def served(server, settings, monkeypatch):
    """`https://prices.example` answered by the local server."""
    port = int(server.rsplit(":", 1)[1])
    settings.PRICE_IMPORT_URL_HOSTS = ["prices.example"]
    resolved = {"prices.example": [PUBLIC]}
    monkeypatch.setattr(fetch, "resolve", lambda host, port: resolved[host])

    class ToLocalServer(http.client.HTTPConnection):
        def __init__(self, host, *args, context=None, **kwargs):
            super().__init__(host, *args, **kwargs)

        def connect(self):
            assert fetch.public_address(self.host, 443) == PUBLIC  # the same check a real connection makes
            self.sock = socket.create_connection(("127.0.0.1", port), self.timeout)

    monkeypatch.setattr(fetch._CheckedHTTPS, "connection_class", ToLocalServer)
    return "https://prices.example"


def test_it_fetches_a_file_from_an_allowed_host(served):
    fetched = fetch.fetch_url(f"{served}/prices.csv")
    assert fetched.content == BODY
    assert (fetched.file_name, fetched.url) == ("prices.csv", f"{served}/prices.csv")


def test_import_prices_imports_a_url_and_links_rows_to_it(served, reference):
    call_command("import_prices", f"{served}/prices.csv", stdout=io.StringIO())
    assert PriceSnapshot.objects.get().url == f"{served}/prices.csv"
    assert PriceObservation.objects.get().source_url == f"{served}/prices.csv"  # the row names no source of its own


def test_a_host_off_the_allow_list_is_refused(settings, served):
    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com"]
    with pytest.raises(fetch.FetchError, match=re.escape("host 'prices.example' is not in PRICE_IMPORT_URL_HOSTS")):
        fetch.fetch_url(f"{served}/prices.csv")


@pytest.mark.parametrize("url", ["http://raw.githubusercontent.com/x.csv", "http://127.0.0.1:8000/x.csv"])
def test_plain_http_is_refused_for_every_host(url, settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com", "127.0.0.1"]
    with pytest.raises(fetch.FetchError, match="only https URLs"):
        fetch.check_url(url)


def test_other_schemes_are_refused():
    with pytest.raises(fetch.FetchError, match="only https URLs"):
        fetch.check_url("file:///etc/passwd")


def test_an_allowed_host_that_resolves_to_loopback_is_refused(settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["localhost"]
    with pytest.raises(fetch.FetchError, match=re.escape("resolves to 127.0.0.1, a private or loopback address")):
        fetch.fetch_url("https://localhost/prices.csv", timeout=2)


@pytest.mark.parametrize("address", ["10.0.0.7", "192.168.1.20", "169.254.169.254", "::1", "fd00::1"])
def test_an_allowed_host_that_resolves_to_a_private_address_is_refused(served, monkeypatch, address):
    monkeypatch.setattr(fetch, "resolve", lambda host, port: [PUBLIC, address])
    with pytest.raises(fetch.FetchError, match="a private or loopback address: refused"):
        fetch.fetch_url(f"{served}/prices.csv")


def test_a_redirect_off_the_allow_list_is_refused(served):
    with pytest.raises(fetch.FetchError, match=re.escape("host 'example.com' is not in PRICE_IMPORT_URL_HOSTS")):
        fetch.fetch_url(f"{served}/redirect")


@pytest.mark.parametrize("path", ["/big.csv", "/unsized.csv"])
def test_a_file_over_the_size_cap_is_refused(served, path):
    cap = len(BODY) * (10 if path == "/big.csv" else 1) - 1
    with pytest.raises(fetch.FetchError, match=re.escape(f"larger than the import limit of {cap:,} bytes")):
        fetch.fetch_url(f"{served}{path}", max_bytes=cap)


def test_a_slow_server_times_out(served):
    started = time.monotonic()
    with pytest.raises(fetch.FetchError, match=re.escape("could not fetch within 0.5 s")):
        fetch.fetch_url(f"{served}/slow.csv", timeout=0.5)
    assert time.monotonic() - started < 2.5


def test_an_http_error_is_reported(served):
    with pytest.raises(fetch.FetchError, match="HTTP 404"):
        fetch.fetch_url(f"{served}/missing.csv")


# --- ports: an allowed host is allowed on https's port only, unless host:port is listed


@pytest.mark.parametrize(
    "url",
    [
        "https://raw.githubusercontent.com:22/x.csv",
        "https://raw.githubusercontent.com:6379/x.csv",
        "https://raw.githubusercontent.com:8443/x.csv",
        "https://raw.githubusercontent.com:0/x.csv",
        "https://raw.githubusercontent.com:99999/x.csv",
        "https://raw.githubusercontent.com:x/x.csv",
    ],
)
def test_an_allowed_host_on_another_port_is_refused(url, settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com"]
    with pytest.raises(fetch.FetchError, match="port"):
        fetch.check_url(url)


@pytest.mark.parametrize("url", ["https://raw.githubusercontent.com/x.csv", "https://raw.githubusercontent.com:443/x"])
def test_the_https_port_is_allowed_written_or_not(url, settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com"]
    fetch.check_url(url)


def test_a_listed_host_and_port_is_allowed_and_only_that_port(settings):
    settings.PRICE_IMPORT_URL_HOSTS = ["prices.example:8443"]
    fetch.check_url("https://prices.example:8443/x.csv")
    for url in ("https://prices.example/x.csv", "https://prices.example:9443/x.csv"):
        with pytest.raises(fetch.FetchError, match="port"):
            fetch.check_url(url)


def test_a_redirect_to_another_port_of_the_allowed_host_is_refused(served, monkeypatch):
    monkeypatch.setattr(_Handler, "redirect_to", "https://prices.example:6379/prices.csv", raising=False)
    with pytest.raises(fetch.FetchError, match="port 6379"):
        fetch.fetch_url(f"{served}/redirect-port")


@pytest.mark.django_db
def test_a_scheduled_source_on_another_port_is_refused_by_its_validation(settings):
    from django.core.exceptions import ValidationError

    from pricing.models import ImportSource

    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com"]
    source = ImportSource(name="x", location="https://raw.githubusercontent.com:8080/prices.csv", cadence_hours=24)
    with pytest.raises(ValidationError) as caught:
        source.full_clean()
    assert "port 8080" in str(caught.value.message_dict["location"])
