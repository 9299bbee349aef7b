"""Hardware whose useful life ends inside the horizon: replacement is not modelled yet, so every place
that shows the answer says so, from one rule (tco.presentation.life_note)."""

from __future__ import annotations

import copy

import pytest
from django.test import Client
from django.urls import reverse

from tco.charts import snapshot as snapshot_output
from tco.engine import evaluate
from tco.presentation import headline, life_note, life_notes
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.documents import DESIGN_EXAMPLE

USED = {**DESIGN_EXAMPLE["options"][0], "name": "Used 8x H100", "kind": "secondary", "useful_life_years": 3}
NOTE = (
    "Used 8x H100: its 3-year life ends in month 36 of 60. Replacement is not modelled: "
    "costs after month 36 assume the hardware keeps running."
)


def _document(horizon_months: int = 60, **used) -> dict:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["horizon_months"] = horizon_months
    document["options"].append({**USED, **used})
    return document


def test_a_life_shorter_than_the_horizon_is_named_with_the_month_it_ends():
    own = (
        "Own 8x H100 (new): its 4-year life ends in month 48 of 60. Replacement is not modelled: "
        "costs after month 48 assume the hardware keeps running."
    )
    assert life_notes(_document()) == [own, NOTE]  # in document order


def test_a_life_that_covers_the_horizon_or_a_rental_has_no_note():
    assert life_notes(_document(horizon_months=36)) == []  # 3 years = 36 months: it lasts the horizon
    assert life_note(DESIGN_EXAMPLE["options"][1], 60) == ""  # a rental


def test_a_fractional_life_ends_in_the_month_it_runs_out():
    assert "its 2.5-year life ends in month 30 of 36" in life_note({**USED, "useful_life_years": 2.5}, 36)
    assert "its 2.9-year life ends in month 35 of 36" in life_note({**USED, "useful_life_years": 2.9}, 36)


def test_the_headline_carries_the_notes():
    document = _document(useful_life_years=3)
    document["options"][0]["useful_life_years"] = 5
    assert headline(document, evaluate(document))["life_notes"] == [NOTE]


@pytest.mark.django_db
def test_the_option_card_the_answer_and_the_decision_link_say_it(editor, editor_client, run_jobs):
    document = _document()
    document["options"][0]["useful_life_years"] = 5
    with run_jobs():
        scenario = scenario_create_from_document(document=document, user=editor)
    page = editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    used = scenario.options.get(name="Used 8x H100")
    card = page[page.index(f'id="option-{used.pk}"') :]
    assert "its 3-year life ends in month 36 of 60" in card[: card.index("</article>")]
    answer = page[page.index('id="answer"') :]
    assert NOTE in answer[: answer.index('id="option-table"')]
    _, token = link_create(scenario=scenario, user=editor, output=snapshot_output)
    brief = Client().get(f"/d/{token}").content.decode()
    assert NOTE in brief[brief.index('id="recommendation-title"') : brief.index('id="decision-title"')]
