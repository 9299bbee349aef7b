"""Security events on the `config.audit` logger, one JSON line each: sign-ins that failed or were throttled,
sign-ins, every change made in the admin (from its LogEntry rows) and every write through the API (with its token's
name)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone

from config import login_throttle, ratelimit

logger = logging.getLogger("config.audit")
ADMIN_ACTIONS = {ADDITION: "added", CHANGE: "changed", DELETION: "deleted"}


def _log(level: int, event: str, request: HttpRequest | None, **fields) -> None:
    context = {"client_ip": ratelimit.client_ip(request), "request_id": getattr(request, "request_id", None)}
    logger.log(level, json.dumps({"event": event, **fields, **(context if request is not None else {})}))


def on_login_failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    """user_login_failed: log it (credentials arrive with the password already masked) and count it."""
    username = str(credentials.get("username", ""))[:150]
    throttled = bool(getattr(request, "login_retry_after", 0))
    _log(logging.WARNING, "login_throttled" if throttled else "login_failed", request, username=username)
    if request is not None and not throttled:
        login_throttle.failure_record(request=request, username=username)


def on_logged_in(sender, request: HttpRequest | None, user, **kwargs) -> None:
    _log(logging.INFO, "login", request, user_id=user.pk, username=user.get_username())


class AdminAuditMiddleware:
    """After each POST to the admin, log the LogEntry rows it wrote (a bulk delete writes them without signals)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.admin_prefix = None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self.admin_prefix is None:
            self.admin_prefix = reverse("admin:index")
        if request.method != "POST" or not request.path.startswith(self.admin_prefix):
            return self.get_response(request)
        started = timezone.now()
        response = self.get_response(request)
        if request.user.is_authenticated:
            entries = LogEntry.objects.filter(user=request.user, action_time__gte=started).select_related(
                "content_type"
            )
            for entry in entries.order_by("pk"):
                _log(
                    logging.INFO,
                    "admin_change",
                    request,
                    user_id=request.user.pk,
                    action=ADMIN_ACTIONS.get(entry.action_flag, str(entry.action_flag)),
                    model=f"{entry.content_type.app_label}.{entry.content_type.model}" if entry.content_type else None,
                    object_id=entry.object_id,
                    object=entry.object_repr,
                    change=entry.get_change_message(),
                )
        return response


def on_api_write(request: HttpRequest, *, token, status: int) -> None:
    """A write through the API (config/api/site.py): who, with which token, what, and how it ended."""
    _log(
        logging.INFO,
        "api_write",
        request,
        user_id=token.user_id,
        username=token.user.get_username(),
        token=token.name,
        token_key=token.key,
        method=request.method,
        path=request.path,
        status=status,
    )
