"""manage.py scenario_export / scenario_import, and the demo scenarios in seed_demo."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tco.models import Scenario

ROOT = Path(__file__).resolve().parents[2]


def test_export_prints_the_scenario_document(scenario, example_document):
    out = StringIO()
    call_command("scenario_export", str(scenario.pk), stdout=out)
    assert json.loads(out.getvalue()) == example_document


def test_export_of_a_missing_scenario_fails(db):
    with pytest.raises(CommandError, match="no scenario with id 42"):
        call_command("scenario_export", "42")


def test_import_prints_the_new_id_and_round_trips(db, tmp_path, example_document):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(example_document))
    out = StringIO()
    call_command("scenario_import", str(path), stdout=out)
    scenario = Scenario.objects.get(pk=int(out.getvalue()))
    exported = StringIO()
    call_command("scenario_export", str(scenario.pk), stdout=exported)
    assert json.loads(exported.getvalue()) == example_document


def test_import_of_an_invalid_document_names_every_problem(db, tmp_path, example_document):
    example_document["horizon_months"] = 0
    example_document["options"][0]["pue"] = 0.5
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(example_document))
    with pytest.raises(CommandError) as caught:
        call_command("scenario_import", str(path))
    assert "Horizon (months) must be between 1 and 240; got 0" in str(caught.value)
    assert "Own 8x H100 (new) → PUE must be between 1 and 3; got 0.5" in str(caught.value)
    assert "options[" not in str(caught.value)
    assert not Scenario.objects.exists()


def test_import_errors_go_to_stderr_with_a_non_zero_exit(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{")
    result = subprocess.run(
        [sys.executable, "manage.py", "scenario_import", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"DJANGO_SECRET_KEY": "x", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PATH": "/usr/bin"},
        check=False,
    )
    assert result.returncode != 0
    assert "is not valid JSON" in result.stderr
    assert result.stdout == ""


def test_seed_demo_loads_the_demo_scenarios_once(db, run_jobs):
    with run_jobs():
        call_command("seed_demo", stdout=StringIO())
        call_command("seed_demo", stdout=StringIO())
    names = sorted(Scenario.objects.values_list("name", flat=True))
    assert names == [
        "8\u00d7 H100 inference: own vs rent",
        "Secondary H100 for steady inference",
        "Training burst capacity",
    ]
    assert all(s.owner.username == "analyst" for s in Scenario.objects.all())
    assert {s.runs.get().status for s in Scenario.objects.all()} == {"done"}
