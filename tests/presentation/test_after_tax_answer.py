"""The answer after tax: the headline names the after-tax answer beside the pre-tax one when a tax rate is set, and
says nothing new without one; a comparison the refresh policy cuts short says so first."""

from __future__ import annotations

from lib.formatting import format_money_compact, format_pct
from tco.engine import evaluate
from tco.presentation import break_even_rows, headline, life_notes, option_rows
from tests.engine.docs import DROP, owned, rental, scenario

from .finance_docs import finance_document


def _by_name(result, name):
    return next(option for option in result["options"] if option["name"] == name)


def test_a_zero_tax_rate_reads_exactly_as_no_tax_at_all():
    plain = scenario(owned(name="Own"), rental(name="Lambda"))
    zero = scenario(owned(name="Own"), rental(name="Lambda"), tax_rate=0.0, cost_of_debt=0.05)
    untaxed, plain_answer = headline(zero, evaluate(zero)), headline(plain, evaluate(plain))
    for key in ("sentence", "savings", "break_even", "horizon_text", "truncation_note", "taxed"):
        assert untaxed[key] == plain_answer[key]
    assert untaxed["cheapest"]["npv"] == plain_answer["cheapest"]["npv"]
    assert not untaxed["taxed"] and untaxed["savings_before_tax"] is None


def test_a_taxed_headline_names_the_after_tax_answer_and_the_pre_tax_one():
    document = finance_document()
    result = evaluate(document)
    answer = headline(document, result)
    cheapest, runner = _by_name(result, "Lambda 1-year"), _by_name(result, "Loan 8x H100")
    # Lowest after-tax present value of each side, worked out from the result's per-option values.
    assert min(result["options"], key=lambda o: o["npv_after_tax"]) is cheapest
    owned_after = [o for o in result["options"] if o["kind"] == "owned"]
    assert min(owned_after, key=lambda o: o["npv_after_tax"]) is runner
    after = runner["npv_after_tax"] - cheapest["npv_after_tax"]
    before = runner["npv"] - cheapest["npv"]
    assert answer["taxed"] and answer["tax_rate"] == 0.21
    assert answer["savings"] == after and answer["savings_before_tax"] == before
    assert answer["cheapest"]["npv_after_tax"] == cheapest["npv_after_tax"]
    pair = next(p for p in result["break_even"] if p["owned"] == "Loan 8x H100")
    assert answer["sentence"] == (
        f"After tax at 21.0%, renting Lambda 1-year is {format_money_compact(after)} cheaper over 48 months "
        f"(present value of cost) than the best owned option, Loan 8x H100; before tax, "
        f"{format_money_compact(before)} cheaper; owning breaks even against Lambda above "
        f"{format_pct(pair['utilization_after_tax'])} utilization after tax ({format_pct(pair['utilization'])} "
        "before tax), forecast is 55.0%."
    )
    assert pair["utilization_after_tax"] != pair["utilization"]


def test_the_break_even_rows_and_option_rows_carry_the_after_tax_figures():
    document = finance_document()
    result = evaluate(document)
    rows = break_even_rows(document, result)
    assert [row["utilization_after_tax"] for row in rows] == [p["utilization_after_tax"] for p in result["break_even"]]
    assert [row["at_forecast_after_tax"] for row in rows] == [
        "own" if p["utilization_after_tax"] is not None and p["utilization_after_tax"] <= 0.55 else "rent"
        for p in result["break_even"]
    ]
    assert [row["npv_after_tax"] for row in option_rows(document, result)] == [
        o["npv_after_tax"] for o in result["options"]
    ]


def test_when_the_cheapest_differs_before_tax_the_sentence_names_it():
    # A rental's cost is deducted in full when paid, capex only through depreciation: owning barely cheaper before
    # tax is dearer after it.
    hardware = owned(name="Own", tax_depreciation="macrs_3", bonus_depreciation=1.0)
    document = scenario(hardware, rental(name="Lambda", price_per_gpu_hour=4.55), tax_rate=0.4, workload=DROP)
    result = evaluate(document)
    assert result["cheapest"] != result["cheapest_after_tax"]
    sentence = headline(document, result)["sentence"]
    assert sentence.startswith(f"After tax at 40.0%, renting {result['cheapest_after_tax']} is ")
    assert f"; before tax, {result['cheapest']} is cheapest;" in sentence


def test_a_truncated_comparison_is_stated_and_its_months_are_the_ones_compared():
    document = scenario(owned(name="Own", useful_life_years=2), rental(), refresh_policy="truncate", horizon_months=48)
    answer = headline(document, evaluate(document))
    assert answer["truncation_note"] == (
        "Every option is compared over the first 24 of the 48 months entered: the refresh policy cuts the comparison "
        "to the shortest hardware life (Own) instead of replacing the hardware."
    )
    assert answer["horizon_text"] == "24 months" and " over 24 months " in answer["sentence"]
    assert answer["life_notes"] == []


def test_nothing_is_cut_without_truncation_and_replaced_hardware_has_no_keeps_running_note():
    kept = scenario(owned(name="Own", useful_life_years=2), rental(), horizon_months=48)
    assert headline(kept, evaluate(kept))["truncation_note"] == ""
    assert life_notes(kept) and "keeps running" in life_notes(kept)[0]
    assert life_notes({**kept, "refresh_policy": "replace"}) == []


def test_a_taxed_scenario_shown_in_another_currency_converts_every_finance_amount():
    from tco.presentation.comparison import in_currency

    document = finance_document()
    result = evaluate(document)
    moved = in_currency(result, "EUR", 0.5)
    for before, after in zip(result["options"], moved["options"], strict=True):
        for key in ("npv_after_tax", "pv_depreciation_tax_shield", "nal", "break_even_lease_payment", "lease_payment"):
            if before.get(key) is not None:
                assert after[key] == before[key] * 0.5, key
        assert [price for _, price in after.get("replacement_capex", [])] == [
            price * 0.5 for _, price in before.get("replacement_capex", [])
        ]
        assert [price for _, price in after.get("commitment_terms", [])] == [
            price * 0.5 for _, price in before.get("commitment_terms", [])
        ]
    after_tax = headline(document, moved)
    assert after_tax["savings"] == headline(document, result)["savings"] * 0.5
