"""A value list (pricing terms, provider kinds, forecast kinds) is defined once, and every menu and word reads it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from lib.kinds import API_KINDS, RENTAL_KINDS
from lib.terms import PRICING_TERM_LABELS, term_label
from pricing.importers.fields import CellError, pricing_term, provider_kind
from pricing.models import PricingTerm, ProviderKind
from tco.engine.catalogue import SCENARIO_FIELD
from tco.models import ForecastKind

OPTION = re.compile(r'<option value="([^"]*)"[^>]*>([^<]*)</option>')


def test_the_pricing_terms_are_one_list_with_one_label_each():
    assert PricingTerm.choices == list(PRICING_TERM_LABELS.items())
    assert [pricing_term(term.upper()) for term in PricingTerm.values] == list(PRICING_TERM_LABELS)
    assert pricing_term("On demand") == "on_demand"
    with pytest.raises(CellError, match="on_demand, spot, reserved_1y, reserved_3y, committed"):
        pricing_term("hourly")
    assert term_label("reserved_3y") == "Reserved 3 years"


def test_a_price_file_names_the_kinds_a_provider_may_have():
    assert [provider_kind(kind) for kind in ProviderKind.values] == [*RENTAL_KINDS, *API_KINDS]
    with pytest.raises(CellError):
        provider_kind("owned")


def test_the_forecast_kinds_are_the_catalogues():
    assert ForecastKind.choices == list(SCENARIO_FIELD["forecast_kind"].choices)


def test_the_price_pickers_terms_are_the_markets(editor_client, scenario):
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    lambda_option = scenario.options.get(kind="neocloud")
    select = re.search(rf'<select name="term" id="pick-term-{lambda_option.pk}">(.*?)</select>', html, re.S)
    assert select is not None
    assert OPTION.findall(select[1]) == [("", "Any term"), *PricingTerm.choices]


def test_a_picked_prices_term_is_in_words_on_the_option_card(editor_client, scenario):
    lambda_option = scenario.options.get(kind="neocloud")
    lambda_option.price_source = {"provider": "Lambda", "pricing_term": "reserved_1y", "observed_on": "2026-11-01"}
    lambda_option.save()
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    provenance = re.search(rf'id="provenance-{lambda_option.pk}">(.*?)</p>', html, re.S)[1]
    assert "Reserved 1 year" in provenance and "reserved_1y" not in provenance
