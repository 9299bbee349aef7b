from __future__ import annotations

import gzip
import re
from pathlib import Path

import plotly.offline
import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["tco:home", "pricing:market"])
def test_pages_require_login(client, db, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_login_page_is_public(client, db):
    assert client.get(reverse("login")).status_code == 200


def test_demo_account_can_log_in_after_seed(client, db):
    from django.core.management import call_command

    call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)  # idempotent
    assert client.login(username="analyst", password="analyst-demo-2026")
    response = client.get(reverse("tco:home"))
    assert response.status_code == 200
    assert b"Market" in response.content
    # The README promises the analyst keeps the reference data in the admin; users stay with superusers.
    from pricing.models import ExchangeRate

    assert ExchangeRate.objects.filter(rate_date="2026-11-02").count() == 14  # the demo rates, loaded once
    pages = ("/admin/pricing/gpumodel/", "/admin/pricing/gpualias/add/", "/admin/pricing/importsource/add/")
    for page in (*pages, "/admin/pricing/exchangerate/add/"):
        assert client.get(page).status_code == 200, page
    assert client.get("/admin/auth/user/").status_code == 403


def test_vendored_plotly_matches_installed_plotly():
    version = plotly.offline.get_plotlyjs_version()
    bundle = ROOT / "static" / "vendor" / f"plotly-cartesian-{version}.min.js"
    assert bundle.exists(), f"vendor plotly.js-cartesian-dist-min@{version} as {bundle.name}"
    header = bundle.read_text(encoding="utf-8")[:200]
    assert re.search(rf"\bv{re.escape(version)}\b", header)
    assert len(gzip.compress(bundle.read_bytes())) < 600_000
    # ...and it is the one the pages load, the only one shipped.
    assert f"vendor/{bundle.name}" in (ROOT / "templates" / "_chart_scripts.html").read_text(encoding="utf-8")
    assert [path.name for path in (ROOT / "static" / "vendor").glob("plotly*.js")] == [bundle.name]


def test_no_template_loads_scripts_from_the_network():
    for template in (ROOT / "templates").rglob("*.html"):
        assert not re.search(r"<script[^>]+src=\"(https?:)?//", template.read_text()), template
