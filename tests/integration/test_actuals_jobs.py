"""Scale-out mode only: the scheduled actuals check travels through Redis to a separate worker process, which works
a decision's verdict out again from the database and e-mails its owner through SMTP, once per turn; and beat's
schedule names that job at its interval, which the running worker knows.

The worker that mails runs here, on a queue of its own on the shared broker, with the SMTP relay pointed (through
the EMAIL_HOST and EMAIL_PORT variables production reads) at a small sink this test listens with: the worker is
another process, so Django's in-memory outbox of this one would never see its mail."""

from __future__ import annotations

import os
import signal
import socketserver
import subprocess
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group, User
from django.db import connection

from config.celery import app
from tco.models import ActualsPlan, RunStatus, ScenarioRun
from tco.services import scenario_create_from_document
from tco.tasks import check_actuals
from tests.actuals.story import decide_and_attach, import_nine_months
from tests.documents import DESIGN_EXAMPLE

REPO = Path(__file__).resolve().parents[2]
CELERY = REPO / ".venv" / "bin" / "celery"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not django_settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL and start a worker)"),
    pytest.mark.skipif(
        "postgresql" not in django_settings.DATABASES["default"]["ENGINE"],
        reason="a separate worker process needs the shared PostgreSQL test database",
    ),
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _wait_for(condition, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


class _SmtpSession(socketserver.StreamRequestHandler):
    """Just enough SMTP for Django's backend: greet, accept one sender, its recipients and the message."""

    def _say(self, line: str) -> None:
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self) -> None:
        self._say("220 sink ready")
        recipients: list[str] = []
        while line := self.rfile.readline():
            command = line.decode("ascii", "replace").strip()
            verb = command[:4].upper()
            if verb in ("EHLO", "HELO"):
                self._say("250 sink")
            elif verb == "MAIL":
                recipients = []
                self._say("250 OK")
            elif verb == "RCPT":
                recipients.append(command.split(":", 1)[1].strip(" <>"))
                self._say("250 OK")
            elif verb == "DATA":
                self._say("354 end with <CRLF>.<CRLF>")
                body = bytearray()
                while (chunk := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
                    body += chunk
                self.server.messages.append({"to": recipients, "data": body.decode("utf-8", "replace")})
                self._say("250 OK queued")
            elif verb == "QUIT":
                self._say("221 bye")
                return
            else:  # RSET, NOOP and the rest
                self._say("250 OK")


@pytest.fixture
def smtp_sink():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _SmtpSession)
    server.daemon_threads = True
    server.messages = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def mailing_worker(smtp_sink, tmp_path):
    """`celery worker` on a queue of this test's own, against the test database and the shared broker, mailing
    through the sink. Stopped (SIGTERM, then SIGKILL after 15 s) however the test ends."""
    queue = f"actuals-check-{uuid.uuid4().hex[:8]}"
    db = connection.settings_dict  # NAME is pytest-django's test_<name>
    user = quote(db["USER"] or "") + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "tests-only-secret-not-for-production"),
        "DATABASE_URL": f"postgres://{user}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": django_settings.REDIS_URL,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_sink.server_address[1]),
        "DEFAULT_FROM_EMAIL": "gpu-build-vs-rent@example.com",
    }
    log = tmp_path / "worker.log"
    command = [str(CELERY), "-A", "config", "worker", "-Q", queue, "--concurrency=1", "-n", f"{queue}@127.0.0.1"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=info"]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        _wait_for(lambda: b" ready." in log.read_bytes() or process.poll() is not None, timeout=60, what="the worker")
        assert process.poll() is None, log.read_text()[-3000:]
        yield queue, log
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def _decided_plan_with_nine_months() -> ActualsPlan:
    owner = User.objects.create_user(username="olga-owner", password="pw-for-tests-1", email="olga@example.com")
    owner.groups.add(Group.objects.get(name="editors"))
    document = {**DESIGN_EXAMPLE, "horizon_months": 24, "utilization": [0.75]}
    scenario = scenario_create_from_document(document=document, user=owner)
    # The evaluation was sent to the worker `.ci/run` starts when the scenario was committed: a decision needs it.
    _wait_for(
        lambda: ScenarioRun.objects.filter(scenario=scenario, status=RunStatus.DONE).exists(),
        timeout=60,
        what="the scenario's evaluation by the worker",
    )
    scenario.refresh_from_db()
    plan = decide_and_attach(scenario, owner)
    import_nine_months()
    return plan


def test_the_worker_turns_the_verdict_and_mails_the_owner_once(mailing_worker, smtp_sink):
    queue, log = mailing_worker
    plan = _decided_plan_with_nine_months()
    assert plan.verdict_holds and plan.warned_since == ""  # nothing has checked it yet

    check_actuals.apply_async(queue=queue)
    _wait_for(
        lambda: ActualsPlan.objects.get(pk=plan.pk).warned_since != "",
        timeout=60,
        what=f"the worker's check (log: {log})",
    )
    plan.refresh_from_db()
    assert not plan.verdict_holds
    assert plan.verdict_since == "2027-07" and plan.warned_since == "2027-07"
    assert plan.verdict_text.startswith("The decision no longer holds since July 2027")
    assert plan.checked_at is not None and plan.warned_at is not None
    assert len(smtp_sink.messages) == 1
    (message,) = smtp_sink.messages
    assert message["to"] == ["olga@example.com"]
    assert "no longer holds" in message["data"]
    assert "Traceback" not in log.read_text()

    first_check = plan.checked_at
    check_actuals.apply_async(queue=queue)  # the job runs again: the owner was told about this turn already
    _wait_for(lambda: ActualsPlan.objects.get(pk=plan.pk).checked_at > first_check, timeout=60, what="the second check")
    # A second e-mail would have reached the sink before the check saved the row (it mails inside that transaction).
    assert len(smtp_sink.messages) == 1


def test_beat_schedules_the_check_hourly_and_the_worker_knows_it():
    entries = [entry for entry in app.conf.beat_schedule.values() if entry["task"] == "tco.tasks.check_actuals"]
    assert len(entries) == 1 and entries[0]["schedule"] == 60 * 60
    assert check_actuals.name == "tco.tasks.check_actuals"

    registered = app.control.inspect(timeout=5).registered() or {}  # every worker on the broker answers in 5 s
    assert registered, "no worker answered on the broker"
    assert all("tco.tasks.check_actuals" in tasks for tasks in registered.values()), registered
