"""htmx editing: saves, engine errors next to their field, stale results, version conflicts, polling."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from tco.models import Scenario, ScenarioOption, ScenarioRun, SecondaryDiligenceItem
from tco.services import scenario_create
from tests.scenarios import factories
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}


def _field(client, scenario, field, value, version=None, *, run_jobs=None):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    data = {field: value, "version": scenario.version if version is None else version}
    if run_jobs is None:
        return client.post(url, data, **HTMX)
    with run_jobs():
        return client.post(url, data, **HTMX)


def _option_field(client, scenario, option, field, value, version=None):
    url = reverse("tco:option_field", args=[scenario.pk, option.pk])
    data = {field: value, "version": scenario.version if version is None else version}
    return client.post(url, data, **HTMX)


def _results(client, scenario, version=None):
    query = {} if version is None else {"version": version}
    return client.get(reverse("tco:scenario_results", args=[scenario.pk]), query, **HTMX)


def test_a_valid_change_saves_and_answers_with_the_whole_workspace_at_the_new_version(editor_client, scenario):
    response = _field(editor_client, scenario, "fleet_gpus", "16")
    page = Workspace(response.content.decode())
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 16
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#workspace", "morph")
    assert page.version == 2 and page.value("s-fleet_gpus") == "16"
    assert page.attrs("workspace")["data-version"] == "2" and response["X-Scenario-Version"] == "2"
    assert page.attrs("results")["hx-trigger"] == "every 1s"  # the results wait for the new run
    assert "hx-swap-oob" not in response.content.decode()  # one region, never hand-picked pieces


def test_the_results_poll_answers_nothing_until_the_run_is_done_then_the_workspace(editor_client, scenario):
    _field(editor_client, scenario, "fleet_gpus", "16")
    run = ScenarioRun.objects.latest("id")
    pending = _results(editor_client, scenario, version=2)
    assert pending.status_code == 204 and pending.content == b""

    from tco.tasks import scenario_evaluate

    scenario_evaluate(run.pk)
    done = _results(editor_client, scenario, version=2)
    page = Workspace(done.content.decode())
    assert done.status_code == 200 and done["HX-Retarget"] == "#workspace"
    assert page.attrs("results")["data-status"] == "done" and "hx-trigger" not in page.attrs("results")
    assert "Up to date" in page.text("results") and "version 2" in page.text("results")


def test_a_poll_from_an_older_version_gets_the_workspace_as_it_now_is(editor_client, scenario):
    _field(editor_client, scenario, "fleet_gpus", "16")  # version 2, its run pending
    response = _results(editor_client, scenario, version=1)  # a tab still showing version 1
    assert response.status_code == 200 and Workspace(response.content.decode()).version == 2


def test_the_new_answer_reflects_the_change(editor_client, scenario, run_jobs):
    _field(editor_client, scenario, "discount_rate", "0", run_jobs=run_jobs)
    html = _results(editor_client, scenario).content.decode()
    run = ScenarioRun.objects.latest("id")
    assert run.document["discount_rate"] == 0
    assert run.result["options"][1]["npv"] == pytest.approx(run.result["options"][1]["total_cost"])
    # The savings card is the gap between the two lowest NPVs of the new run, in whole dollars (half up).
    cheapest, runner_up = sorted(option["npv"] for option in run.result["options"])[:2]
    savings = Decimal(repr(runner_up - cheapest)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    assert re.search(r'id="card-savings">([^<]+)<', html).group(1).strip() == f"${savings:,}"


def test_percentages_are_accepted_for_rates(editor_client, scenario):
    _field(editor_client, scenario, "discount_rate", "6.5%")
    assert str(Scenario.objects.get(pk=scenario.pk).discount_rate.normalize()) == "0.065"


def test_a_value_the_engine_refuses_is_not_saved_and_its_message_names_the_option_and_field(editor_client, scenario):
    option = scenario.options.get(kind="owned")
    html = _option_field(editor_client, scenario, option, "capex", "-5").content.decode()
    page = Workspace(html)
    key = f"o{option.pk}-capex"
    assert page.error(key) == f"{option.name} → Capex, whole option (USD) must not be negative; got -5"
    assert "options[" not in html
    assert page.value(key) == "-5" and page.refused(key)  # what the user typed stays, marked not saved
    assert "Stored: 320,000" in page.text(f"not-saved-{key}") and page.attrs(f"f-{key}")["data-stored"] == "320,000"
    option.refresh_from_db()
    scenario.refresh_from_db()
    assert option.capex == 320000 and scenario.version == 1  # nothing stored, no new version


def test_after_a_refused_value_every_later_answer_shows_the_stored_values(editor_client, scenario):
    """The browser keeps the refused input as typed (static/js/workspace.js); the server never shows it as saved."""
    option = scenario.options.get(kind="owned")
    _option_field(editor_client, scenario, option, "capex", "-5")
    page = Workspace(_field(editor_client, scenario, "fleet_gpus", "9").content.decode())
    key = f"o{option.pk}-capex"
    assert page.value(key) == "320,000" and page.error(key) == "" and not page.refused(key)


def test_after_a_refused_value_the_page_shows_the_stored_scenario_without_errors(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _option_field(editor_client, scenario, option, "price_per_gpu_hour", "-1")
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert not re.search(rf'id="err-o{option.pk}-price_per_gpu_hour" role="alert">[^<]+<', html)
    assert 'class="answer stale"' not in html


def test_fixing_the_value_clears_the_error_and_recomputes(editor_client, scenario, run_jobs):
    option = scenario.options.get(kind="owned")
    _option_field(editor_client, scenario, option, "capex", "-5")
    scenario.refresh_from_db()
    with run_jobs():
        page = Workspace(_option_field(editor_client, scenario, option, "capex", "300,000").content.decode())
    key = f"o{option.pk}-capex"
    assert (page.value(key), page.error(key), page.refused(key)) == ("300,000", "", False)
    assert ScenarioOption.objects.get(pk=option.pk).capex == 300000
    assert ScenarioRun.objects.latest("id").status == "done"


def test_a_value_that_is_not_a_number_is_not_saved(editor_client, scenario):
    page = Workspace(_field(editor_client, scenario, "fleet_gpus", "eight").content.decode())
    assert page.error("s-fleet_gpus") == "'eight' is not a whole number"
    assert page.value("s-fleet_gpus") == "eight" and page.refused("s-fleet_gpus")  # the typed text stays
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.fleet_gpus, fresh.version) == (8, 1)


def test_the_same_value_written_another_way_saves_nothing(editor_client, scenario):
    option = scenario.options.get(kind="owned")
    page = Workspace(_option_field(editor_client, scenario, option, "capex", "$320000.00").content.decode())
    assert page.value(f"o{option.pk}-capex") == "320,000"
    assert Scenario.objects.get(pk=scenario.pk).version == 1


def test_a_stale_save_is_refused_with_a_message_and_the_newer_values(editor_client, scenario, client, editor):
    _field(editor_client, scenario, "fleet_gpus", "16", version=1)  # someone saves version 1 → 2
    response = _field(editor_client, scenario, "horizon_months", "24", version=1)  # a second tab still on 1
    page = Workspace(response.content.decode())
    assert response["HX-Retarget"] == "#workspace"
    assert "was changed by edna-editor" in page.text("conflict")
    assert "Your change (Horizon (months) → 24) was not saved" in page.text("conflict")
    assert page.value("s-fleet_gpus") == "16" and page.value("s-horizon_months") == "36" and page.version == 2
    assert Scenario.objects.get(pk=scenario.pk).horizon_months == 36


def test_a_save_without_a_version_is_treated_as_stale(editor_client, scenario):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    editor_client.post(url, {"fleet_gpus": "4"}, **HTMX)
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 8


def test_history_shows_who_changed_which_field_from_what_to_what(editor_client, scenario):
    html = _field(editor_client, scenario, "fleet_gpus", "16").content.decode()
    assert re.search(
        r"<strong>edna-editor</strong>\s*changed scenario <em>Fleet size</em>: <code>8 GPUs</code> → "
        r"<code>16 GPUs</code>",
        html,
    )


def test_option_changes_appear_in_the_history_on_the_page(editor_client, scenario):
    option = scenario.options.get(kind="neocloud")
    _option_field(editor_client, scenario, option, "price_per_gpu_hour", "3.5")
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert (
        "changed option “Lambda 8x H100 SXM” <em>Price</em>: <code>$3.99 per GPU-hour</code> → "
        "<code>$3.50 per GPU-hour</code>" in html
    )


def test_the_forecast_editor_saves_a_ramp_and_shows_its_preview(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    data = {
        "forecast_kind": "ramp",
        "forecast_ramp_from_utilization": "30%",
        "forecast_ramp_to_utilization": "0.9",
        "version": 1,
    }
    html = editor_client.post(url, data, **HTMX).content.decode()
    fresh = Scenario.objects.get(pk=scenario.pk)
    values = fresh.utilization_values()
    assert (len(values), values[0], values[-1]) == (36, pytest.approx(0.3), pytest.approx(0.9))
    assert 'data-figure="forecast-preview"' in html
    assert "mean 60.0%" in html


def test_a_pasted_forecast_error_names_the_line_and_saves_nothing(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    pasted = "\n".join(["50%"] * 10 + ["lots"] + ["50%"] * 25)
    html = editor_client.post(
        url, {"forecast_kind": "pasted", "forecast_pasted": pasted, "version": 1}, **HTMX
    ).content.decode()
    assert "line 11: &#x27;lots&#x27; is not a number" in html
    assert Scenario.objects.get(pk=scenario.pk).forecast_kind == "flat"


def test_a_pasted_column_becomes_the_monthly_forecast(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    pasted = "\n".join(f"{40 + m}%" for m in range(36))
    editor_client.post(url, {"forecast_kind": "pasted", "forecast_pasted": pasted, "version": 1}, **HTMX)
    values = Scenario.objects.get(pk=scenario.pk).utilization_values()
    assert values[0] == pytest.approx(0.40) and values[35] == pytest.approx(0.75)


def test_adding_an_owned_option_prefills_it_and_marks_assumptions(editor_client, scenario):
    gpu = factories.gpu_model()
    url = reverse("tco:option_add", args=[scenario.pk])
    html = editor_client.post(url, {"kind": "owned", "gpu_model": gpu.pk, "version": 1}, **HTMX).content.decode()
    option = scenario.options.get(name="Own 8\u00d7 H100 SXM (new)")
    assert str(option.power_kw.normalize()) == "10.2"
    page = Workspace(html)
    assert page.text(f"option-{option.pk}-title").endswith(option.name)
    assert "assumption" in page.text(f"f-o{option.pk}-capex") and "not a quote" in html


def test_deleting_an_option_removes_it(editor_client, scenario):
    option = scenario.options.get(kind="api")
    url = reverse("tco:option_delete", args=[scenario.pk, option.pk])
    editor_client.post(url, {"version": 1}, **HTMX)
    assert not ScenarioOption.objects.filter(pk=option.pk).exists()


def test_the_price_picker_searches_the_market_by_gpu_and_provider(editor_client, scenario):
    factories.observation(provider="Lambda", price="3.99")
    factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:price_picker", args=[scenario.pk, option.pk])
    html = editor_client.get(url, {"gpu": "h100", "provider": "core"}, **HTMX).content.decode()
    assert "CoreWeave" in html and "HGX H100" in html and "$6.16" in html
    assert "Lambda" not in html


def test_picking_a_price_shows_its_provenance_on_the_option(editor_client, scenario):
    observation = factories.observation(provider="CoreWeave", kind="neocloud", price="6.16", offering="HGX H100")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:option_pick", args=[scenario.pk, option.pk])
    html = editor_client.post(url, {"observation": observation.pk, "version": 1}, **HTMX).content.decode()
    assert "Price from the Market: <strong>CoreWeave</strong> · HGX H100 · us-east-1 · On demand" in html
    assert "<time>2026-09-01</time>" in html
    assert ScenarioOption.objects.get(pk=option.pk).price_per_gpu_hour == observation.price_per_gpu_hour


def test_the_picker_lists_each_price_in_its_own_currency(editor_client, scenario):
    factories.observation(provider="Nebius", price="2.75", currency="EUR")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:price_picker", args=[scenario.pk, option.pk])
    html = editor_client.get(url, {"provider": "nebius"}, **HTMX).content.decode()
    assert "€2.75" in html or "EUR 2.75" in html
    assert "converted at the exchange rate nearest its as-of date" in html


def test_picking_a_price_in_another_currency_shows_the_original_and_the_rate(editor_client, scenario):
    from datetime import date

    from pricing.models import ExchangeRate

    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=date(2026, 8, 31), source="ECB"
    )
    observation = factories.observation(provider="Nebius", price="2.75", currency="EUR")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:option_pick", args=[scenario.pk, option.pk])
    html = editor_client.post(url, {"observation": observation.pk, "version": 1}, **HTMX).content.decode()
    assert 'converted from EUR 2.75 at 1 EUR = 1.08 USD (ECB, <time datetime="2026-08-31">2026-08-31</time>)' in html
    assert ScenarioOption.objects.get(pk=option.pk).price_per_gpu_hour == Decimal("2.97")


def test_picking_a_price_without_a_rate_says_which_rate_to_import(editor_client, scenario):
    observation = factories.observation(provider="Nebius", price="2.75", currency="GBP")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:option_pick", args=[scenario.pk, option.pk])
    html = editor_client.post(url, {"observation": observation.pk, "version": 1}, **HTMX).content.decode()
    assert "no GBP→USD exchange rate is known" in html
    assert ScenarioOption.objects.get(pk=option.pk).price_source is None


def test_a_checklist_item_is_saved_from_the_page(editor_client, scenario, editor):
    from tco.services import option_add

    option, _ = option_add(
        scenario=scenario, user=editor, expected_version=1, kind="secondary", gpu_model=factories.gpu_model()
    )
    item = option.diligence_items.get(key="nic_fabric")
    url = reverse("tco:diligence_update", args=[scenario.pk, item.pk])
    editor_client.post(url, {"status": "concern", "note": "ConnectX-6 only", "version": 2}, **HTMX)
    item = SecondaryDiligenceItem.objects.get(pk=item.pk)
    assert (item.status, item.note) == ("concern", "ConnectX-6 only")


def test_rename_changes_the_name(editor_client, scenario):
    _field(editor_client, scenario, "name", "H100 plan B")
    assert Scenario.objects.get(pk=scenario.pk).name == "H100 plan B"


def test_rename_refuses_an_empty_name(editor_client, scenario):
    html = _field(editor_client, scenario, "name", "  ").content.decode()
    assert "give the scenario a name" in html
    assert Scenario.objects.get(pk=scenario.pk).name == "H100 inference 2027"


def test_switching_the_forecast_kind_starts_from_the_current_forecast(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    editor_client.post(url, {"forecast_kind": "seasonal", "version": 1}, **HTMX)
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert fresh.forecast_kind == "seasonal"
    assert (fresh.forecast_seasonal_base_utilization, fresh.forecast_seasonal_amplitude) == (
        Decimal("0.55"),
        Decimal("0.1"),
    )
    assert fresh.forecast_seasonal_peak_month == 12


def test_switching_back_restores_the_kinds_saved_parameters(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    editor_client.post(url, {"forecast_kind": "ramp", "version": 1}, **HTMX)
    editor_client.post(url, {"forecast_kind": "flat", "version": 2}, **HTMX)
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.forecast_kind, fresh.forecast_flat_utilization, fresh.version) == ("flat", Decimal("0.55"), 3)


def test_a_nul_character_is_refused_and_nothing_is_saved(editor_client, scenario):
    response = _field(editor_client, scenario, "name", "Q3\x00plan")
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    scenario.refresh_from_db()
    assert scenario.name == "H100 inference 2027"


def test_changing_the_currency_saves_and_redraws_the_whole_page(editor_client, scenario, run_jobs):
    _field(editor_client, scenario, "currency", "EUR")  # asks first: convert the money inputs or relabel them
    with run_jobs():
        response = editor_client.post(
            reverse("tco:scenario_currency", args=[scenario.pk]),
            {"currency": "EUR", "mode": "relabel", "version": 1},
            **HTMX,
        )
    assert response.status_code == 200
    assert response["HX-Refresh"] == "true"
    assert Scenario.objects.get(pk=scenario.pk).currency == "EUR"
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    assert "Per option (EUR)" in page


def test_a_currency_that_is_not_iso_4217_is_refused_and_nothing_is_saved(editor_client, scenario):
    response = _field(editor_client, scenario, "currency", "XYZ")
    assert "XYZ is not an ISO 4217 currency code" in response.content.decode()
    scenario.refresh_from_db()
    assert (scenario.currency, scenario.version) == ("USD", 1)


def test_the_price_picker_says_how_many_offers_match_and_pages_through_them(editor_client, scenario):
    """30 offers match: the picker shows the 25 cheapest, says "1 to 25 of 30 matching offers", and its next page the
    other 5 (25 of 110 shown without saying so hid the rest)."""
    for n in range(30):
        factories.observation(provider="Lambda", price=f"{2 + n / 100:.2f}", offering=f"Offer {n:02d}")
    option = scenario.options.get(kind="neocloud")
    url = reverse("tco:price_picker", args=[scenario.pk, option.pk])
    first = editor_client.get(url, {"gpu": "h100"}, **HTMX).content.decode()
    assert "1 to 25 of 30 matching offers, cheapest first" in first
    assert first.count("Use this price") == 25 and "Offer 24" in first and "Offer 25" not in first
    assert re.search(r'hx-get="[^"]*\?gpu=h100&amp;provider=&amp;term=&amp;offset=25"[^>]*>Next 5', first)
    second = editor_client.get(url, {"gpu": "h100", "offset": "25"}, **HTMX).content.decode()
    assert "26 to 30 of 30 matching offers, cheapest first" in second
    assert second.count("Use this price") == 5 and "Offer 25" in second and "Offer 29" in second
    assert re.search(r'offset=0"[^>]*>← Previous 25', second) and "Next" not in second
    factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")
    one = editor_client.get(url, {"gpu": "h100", "provider": "core"}, **HTMX).content.decode()
    assert "1 matching offer." in one and "Next" not in one and "Previous" not in one
    none = editor_client.get(url, {"gpu": "h100", "provider": "nobody"}, **HTMX).content.decode()
    assert "No Market prices match" in none
    for bad in ("-5", "abc", "999999999999999999999"):
        assert editor_client.get(url, {"gpu": "h100", "offset": bad}, **HTMX).status_code == 200


def test_a_utilization_above_100_percent_is_refused_in_what_was_typed(editor_client, scenario):
    url = reverse("tco:scenario_forecast", args=[scenario.pk])
    data = {"forecast_kind": "flat", "forecast_flat_utilization": "150%", "version": 1}
    html = editor_client.post(url, data, **HTMX).content.decode()
    assert "must be between 0% and 100%; got 150%" in html
    assert "got 1.5" not in html and "0-100 %" not in html


def test_a_blank_scenarios_export_box_says_what_to_add_in_words(editor_client, editor):
    blank = scenario_create(user=editor, name="Blank")
    html = editor_client.get(reverse("tco:decision_panel", args=[blank.pk]), **HTMX).content.decode()
    box = html.split('id="exports"', 1)[1].split("</div>", 1)[0]
    assert "Options are required: add at least one way to own or rent capacity" in box
    assert "non-empty list" not in box and "got an empty list" not in box
