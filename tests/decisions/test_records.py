from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tco.models import DecisionAction, DecisionRecord, DecisionSnapshot, ScenarioBrief
from tco.services.decisions import brief_update
from tests.decisions.conftest import create_link

RATIONALE = "Load is steady all year and the data must stay on premises."


def _decide(client, scenario, option="Own 8x H100", rationale=RATIONALE, **headers):
    return client.post(reverse("tco:decide", args=[scenario.pk]), {"option": option, "rationale": rationale}, **headers)


def _panel(client, scenario) -> str:
    return client.get(reverse("tco:decision_panel", args=[scenario.pk])).content.decode()


@pytest.mark.usefixtures("computed")
def test_an_editor_marks_a_scenario_decided_with_option_rationale_who_and_when(editor, editor_client, scenario):
    response = _decide(editor_client, scenario)

    assert response.status_code == 302
    record = DecisionRecord.objects.get()
    assert (record.action, record.option_name, record.option_kind) == ("decided", "Own 8x H100", "owned")
    assert (record.rationale, record.created_by, record.scenario_version) == (RATIONALE, editor, scenario.version)
    assert record.created_at is not None
    panel = _panel(editor_client, scenario)
    assert "Decided: Own 8x H100" in panel
    assert RATIONALE in panel


@pytest.mark.usefixtures("computed")
def test_deciding_answers_htmx_with_the_fresh_panel(editor_client, scenario):
    response = _decide(editor_client, scenario, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert response.content.decode().lstrip().startswith('<section id="decision-panel"')
    assert "Decided: Own 8x H100" in response.content.decode()


def test_deciding_needs_one_of_the_scenarios_options(editor_client, scenario):
    response = _decide(editor_client, scenario, option="Rent the moon")

    assert response.status_code == 400
    assert "Choose one of the scenario's options (“Own 8x H100”, “Lambda rental”); got “Rent the moon”" in (
        response.content.decode().replace("&#x27;", "'")
    )
    assert not DecisionRecord.objects.exists()


def test_deciding_needs_a_rationale(editor_client, scenario):
    response = _decide(editor_client, scenario, rationale="   ")

    assert response.status_code == 400
    assert "Write a short rationale" in response.content.decode()
    assert not DecisionRecord.objects.exists()


@pytest.mark.usefixtures("computed")
def test_reopening_keeps_the_decision_and_shows_both_in_the_history(editor_client, scenario):
    _decide(editor_client, scenario)

    response = editor_client.post(reverse("tco:reopen", args=[scenario.pk]), {"reason": "New quote arrived."})

    assert response.status_code == 302
    actions = list(DecisionRecord.objects.order_by("id").values_list("action", "option_name", "rationale"))
    assert actions == [
        (DecisionAction.DECIDED, "Own 8x H100", RATIONALE),
        (DecisionAction.REOPENED, "Own 8x H100", "New quote arrived."),
    ]
    panel = _panel(editor_client, scenario)
    history = panel[panel.index('id="decision-history"') :]
    assert "decided for <em>Own 8x H100</em>" in history
    assert "re-opened the decision for <em>Own 8x H100</em>: New quote arrived." in history
    assert "<strong>Re-opened</strong>" in panel


def test_reopening_an_undecided_scenario_is_refused(editor_client, scenario):
    response = editor_client.post(reverse("tco:reopen", args=[scenario.pk]))

    assert response.status_code == 400
    assert "not decided, so there is nothing to re-open" in response.content.decode()
    assert not DecisionRecord.objects.exists()


def test_viewers_cannot_decide_reopen_or_edit_the_brief(viewer_client, scenario):
    assert _decide(viewer_client, scenario).status_code == 403
    assert viewer_client.post(reverse("tco:reopen", args=[scenario.pk])).status_code == 403
    response = viewer_client.post(reverse("tco:brief_update", args=[scenario.pk]), {"question": "Mine?"})
    assert response.status_code == 403
    assert not DecisionRecord.objects.exists()
    assert not ScenarioBrief.objects.exists()


def test_viewers_see_the_decision_and_the_brief_without_forms(editor, viewer_client, scenario):
    brief_update(
        scenario=scenario,
        user=editor,
        expected_version=None,
        question="Own or rent?",
        workload_brief="Chat assistant.",
        answers={"support": "Vendor contract."},
    )

    panel = viewer_client.get(reverse("tco:decision_panel", args=[scenario.pk]), HTTP_HX_REQUEST="true")
    panel = panel.content.decode()

    assert "Own or rent?" in panel and "Vendor contract." in panel
    assert "<form" not in panel


@pytest.mark.usefixtures("computed")
def test_a_decision_appears_on_links_created_after_it_not_on_earlier_ones(editor_client, scenario, anon):
    _, before = create_link(editor_client, scenario)
    _decide(editor_client, scenario)
    _, after = create_link(editor_client, scenario)

    earlier, later = anon.get(before).content.decode(), anon.get(after).content.decode()

    assert "No decision has been recorded yet" in earlier and RATIONALE not in earlier
    assert '<strong id="decided-option">Own 8x H100</strong>' in later
    assert RATIONALE in later


@pytest.mark.usefixtures("computed")
def test_a_reopened_decision_shows_on_later_links_as_not_in_force(editor_client, scenario, anon):
    _decide(editor_client, scenario)
    editor_client.post(reverse("tco:reopen", args=[scenario.pk]), {"reason": "Prices fell."})
    _, path = create_link(editor_client, scenario)

    body = anon.get(path).content.decode()

    assert "Re-opened, no decision in force" in body
    assert "Prices fell." in body


def _brief_form(**overrides) -> dict:
    form = {
        "brief_version": "1",
        "question": "Do we buy eight H100s for the support assistant or keep renting?",
        "workload_brief": "Support assistant, 70B model in FP8, 24/7 traffic.",
        "answer_requirements": "70B FP8, p95 under 2 s, 40 concurrent sessions.",
        "answer_utilization": "",
        "answer_data_location": "EU only.",
        "answer_infrastructure": "",
        "answer_time_to_capacity": "Needed by March.",
        "answer_support": "",
        "answer_economics": "See the numbers below.",
    }
    form.update(overrides)
    return form


def test_the_brief_saves_the_question_the_workload_and_the_seven_answers(editor, editor_client, scenario):
    response = editor_client.post(reverse("tco:brief_update", args=[scenario.pk]), _brief_form())

    assert response.status_code == 302
    brief = ScenarioBrief.objects.get(scenario=scenario)
    assert brief.question.startswith("Do we buy eight H100s")
    assert brief.answer_data_location == "EU only."
    assert brief.answer_utilization == ""
    assert (brief.version, brief.updated_by) == (2, editor)


def test_the_brief_goes_on_the_link_with_blank_answers_marked_open(editor_client, scenario, anon):
    editor_client.post(reverse("tco:brief_update", args=[scenario.pk]), _brief_form())
    _, path = create_link(editor_client, scenario)

    body = anon.get(path).content.decode()

    frozen = json.loads(DecisionSnapshot.objects.get().content)["brief"]
    assert [q["answer"] == "" for q in frozen["questions"]] == [False, True, False, True, False, True, False]
    assert '<h1 id="question">Do we buy eight H100s for the support assistant or keep renting?</h1>' in body
    assert "Support assistant, 70B model in FP8, 24/7 traffic." in body
    assert "3 of 7 questions still open." in body
    assert body.count('<span class="badge open-badge">Open</span>') == 3
    assert "EU only." in body


def test_an_empty_brief_asks_the_default_question_with_every_question_open(editor_client, scenario, anon):
    _, path = create_link(editor_client, scenario)

    body = anon.get(path).content.decode()

    assert '<h1 id="question">Which option should we choose?</h1>' in body
    assert "7 of 7 questions still open." in body


def test_a_stale_brief_save_is_refused_and_the_newer_text_shown(editor, editor_client, scenario):
    editor_client.post(reverse("tco:brief_update", args=[scenario.pk]), _brief_form(question="First version"))

    response = editor_client.post(
        reverse("tco:brief_update", args=[scenario.pk]), _brief_form(question="Overwrite from an old form")
    )

    assert response.status_code == 400
    body = response.content.decode()
    assert "The brief was changed by edna-editor (now version 2, you edited version 1)" in body
    assert 'value="First version"' in body
    assert ScenarioBrief.objects.get().question == "First version"


def test_an_overlong_answer_is_refused_naming_the_limit(editor_client, scenario):
    response = editor_client.post(
        reverse("tco:brief_update", args=[scenario.pk]), _brief_form(answer_support="x" * 4001)
    )

    assert response.status_code == 400
    assert "An answer is 4,001 characters long; at most 4,000 fit." in response.content.decode()
    assert not ScenarioBrief.objects.exists()
