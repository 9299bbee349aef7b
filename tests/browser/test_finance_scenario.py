"""A CFO's scenario built in Chromium through the editor's folded "Tax and financing" groups (opened as a user
opens them): taxed at 21 % with a cost of debt, hardware replaced at the end of its life, one owned option leased,
another on MACRS 5-year with a two-year life, and a rental committed for 36 months. Every figure the answer shows is
the engine's for the scenario the database stores, formatted as lib.formatting formats it."""

from __future__ import annotations

import copy

import pytest

from lib.formatting import format_money, format_money_compact, format_month, format_pct, format_unit_money
from lib.kinds import is_owned
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in, reveal
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

LEASED, REFRESHED, RENTAL = "Own 8x H100 (new)", "Own 8x H100 (refreshed)", "Lambda 3-year"


def _start_document() -> dict:
    """The worked example with a second owned option and a second rental (to commit; the on-demand one stays for
    the break-even): no tax, no financing, nothing committed yet."""
    document = copy.deepcopy(DESIGN_EXAMPLE)
    owned, on_demand = document["options"][:2]
    document["options"][1:1] = [{**owned, "name": REFRESHED}, {**on_demand, "name": RENTAL}]
    return document


def _version(page) -> int:
    return int(page.locator("#scenario-version").input_value())


def _type(page, what: str, text: str) -> None:
    """Type a value as a user would and leave the field; wait for the edit's answer."""
    version = _version(page)
    field = page.locator(f"#f-{what}-input")
    reveal(field)
    field.fill(text)
    field.press("Tab")
    _wait_for_answer(page, what, version)


def _choose(page, what: str, label: str) -> None:
    version = _version(page)
    reveal(page.locator(f"#f-{what}-input"))
    page.select_option(f"#f-{what}-input", label=label)
    _wait_for_answer(page, what, version)


def _wait_for_answer(page, what: str, version: int) -> None:
    """The version moves on when saved; a refused value stays as typed, marked refused."""
    page.wait_for_function(
        "([v, id]) => document.getElementById('scenario-version').value !== String(v)"
        " || document.querySelector('#f-' + id + '[data-refused]') !== null",
        arg=[version, what],
    )


def _shown(page, selector: str) -> bool:
    return page.locator(selector).count() > 0


def _cell(page, table: str, row_text: str, column: int) -> str:
    row = page.locator(f"#{table} tbody tr", has_text=row_text).first
    return row.locator("td").nth(column).inner_text().strip()


def test_a_taxed_leased_refreshed_and_committed_scenario_built_in_the_editor_shows_the_engines_figures(
    page, live_server, analyst
):
    scenario = scenario_create_from_document(document=_start_document(), user=analyst)
    options = {option.name: option for option in ScenarioOption.objects.filter(scenario=scenario)}
    leased, refreshed, rental = (f"o{options[name].pk}" for name in (LEASED, REFRESHED, RENTAL))
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    _type(page, "s-tax_rate", "21%")
    _type(page, "s-cost_of_debt", "5.5%")
    _choose(page, "s-refresh_policy", "Replace at the end of the useful life")

    # Lease fields appear only once the option is leased; a buyout price only once the lease ends in a buyout.
    assert not _shown(page, f"#f-{leased}-lease_payment")
    _choose(page, f"{leased}-financing", "Lease")
    for name in ("lease_payment", "lease_payment_interval_months", "lease_term_months", "lease_payment_timing"):
        assert _shown(page, f"#f-{leased}-{name}"), name
    assert not _shown(page, f"#f-{leased}-loan_apr") and not _shown(page, f"#f-{leased}-lease_buyout_price")
    _type(page, f"{leased}-lease_payment", "$27,000")
    _choose(page, f"{leased}-lease_payment_interval_months", "Quarterly")
    _type(page, f"{leased}-lease_term_months", "48")  # longer than the 36-month horizon: refused at the field
    page.locator(f"#f-{leased}-lease_term_months[data-refused]").wait_for()
    refusal = page.inner_text(f"#err-{leased}-lease_term_months")
    assert "Lease term" in refusal and "longer than the horizon of 36 months" in refusal, refusal
    assert ScenarioOption.objects.get(pk=options[LEASED].pk).lease_term_months is None
    _type(page, f"{leased}-lease_term_months", "36")
    _choose(page, f"{leased}-lease_payment_timing", "In arrears")
    _choose(page, f"{leased}-lease_end", "Buy it out")
    _type(page, f"{leased}-lease_buyout_price", "$30,000")

    assert _shown(page, f"#f-{refreshed}-tax_life_years")  # a straight line needs a tax life; MACRS fixes its own
    _choose(page, f"{refreshed}-tax_depreciation", "MACRS 5-year")
    assert not _shown(page, f"#f-{refreshed}-tax_life_years")
    _type(page, f"{refreshed}-useful_life_years", "2")

    assert not _shown(page, f"#f-{rental}-commitment_term_months")
    _choose(page, f"{rental}-billing", "Committed")
    assert not _shown(page, f"#f-{rental}-upfront_share")  # a share of each term: once there is a term
    _type(page, f"{rental}-commitment_term_months", "36")
    _type(page, f"{rental}-upfront_share", "50%")
    _type(page, f"{rental}-on_demand_price_per_gpu_hour", "$4.99")

    assert page.locator("[data-refused]").count() == 0
    version = _version(page)
    page.wait_for_function(  # the answer shown is the one computed for the last edit
        "(v) => document.querySelector('#results .status-done') !== null"
        " && document.getElementById('results').innerText.includes('version ' + v + ',')",
        arg=version,
    )
    assert Scenario.objects.get(pk=scenario.pk).version == version
    page.locator("#finance-answers").wait_for()
    assert page.locator("#to-complete").count() == 0

    document = scenario_document(Scenario.objects.get(pk=scenario.pk))
    entered = {option["name"]: option for option in document["options"]}
    assert (document["tax_rate"], document["cost_of_debt"], document["refresh_policy"]) == (0.21, 0.055, "replace")
    assert {key: entered[LEASED][key] for key in ("financing", "lease_payment", "lease_term_months")} == {
        "financing": "lease",
        "lease_payment": 27000,
        "lease_term_months": 36,
    }
    assert entered[REFRESHED]["tax_depreciation"] == "macrs_5" and entered[REFRESHED]["useful_life_years"] == 2
    assert (entered[RENTAL]["commitment_term_months"], entered[RENTAL]["upfront_share"]) == (36, 0.5)

    result = evaluate(document)
    currency = result.get("currency", "USD")
    figures = {option["name"]: option for option in result["options"]}
    money = lambda value: format_money(value, currency)  # noqa: E731

    # The cards: the cheapest after tax, its present value after and before tax, and the runner-up's.
    cheapest = figures[result["cheapest_after_tax"]]
    assert page.inner_text("#card-cheapest") == cheapest["name"]
    assert page.inner_text("#card-cheapest-npv-after-tax") == money(cheapest["npv_after_tax"])
    assert page.inner_text("#card-cheapest-npv") == money(cheapest["npv"])
    # Owning or not is the decision: the runner-up is the best option, after tax, on the other side.
    other_side = [option for option in figures.values() if is_owned(option["kind"]) != is_owned(cheapest["kind"])]
    runner = min(other_side, key=lambda option: option["npv_after_tax"])
    assert page.inner_text("#card-savings-after-tax") == money(runner["npv_after_tax"] - cheapest["npv_after_tax"])
    assert page.inner_text("#card-savings") == money(runner["npv"] - cheapest["npv"])
    runner_card = page.locator(".card.stat", has=page.locator("#card-savings")).inner_text()
    assert f"Cheaper than {runner['name']} by" in runner_card
    assert f"{money(runner['npv_after_tax'])} after tax, {money(runner['npv'])} before tax" in runner_card

    # The option table: each option's present value before tax, and after tax beneath it.
    for name, option in figures.items():
        cell = _cell(page, "option-table", name, 2)
        assert cell.split("\n") == [money(option["npv"]), money(option["npv_after_tax"])], name

    # The break-even table, both columns, and the card quoting one of its rows.
    rows = page.locator("#break-even-table tbody tr:not(.reason-row)")
    assert rows.count() == len(result["break_even"]) > 0
    for pair in result["break_even"]:
        row = page.locator("#break-even-table tbody tr:not(.reason-row)", has_text=pair["owned"]).filter(
            has_text=pair["rental"]
        )
        cells = row.locator("td")
        assert cells.nth(2).inner_text() == format_pct(pair["utilization"]), pair
        assert cells.nth(3).inner_text() == format_pct(pair["utilization_after_tax"]), pair
    # The card quotes the best owned option against the best on-demand rental, after tax.
    after_tax = {name: option["npv_after_tax"] for name, option in figures.items()}
    quoted = min(result["break_even"], key=lambda pair: (after_tax[pair["owned"]], after_tax[pair["rental"]]))
    assert page.inner_text("#card-break-even-after-tax") == format_pct(quoted["utilization_after_tax"])
    assert page.inner_text("#card-break-even") == format_pct(quoted["utilization"])

    # The finance answers in words: the lease against borrowing, the replacements, the commitment.
    lines = page.locator("#finance-answers li")
    by_topic = {}  # (topic, option) -> the line as read
    for index in range(lines.count()):
        line = lines.nth(index).inner_text()
        name = max((name for name in figures if line.startswith(name)), key=len)
        by_topic[(lines.nth(index).get_attribute("class").removeprefix("finance-"), name)] = line
    lease = figures[LEASED]
    lease_line = by_topic[("lease", LEASED)]
    nal = lease["nal"]
    assert format_money_compact(abs(nal), currency) in lease_line, lease_line
    assert ("more than borrowing" if nal < 0 else "saves") in lease_line
    assert format_pct(lease["after_tax_cost_of_debt"]) in lease_line
    assert f"at any lease payment below {money(lease['break_even_lease_payment'])} a quarter" in lease_line, lease_line
    replaced = figures[REFRESHED]["replacement_capex"]
    assert replaced, "a two-year life inside a three-year horizon is replaced"
    replacement_line = by_topic[("replacement", REFRESHED)]
    for month, price in replaced:
        assert f"in {format_month(int(month))} for {money(price)}" in replacement_line, replacement_line
    committed = figures[RENTAL]
    commitment_line = by_topic[("commitment", RENTAL)]
    busy = format_pct(committed["commitment_break_even_utilization"])
    assert f"must be busy at least {busy} of the time" in commitment_line, commitment_line
    effective = format_unit_money(committed["commitment_effective_price_per_gpu_hour"], currency)
    assert effective in commitment_line
    shield = money(figures[REFRESHED]["pv_depreciation_tax_shield"])
    assert f"depreciation shields {shield}" in by_topic[("tax", REFRESHED)]
    saving = money(figures[LEASED]["pv_financing_tax_saving"])
    assert f"deductible financing saves {saving}" in by_topic[("tax", LEASED)]
    headline = page.inner_text("#headline")
    after_tax_savings = format_money_compact(runner["npv_after_tax"] - cheapest["npv_after_tax"], currency)
    assert headline.startswith("After tax at 21.0%, ") and f" is {after_tax_savings} cheaper over 36 months" in headline
    if result["cheapest"] == cheapest["name"]:
        assert f"before tax, {format_money_compact(runner['npv'] - cheapest['npv'], currency)} cheaper" in headline
    assert page.locator("#truncation-note").count() == 0  # replaced, not cut short

    # The cumulative chart as drawn marks the replacement and the lease's end (a buyout in the horizon's last month).
    page.wait_for_function("() => (document.getElementById('chart-cumulative') || {}).data !== undefined")
    drawn = page.evaluate(
        "() => Object.fromEntries(document.getElementById('chart-cumulative').data.map(t => [t.name, t.x]))"
    )
    assert [int(x) for x in drawn["Hardware replaced"]] == [int(month) for month, _ in replaced]
    assert [int(x) for x in drawn["Lease ends"]] == [36]
    assert page.console_errors == []
