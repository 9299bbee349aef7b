from __future__ import annotations

from django.template import Context, Template

from tco.presentation import break_even_rows, option_rows

from .results import document_for, make_result, pair, result_option

OWN = "Own 8x H100"
LAMBDA = "Lambda 8x H100 SXM"


def shown(value, filter_expression: str) -> str:
    """A number as the results templates show it: through lib's filters (``{% load money %}``)."""
    return Template("{% load money %}{{ v|" + filter_expression + " }}").render(Context({"v": value}))


def vs_cheapest(row: dict) -> str:
    """The "vs cheapest" cell exactly as the templates write it."""
    source = (
        "{% load money %}{% if row.is_cheapest %}cheapest{% else %}"
        "{{ row.npv_vs_cheapest|signed_money:'USD' }}{% endif %}"
    )
    return Template(source).render(Context({"row": row}))


def _break_even_row(utilization, crossover_month=None, *, mean=0.55):
    result = make_result(
        [result_option(OWN, "owned", npv=500_000.0), result_option(LAMBDA, "neocloud", npv=400_000.0)],
        [pair(OWN, LAMBDA, utilization, crossover_month)],
        mean_utilization=mean,
    )
    (row,) = break_even_rows(document_for(result), result)
    return row


def test_it_says_own_above_the_break_even_utilization():
    row = _break_even_row(0.535)
    assert row["verdict"] == "own above 53.5%"
    assert shown(row["utilization"], "pct") == "53.5%"


def test_it_says_renting_is_cheaper_when_owning_never_breaks_even():
    row = _break_even_row(None)
    assert row["verdict"] == "renting is cheaper at any utilization"
    assert shown(row["utilization"], "pct") == "—"
    assert row["at_forecast"] == "rent"


def test_it_says_owning_is_cheaper_even_idle_at_zero_break_even():
    assert _break_even_row(0.0)["verdict"] == "owning is cheaper even idle"


def test_it_says_own_only_at_full_utilization_when_break_even_is_one():
    assert _break_even_row(1.0)["verdict"] == "own only at full utilization"


def test_it_chooses_owning_when_the_forecast_is_above_break_even():
    assert _break_even_row(0.5, mean=0.55)["at_forecast"] == "own"
    assert _break_even_row(0.6, mean=0.55)["at_forecast"] == "rent"


def test_it_shows_the_crossover_month_or_says_there_is_none():
    assert _break_even_row(0.5, 14)["crossover_text"] == "month 14 (year 2)"
    assert _break_even_row(0.5, None)["crossover_text"] == "no crossover in 36 months"


def test_it_keeps_the_engine_pair_order():
    result = make_result(
        [
            result_option(OWN, "owned", npv=5.0),
            result_option("Used", "secondary", npv=4.0),
            result_option(LAMBDA, "neocloud", npv=3.0),
        ],
        [pair(OWN, LAMBDA, 0.5), pair("Used", LAMBDA, 0.3)],
    )
    rows = break_even_rows(document_for(result), result)
    assert [(row["owned"], row["verdict"]) for row in rows] == [(OWN, "own above 50.0%"), ("Used", "own above 30.0%")]


def _option_rows():
    result = make_result(
        [
            result_option(
                OWN,
                "owned",
                npv=507_432.4,
                annual_cost=150_000.0,
                total_cost=512_000.5,
                cost_per_gpu_hour=3.891,
                cost_per_accepted_response=0.000162,
                cost_per_million_accepted_tokens=0.5145,
            ),
            result_option(
                LAMBDA,
                "neocloud",
                npv=400_000.0,
                cost_per_gpu_hour=None,
                cost_per_accepted_response=None,
                cost_per_million_accepted_tokens=None,
            ),
        ]
    )
    document = document_for(result)
    document["options"][1]["price_source"] = {"provider": "Lambda", "observed_on": "2026-09-01"}
    return option_rows(document, result)


def test_it_shows_totals_in_whole_currency_units():
    own = _option_rows()[0]
    totals = [shown(own[key], "money:'USD'") for key in ("annual_cost", "npv", "total_cost")]
    assert totals == ["$150,000", "$507,432", "$512,001"]


def test_it_shows_unit_costs_in_cents_or_two_significant_figures():
    own = _option_rows()[0]
    assert shown(own["cost_per_gpu_hour"], "unit_money:'USD'") == "$3.89"
    assert shown(own["cost_per_million_accepted_tokens"], "unit_money:'USD'") == "$0.51"
    assert shown(own["cost_per_accepted_response"], "unit_money:'USD'") == "$0.00016"


def test_it_shows_missing_unit_costs_as_a_dash():
    rental = _option_rows()[1]
    assert shown(rental["cost_per_gpu_hour"], "unit_money:'USD'") == "—"
    assert shown(rental["cost_per_accepted_response"], "unit_money:'USD'") == "—"
    assert shown(rental["cost_per_million_accepted_tokens"], "unit_money:'USD'") == "—"


def test_it_labels_kinds_in_words_and_marks_the_cheapest():
    own, rental = _option_rows()
    assert (own["kind_label"], rental["kind_label"]) == ("Owned (new)", "Neocloud")
    assert (own["is_cheapest"], rental["is_cheapest"]) == (False, True)


def test_it_shows_how_much_more_each_option_costs_than_the_cheapest():
    own, rental = _option_rows()
    assert vs_cheapest(own) == "+$107,432"
    assert vs_cheapest(rental) == "cheapest"


def test_it_passes_the_price_source_through():
    own, rental = _option_rows()
    assert own["price_source"] is None
    assert rental["price_source"] == {"provider": "Lambda", "observed_on": "2026-09-01"}


def _reason(utilization, mean, crossover, horizon=36):
    from tco.presentation.rows import break_even_reason

    return break_even_reason(
        rental="Lambda", utilization=utilization, forecast_mean=mean, crossover_month=crossover, horizon_months=horizon
    )


def test_a_rental_that_wins_at_the_forecast_with_no_crossover_says_why_owning_never_catches_up():
    assert _reason(0.617, 0.55, None) == (
        "Owning never catches up within 36 months: the forecast's mean utilization (55.0%) is below the "
        "break-even (61.7%), so every month costs more owned than rented, on top of the capex."
    )


def test_owning_cheaper_per_year_but_no_crossover_says_the_capex_is_not_earned_back_in_the_horizon():
    reason = _reason(0.40, 0.55, None, horizon=24)
    assert reason.startswith("Owning is cheaper per year at the forecast (55.0%, above the break-even 40.0%)")
    assert "the capex paid in month 1 is not earned back in cash within 24 months" in reason


def test_renting_cheaper_per_year_but_a_crossover_says_the_cumulative_follows_the_months():
    reason = _reason(0.62, 0.55, 30)
    assert "yet owning's cumulative cash cost falls below renting's in month 30 (year 3)" in reason
    assert "follows the forecast month by month and the rental's yearly price change" in reason


def test_owning_never_breaking_even_and_owning_catching_up_read_plainly():
    assert (
        _reason(None, 0.55, None) == "Owning never catches up: renting Lambda is cheaper at any utilization, even 100%."
    )
    assert _reason(0.4, 0.55, 20).endswith("falls below renting's in month 20 (year 2), once the capex is earned back.")


def test_every_break_even_row_carries_its_reason():
    result = make_result(
        [result_option("Own", "owned", npv=2.0), result_option("Lambda", "neocloud", npv=1.0)],
        break_even=[pair("Own", "Lambda", 0.617, None)],
        mean_utilization=0.55,
    )
    row = break_even_rows(document_for(result), result)[0]
    assert row["reason"].startswith("Owning never catches up within 36 months")


def test_a_break_even_that_never_comes_reads_never_on_cards_not_a_dash():
    row = _break_even_row(None, mean=0.6)
    assert row["utilization_text"] == "never"
    assert row["summary"] == (
        f"Owning never breaks even vs {LAMBDA}: renting is cheaper even at 100% utilization (forecast 60.0%)"
    )
    assert _break_even_row(0.535, mean=0.6)["summary"] == (
        f"Owning breaks even vs {LAMBDA} at 53.5% utilization (forecast 60.0%)"
    )
