"""The Market chart follows the table's filters, region included, and labels each bar with its currency."""

from __future__ import annotations

import pytest
from django.urls import reverse

from pricing.charts import PricePoint, provider_comparison
from tests.pricing.conftest import canonical, run_import

pytestmark = pytest.mark.usefixtures("reference")

US = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,3.99,USD,2026-11-01,"
EU = "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,eu-west-1,on_demand,,2.49,USD,2026-11-01,"
AWS_US = "AWS,hyperscaler,H100 SXM,8,p5.48xlarge,us-east-1,on_demand,55.04,,USD,2026-11-01,"


def _chart(client, **filters) -> dict:
    response = client.get(reverse("pricing:market"), {"gpu": "", **filters})
    return response.context["figure"]


def _bars(figure: dict) -> dict[str, float]:
    return {x: y for trace in figure["data"] for x, y in zip(trace["x"], trace["y"], strict=True)}


def test_the_chart_shows_only_the_region_the_table_is_filtered_to(viewer_client):
    run_import(canonical(US, EU, AWS_US))

    unfiltered = _chart(viewer_client)
    filtered = _chart(viewer_client, region="us-east")

    assert _bars(unfiltered) == {"Lambda": 2.49, "AWS": 6.88}  # the cheapest Lambda offer is in Europe
    assert _bars(filtered) == {"Lambda": 3.99, "AWS": 6.88}
    assert "us-east" in filtered["layout"]["title"]["text"]
    rows = viewer_client.get(reverse("pricing:market"), {"region": "us-east"}).context["page"].object_list
    assert {row.region for row in rows} == {"us-east-1"}


def test_a_region_without_prices_gets_an_empty_chart_that_says_so(viewer_client):
    run_import(canonical(US))
    figure = _chart(viewer_client, region="ap-south")
    assert figure["data"] == []
    assert "ap-south" in figure["layout"]["annotations"][0]["text"]


def test_each_bar_is_labelled_with_its_price_and_currency():
    points = [
        PricePoint("Lambda", "neocloud", "box", "us", 8, 2.99, "USD"),
        PricePoint("Nebius", "neocloud", "box", "eu", 8, 2.5, "EUR"),
        PricePoint("Scaleway", "neocloud", "box", "fr", 8, 2.8, "EUR"),
    ]
    figure = provider_comparison(points, gpu_model="H100 SXM", term_label="on demand")
    labels = {x: text for trace in figure["data"] for x, text in zip(trace["x"], trace["text"], strict=True)}
    # One currency per chart (never two added or compared on one axis): the majority's, the other named.
    assert labels == {"Nebius": "EUR 2.50", "Scaleway": "EUR 2.80"}
    assert "USD" in figure["layout"]["title"]["text"]
