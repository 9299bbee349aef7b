"""What you see is what the model uses, in Chromium: a refused value never sits in a field as if saved, an
edit's answer keeps focus, typed text and scroll, and a scenario built from a blank page in any order shows the
figures the engine computes from what was stored."""

from __future__ import annotations

import random
import re

import numpy_financial as npf
import pytest

from lib.formatting import format_money, format_pct, format_unit_money
from pricing.services import reference_data_load
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.browser.test_scenario_workspace import ROOT
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]


def _wait_for_version(page, version: int) -> None:
    page.wait_for_function("(v) => document.getElementById('scenario-version').value === String(v)", arg=version)


def test_a_refused_value_stays_refused_until_corrected_or_restored(page, live_server, analyst):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    sent = []
    page.on("request", lambda request: request.method == "POST" and "/field/" in request.url and sent.append(request))
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    capex = page.locator(f"#f-o{owned.pk}-capex-input")
    wrapper = page.locator(f"#f-o{owned.pk}-capex")

    capex.fill("-5")
    capex.press("Tab")
    page.locator(f"#f-o{owned.pk}-capex[data-refused]").wait_for()
    assert (
        page.inner_text(f"#err-o{owned.pk}-capex")
        == "Own 8x H100 (new) → Capex, whole option (USD) must not be negative; got -5"
    )
    assert "Not saved" in page.inner_text(f"#not-saved-o{owned.pk}-capex")
    assert page.inner_text(".run-status").startswith("Up to date with the stored values: what is marked “Not saved”")

    discount = page.locator("#f-s-discount_rate-input")
    discount.fill("7%")
    discount.press("Tab")
    _wait_for_version(page, 2)  # another input saved: the refused one is still shown as typed, refused
    assert capex.input_value() == "-5" and wrapper.get_attribute("data-refused") is not None
    assert page.inner_text(f"#err-o{owned.pk}-capex").endswith("got -5")
    assert ScenarioOption.objects.get(pk=owned.pk).capex == 320000

    before = len(sent)
    capex.fill("-5")  # the same text again: sent again (other inputs may have made it valid)
    with page.expect_response(lambda response: response.request.method == "POST" and "/field/" in response.url):
        capex.press("Tab")
    assert len(sent) == before + 1
    page.locator(f"#f-o{owned.pk}-capex[data-refused]").wait_for()

    capex.focus()
    capex.press("Escape")  # restores the stored value, and the input is no longer refused
    assert capex.input_value() == "320,000"
    assert wrapper.get_attribute("data-refused") is None and page.inner_text(f"#err-o{owned.pk}-capex") == ""
    assert page.locator(f"#not-saved-o{owned.pk}-capex").count() == 0
    assert not page.locator("#stored-values-note").is_visible()

    capex.fill("-6")
    capex.press("Tab")
    page.locator(f"#f-o{owned.pk}-capex[data-refused]").wait_for()
    capex.fill("300,000")  # corrected: saved, and shown as saved
    capex.press("Tab")
    _wait_for_version(page, 3)
    assert wrapper.get_attribute("data-refused") is None and capex.input_value() == "300,000"
    assert ScenarioOption.objects.get(pk=owned.pk).capex == 300000
    assert page.console_errors == []


def test_an_answer_keeps_the_focused_input_its_typed_text_and_the_scroll(page, live_server, analyst):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    held = []
    page.route(re.compile(r".*/field/$"), lambda route: held.append(route))

    price = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    price.fill("6")
    price.press("Tab")
    page.wait_for_function("() => true")
    while not held:
        page.wait_for_timeout(50)
    fleet = page.locator("#f-s-fleet_gpus-input")
    fleet.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("12")  # typed while the price's answer is on its way, not sent yet
    page.evaluate("() => window.scrollTo(0, 300)")
    scrolled = page.evaluate("() => window.scrollY")
    held[0].continue_()
    _wait_for_version(page, 2)
    page.wait_for_function("() => document.getElementById('card-break-even').innerText.includes('40.6%')")

    assert fleet.input_value() == "12"
    assert page.evaluate("() => document.activeElement.id") == "f-s-fleet_gpus-input"
    assert page.evaluate("() => window.scrollY") == scrolled
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 8  # not sent until the input is left
    page.unroute(re.compile(r".*/field/$"))
    fleet.press("Tab")
    _wait_for_version(page, 3)
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 12
    assert page.console_errors == []


# --- a whole scenario built from a blank page, in any order ----------------------------------------------------------

WORKLOAD = {"tokens_per_second_per_gpu": 2400, "output_tokens_per_response": 350,
            "input_tokens_per_response": 1200, "acceptance_rate": 0.9}  # fmt: skip
RENTAL_PRICE = 2.49
GPUS = 64


def _actions() -> list[tuple[str, str, str, str]]:
    """(depends on, name, what, text): an option's inputs are typed after it is added, anything else in any order."""
    scenario = [
        ("", "horizon", "s-horizon_months", "60"),
        ("", "fleet", "s-fleet_gpus", str(GPUS)),
        ("", "throughput", "s-workload_tokens_per_second_per_gpu", "2,400"),
        ("", "output tokens", "s-workload_output_tokens_per_response", "350"),
        ("", "input tokens", "s-workload_input_tokens_per_response", "1,200"),
        ("", "acceptance", "s-workload_acceptance_rate", "90%"),
    ]
    options = [
        ("", "add owned", "add:owned", "H100 SXM"),
        ("add owned", "owned GPUs", "owned:gpu_count", str(GPUS)),
        ("add owned", "owned capex", "owned:capex", "2,280,000"),
        ("", "add rental", "add:neocloud", ""),
        ("add rental", "rental price", "neocloud:price_per_gpu_hour", f"{RENTAL_PRICE}"),
        ("", "add used", "add:secondary", "H100 SXM"),
        ("add used", "used GPUs", "secondary:gpu_count", str(GPUS)),
    ]
    return scenario + options


def _shuffled(seed: int) -> list[tuple[str, str, str, str]]:
    pending, done, order = _actions(), set(), []
    rng = random.Random(seed)
    while pending:
        ready = [action for action in pending if not action[0] or action[0] in done]
        action = rng.choice(ready)
        pending.remove(action)
        done.add(action[1])
        order.append(action)
    return order


def _cell(page, table: str, row_text: str, column: int) -> str:
    row = page.locator(f"#{table} tbody tr", has_text=row_text).first
    return row.locator("td").nth(column).inner_text().strip()


@pytest.mark.parametrize("seed", [2026])
def test_a_blank_scenario_built_field_by_field_in_any_order_shows_what_the_engine_computes(
    page, live_server, analyst, seed
):
    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/")
    page.fill("#new-name", "Own 64 H100 or rent")
    page.get_by_role("button", name="Create blank scenario").click()
    page.wait_for_url(re.compile(r".*/scenarios/\d+/$"))
    scenario = Scenario.objects.get(name="Own 64 H100 or rent")
    assert "Options" in page.inner_text("#to-complete")
    version = 1
    for _, _, what, text in _shuffled(seed):
        if what.startswith("add:"):
            kind = what.split(":")[1]
            page.select_option("#add-kind", kind)
            if text:
                page.select_option("#add-gpu", label=text)
            page.get_by_role("button", name="Add", exact=True).click()
        else:
            if ":" in what:
                kind, name = what.split(":")
                option = ScenarioOption.objects.get(scenario=scenario, kind=kind)
                if str(getattr(option, name)) == text:  # prefilled with it already (the fleet was 64 when added)
                    continue
                what = f"o{option.pk}-{name}"
            field = page.locator(f"#f-{what}-input")
            field.fill(text)
            field.press("Tab")
        version += 1
        _wait_for_version(page, version)
        assert page.locator("[data-refused]").count() == 0, what  # every value was valid on its own: saved
    page.locator("#results .status-done").wait_for()
    assert page.locator("#to-complete").count() == 0

    document = scenario_document(Scenario.objects.get(pk=scenario.pk))
    assert document["horizon_months"] == 60 and document["fleet_gpus"] == GPUS
    assert document["workload"] == WORKLOAD
    result = evaluate(document)
    options = {option["kind"]: option for option in document["options"]}
    results = {row["name"]: row for row in result["options"]}
    owned, rental = options["owned"], options["neocloud"]
    assert (owned["gpu_count"], owned["capex"], rental["price_per_gpu_hour"]) == (GPUS, 2280000, RENTAL_PRICE)
    assert options["secondary"]["gpu_count"] == GPUS

    # docs/money-math.md (owned hardware, break-even), computed here: each owned option's capital charge
    # (numpy-financial) and its plain-case break-even against the rental (G = fleet, same throughput): above 100 %
    # it never breaks even (shown as —).
    for kind in ("owned", "secondary"):
        own = options[kind]
        capital = npf.pmt(own["cost_of_capital"], own["useful_life_years"], -own["capex"], own.get("residual_value", 0))
        kwh = own.get("pue", 1) * 8760 * own["electricity_per_kwh"]
        idle = own.get("idle_power_kw", own["power_kw"])
        fixed = sum(own.get(key, 0) for key in own if key.endswith("_per_year"))
        energy = (own["power_kw"] - idle) * kwh
        break_even = (capital + idle * kwh + fixed) / (GPUS * 8760 * RENTAL_PRICE - energy)
        engine = next(row for row in result["break_even"] if row["owned"] == own["name"])["utilization"]
        row = page.locator("#break-even-table tbody tr", has_text=own["name"]).first
        if break_even > 1:
            assert engine is None and row.locator("td").nth(2).inner_text() == "—", kind
        else:
            assert engine == pytest.approx(max(break_even, 0), rel=1e-9), kind
            assert row.locator("td").nth(2).inner_text() == format_pct(max(break_even, 0)), kind

    # The rental (on demand, no price change): NPV of 64 x 730 x 60 % GPU-hours a month at $2.49, and its cost per
    # accepted output, which needs no fleet: p x k_out / (θ x 3600 x a) per response, p x 1e6 / (θ x 3600 x a) per
    # million accepted tokens.
    busy = GPUS * 730 * document["utilization"][0]
    npv = sum(busy * RENTAL_PRICE / (1 + document["discount_rate"]) ** (m / 12) for m in range(1, 61))
    accepted = WORKLOAD["tokens_per_second_per_gpu"] * 3600 * WORKLOAD["acceptance_rate"]
    per_response = RENTAL_PRICE * WORKLOAD["output_tokens_per_response"] / accepted
    per_million = RENTAL_PRICE * 1e6 / accepted
    assert results[rental["name"]]["npv"] == pytest.approx(npv, rel=1e-9)
    assert results[rental["name"]]["cost_per_accepted_response"] == pytest.approx(per_response, rel=1e-9)
    table = "option-table"
    assert _cell(page, table, rental["name"], 2) == format_money(npv)
    assert _cell(page, table, rental["name"], 6) == format_unit_money(per_million)
    assert _cell(page, table, rental["name"], 7) == format_unit_money(per_response)
    for name, figures in results.items():  # every option's row is the engine's
        assert _cell(page, table, name, 2) == format_money(figures["npv"]), name
        assert _cell(page, table, name, 4) == format_money(figures["annual_cost"]), name
        assert _cell(page, table, name, 5) == format_unit_money(figures["cost_per_gpu_hour"]), name
        assert _cell(page, table, name, 6) == format_unit_money(figures["cost_per_million_accepted_tokens"]), name
        assert _cell(page, table, name, 7) == format_unit_money(figures["cost_per_accepted_response"]), name
    assert page.inner_text("#card-cheapest") == result["cheapest"]
    assert page.console_errors == []
