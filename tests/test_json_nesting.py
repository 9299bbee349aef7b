"""JSON nested 100,000 levels deep (or merely far deeper than any document of the app) is refused with a message,
by every reader of JSON a user sends: price files, scenario uploads, the scenario_import command (a parser's
recursion would otherwise end in a 500 or a crashed worker)."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from lib.jsontext import MAX_DEPTH, JSONTextError, read_json
from pricing.models import SnapshotStatus
from tco.models import Scenario
from tests.pricing.conftest import reference, run_import  # noqa: F401 (a fixture)


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


DEEP = [nested(100_000), '{"a":' * 100_000 + "1" + "}" * 100_000, nested(MAX_DEPTH + 1)]


@pytest.mark.parametrize("text", DEEP)
def test_the_reader_refuses_deep_nesting_with_a_message(text):
    with pytest.raises(JSONTextError, match=f"nested deeper than {MAX_DEPTH} levels"):
        read_json(text)


def test_the_reader_reads_json_as_deep_as_the_limit_and_ignores_brackets_in_strings():
    assert read_json(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    text = json.dumps({"name": "[" * 10_000 + '\\"{' * 5_000, "rows": [{"a": [1, 2]}]})
    assert read_json(text) == json.loads(text)


@pytest.mark.parametrize("text", ["[1,", '{"a": 1', "1" * 5000, "[NaN-]"])
def test_the_reader_turns_every_other_failure_into_the_same_error(text):
    with pytest.raises(JSONTextError) as caught:
        read_json(text)
    assert str(caught.value)


@pytest.mark.django_db
@pytest.mark.usefixtures("reference")
@pytest.mark.parametrize("text", DEEP[:2])
def test_a_deeply_nested_price_file_is_rejected_with_a_reason(text):
    snapshot = run_import(text, format="canonical")
    assert snapshot.status == SnapshotStatus.REJECTED
    (error,) = snapshot.errors
    assert "nested deeper than" in error["reason"]
    assert "crashed" not in snapshot.summary


@pytest.mark.parametrize("text", DEEP[:2])
def test_a_deeply_nested_scenario_upload_says_so_and_creates_nothing(editor_client, text):
    upload = SimpleUploadedFile("deep.json", text.encode(), content_type="application/json")
    response = editor_client.post(reverse("tco:scenario_import"), {"file": upload})
    assert response.status_code == 302
    (message,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert "deep.json is not valid JSON" in message and "nested deeper than" in message
    assert not Scenario.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("text", [DEEP[0], "1" * 5000])
def test_the_scenario_import_command_refuses_it_with_a_command_error(text, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(CommandError, match="is not valid JSON"):
        call_command("scenario_import", str(path), stdout=io.StringIO())
