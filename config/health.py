"""Probes for the load balancer: /healthz (the process answers; touches nothing) and /readyz (it can serve:
the database answers and, in scale-out mode, the Celery broker does)."""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 1.0


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _broker() -> str:
    if not settings.REDIS_URL:
        return "not needed"  # embedded mode: jobs run in-process
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=BROKER_TIMEOUT_SECONDS, socket_timeout=BROKER_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


CHECKS = {"database": _database, "broker": _broker}


@login_not_required
@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@login_not_required
@require_GET
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            checks[name] = check()
        except Exception as error:  # any failure means "not ready"; the reason goes to the log, not the body
            logger.warning("readyz: %s is down: %s", name, error)
            checks[name] = "down"
    down = [name for name, state in checks.items() if state == "down"]
    body = {"status": "down" if down else "ok", "down": down, **checks}
    return JsonResponse(body, status=503 if down else 200)
