"""A taxed, leased, borrowed, replaced and committed scenario's answer on the scenario page and its decision brief:
the after-tax figures beside the pre-tax ones, the finance answers in words, the chart's markers.

The finance document is imported as a scenario (its inputs land in the scenario's and options' rows), and the pages
are checked against what the engine answers for the document the rows give back."""

from __future__ import annotations

import copy
import json
import re

import pytest
from django.urls import reverse

from lib.formatting import format_money
from tco.charts import snapshot as snapshot_output
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.presentation.finance import finance_answers
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.presentation.finance_docs import finance_document


@pytest.fixture
def finance_scenario(editor, django_capture_on_commit_callbacks):
    document = finance_document()
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=copy.deepcopy(document), user=editor)
    document = scenario_document(created)
    return created, document, evaluate(document)


def _text(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', html, re.S)
    assert match, element_id
    return match.group(1).strip()


def _finance_lines(html: str) -> list[str]:
    block = re.search(r'id="finance-answers">(.*?)</ul>', html, re.S).group(1)
    return [line.strip() for line in re.findall(r"<li[^>]*>(.*?)</li>", block, re.S)]


def _unescape(text: str) -> str:
    return text.replace("&#x27;", "'").replace("&amp;", "&")


def test_the_scenario_page_shows_after_tax_beside_pre_tax_and_the_finance_answers(editor_client, finance_scenario):
    scenario, document, result = finance_scenario
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    by_name = {option["name"]: option for option in result["options"]}
    cheapest, runner = by_name["Lambda 1-year"], by_name["Loan 8x H100"]
    assert _text(html, "card-savings-after-tax") == format_money(runner["npv_after_tax"] - cheapest["npv_after_tax"])
    assert _text(html, "card-savings") == format_money(runner["npv"] - cheapest["npv"])
    assert _text(html, "card-cheapest-npv-after-tax") == format_money(cheapest["npv_after_tax"])
    assert _unescape(_text(html, "headline")).startswith("After tax at 21.0%, renting Lambda 1-year is ")
    assert [_unescape(line) for line in _finance_lines(html)] == [
        line["text"] for line in finance_answers(document, result)
    ]
    assert "After tax" in re.search(r'id="break-even-table">(.*?)</thead>', html, re.S).group(1)
    shown = re.sub(r"<[^>]+>", " ", html)  # what a reader sees: a select's option values are codes, its words are not
    assert "macrs_" not in shown and "on_demand" not in shown


def test_the_stored_chart_marks_the_replacement_the_lease_end_and_the_renewals(editor_client, finance_scenario):
    scenario, _, _ = finance_scenario
    run = scenario.runs.get()
    names = [trace["name"] for trace in run.figures["cumulative"]["data"]]
    assert {"Hardware replaced", "Lease ends", "Commitment renews or ends"} <= set(names)


def test_the_decision_brief_carries_the_after_tax_answer_and_the_finance_words(client, editor, finance_scenario):
    scenario, document, result = finance_scenario
    _, token = link_create(scenario=scenario, user=editor, output=snapshot_output)
    html = client.get(reverse("decision_page", args=[token])).content.decode()
    assert _unescape(_text(html, "headline")).startswith("After tax at 21.0%, renting Lambda 1-year is ")
    assert _text(html, "card-runner-up-npv-after-tax") == format_money(
        next(o for o in result["options"] if o["name"] == "Loan 8x H100")["npv_after_tax"]
    )
    lines = [_unescape(line) for line in _finance_lines(html)]
    assert lines == [line["text"] for line in finance_answers(document, result)]
    assert any("must be busy at least" in line for line in lines)
    assert any("leasing saves" in line for line in lines)
    json.loads(re.search(r'id="fig-cumulative"[^>]*>(.*?)</script>', html, re.S).group(1))


def test_a_truncated_comparison_is_stated_at_the_top_of_the_answer(
    editor_client, editor, django_capture_on_commit_callbacks
):
    document = finance_document(refresh_policy="truncate")
    document["options"] = [o for o in document["options"] if o["name"] != "Lease 8x H100"]  # 36 months: past 24
    with django_capture_on_commit_callbacks(execute=True):
        scenario = scenario_create_from_document(document=copy.deepcopy(document), user=editor)
    html = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    answer = html.split('id="answer"')[1]
    assert answer.index('id="truncation-note"') < answer.index('id="headline"')
    assert _text(answer, "truncation-note").startswith(
        "Every option is compared over the first 24 of the 48 months entered"
    )
    assert "over 24 months" in _text(answer, "headline")
    figures = scenario.runs.get().figures
    assert len(figures["cumulative"]["data"][0]["x"]) == len(figures["forecast"]["data"][0]["x"]) == 24
