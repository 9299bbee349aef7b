"""Celery app. Without REDIS_URL the settings make tasks run in-process (eager)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="config.ping", ignore_result=False)  # the one job whose result is read
def ping() -> dict:
    """Report which process ran the task: lets the integration tests prove a real worker exists."""
    import socket

    return {"pid": os.getpid(), "hostname": socket.gethostname()}
