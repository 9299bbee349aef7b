"""Fault tests (scale-out mode only): kill a worker mid-evaluation and mid-import, stop and restart Redis
during edits. Each asserts that nothing saved is lost and that every run and snapshot ends done or failed
within its limit.

Every test starts its OWN redis-server on a free loopback port and its own worker pointed at it, and stops
both: the shared Redis and the worker `.ci/run` starts are never touched. Limits are shortened through the
same environment variables production reads (the worker inherits them), so each test takes seconds.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import time
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse

from config.env import env_time_limits
from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from pricing.services import price_snapshot_queue, reference_data_load
from pricing.tasks import import_snapshot
from tco.documents import scenario_document
from tco.models import RunStatus, Scenario, ScenarioRun
from tco.services import scenario_create_from_document
from tco.tasks import scenario_evaluate
from tests.documents import DESIGN_EXAMPLE

REPO = Path(__file__).resolve().parents[2]
CELERY = REPO / ".venv" / "bin" / "celery"
SKYPILOT_SAMPLE = REPO / "fixtures/prices/skypilot/lambda/vms.csv"
HTMX = {"HTTP_HX_REQUEST": "true"}
LIMIT_SECONDS = 4  # soft limit of every job in these tests (the hard one follows from it)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not django_settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL)"),
    pytest.mark.skipif(
        "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
        reason="a separate worker process needs the shared PostgreSQL test database",
    ),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(condition, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


class RedisServer:
    """A private, non-persistent redis-server on a free loopback port."""

    def __init__(self, directory: Path) -> None:
        self.port = _free_port()
        self.directory = directory
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as client:
                client.sendall(b"PING\r\n")
                return client.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--daemonize", "no", "--dir", str(self.directory)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for(self.answers, timeout=10, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


class Worker:
    """`celery worker` on both queues, in its own process group, against the test database and `broker_url`."""

    def __init__(self, broker_url: str, log: Path, *, slow_job_seconds: float = 0) -> None:
        self.broker_url, self.log, self.slow = broker_url, log, slow_job_seconds
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        db = connection.settings_dict  # NAME is pytest-django's test_<name>
        user = quote(db["USER"] or "") + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
        env = {
            **os.environ,
            "DATABASE_URL": f"postgres://{user}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
            "REDIS_URL": self.broker_url,
            "FAULT_TEST_SLOW_JOB_SECONDS": str(self.slow),
        }
        command = [str(CELERY), "-A", "config", "worker", "-Q", "celery,imports", "--concurrency=1"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=info"]
        command += ["--include", "tests.integration.slow_jobs", "-n", f"fault-{self.broker_url[-9:]}@127.0.0.1"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        _wait_for(
            lambda: b" ready." in self.log.read_bytes() or self.process.poll() is not None, timeout=60, what="worker"
        )
        assert self.process.poll() is None, self.log.read_text()[-3000:]

    def kill(self) -> None:
        """kill -9 the worker: its main process and its pool process."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@contextlib.contextmanager
def jobs_sent_to(broker_url: str):
    """Point this process's Celery producer at `broker_url` (and back afterwards)."""
    from config.celery import app

    def point(url: str) -> None:
        app.conf.broker_url = url
        app._pool = None
        app.amqp._producer_pool = None

    previous = app.conf.broker_url
    point(broker_url)
    try:
        yield
    finally:
        point(previous)


@pytest.fixture
def limits(settings, monkeypatch) -> dict[str, int]:
    """Short job limits, set through the environment (which the workers started here inherit) and mirrored in
    this process's settings (the sweeper judges rows by them)."""
    monkeypatch.setenv("JOB_TIME_LIMIT_SECONDS", str(LIMIT_SECONDS))
    monkeypatch.setenv("IMPORT_JOB_TIME_LIMIT_SECONDS", str(LIMIT_SECONDS))
    soft, hard = env_time_limits("JOB_TIME_LIMIT_SECONDS", 60)
    settings.CELERY_TASK_SOFT_TIME_LIMIT, settings.CELERY_TASK_TIME_LIMIT = soft, hard
    settings.CELERY_TASK_ANNOTATIONS = {
        name: {"soft_time_limit": soft, "time_limit": hard} for name in settings.CELERY_TASK_ANNOTATIONS
    }
    settings.JOB_STUCK_GRACE_SECONDS = 1
    settings.JOB_RESEND_AFTER_SECONDS = 2
    # A job carries its sender's limits (Celery's timelimit header, from the task as first bound in this
    # process): send these, whatever an earlier test bound.
    for proxy in (scenario_evaluate, import_snapshot):
        task = proxy._get_current_object()
        monkeypatch.setattr(task, "soft_time_limit", soft)
        monkeypatch.setattr(task, "time_limit", hard)
        monkeypatch.setattr(task, "_exec_options", None)
    return {"hard": hard, "grace": 1}


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def start_worker(redis_server, tmp_path):
    workers: list[Worker] = []

    def start(**options) -> Worker:
        worker = Worker(redis_server.url, tmp_path / f"worker-{len(workers)}.log", **options)
        workers.append(worker)
        worker.start()
        return worker

    yield start
    for worker in workers:
        worker.stop()


def _sweep() -> str:
    out = io.StringIO()
    call_command("sweep_jobs", stdout=out)
    return out.getvalue()


def _sleep_until(moment) -> None:
    from django.utils import timezone

    time.sleep(max(0.0, (moment - timezone.now()).total_seconds()) + 0.2)


def test_a_worker_killed_mid_evaluation_keeps_the_inputs_and_fails_the_run_within_its_limit(
    redis_server, start_worker, limits
):
    worker = start_worker(slow_job_seconds=60)
    with jobs_sent_to(redis_server.url):
        scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=None)
    saved = scenario_document(scenario)
    run = ScenarioRun.objects.get(scenario=scenario)
    _wait_for(lambda: ScenarioRun.objects.get(pk=run.pk).status == RunStatus.RUNNING, timeout=30, what="the claim")

    worker.kill()

    run.refresh_from_db()
    limit = timedelta(seconds=limits["hard"] + limits["grace"])
    _sleep_until(run.started_at + limit)
    assert ScenarioRun.objects.get(pk=run.pk).status == RunStatus.RUNNING  # without the sweeper: forever
    assert "1 failed" in _sweep()
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "The evaluation was interrupted" in run.error
    assert run.finished_at - run.started_at < limit + timedelta(seconds=5)
    assert scenario_document(Scenario.objects.get(pk=scenario.pk)) == saved  # nothing saved was lost


def test_a_worker_killed_mid_import_keeps_the_file_and_fails_the_snapshot_within_its_limit(
    redis_server, start_worker, limits
):
    reference_data_load(path=REPO / "fixtures/reference.json")
    worker = start_worker(slow_job_seconds=60)
    content = SKYPILOT_SAMPLE.read_bytes()
    with jobs_sent_to(redis_server.url):
        snapshot = price_snapshot_queue(
            content=content,
            source="vms.csv",
            file_name="vms.csv",
            format="skypilot",
            provider_name="Lambda",
            observed_on=date(2026, 11, 1),
        )
    _wait_for(
        lambda: PriceSnapshot.objects.get(pk=snapshot.pk).status == SnapshotStatus.RUNNING, timeout=30, what="claim"
    )

    worker.kill()

    snapshot.refresh_from_db()
    limit = timedelta(seconds=limits["hard"] + limits["grace"])
    _sleep_until(snapshot.started_at + limit)
    assert "Imports: 0 sent again, 0 still unsent (broker unreachable), 1 failed" in _sweep()
    snapshot.refresh_from_db()
    assert snapshot.status == SnapshotStatus.FAILED
    assert "The import was interrupted" in snapshot.errors[0]["reason"]
    assert snapshot.finished_at - snapshot.started_at < limit + timedelta(seconds=5)
    assert PriceObservation.objects.count() == 0  # all or nothing: no half-imported file
    assert bytes(snapshot.import_file.content) == content  # the upload itself is kept


def test_a_worker_killed_mid_import_is_seen_as_lost_by_its_heartbeat_long_before_the_hard_limit(
    redis_server, start_worker, settings
):
    settings.JOB_HEARTBEAT_STALE_SECONDS = 3  # this process's sweeper; the worker beats every 10 s, first at once
    reference_data_load(path=REPO / "fixtures/reference.json")
    worker = start_worker(slow_job_seconds=60)
    with jobs_sent_to(redis_server.url):
        snapshot = price_snapshot_queue(
            content=SKYPILOT_SAMPLE.read_bytes(),
            source="vms.csv",
            file_name="vms.csv",
            format="skypilot",
            provider_name="Lambda",
            observed_on=date(2026, 11, 1),
        )

    def beating() -> bool:
        row = PriceSnapshot.objects.get(pk=snapshot.pk)
        return row.status == SnapshotStatus.RUNNING and row.heartbeat_at is not None

    _wait_for(beating, timeout=30, what="the claim and the first heartbeat")
    assert "0 failed" in _sweep()  # alive: left alone

    worker.kill()

    time.sleep(3.5)
    assert "Imports: 0 sent again, 0 still unsent (broker unreachable), 1 failed" in _sweep()
    snapshot.refresh_from_db()
    assert snapshot.status == SnapshotStatus.FAILED
    assert "The import was interrupted: its worker stopped" in snapshot.errors[0]["reason"]
    hard = django_settings.CELERY_TASK_ANNOTATIONS["pricing.tasks.import_snapshot"]["time_limit"]
    assert snapshot.finished_at - snapshot.started_at < timedelta(seconds=30) < timedelta(seconds=hard)
    assert PriceObservation.objects.count() == 0


def test_edits_while_redis_is_stopped_are_saved_and_computed_once_it_is_back(
    redis_server, start_worker, limits, client, editor
):
    start_worker()
    with jobs_sent_to(redis_server.url):
        scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=editor)
        first = ScenarioRun.objects.get(scenario=scenario)
        _wait_for(lambda: ScenarioRun.objects.get(pk=first.pk).status == RunStatus.DONE, timeout=30, what="run")
        client.force_login(editor)
        url = reverse("tco:scenario_field", args=[scenario.pk])

        redis_server.stop()
        for fleet in (16, 24, 32):
            version = Scenario.objects.get(pk=scenario.pk).version
            started = time.monotonic()
            response = client.post(url, {"fleet_gpus": str(fleet), "version": version}, **HTMX)
            assert response.status_code == 200
            assert time.monotonic() - started < 5
            assert "Results delayed" in response.content.decode()
        assert Scenario.objects.get(pk=scenario.pk).fleet_gpus == 32
        assert "3 still unsent" in _sweep()  # Redis still down: the sweeper keeps them, raises nothing

        redis_server.start()
        assert "Evaluations: 3 sent again" in _sweep()

    def all_finished() -> bool:
        return not ScenarioRun.objects.filter(scenario=scenario, status__in=[RunStatus.PENDING, RunStatus.RUNNING])

    _wait_for(all_finished, timeout=60, what="every run to finish after Redis came back")
    runs = list(ScenarioRun.objects.filter(scenario=scenario).order_by("id"))
    assert [run.status for run in runs] == [RunStatus.DONE] * 4
    assert [run.document["fleet_gpus"] for run in runs] == [DESIGN_EXAMPLE["fleet_gpus"], 16, 24, 32]
    scenario = Scenario.objects.get(pk=scenario.pk)
    assert scenario.fleet_gpus == 32 and scenario.version == first.scenario_version + 3


def test_polls_while_redis_is_frozen_do_not_each_wait_on_it_and_the_run_is_sent_once_it_thaws(
    redis_server, start_worker, limits, client, editor
):
    start_worker()
    client.force_login(editor)
    with jobs_sent_to(redis_server.url):
        os.kill(redis_server.process.pid, signal.SIGSTOP)  # connections complete; nothing answers
        try:
            scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=editor)  # one send waits, fails
            run = ScenarioRun.objects.get(scenario=scenario)
            assert run.sent_at is None
            url = reverse("tco:scenario_results", args=[scenario.pk])
            for _poll in range(3):
                started = time.monotonic()
                assert client.get(url, **HTMX).status_code == 200
                assert time.monotonic() - started < 1.5, "a poll waited on the frozen broker"
        finally:
            os.kill(redis_server.process.pid, signal.SIGCONT)
        assert "Evaluations: 1 sent again" in _sweep()  # the sweeper always tries
    _wait_for(lambda: ScenarioRun.objects.get(pk=run.pk).status == RunStatus.DONE, timeout=60, what="the run")


def test_an_edit_committed_by_a_web_worker_that_died_before_sending_its_run_is_computed_within_seconds(
    redis_server, start_worker, client, editor, monkeypatch, settings
):
    """The web worker that took the edit commits it and dies before its on-commit send: the page, reconnected to
    another worker, polls; the run is sent within seconds, not after the resend period."""
    assert settings.JOB_RESEND_AFTER_SECONDS == 120
    start_worker()
    client.force_login(editor)
    with jobs_sent_to(redis_server.url):
        scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=editor)
        first = ScenarioRun.objects.get(scenario=scenario)
        _wait_for(lambda: ScenarioRun.objects.get(pk=first.pk).status == RunStatus.DONE, timeout=30, what="run")
        with monkeypatch.context() as dying:
            dying.setattr(transaction, "on_commit", lambda *args, **kwargs: None)  # dies right after its commit
            version = Scenario.objects.get(pk=scenario.pk).version
            url = reverse("tco:scenario_field", args=[scenario.pk])
            client.post(url, {"fleet_gpus": "16", "version": version}, **HTMX)
        run = ScenarioRun.objects.latest("id")
        assert run.status == RunStatus.PENDING and run.document["fleet_gpus"] == 16
        started = time.monotonic()
        poll = reverse("tco:scenario_results", args=[scenario.pk])

        def computed() -> bool:
            client.get(f"{poll}?version={version + 1}", **HTMX)  # the page polls every second
            time.sleep(1)
            return ScenarioRun.objects.get(pk=run.pk).status == RunStatus.DONE

        _wait_for(computed, timeout=30, what="the run of the edit")
    assert time.monotonic() - started < 15


def test_jobs_past_their_soft_limit_on_a_real_worker_fail_with_a_message_and_the_worker_carries_on(
    redis_server, start_worker, limits
):
    reference_data_load(path=REPO / "fixtures/reference.json")
    worker = start_worker(slow_job_seconds=60)  # far past the 4 s soft limit
    with jobs_sent_to(redis_server.url):
        scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=None)
        snapshot = price_snapshot_queue(
            content=SKYPILOT_SAMPLE.read_bytes(),
            source="vms.csv",
            file_name="vms.csv",
            format="skypilot",
            provider_name="Lambda",
            observed_on=date(2026, 11, 1),
        )
    run = ScenarioRun.objects.get(scenario=scenario)

    def finished() -> bool:
        run.refresh_from_db()
        snapshot.refresh_from_db()
        return run.status == RunStatus.FAILED and snapshot.status == SnapshotStatus.FAILED

    # One worker process runs both jobs one after the other, each stopped at its soft limit.
    _wait_for(finished, timeout=2 * limits["hard"] + 40, what="both jobs to fail at their soft limit")
    assert f"took longer than its {LIMIT_SECONDS} s limit" in run.error
    assert f"took longer than its {LIMIT_SECONDS} s limit" in snapshot.errors[0]["reason"]
    for started, ended in ((run.started_at, run.finished_at), (snapshot.started_at, snapshot.finished_at)):
        assert timedelta(seconds=LIMIT_SECONDS - 1) < ended - started < timedelta(seconds=limits["hard"])
    assert worker.process.poll() is None  # the worker survived and is ready for the next job
    assert PriceObservation.objects.count() == 0
