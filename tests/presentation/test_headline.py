from __future__ import annotations

from tco.presentation import headline

from .results import document_for, make_result, pair, result_option
from .test_rows import shown

OWN = "Own 8x H100"
LAMBDA = "Lambda 8x H100 SXM"
GCP = "GCP A3 High"


def _headline(options, pairs=None, **kwargs):
    result = make_result(options, pairs, **kwargs)
    return headline(document_for(result), result)


def test_it_says_renting_is_cheaper_by_how_much_and_where_owning_breaks_even():
    answer = _headline(
        [result_option(OWN, "owned", npv=507_432.0), result_option(LAMBDA, "neocloud", npv=400_000.0)],
        [pair(OWN, LAMBDA, 0.62, 30)],
    )
    # 507,432 - 400,000 = 107,432 → "$107k"; 0.62 → "62.0%"; forecast 0.55 → "55.0%".
    assert answer["sentence"] == (
        "Renting Lambda 8x H100 SXM is $107k cheaper over 36 months (present value of cost) "
        "than the best owned option, Own 8x H100; "
        "owning breaks even above 62.0% utilization, forecast is 55.0%."
    )


def test_it_reports_the_savings_as_the_runner_up_npv_minus_the_cheapest():
    answer = _headline(
        [result_option(OWN, "owned", npv=507_432.0), result_option(LAMBDA, "neocloud", npv=400_000.0)],
        [pair(OWN, LAMBDA, 0.62)],
    )
    assert answer["cheapest"]["name"] == LAMBDA
    assert answer["runner_up"]["name"] == OWN
    assert answer["savings"] == 107_432.0
    assert shown(answer["savings"], "money:'USD'") == "$107,432"
    assert answer["tie"] is False


def test_it_compares_owning_with_the_best_rental_and_quotes_that_pair():
    answer = _headline(
        [
            result_option(OWN, "owned", npv=300_000.0),
            result_option(GCP, "hyperscaler", npv=600_000.0),
            result_option(LAMBDA, "neocloud", npv=350_000.0),
        ],
        [pair(OWN, GCP, 0.2), pair(OWN, LAMBDA, 0.41)],
    )
    assert answer["sentence"] == (
        "Own 8x H100 is $50.0k cheaper over 36 months (present value of cost) "
        "than the best rental option, Lambda 8x H100 SXM; "
        "owning breaks even above 41.0% utilization, forecast is 55.0%."
    )
    assert answer["break_even"]["rental"] == LAMBDA


def test_it_compares_rentals_with_each_other_when_there_is_no_owned_option():
    answer = _headline(
        [result_option(LAMBDA, "neocloud", npv=400_000.0), result_option(GCP, "hyperscaler", npv=650_000.0)]
    )
    assert answer["sentence"] == (
        "Renting Lambda 8x H100 SXM is $250k cheaper over 36 months (present value of cost) "
        "than the next cheapest option, GCP A3 High."
    )
    assert answer["break_even"] is None


def test_it_compares_owned_options_with_each_other_when_there_is_no_rental():
    answer = _headline(
        [result_option(OWN, "owned", npv=520_000.0), result_option("Refurbished H100", "secondary", npv=410_000.0)]
    )
    assert answer["sentence"] == (
        "Owning Refurbished H100 is $110k cheaper over 36 months (present value of cost) "
        "than the next cheapest option, Own 8x H100."
    )


def test_it_states_the_cost_of_a_single_option():
    answer = _headline([result_option(LAMBDA, "neocloud", npv=401_234.4)], horizon=24)
    assert (
        answer["sentence"]
        == "Renting Lambda 8x H100 SXM is the only option: $401,234 over 24 months (present value of cost)."
    )
    assert answer["runner_up"] is None
    assert answer["savings"] is None


def test_it_says_when_owning_never_breaks_even():
    answer = _headline(
        [result_option(OWN, "owned", npv=900_000.0), result_option(LAMBDA, "neocloud", npv=300_000.0)],
        [pair(OWN, LAMBDA, None)],
    )
    assert answer["sentence"].endswith("; owning never breaks even, even at 100% utilization.")


def test_it_says_when_owning_is_cheaper_even_idle():
    answer = _headline(
        [result_option(OWN, "owned", npv=200_000.0), result_option(GCP, "hyperscaler", npv=1_900_000.0)],
        [pair(OWN, GCP, 0.0, 1)],
    )
    assert answer["sentence"].endswith("; owning is cheaper than renting even idle.")


def test_it_calls_equal_npvs_a_tie():
    answer = _headline(
        [result_option(OWN, "owned", npv=400_000.3), result_option(LAMBDA, "neocloud", npv=400_000.0)],
        [pair(OWN, LAMBDA, 0.55)],
    )
    assert answer["tie"] is True
    assert answer["sentence"] == (
        "Renting Lambda 8x H100 SXM and Own 8x H100 cost the same over 36 months (present value of cost); "
        "owning breaks even above 55.0% utilization, forecast is 55.0%."
    )


def test_it_names_the_rental_of_the_quoted_pair_when_the_sentence_does_not():
    answer = _headline(
        [
            result_option(OWN, "owned", npv=700_000.0),
            result_option(LAMBDA, "neocloud", npv=800_000.0),
            result_option("Hosted model API", "api", npv=90_000.0),
        ],
        [pair(OWN, LAMBDA, 0.3)],
    )
    assert answer["sentence"] == (
        "Using Hosted model API is $610k cheaper over 36 months (present value of cost) "
        "than the best owned option, Own 8x H100; "
        "owning breaks even against Lambda 8x H100 SXM above 30.0% utilization, forecast is 55.0%."
    )


def test_it_formats_other_currencies_in_the_sentence():
    answer = _headline(
        [result_option(OWN, "owned", npv=1_500_000.0), result_option(LAMBDA, "neocloud", npv=1_000_000.0)],
        currency="EUR",
    )
    assert "is EUR 500k cheaper" in answer["sentence"]
    assert (answer["currency"], shown(answer["cheapest"]["npv"], "money:'EUR'")) == ("EUR", "EUR 1,000,000")


def test_it_carries_the_forecast_and_the_horizon_in_words():
    answer = _headline([result_option(LAMBDA, "neocloud", npv=1.0)], horizon=1, mean_utilization=0.4)
    assert shown(answer["forecast_mean"], "pct") == "40.0%"
    assert answer["horizon_text"] == "1 month"
