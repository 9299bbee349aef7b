"""A picked Market price with a newer observation of the same offering: the option says so, one click updates it."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.urls import reverse

from tco.models import ScenarioOption
from tco.services import option_pick_price
from tco.web.viewmodels.history import scenario_history
from tests.scenarios import factories

HTMX = {"HTTP_HX_REQUEST": "true"}
NOVEMBER = datetime.date(2026, 11, 1)


def _picked(scenario, editor) -> ScenarioOption:
    rental = scenario.options.get(kind="neocloud")
    option_pick_price(option=rental, user=editor, expected_version=1, observation=factories.observation(price="3.99"))
    return ScenarioOption.objects.get(pk=rental.pk)


def _page(client, scenario) -> str:
    return client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()


def test_the_option_names_both_prices_and_dates_when_a_newer_one_exists(editor_client, scenario, editor):
    rental = _picked(scenario, editor)
    assert f'id="newer-price-{rental.pk}"' not in _page(editor_client, scenario)
    factories.observation(price="2.99", observed_on=NOVEMBER)
    html = _page(editor_client, scenario)
    assert f'id="newer-price-{rental.pk}"' in html
    notice = html[html.index(f'id="newer-price-{rental.pk}"') :]
    notice = " ".join(notice[: notice.index("</div>")].split())
    assert "A newer Market price exists</strong> for Lambda · 8-GPU instance: $2.99 as of" in notice
    assert "2026-11-01</time>; this option uses $3.99 as of" in notice and "2026-09-01" in notice
    assert "Update to the 2026-11-01 price" in notice


def test_another_region_or_term_is_not_a_newer_price_of_this_offering(editor_client, scenario, editor):
    rental = _picked(scenario, editor)
    factories.observation(price="2.99", observed_on=NOVEMBER, term="spot")
    factories.observation(price="2.49", observed_on=NOVEMBER + datetime.timedelta(days=1), region="eu-west-1")
    assert f'id="newer-price-{rental.pk}"' not in _page(editor_client, scenario)


def test_one_click_updates_the_price_and_the_history_records_it(editor_client, scenario, editor):
    rental = _picked(scenario, editor)
    newer = factories.observation(price="2.99", observed_on=NOVEMBER)
    url = reverse("tco:option_pick", args=[scenario.pk, rental.pk])
    html = editor_client.post(url, {"observation": newer.pk, "version": 2}, **HTMX).content.decode()
    rental.refresh_from_db()
    assert (rental.price_per_gpu_hour, rental.price_source["observed_on"]) == (Decimal("2.99"), "2026-11-01")
    assert f'id="newer-price-{rental.pk}"' not in html
    lines = {(line.field, line.old, line.new) for line in scenario_history(scenario)}
    assert ("Price", "$3.99 per GPU-hour", "$2.99 per GPU-hour") in lines
