"""Words a CFO asked about: a committed rental priced from an on-demand Market quote is warned about (the
commitment's discount is not in its price), and "deferred tax at the horizon" says what it is."""

from __future__ import annotations

from tco.engine import evaluate
from tco.presentation.finance import finance_answers, quote_warning
from tests.documents import finance_example

SOURCE = {"provider": "Lambda", "offering": "8x H100", "pricing_term": "on_demand", "observed_on": "2026-09-01"}


def test_a_committed_rental_priced_from_an_on_demand_quote_is_warned_about():
    rental = {"name": "Lambda 1-year", "billing": "committed", "price_source": SOURCE}
    warning = quote_warning(rental)
    assert warning.startswith("Lambda 1-year: committed, but priced from an on-demand quote (Lambda, as of 2026-09-01)")
    assert quote_warning({**rental, "billing": "on_demand"}) == ""
    assert quote_warning({**rental, "price_source": {**SOURCE, "pricing_term": "reserved_1y"}}) == ""


def test_the_warning_is_among_the_finance_answers():
    document = finance_example()
    committed = next(o for o in document["options"] if o.get("billing") == "committed")
    committed["price_source"] = SOURCE
    topics = [(line["option"], line["topic"]) for line in finance_answers(document, evaluate(document))]
    assert (committed["name"], "quote") in topics


def test_deferred_tax_at_the_horizon_says_what_it_is():
    document = finance_example()
    texts = [line["text"] for line in finance_answers(document, evaluate(document)) if line["topic"] == "tax"]
    said = [text for text in texts if "deferred tax at the horizon" in text]
    assert said
    assert all("book value less its tax basis" in text and "not in the present values" in text for text in said)
