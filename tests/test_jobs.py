"""Jobs that never get stuck (embedded mode: jobs run in-process; the broker's failures are simulated).

Publishing a job never fails the request; a sweeper (beat task, command, or the page polling the row) sends
unsent or lost jobs again and fails those whose worker died, with a message the user sees.
"""

from __future__ import annotations

import contextlib
import io
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.exceptions import ImproperlyConfigured
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown

from config.celery import app as celery_app
from config.env import env_time_limits
from config.jobs import send_job
from pricing import tasks as pricing_tasks
from pricing.models import PriceObservation, PriceSnapshot, SnapshotOrigin, SnapshotStatus
from pricing.services import price_snapshot_create, reference_data_load
from tco import tasks as tco_tasks
from tco.models import RunStatus, Scenario, ScenarioRun
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE

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
    monkeypatch.undo()


@pytest.fixture
def scenario(db, editor, django_capture_on_commit_callbacks) -> Scenario:
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=DESIGN_EXAMPLE, user=editor)
    assert ScenarioRun.objects.get().status == RunStatus.DONE
    return Scenario.objects.get(pk=created.pk)


def _edit(client, scenario, field, value, captured):
    url = reverse("tco:scenario_field", args=[scenario.pk])
    with captured(execute=True):
        return client.post(url, {field: value, "version": scenario.version}, **HTMX)


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


def test_once_the_broker_is_back_the_polling_page_sends_the_delayed_run(
    editor_client, scenario, broker_down, django_capture_on_commit_callbacks
):
    _edit(editor_client, scenario, "fleet_gpus", "16", django_capture_on_commit_callbacks)
    broker_back(broker_down)

    poll = _results(editor_client, scenario)

    assert poll.status_code == 200 and poll["HX-Retarget"] == "#workspace"  # done: the workspace, no more polling
    assert 'hx-trigger="every 1s"' not in poll.content.decode()
    run = ScenarioRun.objects.latest("id")
    assert run.status == RunStatus.DONE and run.document["fleet_gpus"] == 16
    assert "Up to date" in poll.content.decode()


def test_the_sweeper_sends_every_unsent_run_when_the_broker_is_back(
    editor_client, scenario, broker_down, django_capture_on_commit_callbacks
):
    _edit(editor_client, scenario, "fleet_gpus", "16", django_capture_on_commit_callbacks)
    assert "0 sent again, 1 still unsent" in _sweep()  # still down: nothing lost, nothing raised
    broker_back(broker_down)

    assert "1 sent again, 0 still unsent" in _sweep()
    assert ScenarioRun.objects.latest("id").status == RunStatus.DONE


def test_a_pending_run_sent_long_ago_is_sent_again_and_a_recent_one_is_left_alone(settings, scenario):
    settings.JOB_RESEND_AFTER_SECONDS = 120
    now = timezone.now()
    document = scenario.to_document()
    lost = ScenarioRun.objects.create(
        scenario=scenario, scenario_version=1, document=document, sent_at=now - timedelta(seconds=121)
    )
    queued = ScenarioRun.objects.create(
        scenario=scenario, scenario_version=1, document=document, sent_at=now - timedelta(seconds=5)
    )

    assert tco_tasks.sweep_jobs.delay().get().startswith("runs: 1 sent again")

    assert ScenarioRun.objects.get(pk=lost.pk).status == RunStatus.DONE
    assert ScenarioRun.objects.get(pk=queued.pk).status == RunStatus.PENDING


# ---- a worker died mid-job ------------------------------------------------------------------------------------


def _running_since(scenario, seconds_ago: float) -> ScenarioRun:
    return ScenarioRun.objects.create(
        scenario=scenario,
        scenario_version=scenario.version,
        document=scenario.to_document(),
        status=RunStatus.RUNNING,
        started_at=timezone.now() - timedelta(seconds=seconds_ago),
    )


def test_a_run_left_running_by_a_dead_worker_fails_with_a_message_and_the_panel_stops_polling(
    settings, editor_client, scenario
):
    _edit(editor_client, scenario, "fleet_gpus", "16", lambda execute: contextlib.nullcontext())  # job not run
    limit = settings.CELERY_TASK_TIME_LIMIT + settings.JOB_STUCK_GRACE_SECONDS
    run = ScenarioRun.objects.latest("id")
    ScenarioRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING, started_at=timezone.now() - timedelta(seconds=limit + 1)
    )

    poll = _results(editor_client, scenario)

    assert poll.status_code == 200
    html = poll.content.decode()
    assert 'hx-trigger="every 1s"' not in html
    assert "The evaluation was interrupted" in html and "Your inputs are saved" in html
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.finished_at is not None


def test_a_run_running_within_its_limit_is_left_alone(settings, editor_client, scenario):
    run = _running_since(scenario, settings.CELERY_TASK_TIME_LIMIT)
    assert _results(editor_client, scenario).status_code == 200
    assert "0 failed" in _sweep().splitlines()[0]
    assert ScenarioRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


def test_the_sweeper_fails_stuck_runs_of_every_scenario(settings, scenario):
    limit = settings.CELERY_TASK_TIME_LIMIT + settings.JOB_STUCK_GRACE_SECONDS
    run = _running_since(scenario, limit + 1)
    assert "1 failed" in _sweep().splitlines()[0]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "interrupted" in run.error


def test_a_failed_first_run_shows_its_message_not_no_results_yet(editor_client, scenario):
    ScenarioRun.objects.all().delete()
    ScenarioRun.objects.create(
        scenario=scenario,
        scenario_version=scenario.version,
        document=scenario.to_document(),
        status=RunStatus.FAILED,
        error="The evaluation was interrupted: its worker stopped.",
    )
    html = _results(editor_client, scenario).content.decode()
    assert "The evaluation was interrupted" in html and "No results yet" not in html


def test_an_evaluation_past_its_soft_time_limit_fails_with_a_message(settings, monkeypatch, scenario):
    run = ScenarioRun.objects.create(scenario=scenario, scenario_version=1, document=scenario.to_document())

    def too_slow(document):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr("tco.services.runs.evaluate", too_slow)
    assert tco_tasks.scenario_evaluate.delay(run.pk).get() == RunStatus.FAILED
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.finished_at is not None
    assert f"took longer than its {settings.CELERY_TASK_SOFT_TIME_LIMIT} s limit" in run.error


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


def test_the_sweeper_sends_an_unsent_upload(reference, editor_client, broker_down, django_capture_on_commit_callbacks):
    _upload(editor_client, django_capture_on_commit_callbacks)
    broker_back(broker_down)
    assert "Price imports: 1 sent again" in _sweep()
    assert PriceSnapshot.objects.get().status == SnapshotStatus.IMPORTED


def _snapshot(status: str, origin: str, **times) -> PriceSnapshot:
    snapshot = price_snapshot_create(content=b"x", origin=origin, source="test", keep_file=True)
    PriceSnapshot.objects.filter(pk=snapshot.pk).update(status=status, **times)
    return PriceSnapshot.objects.get(pk=snapshot.pk)


def test_an_import_left_running_by_a_dead_worker_fails_with_a_reason_and_its_page_stops_polling(
    settings, reference, editor_client
):
    limit = settings.CELERY_TASK_ANNOTATIONS["pricing.tasks.import_snapshot"]["time_limit"]
    old = timezone.now() - timedelta(seconds=limit + settings.JOB_STUCK_GRACE_SECONDS + 1)
    stuck = _snapshot(SnapshotStatus.RUNNING, SnapshotOrigin.UPLOAD, started_at=old)
    fresh = _snapshot(SnapshotStatus.RUNNING, SnapshotOrigin.UPLOAD, started_at=timezone.now())

    status = editor_client.get(reverse("pricing:snapshot_status", args=[stuck.pk]), **HTMX)

    assert status.status_code == 286
    assert "the import was interrupted" in status.content.decode()
    stuck.refresh_from_db()
    assert stuck.status == SnapshotStatus.FAILED
    assert "Nothing from this file was imported" in stuck.errors[0]["reason"]
    assert "0 failed" in _sweep().splitlines()[1]
    assert PriceSnapshot.objects.get(pk=fresh.pk).status == SnapshotStatus.RUNNING


def test_a_command_import_whose_process_died_before_it_ran_fails(settings, reference):
    limit = settings.CELERY_TASK_ANNOTATIONS["pricing.tasks.import_snapshot"]["time_limit"]
    old = timezone.now() - timedelta(seconds=limit + settings.JOB_STUCK_GRACE_SECONDS + 1)
    snapshot = _snapshot(SnapshotStatus.PENDING, SnapshotOrigin.COMMAND)
    PriceSnapshot.objects.filter(pk=snapshot.pk).update(created_at=old)
    assert "1 failed" in _sweep().splitlines()[1]
    assert PriceSnapshot.objects.get(pk=snapshot.pk).status == SnapshotStatus.FAILED


def test_an_import_past_its_soft_time_limit_fails_with_a_reason(reference, monkeypatch, settings):
    snapshot = _snapshot(SnapshotStatus.PENDING, SnapshotOrigin.UPLOAD)

    def too_slow(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr("pricing.services.price_snapshot_run", too_slow)
    assert pricing_tasks.import_snapshot.delay(snapshot.pk).get() == "failed"
    snapshot.refresh_from_db()
    limit = settings.CELERY_TASK_ANNOTATIONS["pricing.tasks.import_snapshot"]["soft_time_limit"]
    assert snapshot.status == SnapshotStatus.FAILED
    assert f"longer than its {limit} s limit" in snapshot.errors[0]["reason"]


# ---- the Celery configuration that makes this hold on real workers ------------------------------------------------

OUR_TASKS = ["tco.tasks.scenario_evaluate", "tco.tasks.sweep_jobs", "pricing.tasks.import_snapshot"]
IMPORT_TASKS = ["pricing.tasks.import_snapshot", "pricing.tasks.run_due_imports"]


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


def test_evaluations_and_the_sweeper_use_the_default_queue():
    for name in ("tco.tasks.scenario_evaluate", "tco.tasks.sweep_jobs"):
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
    with caplog.at_level("WARNING", logger="config.jobs"):
        assert send_job(tco_tasks.scenario_evaluate, 12345) is False
    assert "could not send job tco.tasks.scenario_evaluate(12345,)" in caplog.text
    assert "Connection refused" in caplog.text
