"""Jobs that never get stuck (embedded mode: jobs run in-process; the broker's failures are simulated): what the
pages say, and the Celery configuration that makes it hold on real workers. What every kind of job does (sending,
claiming, sweeping) is one suite run against each: tests/test_job_model.py.
"""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown

from config.celery import app as celery_app
from config.env import env_time_limits
from lib import jobs
from lib.jobs import send_job
from pricing import tasks as pricing_tasks
from pricing.models import PriceObservation, PriceSnapshot, SnapshotOrigin, SnapshotStatus
from pricing.services import price_snapshot_create, reference_data_load
from tco import tasks as tco_tasks
from tco.documents import scenario_document
from tco.models import RunStatus, Scenario, ScenarioRun

HTMX = {"HTTP_HX_REQUEST": "true"}
SKYPILOT_SAMPLE = "fixtures/prices/skypilot/lambda/vms.csv"


@pytest.fixture
def broker_down(monkeypatch):
    """Every job send fails the way Celery fails when Redis refuses connections."""

    def refuse(*args, **kwargs):
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for task in (tco_tasks.scenario_evaluate, pricing_tasks.import_snapshot):
        monkeypatch.setattr(task, "apply_async", refuse)
    return monkeypatch


def broker_back(monkeypatch) -> None:
    """The broker answers again, and the pause after its failed send (lib.jobs.SEND_PAUSE_SECONDS) has passed."""
    monkeypatch.undo()
    jobs.resume_sending()


def _results(client, scenario):
    return client.get(reverse("tco:scenario_results", args=[scenario.pk]), **HTMX)


def _sweep() -> str:
    out = io.StringIO()
    call_command("sweep_jobs", stdout=out)
    return out.getvalue()


# ---- the broker is down when an edit is saved ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_edit_while_the_broker_is_down_is_saved_and_the_page_says_results_are_delayed(
    editor_client, scenario, broker_down
):
    # Real commits, as in production: the job is sent when the edit's transaction commits, before the answer.
    url = reverse("tco:scenario_field", args=[scenario.pk])
    response = editor_client.post(url, {"fleet_gpus": "16", "version": scenario.version}, **HTMX)

    assert response.status_code == 200
    assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 16
    run = ScenarioRun.objects.latest("id")
    assert run.status == RunStatus.PENDING and run.sent_at is None
    html = response.content.decode()
    assert "Results delayed" in html and "Your change is saved" in html
    assert 'hx-trigger="every 1s"' in html  # keeps asking, so it updates when the broker is back
    poll = _results(editor_client, scenario)
    assert poll.status_code == 200 and "Results delayed" in poll.content.decode()


def test_a_failed_first_run_shows_its_message_not_no_results_yet(editor_client, scenario):
    ScenarioRun.objects.all().delete()
    ScenarioRun.objects.create(
        scenario=scenario,
        scenario_version=scenario.version,
        document=scenario_document(scenario),
        status=RunStatus.FAILED,
        error="The evaluation was interrupted: its worker stopped.",
    )
    html = _results(editor_client, scenario).content.decode()
    assert "The evaluation was interrupted" in html and "No results yet" not in html


# ---- price imports ------------------------------------------------------------------------------------------


@pytest.fixture
def reference(db):
    reference_data_load(path="fixtures/reference.json")


def _upload(client, captured):
    with open(SKYPILOT_SAMPLE, "rb") as sample:
        upload = SimpleUploadedFile("vms.csv", sample.read())
    data = {"file": upload, "format": "skypilot", "provider": "Lambda", "observed_on": "2026-11-01"}
    with captured(execute=True):
        return client.post(reverse("pricing:price_import"), data)


def test_an_upload_while_the_broker_is_down_is_kept_and_imported_when_the_broker_is_back(
    reference, editor_client, broker_down, django_capture_on_commit_callbacks
):
    response = _upload(editor_client, django_capture_on_commit_callbacks)

    assert response.status_code == 302
    snapshot = PriceSnapshot.objects.get()
    assert snapshot.status == SnapshotStatus.PENDING and snapshot.sent_at is None
    assert snapshot.import_file.size_bytes > 0
    page = editor_client.get(response["Location"]).content.decode()
    assert "Import delayed" in page

    broker_back(broker_down)
    status = editor_client.get(reverse("pricing:snapshot_status", args=[snapshot.pk]), **HTMX)
    assert status.status_code == 286
    assert PriceSnapshot.objects.get().status == SnapshotStatus.IMPORTED
    assert PriceObservation.objects.count() == 340


def test_a_command_import_whose_process_died_before_it_ran_fails_with_a_reason(reference, settings):
    settings.JOB_RESEND_AFTER_SECONDS = 120
    snapshot = price_snapshot_create(content=b"x", origin=SnapshotOrigin.COMMAND, source="test")  # never claimed
    PriceSnapshot.objects.filter(pk=snapshot.pk).update(created_at=timezone.now() - timedelta(seconds=121))

    assert "Imports: 1 sent again" in _sweep()  # a pending job it was, never sent

    snapshot.refresh_from_db()
    assert snapshot.status == SnapshotStatus.FAILED
    assert "stopped before it read the file" in snapshot.errors[0]["reason"]


def test_the_beat_task_sweeps_every_kind_of_job(db):
    assert tco_tasks.sweep_jobs.delay().get() == (
        "imports: 0 sent again, 0 still unsent (broker unreachable), 0 failed; "
        "throughput imports: 0 sent again, 0 still unsent (broker unreachable), 0 failed; "
        "evaluations: 0 sent again, 0 still unsent (broker unreachable), 0 failed; "
        "simulations: 0 sent again, 0 still unsent (broker unreachable), 0 failed"
    )


# ---- the Celery configuration that makes this hold on real workers ------------------------------------------------

OUR_TASKS = [
    "tco.tasks.scenario_evaluate",
    "tco.tasks.scenario_simulate",
    "tco.tasks.sweep_jobs",
    "pricing.tasks.import_snapshot",
    "pricing.tasks.import_throughput",
]
IMPORT_TASKS = ["pricing.tasks.import_snapshot", "pricing.tasks.run_due_imports", "pricing.tasks.import_throughput"]


def _limits(name: str) -> tuple[float, float]:
    task = celery_app.tasks[name]
    soft = task.soft_time_limit or celery_app.conf.task_soft_time_limit
    hard = task.time_limit or celery_app.conf.task_time_limit
    return soft, hard


@pytest.mark.parametrize("name", [*OUR_TASKS, "pricing.tasks.run_due_imports", "config.ping"])
def test_every_task_has_a_soft_limit_below_its_hard_limit(name):
    soft, hard = _limits(name)
    assert soft and hard and soft < hard


def test_a_worker_lost_mid_job_puts_the_job_back_and_redis_waits_out_every_hard_limit():
    conf = celery_app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    longest = max(_limits(name)[1] for name in celery_app.tasks if not name.startswith("celery."))
    assert conf.broker_transport_options["visibility_timeout"] > longest


@pytest.mark.parametrize("name", IMPORT_TASKS)
def test_imports_have_their_own_queue(name):
    assert celery_app.amqp.router.route({}, name)["queue"].name == "imports"


def test_evaluations_simulations_and_the_sweeper_use_the_default_queue():
    for name in ("tco.tasks.scenario_evaluate", "tco.tasks.scenario_simulate", "tco.tasks.sweep_jobs"):
        assert celery_app.amqp.router.route({}, name)["queue"].name == "celery"


def test_beat_runs_the_sweeper_every_minute():
    entries = {entry["task"]: entry["schedule"] for entry in celery_app.conf.beat_schedule.values()}
    assert entries["tco.tasks.sweep_jobs"] == 60


@pytest.mark.parametrize(("soft", "hard"), [("1", 3), ("4", 6), ("60", 75), ("600", 750)])
def test_the_hard_limit_follows_the_soft_one_by_a_quarter_at_least_2_s(monkeypatch, soft, hard):
    monkeypatch.setenv("SOME_JOB_LIMIT", soft)
    assert env_time_limits("SOME_JOB_LIMIT", 60) == (int(soft), hard)


def test_a_time_limit_must_be_a_positive_whole_number(monkeypatch):
    monkeypatch.setenv("SOME_JOB_LIMIT", "0")
    with pytest.raises(ImproperlyConfigured, match="SOME_JOB_LIMIT=0 must be at least 1"):
        env_time_limits("SOME_JOB_LIMIT", 60)


def test_a_job_that_cannot_be_sent_is_logged_and_reported_not_raised(broker_down, caplog):
    with caplog.at_level("WARNING", logger="lib.jobs"):
        assert send_job(tco_tasks.scenario_evaluate, 12345) is False
    assert "could not send job tco.tasks.scenario_evaluate(12345,)" in caplog.text
    assert "Connection refused" in caplog.text
