"""A range follows its input: a range centred on the input moves with it when the input is edited (likely = the new
value, low and high keep their ratio to it); one whose likely was set apart from the input stays and says so on the
range, in the simulation summary and beside the tornado. The simulation and the tornado use what the page shows."""

from __future__ import annotations

import copy
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from lib.formatting import format_money
from lib.kinds import OWNED_KINDS
from tco.engine import evaluate
from tco.forecast import Forecast
from tco.models import InputRange, UncertaintyRun
from tco.services import forecast_update, option_pick_price, option_update, scenario_update_field
from tests.documents import DESIGN_EXAMPLE
from tests.scenarios import factories

HX = {"HTTP_HX_REQUEST": "true"}
RUN_FORM = {"trials": "20,000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}
D = Decimal
UNIT_PRICE_STEP = D("0.0001")  # a price per GPU-hour keeps four decimal places


def unit_price(value: Decimal) -> Decimal:
    return value.quantize(UNIT_PRICE_STEP, rounding=ROUND_HALF_UP)


def four_digits(value: Decimal) -> Decimal:
    """Four significant digits, half up: how a re-centred range end of a plain number or rate is kept."""
    return value.quantize(D(1).scaleb(value.adjusted() - 3), rounding=ROUND_HALF_UP)


def stored(item: InputRange) -> tuple[Decimal, Decimal, Decimal]:
    item.refresh_from_db()
    return item.low.normalize(), item.likely.normalize(), item.high.normalize()


def rental_of(scenario):
    return scenario.options.get(kind="neocloud")


def give_range(scenario, option, field, low, likely, high, user):
    factories.give_ranges(scenario, [(option, field, low, likely, high)], user=user)
    return InputRange.objects.get(scenario=scenario, option=option, field=field)


def edit_option(client, scenario, option, field, text):
    scenario.refresh_from_db()
    url = f"/scenarios/{scenario.pk}/options/{option.pk}/field/"
    response = client.post(url, {field: text, "version": scenario.version}, **HX)
    assert response.status_code == 200, response.content
    return response


def run_simulation(client, scenario, run_jobs):
    with run_jobs():
        client.post(f"/scenarios/{scenario.pk}/uncertainty/run/", RUN_FORM, **HX)
    return UncertaintyRun.objects.filter(scenario=scenario).latest("id")


def owned_minus_rental(result: dict) -> float:
    owned = [o["npv"] for o in result["options"] if o["kind"] in OWNED_KINDS]
    other = [o["npv"] for o in result["options"] if o["kind"] not in OWNED_KINDS]
    return min(owned) - min(other)


def test_a_range_centred_on_the_price_follows_an_edit_and_the_simulation_and_tornado_use_it(
    editor_client, scenario, editor, run_jobs
):
    rental = rental_of(scenario)
    with run_jobs():
        item = give_range(scenario, rental, "price_per_gpu_hour", "3", "3.99", "6", editor)
        edit_option(editor_client, scenario, rental, "price_per_gpu_hour", "2.10")
    # By hand: likely is the new price; low and high keep their ratio to it, rounded to four decimal places.
    low, high = unit_price(D(3) * D("2.10") / D("3.99")), unit_price(D(6) * D("2.10") / D("3.99"))
    assert (low, high) == (D("1.5789"), D("3.1579"))
    assert stored(item) == (low, D("2.1"), high)

    run = run_simulation(editor_client, scenario, run_jobs)
    assert run.uncertainty == {"options[1].price_per_gpu_hour": {"low": 1.5789, "likely": 2.1, "high": 3.1579}}
    # An on-demand rental's NPV is linear in its price, so the trials' mean NPV is the NPV at the range's mean.
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"][1]["price_per_gpu_hour"] = (1.5789 + 2.1 + 3.1579) / 3
    expected = next(o["npv"] for o in evaluate(document)["options"] if o["kind"] == "neocloud")
    simulated = next(o["npv"]["mean"] for o in run.result["simulation"]["options"] if o["name"] == rental.name)
    assert simulated == pytest.approx(expected, rel=0.01)

    # The tornado starts at the inputs as entered: the price the page shows, 2.10.
    entered = copy.deepcopy(DESIGN_EXAMPLE)
    entered["options"][1]["price_per_gpu_hour"] = 2.1
    base = owned_minus_rental(evaluate(entered))
    assert run.result["tornado"]["base"] == pytest.approx(base, rel=1e-12)
    annotation = run.figures["tornado"]["layout"]["annotations"][0]["text"]
    assert annotation == f"As entered {format_money(base, 'USD')}"  # whole units, as the tables show it
    row = next(r for r in run.result["tornado"]["rows"] if r["path"] == "options[1].price_per_gpu_hour")
    assert (row["low"], row["high"]) == (1.5789, 3.1579)
    html = editor_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "1.5789 · 2.1 · 3.1579" in html and "is not the input" not in html


def test_a_range_set_apart_from_its_input_stays_and_says_so_everywhere(editor_client, scenario, editor, run_jobs):
    rental = rental_of(scenario)
    with run_jobs():
        item = give_range(scenario, rental, "price_per_gpu_hour", "3", "3.5", "6", editor)
    html = editor_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "Likely 3.5 is not the input 3.99" in html
    with run_jobs():
        edit_option(editor_client, scenario, rental, "price_per_gpu_hour", "5")
    assert stored(item) == (D(3), D("3.5"), D(6))  # set apart on purpose: not moved
    html = editor_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    assert "Likely 3.5 is not the input 5" in html

    run_simulation(editor_client, scenario, run_jobs)
    panel = editor_client.get(f"/scenarios/{scenario.pk}/uncertainty/", **HX).content.decode()
    said = (
        "Lambda 8x H100 SXM: Price: the simulation draws around a likely $3.50 per GPU-hour, not the input "
        "$5.00 per GPU-hour; the answer and the tornado&#x27;s “as entered” use $5.00 per GPU-hour."
    )
    assert said in panel


def test_scenario_inputs_and_the_forecast_level_carry_their_ranges(scenario, editor, run_jobs):
    with run_jobs():
        rate = give_range(scenario, None, "discount_rate", "0.06", "0.08", "0.12", editor)
        level = give_range(scenario, None, "utilization", "0.4", "0.55", "0.7", editor)
        scenario.refresh_from_db()
        scenario_update_field(
            scenario=scenario, user=editor, field="discount_rate", value=D("0.1"), expected_version=scenario.version
        )
        scenario.refresh_from_db()
        forecast_update(
            scenario=scenario,
            user=editor,
            expected_version=scenario.version,
            forecast=Forecast(kind="flat", flat=D("0.6")),
        )
    assert stored(rate) == (four_digits(D("0.06") * D("0.1") / D("0.08")), D("0.1"), four_digits(D("0.15")))
    assert stored(level) == (
        four_digits(D("0.4") * D("0.6") / D("0.55")),  # 0.4364
        D("0.6"),
        four_digits(D("0.7") * D("0.6") / D("0.55")),  # 0.7636
    )


def test_from_or_to_zero_a_range_keeps_its_distances_within_the_inputs_bounds(scenario, editor, run_jobs):
    owned, rental = scenario.options.get(kind="owned"), rental_of(scenario)
    with run_jobs():
        residual = give_range(scenario, owned, "residual_value", "30000", "40000", "50000", editor)
        extras = give_range(scenario, rental, "extras_per_year", "0", "0", "5000", editor)
        scenario.refresh_from_db()
        option_update(option=owned, user=editor, expected_version=scenario.version, field="residual_value", value=D(0))
        scenario.refresh_from_db()
        option_update(
            option=rental, user=editor, expected_version=scenario.version, field="extras_per_year", value=D(1000)
        )
    assert stored(residual) == (D(0), D(0), D(10000))  # 0 - 10,000 is below money's lower bound 0
    assert stored(extras) == (D(1000), D(1000), D(6000))


def test_a_range_end_beyond_the_inputs_bound_is_kept_at_the_bound(scenario, editor, run_jobs):
    with run_jobs():
        acceptance = give_range(scenario, None, "workload_acceptance_rate", "0.8", "0.9", "0.95", editor)
        scenario.refresh_from_db()
        scenario_update_field(
            scenario=scenario,
            user=editor,
            field="workload_acceptance_rate",
            value=D("0.99"),
            expected_version=scenario.version,
        )
    assert stored(acceptance) == (four_digits(D("0.8") * D("0.99") / D("0.9")), D("0.99"), D(1))  # 0.88, 1.045 → 1


def test_picking_a_market_price_moves_a_range_centred_on_the_old_price(scenario, editor, run_jobs):
    rental = rental_of(scenario)
    with run_jobs():
        item = give_range(scenario, rental, "price_per_gpu_hour", "3", "3.99", "6", editor)
        scenario.refresh_from_db()
        option_pick_price(
            option=rental,
            user=editor,
            expected_version=scenario.version,
            observation=factories.observation(price="2.49"),
        )
    assert stored(item) == (
        unit_price(D(3) * D("2.49") / D("3.99")),
        D("2.49"),
        unit_price(D(6) * D("2.49") / D("3.99")),
    )


def test_a_range_that_follows_its_input_stops_at_what_a_range_stores(editor_client, scenario, editor, run_jobs):
    """Capex 100,000 with the range 50,000 · 100,000 · 1,000,000: capex 20 trillion would take high to 200
    trillion, past the 14 digits an input stores; it stays at the largest amount that stores and later edits save."""
    owned = scenario.options.get(kind="owned")
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    with run_jobs():
        scenario.refresh_from_db()
        option_update(option=owned, user=editor, expected_version=scenario.version, field="capex", value=D(100000))
        item = give_range(scenario, owned, "capex", "50000", "100000", "1000000", editor)
        for capex in ("20,000,000,000,000", "30,000,000,000,000"):
            scenario.refresh_from_db()
            answer = editor_client.post(url, {"capex": capex, "version": scenario.version}, **HX)
            assert answer.status_code == 200
            assert "Not saved" not in answer.content.decode()
    assert stored(item) == (D("15000000000000"), D("30000000000000"), D("99999999999999"))


def test_a_money_range_that_follows_an_edit_there_and_back_returns_to_where_it_was(scenario, editor, run_jobs):
    owned = scenario.options.get(kind="owned")
    with run_jobs():
        capex = give_range(scenario, owned, "capex", "1800000", "2100000", "2600000", editor)
        moved = []
        for value in ("2100000", "1234567.89", "2100000"):  # 2,100,000 first: the input takes the range's likely
            scenario.refresh_from_db()
            option_update(option=owned, user=editor, expected_version=scenario.version, field="capex", value=D(value))
            moved.append(stored(capex)[1])
    assert moved == [D(2100000), D("1234567.89"), D(2100000)]
    # Moved to the cent each way it drifted (1,799,999.99 / 2,600,000.01); six significant digits come back.
    assert stored(capex) == (D(1800000), D(2100000), D(2600000))
