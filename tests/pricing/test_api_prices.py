"""Model API prices per token in the canonical format, the import service, the Market and export_prices.

The prices are LiteLLM's for Amazon Nova 2 Lite on Bedrock (shared/data/price-feeds/litellm): 3e-07, 2.5e-06 and
7.5e-08 dollars per input, output and cached-input token, that is 0.30, 2.50 and 0.075 per million tokens.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from pricing.importers import Catalog, ProviderRef, parse_prices
from pricing.models import CurrentPrice, PriceObservation, Provider, SnapshotStatus
from tests.pricing.conftest import canonical, run_import

TODAY = date(2026, 11, 30)
API_HEADER = (
    "provider,provider_kind,offering,region,pricing_term,price_per_million_input_tokens,"
    "price_per_million_output_tokens,price_per_million_cached_input_tokens,observed_on,source_url\n"
)
NOVA = "Amazon Bedrock,api,amazon.nova-2-lite-v1:0,,on_demand,0.30,2.50,0.075,2026-11-01,"
NOVA_JP = "Amazon Bedrock,api,jp.amazon.nova-2-lite-v1:0,jp,on_demand,0.33,2.75,0.0825,2026-11-01,"
CATALOG = Catalog(
    gpu_names={"H100 SXM": (1, "H100 SXM")},
    providers=[ProviderRef(10, "Lambda", "neocloud"), ProviderRef(20, "Amazon Bedrock", "api")],
)


def api_file(*rows: str) -> str:
    return API_HEADER + "".join(row + "\n" for row in rows)


def parse(text: str):
    return parse_prices(text.encode(), catalog=CATALOG, today=TODAY, max_rows=100)


def test_an_api_row_is_priced_per_million_tokens_without_a_gpu():
    result = parse(api_file(NOVA))
    assert result.errors == []
    (row,) = result.rows
    assert (row.provider_id, row.offering, row.gpu_model_id, row.gpus_per_instance) == (
        20,
        "amazon.nova-2-lite-v1:0",
        None,
        None,
    )
    assert (row.price_per_instance_hour, row.price_per_gpu_hour) == (None, None)
    assert row.price_per_million_input_tokens == Decimal("0.30")
    assert row.price_per_million_output_tokens == Decimal("2.50")
    assert row.price_per_million_cached_input_tokens == Decimal("0.075")


def test_a_free_model_is_priced_zero_and_the_cached_price_is_optional():
    result = parse(api_file("Amazon Bedrock,api,free-model,,on_demand,0,0,,2026-11-01,"))
    assert result.errors == []
    (row,) = result.rows
    assert row.price_per_million_input_tokens == 0
    assert row.price_per_million_cached_input_tokens is None


def test_an_api_row_needs_both_token_prices_and_no_gpu():
    header = canonical().rstrip("\n") + ",price_per_million_input_tokens,price_per_million_output_tokens\n"
    result = parse(header + "Amazon Bedrock,api,H100 SXM,,nova,,on_demand,,,USD,2026-11-01,,0.30,\n")
    found = {(error.column, error.reason) for error in result.errors}
    assert ("gpu_model", "Amazon Bedrock is a model API priced per token; leave gpu_model blank") in found
    assert ("price_per_million_output_tokens", "required for Amazon Bedrock, a model API") in found
    assert result.rows == []


def test_a_gpu_row_refuses_a_token_price():
    header = canonical().rstrip("\n") + ",price_per_million_input_tokens\n"
    result = parse(header + "Lambda,neocloud,H100 SXM,8,box,us-east-1,on_demand,,2.99,USD,2026-11-01,,0.5\n")
    assert [(error.column, error.value) for error in result.errors] == [("price_per_million_input_tokens", "0.5")]


def test_a_negative_token_price_is_refused():
    result = parse(api_file(NOVA.replace("0.30", "-0.30")))
    assert [(error.column, error.reason) for error in result.errors] == [
        ("price_per_million_input_tokens", "negative price")
    ]


@pytest.mark.usefixtures("reference")
def test_importing_api_prices_stores_them_once_and_keeps_them_current():
    snapshot = run_import(api_file(NOVA, NOVA_JP))
    assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors
    assert snapshot.providers_created == ["Amazon Bedrock"]
    assert Provider.objects.get(name="Amazon Bedrock").kind == "api"
    nova = PriceObservation.objects.get(offering="amazon.nova-2-lite-v1:0")
    assert (nova.gpu_model_id, nova.price_per_million_output_tokens) == (None, Decimal("2.5"))
    assert CurrentPrice.objects.filter(gpu_model__isnull=True).count() == 2

    again = run_import(api_file(NOVA, NOVA_JP))
    assert (again.status, again.prices_new, again.prices_known) == (SnapshotStatus.DUPLICATE, 0, 2)

    later = run_import(api_file(NOVA.replace("0.30,2.50", "0.25,2.00").replace("2026-11-01", "2026-11-20")))
    assert later.prices_new == 1
    current = CurrentPrice.objects.get(offering="amazon.nova-2-lite-v1:0")
    assert (current.observed_on, current.price_per_million_input_tokens) == (date(2026, 11, 20), Decimal("0.25"))
    assert CurrentPrice.objects.count() == 2


@pytest.mark.usefixtures("reference")
def test_an_api_price_on_a_known_day_is_not_overwritten():
    run_import(api_file(NOVA))
    changed = run_import(api_file(NOVA.replace("2.50", "2.60")))
    assert changed.status == SnapshotStatus.REJECTED
    assert "already recorded at 0.300000, 2.500000, 0.075000 per million input, output" in changed.errors[0]["reason"]


@pytest.mark.usefixtures("reference")
def test_the_database_refuses_a_second_api_price_under_one_key():
    run_import(api_file(NOVA))
    nova = PriceObservation.objects.get()
    nova.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        nova.save()


@pytest.mark.usefixtures("reference")
def test_the_database_refuses_an_api_price_without_its_output_price():
    run_import(api_file(NOVA))
    nova = PriceObservation.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        PriceObservation.objects.filter(pk=nova.pk).update(price_per_million_output_tokens=None)


@pytest.mark.usefixtures("reference")
def test_export_prices_writes_api_prices_that_import_back_unchanged(tmp_path):
    run_import(api_file(NOVA))
    out = io.StringIO()
    call_command("export_prices", stdout=out)
    header, row = list(csv.reader(io.StringIO(out.getvalue())))
    record = dict(zip(header, row, strict=True))
    assert record["offering"] == "amazon.nova-2-lite-v1:0"
    assert (record["gpu_model"], record["gpus_per_instance"], record["price_per_gpu_hour"]) == ("", "", "")
    assert record["price_per_million_input_tokens"] == "0.3"
    assert record["price_per_million_output_tokens"] == "2.5"
    assert record["price_per_million_cached_input_tokens"] == "0.075"
    back = run_import(out.getvalue())
    assert (back.status, back.prices_known) == (SnapshotStatus.DUPLICATE, 1)


@pytest.mark.usefixtures("reference")
def test_the_market_shows_gpu_rows_and_with_kind_api_the_per_token_prices(viewer_client):
    run_import(api_file(NOVA))
    run_import(canonical("Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,,2.99,USD,2026-11-01,"))
    gpus = viewer_client.get(reverse("pricing:market")).content.decode()
    assert "gpu_8x_h100_sxm5" in gpus
    assert "amazon.nova-2-lite-v1:0" not in gpus
    apis = viewer_client.get(reverse("pricing:market"), {"kind": "api"}).content.decode()
    assert "amazon.nova-2-lite-v1:0" in apis
    assert "gpu_8x_h100_sxm5" not in apis
    assert "Input per<br>million tokens" in apis
    assert "$0.30" in apis and "$2.50" in apis and "$0.075" in apis


@pytest.mark.usefixtures("reference")
def test_the_price_history_of_a_model_is_in_dollars_per_million_tokens(viewer_client):
    run_import(api_file(NOVA))
    nova = PriceObservation.objects.get()
    html = viewer_client.get(reverse("pricing:price_history", args=[nova.pk])).content.decode()
    assert "Input per million tokens" in html and "$0.075" in html
    assert "USD per million input tokens" in html  # the chart's axis
