"""The job model shared by evaluation runs, simulations and price imports: one suite run against each kind."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core import checks
from django.core.management import call_command
from django.db import OperationalError, models
from django.db.models import DateTimeField, F
from django.test.utils import isolate_apps
from django.urls import reverse
from django.utils import timezone
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as BrokerDown

from config.celery import app as celery_app
from lib import jobs
from lib.jobs import Job, status_field
from pricing.models import PriceSnapshot
from pricing.services import price_snapshot_queue, reference_data_load
from tco.models import Scenario, ScenarioRun, UncertaintyRun
from tco.services import scenario_update_field
from tco.services.uncertainty import uncertainty_run_queue
from tests.scenarios.factories import price_range

HTMX = {"HTTP_HX_REQUEST": "true"}
PRICES = (
    "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
    "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
    "Lambda,neocloud,H100 SXM,8,gpu_8x_h100_sxm5,us-east-1,on_demand,23.92,,USD,2026-11-01,\n"
)


@dataclass(frozen=True)
class Kind:
    """One concrete job model, and how the app queues and polls one of its jobs."""

    name: str
    model: Any
    task: str
    execute: str  # what the task calls once it has claimed the row (looked up when it runs)

    def queue(self, scenario, user):
        """Queue one job the way the app does: an edit's evaluation, a simulation of ranged inputs, an upload."""
        scenario = Scenario.objects.get(pk=scenario.pk)
        if self.model is ScenarioRun:
            edit = {"field": "fleet_gpus", "value": scenario.fleet_gpus + 8}
            scenario_update_field(scenario=scenario, user=user, expected_version=scenario.version, **edit)
            return ScenarioRun.objects.latest("id")
        if self.model is UncertaintyRun:
            rental = list(scenario.options.all())[1]
            ranged = price_range(scenario, user=user, option=rental).scenario
            return uncertainty_run_queue(scenario=ranged, user=user, trials=1_000)
        reference_data_load(path="fixtures/reference.json")
        return price_snapshot_queue(content=PRICES.encode(), source="upload", file_name="prices.csv", created_by=user)

    def limits(self, settings) -> tuple[int, int]:
        annotation = settings.CELERY_TASK_ANNOTATIONS.get(self.task, {})
        soft = annotation.get("soft_time_limit", settings.CELERY_TASK_SOFT_TIME_LIMIT)
        return soft, annotation.get("time_limit", settings.CELERY_TASK_TIME_LIMIT)

    def poll_url(self, job) -> str:
        if self.model is ScenarioRun:
            return reverse("tco:scenario_results", args=[job.scenario_id])
        if self.model is UncertaintyRun:
            return reverse("tco:uncertainty_panel", args=[job.scenario_id])
        return reverse("pricing:snapshot_status", args=[job.pk])


KINDS = [
    Kind("evaluation", ScenarioRun, "tco.tasks.scenario_evaluate", "tco.tasks.run_execute"),
    Kind("simulation", UncertaintyRun, "tco.tasks.scenario_simulate", "tco.tasks.uncertainty_run_execute"),
    Kind("import", PriceSnapshot, "pricing.tasks.import_snapshot", "pricing.services.price_snapshot_run"),
]


@pytest.fixture(params=KINDS, ids=lambda kind: kind.name)
def kind(request) -> Kind:
    return request.param


@pytest.fixture
def sends(kind, scenario, monkeypatch) -> Iterator[list[tuple]]:
    """The kind's task, faked from here on (the scenario's own first run is done): each send is recorded and
    nothing runs, as if every message were lost."""
    sent: list[tuple] = []
    monkeypatch.setattr(import_string(kind.task), "apply_async", lambda args=(), **options: sent.append(args))
    conf = celery_app.conf  # a broker takes them (scale-out mode); put back here, before the suite's own fixture
    previous, conf.task_always_eager = conf.task_always_eager, False
    yield sent
    conf.task_always_eager = previous


def age(job, seconds: float) -> None:
    """Move every time on the job's row `seconds` into the past: as if that long had passed."""
    moments = [f.name for f in type(job)._meta.concrete_fields if isinstance(f, DateTimeField)]
    type(job).objects.filter(pk=job.pk).update(**{name: F(name) - timedelta(seconds=seconds) for name in moments})


@pytest.fixture
def queued(kind, scenario, editor, django_capture_on_commit_callbacks):
    """A pending job of the kind whose message has not been delivered yet (its task is run by hand)."""
    with django_capture_on_commit_callbacks(execute=False):
        job = kind.queue(scenario, editor)
    return type(job).objects.get(pk=job.pk)


def deliver(kind, job) -> None:
    """A worker receives the job's message: the task's errors and retries are its own, not its sender's (run in this
    process, a retry runs at once)."""
    conf = celery_app.conf
    propagates, conf.task_eager_propagates = conf.task_eager_propagates, False
    try:
        import_string(kind.task).apply(args=[job.pk])
    finally:
        conf.task_eager_propagates = propagates


def counted(kind, monkeypatch, behaviour=None) -> list[int]:
    """Record each execution of the kind's job after its claim; `behaviour(call)` may raise instead of running."""
    calls: list[int] = []
    real = import_string(kind.execute)

    def execute(**kwargs):
        calls.append(1)
        if behaviour is not None:
            behaviour(len(calls))
        return real(**kwargs)

    monkeypatch.setattr(kind.execute, execute)
    return calls


def sweep() -> str:
    out = io.StringIO()
    call_command("sweep_jobs", stdout=out)
    return out.getvalue()


def fresh(job):
    return type(job).objects.get(pk=job.pk)


def shown(kind, client, job) -> tuple[int, str]:
    response = client.get(kind.poll_url(job), **HTMX)
    return response.status_code, response.content.decode()


def stops_polling(status: int, html: str) -> bool:
    """The answer asks the page to poll no more: htmx's 286, or (the scenario page) a workspace with no poll in it."""
    return status == 286 or (status == 200 and 'hx-trigger="every 1s"' not in html)


# ---- sending: never fails the request, sent again only when lost ------------------------------------------------


def test_a_page_polling_every_second_sends_a_lost_job_again_once_per_resend_period(
    kind, sends, scenario, editor, editor_client, settings, run_jobs
):
    settings.JOB_RESEND_AFTER_SECONDS = 100
    with run_jobs():
        job = kind.queue(scenario, editor)
    assert len(sends) == 1  # sent when queued; the message is then lost

    for _poll in range(25):  # a poll every 10 s (in steps far longer than a poll takes, so a busy machine agrees)
        age(job, 10)
        assert editor_client.get(kind.poll_url(job), **HTMX).status_code == 200

    # Sent again 110 s and 220 s after the first send: strictly older than the resend period, never on every poll.
    assert len(sends) == 3
    assert type(job).objects.get(pk=job.pk).status == "pending"


def test_a_job_queued_while_the_broker_is_down_stays_pending_and_is_sent_when_it_is_back(
    kind, scenario, editor, editor_client, monkeypatch, run_jobs
):
    def refuse(*args, **kwargs):
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(import_string(kind.task), "apply_async", refuse)
    with run_jobs():
        job = kind.queue(scenario, editor)  # no exception reaches the request
    job = fresh(job)
    assert job.status == "pending" and job.sent_at is None
    assert "still unsent (broker unreachable)" in sweep()  # still down: kept, nothing raised
    monkeypatch.undo()
    jobs.resume_sending()  # the pause after the failed send (SEND_PAUSE_SECONDS) has passed

    status, html = shown(kind, editor_client, job)  # the polling page sends it

    assert stops_polling(status, html)
    assert fresh(job).status not in ("pending", "running")


def test_a_failed_send_backs_off_so_no_poll_waits_on_a_frozen_broker_and_the_sweeper_sends_it(
    kind, scenario, editor, editor_client, monkeypatch, run_jobs
):
    attempts: list[float] = []

    def frozen(*args, **kwargs):  # a frozen Redis: the send waits out its socket timeout, then fails
        attempts.append(time.monotonic())
        time.sleep(0.2)
        raise BrokerDown("Timeout reading from socket")

    monkeypatch.setattr(import_string(kind.task), "apply_async", frozen)
    with run_jobs():
        job = kind.queue(scenario, editor)
    assert len(attempts) == 1 and fresh(job).sent_at is None
    for _poll in range(5):
        assert editor_client.get(kind.poll_url(job), **HTMX).status_code == 200
    assert len(attempts) == 1  # no poll sent it again, so none waited on the broker
    assert fresh(job).is_delayed  # the page says the results are delayed

    assert "1 still unsent (broker unreachable)" in sweep()  # the sweeper always tries (beat, every minute)
    assert len(attempts) == 2
    monkeypatch.undo()
    assert "1 sent again" in sweep()  # the broker is back: sent, and the next polls send again too
    assert fresh(job).status not in ("pending", "running")


def test_a_job_committed_by_a_web_worker_that_died_before_sending_it_is_sent_by_a_poll_within_seconds(
    kind, sends, queued, editor_client, settings
):
    # `queued`: the edit (or upload) committed and its on-commit send never ran, as when the web worker is killed
    # between the two. Its page, reconnected, polls: it waits seconds for the send, not the resend period.
    assert settings.JOB_RESEND_AFTER_SECONDS == 120  # the deployment's: a lost message is sent again after 2 min
    assert not queued.is_delayed  # queued a moment ago: its send may be on its way
    assert shown(kind, editor_client, queued)[0] == 200 and sends == []

    age(queued, 6)  # past JOB_SEND_GRACE_SECONDS (5)
    shown(kind, editor_client, queued)

    assert len(sends) == 1  # sent by the poll
    assert not fresh(queued).is_delayed  # stamped sent: the next polls leave it to the worker


def test_a_job_sent_is_stamped_sent_once_the_broker_has_it(kind, scenario, editor, sends, run_jobs):
    with run_jobs():
        job = kind.queue(scenario, editor)
    assert len(sends) == 1 and fresh(job).sent_at is not None and not fresh(job).is_delayed


def test_a_job_sent_long_ago_is_sent_again_and_one_sent_recently_is_left_alone(
    kind, sends, scenario, editor, settings, run_jobs
):
    settings.JOB_RESEND_AFTER_SECONDS = 120
    with run_jobs():  # both sent (and stamped sent) as their transactions commit
        lost = kind.queue(scenario, editor)
    age(lost, 121)
    with run_jobs():
        recent = kind.queue(scenario, editor)
    age(recent, 3600)
    type(recent).objects.filter(pk=recent.pk).update(sent_at=F("sent_at") + timedelta(seconds=3600 - 5))
    sends.clear()

    sweep()

    assert sends == [(lost.pk,)]
    assert fresh(lost).sent_at > fresh(recent).sent_at


def test_a_sweeper_running_while_another_sends_a_lost_job_leaves_it_to_the_first(kind, queued, settings, monkeypatch):
    settings.JOB_RESEND_AFTER_SECONDS = 120
    age(queued, 121)
    sent: list[tuple] = []

    def send(args=(), **options):
        sent.append(args)
        if len(sent) == 1:
            sweep()  # beat, or a page polling the job, sweeps while this sweeper is sending it

    monkeypatch.setattr(import_string(kind.task), "apply_async", send)
    sweep()

    assert sent == [(queued.pk,)]


# ---- claiming and running --------------------------------------------------------------------------------------


def test_a_job_delivered_twice_runs_once(kind, queued, monkeypatch):
    calls = counted(kind, monkeypatch)
    deliver(kind, queued)
    finished = fresh(queued)
    deliver(kind, queued)
    assert calls == [1]
    assert finished.status not in ("pending", "running") and finished.started_at and finished.finished_at
    assert fresh(queued).finished_at == finished.finished_at


def test_a_job_a_worker_has_claimed_is_left_to_it(kind, queued, monkeypatch):
    calls = counted(kind, monkeypatch)
    type(queued).objects.filter(pk=queued.pk).update(status="running")
    deliver(kind, queued)
    assert calls == [] and fresh(queued).status == "running"


def test_a_lost_database_connection_puts_the_job_back_and_tries_again(kind, queued, monkeypatch):
    def first_fails(call):
        if call == 1:
            raise OperationalError("server closed the connection unexpectedly")

    calls = counted(kind, monkeypatch, first_fails)
    deliver(kind, queued)
    assert len(calls) == 2
    assert fresh(queued).status not in ("pending", "running", "failed")


def test_a_job_whose_database_stays_away_fails_with_a_message_after_its_retries(
    kind, queued, monkeypatch, editor_client
):
    def always_fails(call):
        raise OperationalError("server closed the connection unexpectedly")

    calls = counted(kind, monkeypatch, always_fails)
    deliver(kind, queued)
    assert len(calls) == 1 + import_string(kind.task).max_retries
    assert fresh(queued).status == "failed"
    status, html = shown(kind, editor_client, queued)
    assert stops_polling(status, html) and "failed unexpectedly (OperationalError)" in html


def test_a_job_past_its_soft_time_limit_fails_with_a_message_naming_the_limit(
    kind, queued, monkeypatch, settings, editor_client
):
    def too_slow(call):
        raise SoftTimeLimitExceeded()

    counted(kind, monkeypatch, too_slow)
    deliver(kind, queued)
    job = fresh(queued)
    assert job.status == "failed" and job.finished_at is not None
    status, html = shown(kind, editor_client, job)
    assert (
        stops_polling(status, html)
        and f"took longer than its {kind.limits(settings)[0]} s limit and was stopped" in html
    )


def test_a_job_that_crashes_fails_with_a_message_and_the_error_is_logged(
    kind, queued, monkeypatch, caplog, editor_client
):
    def crash(call):
        raise RuntimeError("disk on fire")

    counted(kind, monkeypatch, crash)
    deliver(kind, queued)
    assert fresh(queued).status == "failed"
    assert "disk on fire" in caplog.text
    status, html = shown(kind, editor_client, queued)
    assert stops_polling(status, html) and "failed unexpectedly (RuntimeError)" in html and "disk on fire" not in html


# ---- a worker died mid-job -------------------------------------------------------------------------------------


def test_a_job_left_running_by_a_dead_worker_fails_with_a_message_and_its_page_stops_polling(
    kind, queued, settings, editor_client
):
    hard = kind.limits(settings)[1]
    type(queued).objects.filter(pk=queued.pk).update(status="running", started_at=timezone.now())
    age(queued, hard + settings.JOB_STUCK_GRACE_SECONDS + 1)

    status, html = shown(kind, editor_client, queued)

    assert stops_polling(status, html)
    assert f"was interrupted: its worker stopped, or it ran past its {hard} s limit" in html
    job = fresh(queued)
    assert job.status == "failed" and job.finished_at is not None


def test_the_sweeper_fails_stuck_jobs_and_leaves_those_within_their_limit(kind, scenario, editor, settings, sends):
    hard = kind.limits(settings)[1]
    stuck, busy = kind.queue(scenario, editor), kind.queue(scenario, editor)
    type(stuck).objects.filter(pk__in=[stuck.pk, busy.pk]).update(status="running", started_at=timezone.now())
    age(stuck, hard + settings.JOB_STUCK_GRACE_SECONDS + 1)
    age(busy, hard)

    assert "1 failed" in sweep()

    assert (fresh(stuck).status, fresh(busy).status) == ("failed", "running")


def test_a_job_whose_worker_stopped_beating_is_lost_well_before_its_hard_limit(kind, scenario, editor, settings, sends):
    silent, beating = kind.queue(scenario, editor), kind.queue(scenario, editor)
    now = timezone.now()
    type(silent).objects.filter(pk__in=[silent.pk, beating.pk]).update(
        status="running", started_at=now, heartbeat_at=now
    )
    age(silent, settings.JOB_HEARTBEAT_STALE_SECONDS + 1)  # its worker beat last 46 s ago: killed
    age(beating, settings.JOB_HEARTBEAT_SECONDS)  # beat 10 s ago, as a live worker does
    assert kind.limits(settings)[1] > settings.JOB_HEARTBEAT_STALE_SECONDS + 1  # its hard limit is far off

    assert fresh(silent).is_stuck and not fresh(beating).is_stuck  # what a polling page sees
    assert "1 failed" in sweep()

    assert (fresh(silent).status, fresh(beating).status) == ("failed", "running")
    failed = fresh(silent)
    assert "was interrupted: its worker stopped" in (failed.error or failed.errors[0]["reason"])


def test_a_worker_beats_while_it_runs_a_job_and_stops_when_it_ends(kind, queued, settings, monkeypatch):
    settings.JOB_HEARTBEAT_SECONDS = 0.05
    beats: list = []
    real_update = jobs.JobQuerySet.update

    def update(rows, **fields):
        if set(fields) == {"heartbeat_at"}:
            beats.append(fields["heartbeat_at"])
        return real_update(rows, **fields)

    monkeypatch.setattr(jobs.JobQuerySet, "update", update)
    heartbeat = jobs.Heartbeat(type(queued), queued.pk)
    with heartbeat:
        time.sleep(0.3)
    count = len(beats)
    time.sleep(0.2)
    assert count >= 3 and len(beats) == count  # beat every 0.05 s, then no more
    assert not heartbeat.thread.is_alive()


# ---- one state machine -----------------------------------------------------------------------------------------


def test_every_job_model_has_the_states_its_claim_and_sweep_need(kind):
    values = {value for value, _ in kind.model._meta.get_field("status").choices}
    assert {"pending", "running", "failed"} <= values
    assert kind.model._meta.get_field("status").default == "pending"
    assert [error for error in kind.model.check() if error.level >= checks.ERROR] == []


@isolate_apps("lib")
def test_a_job_model_whose_statuses_lack_one_claim_or_sweep_needs_fails_the_system_check():
    class Outcome(models.TextChoices):
        PENDING = "pending", "Queued"
        IMPORTED = "imported", "Imported"

    class Unfinishable(Job):
        task_name = "tco.tasks.scenario_evaluate"
        status = status_field(Outcome)

        class Meta:
            app_label = "lib"

    class Nameless(Job):
        class Meta:
            app_label = "lib"

    (error,) = Unfinishable.check()
    assert error.id == "lib.E001" and "has no running, failed" in error.msg
    assert [error.id for error in Nameless.check()] == ["lib.E002"]
