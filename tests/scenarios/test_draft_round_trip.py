"""A draft (a scenario still missing inputs, as the editor saves it field by field) exports and imports back: the
inputs it lacks are gaps, as in the editor, not reasons to refuse the file. A value that is wrong is still refused."""

from __future__ import annotations

import io
import json

from django.urls import reverse

from tco.checks import document_gaps
from tco.documents import scenario_document
from tco.models import Scenario, ScenarioOption
from tco.services import option_add, scenario_create


def _draft(editor) -> Scenario:
    scenario = scenario_create(user=editor, name="Draft fleet")
    option_add(scenario=scenario, user=editor, expected_version=1, kind="neocloud")  # no price yet
    return Scenario.objects.get(pk=scenario.pk)


def _import(client, document: dict):
    upload = io.BytesIO(json.dumps(document).encode())
    upload.name = "draft.json"
    return client.post(reverse("tco:scenario_import"), {"file": upload}, follow=True)


def test_a_drafts_exported_json_imports_back_with_the_same_gaps(editor_client, editor):
    draft = _draft(editor)
    exported = editor_client.get(reverse("tco:scenario_export", args=[draft.pk])).json()
    gaps = [problem.path for problem in document_gaps(scenario_document(draft))]
    assert gaps  # it is a draft: some inputs are still to give
    response = _import(editor_client, exported)
    html = response.content.decode()
    assert "was not imported" not in html, html[html.find("was not imported") - 200 :][:800]
    copy = Scenario.objects.exclude(pk=draft.pk).get()
    assert copy.name == "Draft fleet"
    assert ScenarioOption.objects.filter(scenario=copy).count() == 1
    assert [problem.path for problem in document_gaps(scenario_document(copy))] == gaps
    assert editor_client.get(reverse("tco:scenario_export", args=[copy.pk])).json() == exported


def test_a_draft_with_a_wrong_value_is_still_refused(editor_client, editor):
    exported = editor_client.get(reverse("tco:scenario_export", args=[_draft(editor).pk])).json()
    exported["horizon_months"] = -5
    html = _import(editor_client, exported).content.decode()
    assert "was not imported" in html
    assert Scenario.objects.count() == 1
