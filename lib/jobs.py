"""One job model for every background job: evaluation runs, simulations and price imports.

A job is a row that one Celery task works on: ``pending → running → an outcome``. Its task takes the row's id,
claims it with a conditional update (0 rows: someone else has it) and ends it whatever happens
(:func:`run_claimed`); the page polls the row, never Celery's result backend.

Sending never fails a request. A job is sent when its transaction commits and stamped sent once the broker has it;
when the broker cannot take it, it is marked unsent and stays pending. Until the send, its stamp is provisional
(:func:`provisional_sent_at`): dated so that a job whose process died between the commit and the send (a web worker
killed just after an edit) is due again ``JOB_SEND_GRACE_SECONDS`` after it was queued, not after the whole resend
period. The sweeper (:func:`sweep`: ``manage.py sweep_jobs``, Celery beat every minute, or a page polling that row
through :func:`unstick`) sends again a pending job never sent, or sent more than ``JOB_RESEND_AFTER_SECONDS`` ago
(its message may have been lost with Redis), and fails a job running past its task's hard time limit, or whose
worker's heartbeat stopped (:class:`Heartbeat`: the worker died), with a message the user sees.

A concrete model names its task (``task_name``, the task's dotted path, which is also its Celery name) and what
its messages call it; its status choices may add terminal outcomes of its own (``imported``, ``cancelled``) as
long as they keep the three values claim and sweep work with (the system check says so when they do not).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, ClassVar, TypeVar

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from django.apps import apps
from django.conf import settings
from django.core import checks
from django.db import InterfaceError, OperationalError, connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as BrokerError

logger = logging.getLogger(__name__)

J = TypeVar("J", bound="Job")


class JobStatus(models.TextChoices):
    PENDING = "pending", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


ACTIVE = (JobStatus.PENDING, JobStatus.RUNNING)
NEEDED = (JobStatus.PENDING, JobStatus.RUNNING, JobStatus.FAILED)  # every job model's choices have these


def status_field(choices: type[models.TextChoices] = JobStatus) -> models.CharField:
    """The status column of a job model whose outcomes are `choices` (which keep the values in NEEDED)."""
    return models.CharField(max_length=20, choices=choices.choices, default=JobStatus.PENDING)


# ---- the limits a job is judged by ------------------------------------------------------------------------------


def hard_time_limit(task_name: str) -> int:
    """Seconds after which the worker kills `task_name` (its annotation, else the default limit)."""
    annotation = settings.CELERY_TASK_ANNOTATIONS.get(task_name, {})
    return annotation.get("time_limit", settings.CELERY_TASK_TIME_LIMIT)


def soft_time_limit(task_name: str) -> int:
    annotation = settings.CELERY_TASK_ANNOTATIONS.get(task_name, {})
    return annotation.get("soft_time_limit", settings.CELERY_TASK_SOFT_TIME_LIMIT)


def stuck_before(task_name: str, now: datetime | None = None) -> datetime:
    """A job of `task_name` still running since before this has lost its worker (the hard limit has passed)."""
    seconds = hard_time_limit(task_name) + settings.JOB_STUCK_GRACE_SECONDS
    return (now or timezone.now()) - timedelta(seconds=seconds)


def silent_before(now: datetime | None = None) -> datetime:
    """A running job whose worker last beat before this has lost its worker (killed, its machine gone)."""
    return (now or timezone.now()) - timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS)


def resend_before(now: datetime | None = None) -> datetime:
    """A job still pending though sent before this may have lost its message (Redis restarted): send it again."""
    return (now or timezone.now()) - timedelta(seconds=settings.JOB_RESEND_AFTER_SECONDS)


def provisional_sent_at(now: datetime | None = None) -> datetime:
    """The stamp of a job queued but not yet handed to the broker: as if sent long enough ago that it is due again
    JOB_SEND_GRACE_SECONDS from now. The send, moments later, stamps the real time; a process that dies between
    its commit and its send leaves this stamp, and the next poll or sweep sends the job within seconds."""
    wait = max(settings.JOB_RESEND_AFTER_SECONDS - settings.JOB_SEND_GRACE_SECONDS, 0)
    return (now or timezone.now()) - timedelta(seconds=wait)


# ---- the model --------------------------------------------------------------------------------------------------


class JobQuerySet(models.QuerySet):
    def to_resend(self, now: datetime | None = None) -> JobQuerySet:
        """Pending jobs never sent (the broker could not take them), or sent so long ago their message may be lost
        (or, stamped provisionally, never sent by a process that died)."""
        due = Q(sent_at__isnull=True) | Q(sent_at__lt=resend_before(now))
        return self.filter(due, status=JobStatus.PENDING)

    def stuck(self, now: datetime | None = None) -> JobQuerySet:
        """Running jobs whose worker died: silent past JOB_HEARTBEAT_STALE_SECONDS, or (no heartbeat: a command's
        job) running since before their task's hard time limit plus grace."""
        limit = stuck_before(self.model.task_name, now)
        began = Q(started_at__lt=limit) | Q(started_at__isnull=True, created_at__lt=limit)
        return self.filter(began | Q(heartbeat_at__lt=silent_before(now)), status=JobStatus.RUNNING)

    def claim(self, pk: int) -> Job | None:
        """Take the job pending → running; None when it is not pending (another worker has it, or it ended)."""
        if not self.filter(pk=pk, status=JobStatus.PENDING).update(status=JobStatus.RUNNING, started_at=timezone.now()):
            return None
        return self.get(pk=pk)

    def fail(self, message: str, now: datetime | None = None) -> int:
        """Fail those still pending or running with `message` (what their page shows); ended ones stay as they are."""
        return self.filter(status__in=ACTIVE).update(
            status=JobStatus.FAILED, finished_at=now or timezone.now(), **self.model.failure_fields(message)
        )

    def queue(self, **fields: Any) -> Job:
        """Create a pending job, stamped sent provisionally, and send it to the workers when the current transaction
        commits."""
        job = self.create(sent_at=provisional_sent_at(), **fields)
        transaction.on_commit(partial(job_send, self.model, job.pk))
        return job


class Job(models.Model):
    """A row one Celery task works on; see the module's docstring for its life."""

    task_name: ClassVar[str]  # the task's dotted path, which is also its Celery name
    noun: ClassVar[str] = "job"  # in messages: "The evaluation was interrupted"
    kept: ClassVar[str] = ""  # the messages' last words: what a failed job kept, and what to do next
    requeue_fields: ClassVar[Mapping[str, Any]] = {}  # what a job put back for a retry starts again from

    status = status_field()
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When the job was last handed to the workers; empty: not (yet) sent."
    )
    started_at = models.DateTimeField(null=True, blank=True, help_text="When a worker (or a command) claimed it.")
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="When the worker running it last said it is alive; empty: no worker beats."
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return self.status not in ACTIVE

    @property
    def is_delayed(self) -> bool:
        """Pending with no worker on it: it could not be sent, or was sent so long ago it may have been lost."""
        return self.status == JobStatus.PENDING and (self.sent_at is None or self.sent_at < resend_before())

    @property
    def is_stuck(self) -> bool:
        """Running with its worker silent, or past its hard time limit: its worker died (the sweeper fails it)."""
        if self.status != JobStatus.RUNNING:
            return False
        silent = self.heartbeat_at is not None and self.heartbeat_at < silent_before()
        return silent or (self.started_at or self.created_at) < stuck_before(self.task_name)

    def rows(self) -> JobQuerySet:
        return type(self).objects.filter(pk=self.pk)

    def send_on_commit(self) -> None:
        """Stamp the job sent provisionally and send it when the current transaction commits (a rollback takes back
        both; the broker taking it stamps the real time, a broker that cannot marks it unsent)."""
        self.sent_at = provisional_sent_at()
        self.rows().update(sent_at=self.sent_at)
        transaction.on_commit(partial(job_send, type(self), self.pk))

    def finish(self, status: str, **fields: Any) -> None:
        """End the claimed job with `status` (one of its model's outcomes), writing only `fields` besides."""
        for name, value in fields.items():
            setattr(self, name, value)
        self.status, self.finished_at = status, timezone.now()
        self.save(update_fields=["status", "finished_at", *fields])

    def fail(self, message: str) -> bool:
        """Fail the job with `message` unless it has ended already."""
        failed = bool(self.rows().fail(message))
        self.refresh_from_db(fields=["status", "finished_at", *self.failure_fields(message)])
        return failed

    def requeue(self) -> None:
        """Put a claimed job back for its task's retry, which is a send (so the sweeper leaves it alone meanwhile)."""
        fields = {"status": JobStatus.PENDING, "started_at": None, "heartbeat_at": None, "sent_at": timezone.now()}
        fields.update(self.requeue_fields)
        self.rows().filter(status=JobStatus.RUNNING).update(**fields)

    @classmethod
    def failure_fields(cls, message: str) -> dict[str, Any]:
        """The columns a failure's message is written to."""
        return {"error": message}

    @classmethod
    def over_time_message(cls) -> str:
        limit = soft_time_limit(cls.task_name)
        return f"The {cls.noun} took longer than its {limit} s limit and was stopped. {cls.kept}"

    @classmethod
    def interrupted_message(cls) -> str:
        limit = hard_time_limit(cls.task_name)
        return f"The {cls.noun} was interrupted: its worker stopped, or it ran past its {limit} s limit. {cls.kept}"

    @classmethod
    def crashed_message(cls, error: BaseException) -> str:
        name = type(error).__name__
        return f"The {cls.noun} failed unexpectedly ({name}); the error has been logged for the team. {cls.kept}"

    @classmethod
    def check(cls, **kwargs: Any) -> list[checks.CheckMessage]:
        errors = super().check(**kwargs)
        values = {value for value, _ in cls._meta.get_field("status").choices or ()}
        if missing := [value for value in NEEDED if value not in values]:
            errors.append(
                checks.Error(
                    f"{cls.__name__}.status has no {', '.join(missing)}: claim and sweep need "
                    f"{', '.join(NEEDED)} among a job's statuses",
                    obj=cls,
                    id="lib.E001",
                )
            )
        if not getattr(cls, "task_name", ""):
            errors.append(checks.Error(f"{cls.__name__} names no task_name", obj=cls, id="lib.E002"))
        return errors


def job_models() -> list[type[Job]]:
    """Every installed job model, in INSTALLED_APPS order."""
    return [model for model in apps.get_models() if issubclass(model, Job)]


# ---- sending and sweeping ---------------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """What one sweep did to one kind of job."""

    resent: int = 0
    unsent: int = 0  # still pending: the broker is unreachable
    failed: int = 0  # stuck past their limit

    def __str__(self) -> str:
        return f"{self.resent} sent again, {self.unsent} still unsent (broker unreachable), {self.failed} failed"


SEND_PAUSE_SECONDS = 30.0  # after the broker failed a send, how long a request does not try it again
_sends_paused_until = 0.0


def send_job(task: Task, *args: object, retry_now: bool = False) -> bool:
    """Hand one job to the broker (or run it now in the embedded mode). False, logged, when that failed.

    A broker that failed a send (down, or frozen: the send waited out its socket timeouts) is not asked again by a
    request for SEND_PAUSE_SECONDS: an edit or a poll meanwhile leaves its job unsent at once instead of waiting
    on it too. The sweeper (``retry_now``) always asks, and a send that succeeds ends the pause.
    """
    global _sends_paused_until
    if not retry_now and time.monotonic() < _sends_paused_until:
        logger.info("not sending job %s%r: the broker failed a send moments ago", task.name, args)
        return False
    try:
        task.apply_async(args=args)
    except Exception as error:  # broker down or frozen, or (embedded mode) the job itself crashed: never the request's
        if isinstance(error, (BrokerError, OSError)):
            _sends_paused_until = time.monotonic() + SEND_PAUSE_SECONDS
        logger.warning("could not send job %s%r; its row stays pending for the sweeper", task.name, args, exc_info=True)
        return False
    _sends_paused_until = 0.0
    return True


def resume_sending() -> None:
    """Let requests ask the broker again at once (the test suite does, between tests)."""
    global _sends_paused_until
    _sends_paused_until = 0.0


def job_send(model: type[Job], pk: int, *, retry_now: bool = False) -> bool:
    """Send one job and stamp it sent; when the broker cannot take it, mark it unsent (its page says it is delayed)
    and say False. (In-process the job has run by the time the send returns: nothing is left to stamp.)"""
    task = import_string(model.task_name)
    if send_job(task, pk, retry_now=retry_now):
        if not task.app.conf.task_always_eager:
            model.objects.filter(pk=pk, status=JobStatus.PENDING).update(sent_at=timezone.now())
        return True
    model.objects.filter(pk=pk, status=JobStatus.PENDING).update(sent_at=None)
    return False


def sweep(model: type[Job], rows: JobQuerySet | None = None) -> SweepResult:
    """Unstick the jobs of `model` (or those of `rows`): fail those whose worker died, send again those lost.

    A job sent again is marked sent first, by a conditional update: a sweeper elsewhere that listed the same row
    then updates nothing and skips it, and a job claimed in between is not run twice (its claim is conditional).
    The whole sweep (beat, the command) asks the broker even while requests leave it alone; a page's sweep of its
    own row does not.
    """
    now = timezone.now()
    retry_now = rows is None
    rows = model.objects.all() if rows is None else rows
    result = SweepResult(failed=rows.stuck(now).fail(model.interrupted_message(), now))
    for pk in list(rows.to_resend(now).order_by("pk").values_list("pk", flat=True)):
        if not model.objects.filter(pk=pk).to_resend(now).update(sent_at=now):
            continue  # another sweeper took it
        if job_send(model, pk, retry_now=retry_now):
            result.resent += 1
        else:
            result.unsent += 1
    return result


def sweep_all() -> list[tuple[type[Job], SweepResult]]:
    """Sweep every kind of job (what beat and `manage.py sweep_jobs` do)."""
    return [(model, sweep(model)) for model in job_models()]


def unstick(job: Job | None) -> bool:
    """What a page polling `job` does: sweep that one row when it looks lost or stuck. True when it did."""
    if job is None or not (job.is_delayed or job.is_stuck):
        return False
    sweep(type(job), job.rows())
    return True


# ---- running ----------------------------------------------------------------------------------------------------

TRANSIENT = (OperationalError, InterfaceError)  # the database went away for a moment


class Heartbeat:
    """While a worker runs a job, a thread stamps the row's ``heartbeat_at`` every JOB_HEARTBEAT_SECONDS on its own
    database connection, so the sweeper sees within JOB_HEARTBEAT_STALE_SECONDS that a killed worker's job is lost
    (its hard limit may be many minutes away). A beat that fails (the database busy or away) is skipped; the next
    one tries again."""

    def __init__(self, model: type[Job], pk: int) -> None:
        self.rows = model.objects.filter(pk=pk, status=JobStatus.RUNNING)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=settings.JOB_HEARTBEAT_SECONDS)

    def _beat(self) -> None:
        try:
            while True:
                try:
                    self.rows.update(heartbeat_at=timezone.now())
                except Exception:  # never the job's problem: a beat missed is one of several before it counts
                    logger.warning("heartbeat of %s skipped", self.thread.name, exc_info=True)
                if self.stopped.wait(settings.JOB_HEARTBEAT_SECONDS):
                    return
        finally:
            connection.close()  # this thread's own connection


def run_claimed(task: Task, model: type[J], pk: int, execute: Callable[[J], object]) -> str:
    """The body of every job's task: claim the row pending → running, `execute` it, and see that it ends.

    The conditional claim makes a job run once however often its message is delivered. A lost database
    connection puts the job back and retries it with back-off, up to the task's ``max_retries``; past its soft
    time limit, or on any other error (logged), the job fails with a message its page shows. `execute` ends the
    job with its outcome. Returns the status the job ended with ("already claimed" when it was not pending).
    """
    try:
        job = model.objects.claim(pk)
    except TRANSIENT as error:
        raise task.retry(exc=error, countdown=2**task.request.retries) from error
    if job is None:
        return "already claimed"
    beating = contextlib.nullcontext() if task.request.is_eager else Heartbeat(model, pk)  # embedded: the request's
    try:
        with beating:
            execute(job)
    except TRANSIENT as error:
        if task.request.retries < task.max_retries:
            job.requeue()
            raise task.retry(exc=error, countdown=2**task.request.retries) from error
        logger.exception("%s %s: the database stayed unavailable", model.noun, pk)
        job.fail(model.crashed_message(error))
    except SoftTimeLimitExceeded:
        job.fail(model.over_time_message())
    except Exception as error:  # a bug, not the user's input: recorded, and the page keeps working
        logger.exception("%s %s failed", model.noun, pk)
        job.fail(model.crashed_message(error))
    return job.status  # as `execute` ended it (finish), or as `fail` read it back
