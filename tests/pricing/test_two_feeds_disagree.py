"""Two price feeds may price the same offering differently on the same day: LiteLLM's map carries `openrouter/*`
entries, OpenRouter publishes its own models file. Both prices are kept, each with the feed it came from, both
are current (the Market and the price picker show both, saying which feed), and neither file is rejected.

OpenRouter's models file is the real excerpt of tests/pricing/samples (gryphe/mythomax-l2-13b at 1.8e-07 $ per
token in and out: 0.18 $ per million); the LiteLLM entry is written for this test in the shape of the real
entries of tests/pricing/samples (its keys), at another price (2e-07 and 3e-07: 0.20 and 0.30 $ per million)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.urls import reverse

from pricing.models import CurrentPrice, PriceObservation, SnapshotStatus
from tests.pricing.conftest import OBSERVED, run_import

MODELS = Path(__file__).parent / "samples" / "openrouter-models-excerpt.json"
LITELLM = json.dumps(
    {
        "openrouter/gryphe/mythomax-l2-13b": {
            "input_cost_per_token": 2e-07,
            "litellm_provider": "openrouter",
            "max_tokens": 8192,
            "mode": "chat",
            "output_cost_per_token": 3e-07,
        }
    },
    indent=4,
)
MODEL = "gryphe/mythomax-l2-13b"


def _prices() -> dict[str, tuple]:
    return {
        row.feed: (row.price_per_million_input_tokens, row.price_per_million_output_tokens)
        for row in CurrentPrice.objects.filter(offering=MODEL)
    }


@pytest.mark.parametrize("order", ["openrouter first", "litellm first"])
def test_both_feeds_are_kept_with_their_source_in_either_order(db, order):
    files = [(MODELS.read_bytes(), "openrouter"), (LITELLM.encode(), "litellm")]
    if order == "litellm first":
        files.reverse()
    for content, feed in files:
        snapshot = run_import(content, observed_on=OBSERVED)
        assert (snapshot.status, snapshot.format) == (SnapshotStatus.IMPORTED, feed), snapshot.errors
    assert _prices() == {
        "openrouter": (Decimal("0.18"), Decimal("0.18")),
        "litellm": (Decimal("0.2"), Decimal("0.3")),
    }
    assert PriceObservation.objects.filter(offering=MODEL, observed_on=OBSERVED).count() == 2


def test_the_same_feed_at_another_price_on_the_same_day_is_still_refused(db):
    run_import(LITELLM, observed_on=OBSERVED)
    snapshot = run_import(LITELLM.replace("3e-07", "4e-07"), observed_on=OBSERVED)
    assert snapshot.status == SnapshotStatus.REJECTED
    assert "already recorded" in snapshot.errors[0]["reason"]


def test_the_picker_and_the_market_show_both_prices_with_their_feed(editor_client, scenario):
    run_import(MODELS.read_bytes(), observed_on=OBSERVED)
    run_import(LITELLM, observed_on=OBSERVED)
    api = scenario.options.get(kind="api")
    url = reverse("tco:price_picker", args=[scenario.pk, api.pk])
    html = editor_client.get(url, {"gpu": "mythomax"}, HTTP_HX_REQUEST="true").content.decode()
    assert "2 matching offers" in html
    assert "$0.18" in html and "$0.20" in html and "$0.30" in html
    assert "from OpenRouter" in html and "from LiteLLM" in html
    market = editor_client.get(reverse("pricing:market"), {"kind": "api"}).content.decode()
    assert "from OpenRouter" in market and "from LiteLLM" in market
