"""Every label and value in the page's own words (what leadership reads): the decision link, compare's
"inputs that differ" and the scenario history never show a document key (``cost_of_capital``), a choice's code
(``on_demand``) or a float in e-notation (``2.22222e+06``), for a scenario touching every catalogued field.

The checks loop over the engine catalogue, so a field added to it is covered without touching this file."""

from __future__ import annotations

import copy
import html
import re

import pytest
from django.template.loader import render_to_string

from tco.charts import snapshot as snapshot_output
from tco.engine.catalogue import OPTION_FIELDS, TOP_NUMBERS, WORKLOAD_NUMBERS
from tco.models import Scenario
from tco.presentation.inputs import option_fact
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tco.services.uncertainty import uncertainty_run_queue
from tco.web.viewmodels.history import scenario_history
from tests.scenarios.factories import give_ranges

E_NOTATION = re.compile(r"\b\d+(?:\.\d+)?[eE][+-]?\d+\b")
RAW_KEY = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
# Document keys of more than one word (a one-word key such as capex is a word sentences use: "pay capex in month 1").
KEYS = sorted(
    key
    for key in {e.name for e in OPTION_FIELDS} | set(TOP_NUMBERS) | set(WORKLOAD_NUMBERS) | {"on_demand"}
    if "_" in key
)

OWNED = {
    "gpu_count": 64,
    "capex": 2222222.22,
    "residual_value": 259200,
    "useful_life_years": 5,
    "cost_of_capital": 0.08,
    "power_kw": 81.6,
    "idle_power_kw": 20,
    "pue": 1.4,
    "electricity_per_kwh": 0.135,
    "facility_per_year": 190944,
    "network_per_year": 96000,
    "software_per_year": 12000,
    "support_per_year": 228000,
    "operations_per_year": 432000,
    "tokens_per_second_per_gpu": 900,
    "acceptance_rate": 0.92,
}
RENTAL = {
    "price_per_gpu_hour": 2.49,
    "billing": "committed",
    "committed_gpus": 48,
    "extras_per_year": 12000,
    "price_change_per_year": -0.1,
    "tokens_per_second_per_gpu": 800,
    "acceptance_rate": 0.9,
}
# The finance inputs (docs/money-math.md "Finance depth"): a loan on the owned option, a lease ending in a buyout on
# the secondary one (its resale by a curve), a priced commitment on the committed rental, a price path by year on the
# hyperscaler.
OWNED_FINANCE = {
    "tax_depreciation": "macrs_5",
    "bonus_depreciation": 0.4,
    "financing": "loan",
    "loan_apr": 0.07,
    "loan_term_months": 48,
    "down_payment_share": 0.2,
    "capex_change_per_year": -0.2,
}
SECONDARY_FINANCE = {
    "tax_life_years": 4,
    "financing": "lease",
    "lease_payment": 60000,
    "lease_payment_interval_months": 3,
    "lease_term_months": 60,
    "lease_payment_timing": "arrears",
    "lease_end": "buyout",
    "lease_buyout_price": 100000,
    "resale_curve": [[0, 1], [12, 0.7], [36, 0.4]],
    "age_at_purchase_months": 6,
}
COMMITMENT = {
    "commitment_term_months": 12,
    "upfront_share": 0.5,
    "after_term": "on_demand",
    "on_demand_price_per_gpu_hour": 3.5,
}
EVERY_FIELD = {
    "schema": "tco-scenario/1",
    "name": "Every field, A",
    "currency": "USD",
    "horizon_months": 60,
    "discount_rate": 0.08,
    "fleet_gpus": 64,
    "tax_rate": 0.21,
    "cost_of_debt": 0.06,
    "refresh_policy": "none",
    "utilization": [0.55],
    "burst_price_per_gpu_hour": 6.16,
    "workload": {
        "tokens_per_second_per_gpu": 850,
        "output_tokens_per_response": 350,
        "input_tokens_per_response": 1200,
        "acceptance_rate": 0.9,
    },
    "options": [
        {"name": "Own 64x H100", "kind": "owned", **OWNED, **OWNED_FINANCE},
        {
            "name": "Used 64x H100",
            "kind": "secondary",
            **{key: value for key, value in OWNED.items() if key != "residual_value"},  # the curve sets it
            "capex": 1222222.22,
            "useful_life_years": 3,
            **SECONDARY_FINANCE,
        },
        {"name": "Committed neocloud", "kind": "neocloud", **RENTAL, **COMMITMENT},
        {
            "name": "Hyperscaler",
            "kind": "hyperscaler",
            **{key: value for key, value in RENTAL.items() if key != "price_change_per_year"},
            "billing": "on_demand",
            "price_per_gpu_hour": 6.88,
            "price_change_by_year": [-0.25, -0.1, 0],
        },
        {"name": "Marketplace", "kind": "marketplace", **RENTAL, "billing": "on_demand", "price_per_gpu_hour": 1.99},
        {
            "name": "Hosted API",
            "kind": "api",
            "price_per_million_input_tokens": 0.5,
            "price_per_million_output_tokens": 1.5,
            "extras_per_year": 1000,
            "acceptance_rate": 0.85,
        },
        {
            "name": "Capacity block",
            "kind": "hyperscaler",
            "price_per_gpu_hour": 4.5,
            "billing": "capacity_block",
            "block_gpus": 8,
            "block_days": 7,
        },
    ],
    # A training plan (docs/money-math.md "Training runs"), which a capacity block needs.
    "training": {"runs_per_year": 4, "gpu_hours": 100000, "cluster_gpus": 8},
}


def _other() -> dict:
    """The same options with every input changed (numbers by a sixth, billing switched)."""
    other = copy.deepcopy(EVERY_FIELD)
    other.update(name="Every field, B", horizon_months=36, discount_rate=0.07, fleet_gpus=60)
    other["burst_price_per_gpu_hour"] = 7.2
    other["workload"] = {key: value * 0.9 for key, value in other["workload"].items()}
    for option in other["options"]:
        for key, value in list(option.items()):
            if isinstance(value, float | int) and not isinstance(value, bool):
                option[key] = round(value * 5 / 6, 4) if key != "price_change_per_year" else -0.05
                if key in ("gpu_count", "committed_gpus", "block_gpus", "block_days"):
                    option[key] = int(value) - 4
                if key == "useful_life_years":
                    option[key] = value + 1
                if key == "pue":
                    option[key] = 1.3
        if "billing" in option and option["billing"] != "capacity_block":  # a block keeps its billing, its fields
            option["billing"] = "on_demand" if option["billing"] == "committed" else "committed"
            option.setdefault("committed_gpus", 32)
    other["tax_rate"], other["cost_of_debt"] = 0.25, 0.05
    del other["refresh_policy"]
    owned, secondary, neocloud, hyperscaler = other["options"][:4]
    owned.update(tax_depreciation="macrs_7", financing="cash")
    for key in ("loan_apr", "loan_term_months", "down_payment_share"):  # paid in cash now
        del owned[key]
    del secondary["lease_buyout_price"]  # a returned lease has none
    secondary.update(
        lease_payment_interval_months=6,
        lease_term_months=36,
        lease_payment_timing="advance",
        lease_end="return",
        resale_curve=[[0, 1], [24, 0.5]],
    )
    for key in COMMITMENT:  # on demand now
        del neocloud[key]
    hyperscaler["price_change_by_year"] = [-0.2, 0]
    return other


def _visible(page: str) -> str:
    """What a reader sees: no scripts (figure data), no tags or attributes."""
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _raw(text: str) -> list[str]:
    return sorted(set(RAW_KEY.findall(text)) | {key for key in KEYS if key in text} | set(E_NOTATION.findall(text)))


@pytest.fixture
def pair(editor, run_jobs) -> tuple[Scenario, Scenario]:
    with run_jobs():
        first = scenario_create_from_document(document=copy.deepcopy(EVERY_FIELD), user=editor)
        second = scenario_create_from_document(document=_other(), user=editor)
    options = list(first.options.all())
    ranges = [(None, "utilization", "0.3", "0.55", "0.8"), (options[0], "capex", "2000000", "2222222.22", "2600000")]
    ranges += [
        (options[0], "cost_of_capital", "0.06", "0.08", "0.1"),
        (options[2], "price_per_gpu_hour", "2", "2.49", "3"),
    ]
    give_ranges(first, ranges, user=editor, each=run_jobs)
    with run_jobs():
        uncertainty_run_queue(scenario=first, user=editor, trials=1_000)
    return first, second


def test_the_decision_link_says_every_input_in_words(pair, editor, anon):
    first, second = pair
    _, token = link_create(scenario=first, user=editor, output=snapshot_output, compare_with=[second])
    page = anon.get(f"/d/{token}").content.decode()
    assert 'id="frozen-comparison"' in page and 'id="frozen-uncertainty"' in page and 'id="u-ranges-table"' in page
    assert _raw(_visible(page)) == []
    differences = _visible(re.search(r'<table id="compare-differences">.*?</table>', page, re.S)[0])
    assert "Own 64x H100: Capex, whole option $2,222,222.22 $1,851,851.85" in " ".join(differences.split())
    assert [entry.name for entry in OPTION_FIELDS if option_fact(entry.name).label not in differences] == []


def test_compare_says_the_inputs_that_differ_in_words(pair, editor_client):
    first, second = pair
    page = editor_client.get(f"/scenarios/compare/?s={first.pk}&s={second.pk}").content.decode()
    differences = _visible(re.search(r'<table id="compare-differences">.*?</table>', page, re.S)[0])
    assert _raw(differences) == []
    assert [entry.name for entry in OPTION_FIELDS if option_fact(entry.name).label not in differences] == []
    words = " ".join(differences.split())
    assert "Committed neocloud: Billing Committed On demand" in words
    assert "Horizon 60 months 36 months" in words and "Own 64x H100: Cost of capital 8% per year" in words


def test_the_history_says_every_change_in_words(pair, editor):
    first, second = pair
    changed = {option.name: option for option in second.options.all()}
    for option in first.options.all():
        for entry in OPTION_FIELDS:
            if option.kind in entry.kinds:
                setattr(option, entry.name, getattr(changed[option.name], entry.name))
        option._history_user = editor
        option.save()
    lines = scenario_history(Scenario.objects.get(pk=first.pk), limit=1_000)
    rendered = render_to_string("tco/scenario_detail.html#history", {"history": lines})
    assert _raw(_visible(rendered)) == []
    fields = {line.field for line in lines if line.action == "changed"}
    assert [entry.name for entry in OPTION_FIELDS if option_fact(entry.name).label not in fields] == []
    capex = next(line for line in lines if line.subject == "option “Own 64x H100”" and line.field.startswith("Capex"))
    assert (capex.field, capex.old, capex.new) == ("Capex, whole option", "$2,222,222.22", "$1,851,851.85")
