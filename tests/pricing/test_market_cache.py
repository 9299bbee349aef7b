"""The Market's table and chart are kept in Django's cache (Redis with REDIS_URL: shared by every web process) per
Market revision, filters and role: a repeat view renders only the filters, and an import or a reference-data edit
shows at once."""

from __future__ import annotations

import copy
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pricing.models import GpuModel, Provider
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

US = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,3.99,USD,2026-11-01,"
EU = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,eu-west-1,on_demand,,2.49,USD,2026-11-01,"
SPOT = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,eu-west-1,spot,,1.49,USD,2026-11-01,"
TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")
PRICE_READ = re.compile(r'FROM "pricing_(currentprice|priceobservation)"(?! U\d)')  # not the GPU list's EXISTS
LATER = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,3.49,USD,2026-11-20,"


def _market(client, **query) -> str:
    response = client.get(reverse("pricing:market"), query)
    assert response.status_code == 200
    return response.content.decode()


def _price_reads(client, **query) -> list[str]:
    """The statements a Market view ran that read prices (the table, its count and the chart)."""
    with CaptureQueriesContext(connection) as queries:
        _market(client, **query)
    return [q["sql"] for q in queries if PRICE_READ.search(q["sql"])]


def test_a_repeat_view_reads_no_prices_and_renders_the_same_page(viewer_client):
    run_import(canonical(US, EU))
    first = _market(viewer_client, term="on_demand")
    with CaptureQueriesContext(connection) as queries:
        second = _market(viewer_client, term="on_demand")
    # the session, the user with roles, the Market's revision, the GPU models of the filter
    assert len(queries) == 4, [q["sql"][:80] for q in queries]
    assert TOKEN.sub("", first) == TOKEN.sub("", second)  # the same page but for the CSRF token
    assert "$2.49" in first and "$3.99" in first


def test_the_table_is_kept_in_the_cache_every_web_process_shares(viewer_client, settings):
    run_import(canonical(US, EU))
    _market(viewer_client, term="on_demand")
    assert _price_reads(viewer_client, term="on_demand") == []
    # As a cache another process filled and that was emptied since: nothing under this test's keys. Not
    # cache.clear(), which empties the whole Redis database, the queues of the Celery worker the integration tests
    # use beside this one included.
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] += "-emptied"
    settings.CACHES = caches
    assert _price_reads(viewer_client, term="on_demand") != []


def test_each_filter_gets_its_own_table_and_parameters_the_market_ignores_share_one(viewer_client):
    run_import(canonical(US, EU, SPOT))
    assert "$1.49" not in _market(viewer_client, term="on_demand")
    spot = _market(viewer_client, term="spot")
    assert "$1.49" in spot and "$2.49" not in spot
    assert _price_reads(viewer_client, term="on_demand", utm_source="mail") == []
    assert _price_reads(viewer_client, term="on_demand", page="1") == []


def test_a_free_text_region_search_is_not_kept(viewer_client):
    """Each spelling would be another entry that anyone signed in could add: such a table is rendered each time."""
    run_import(canonical(US, EU))
    assert "$2.49" in _market(viewer_client, region="eu")
    assert _price_reads(viewer_client, region="eu") != []


def test_an_import_and_reference_data_edits_show_at_once(viewer_client):
    run_import(canonical(US))
    assert "$3.99" in _market(viewer_client)
    run_import(canonical(LATER))
    html = _market(viewer_client)
    assert "$3.49" in html and "$3.99" not in html

    provider = Provider.objects.get(name="Lambda")
    provider.name = "Lambda Cloud"
    provider.save()  # as the admin does
    assert "Lambda Cloud" in _market(viewer_client)

    model = GpuModel.objects.get(name="H100 SXM")
    model.name = "H100 SXM5"
    model.save()
    assert "H100 SXM5" in _market(viewer_client)


def test_viewers_and_editors_each_get_their_own_table(editor, viewer):
    editor_client, viewer_client = Client(), Client()
    editor_client.force_login(editor)
    viewer_client.force_login(viewer)
    import_link = reverse("pricing:price_import")
    html = _market(viewer_client)  # no prices: the empty table offers an import to editors only
    assert "No prices match" in html and import_link not in html
    assert html.count(import_link) == 0 and _market(editor_client).count(import_link) == 2
    assert import_link not in _market(viewer_client)


def test_htmx_gets_the_kept_table_alone(viewer_client):
    run_import(canonical(US))
    full = _market(viewer_client, term="on_demand")
    partial = viewer_client.get(reverse("pricing:market"), {"term": "on_demand"}, headers={"HX-Request": "true"})
    html = partial.content.decode()
    assert "$3.99" in html and 'id="market-results"' in html
    assert "<html" not in html and 'class="filters' not in html  # neither the page around it nor the filters
    assert html.strip() in full


@pytest.mark.parametrize("redis_state", ["down", "frozen"])
def test_the_market_renders_without_its_cache_while_redis_is_down_or_frozen(viewer_client, settings, redis_state):
    import socket
    import time

    run_import(canonical(US, EU))
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    if redis_state == "frozen":
        server.listen(64)  # connections complete; nothing ever answers
    port = server.getsockname()[1]
    if redis_state == "down":
        server.close()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    try:
        started = time.monotonic()
        pages = [_market(viewer_client, term="on_demand") for _ in range(3)]
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert all("$2.49" in page and "$3.99" in page for page in pages)
    assert elapsed < 2.0, f"waited {elapsed:.1f} s for the cache"
