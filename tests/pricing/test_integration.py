"""Scale-out mode only: an uploaded file's import goes through Redis to the separate Celery worker."""

from __future__ import annotations

import os
import time

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pricing import services
from pricing.models import PriceObservation, PriceSnapshot, SnapshotStatus
from tests.pricing.conftest import FIXTURES, SAMPLES

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL and start a worker)"),
]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_an_uploaded_import_runs_on_the_separate_worker(client):
    from config.celery import app

    assert app.conf.task_always_eager is False
    services.reference_data_load(path=FIXTURES / "reference.json")
    client.force_login(User.objects.create_superuser("importer", password="pw-for-tests-1"))
    upload = SimpleUploadedFile("nebius.csv", (SAMPLES / "nebius/vms.csv").read_bytes())
    data = {"file": upload, "format": "skypilot", "provider": "Nebius", "observed_on": "2026-11-01"}
    assert client.post(reverse("pricing:price_import"), data).status_code == 302
    snapshot = PriceSnapshot.objects.get()

    deadline = time.monotonic() + 30
    while not snapshot.is_finished and time.monotonic() < deadline:
        time.sleep(0.2)
        snapshot.refresh_from_db()
    assert snapshot.status == SnapshotStatus.IMPORTED, snapshot.errors
    assert snapshot.processed_by and not snapshot.processed_by.endswith(f" pid {os.getpid()}")
    assert PriceObservation.objects.filter(snapshot=snapshot).count() == 29
