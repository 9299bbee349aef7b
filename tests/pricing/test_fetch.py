"""URL fetching against a local http.server on 127.0.0.1 started by the test (never the network)."""

from __future__ import annotations

import http.server
import io
import re
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
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "https://example.com/prices.csv")
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


def test_it_fetches_a_file_from_an_allowed_local_host(server):
    fetched = fetch.fetch_url(f"{server}/prices.csv")
    assert fetched.content == BODY
    assert (fetched.file_name, fetched.url) == ("prices.csv", f"{server}/prices.csv")


def test_import_prices_imports_a_url_and_links_rows_to_it(server, reference):
    call_command("import_prices", f"{server}/prices.csv", stdout=io.StringIO())
    assert PriceSnapshot.objects.get().url == f"{server}/prices.csv"
    assert PriceObservation.objects.get().source_url == f"{server}/prices.csv"  # the row names no source of its own


def test_a_host_off_the_allow_list_is_refused(settings, server):
    settings.PRICE_IMPORT_URL_HOSTS = ["raw.githubusercontent.com"]
    with pytest.raises(fetch.FetchError, match=re.escape("host '127.0.0.1' is not in PRICE_IMPORT_URL_HOSTS")):
        fetch.fetch_url(f"{server}/prices.csv")


def test_plain_http_is_refused_for_other_hosts():
    with pytest.raises(fetch.FetchError, match=re.escape("plain http is allowed only for 127.0.0.1 and localhost")):
        fetch.check_url("http://raw.githubusercontent.com/x.csv")


def test_other_schemes_are_refused():
    with pytest.raises(fetch.FetchError, match="only https URLs"):
        fetch.check_url("file:///etc/passwd")


def test_a_redirect_off_the_allow_list_is_refused(server):
    with pytest.raises(fetch.FetchError, match=re.escape("host 'example.com' is not in PRICE_IMPORT_URL_HOSTS")):
        fetch.fetch_url(f"{server}/redirect")


@pytest.mark.parametrize("path", ["/big.csv", "/unsized.csv"])
def test_a_file_over_the_size_cap_is_refused(server, path):
    cap = len(BODY) * (10 if path == "/big.csv" else 1) - 1
    with pytest.raises(fetch.FetchError, match=re.escape(f"larger than the import limit of {cap:,} bytes")):
        fetch.fetch_url(f"{server}{path}", max_bytes=cap)


def test_a_slow_server_times_out(server):
    started = time.monotonic()
    with pytest.raises(fetch.FetchError, match=re.escape("could not fetch within 0.5 s")):
        fetch.fetch_url(f"{server}/slow.csv", timeout=0.5)
    assert time.monotonic() - started < 2.5


def test_an_http_error_is_reported(server):
    with pytest.raises(fetch.FetchError, match="HTTP 404"):
        fetch.fetch_url(f"{server}/missing.csv")
