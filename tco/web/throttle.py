"""A per-client request limit kept in the cache, so every web process behind a load balancer shares the count
(Redis when REDIS_URL is set; a per-process memory cache otherwise)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from config import ratelimit
from config.ratelimit import client_ip

logger = logging.getLogger(__name__)


def hit(request: HttpRequest, *, scope: str, limit: int, window_seconds: int = 60) -> bool:
    """Count one request of this client in the current window (``config.ratelimit``, shared with the login
    throttle); True while the count is within `limit`. Fails open: when the cache (Redis) is down or frozen the
    request is let through and the error logged; the cache's short socket timeouts bound the wait."""
    try:
        found = ratelimit.usage(
            request, scope=scope, ident=client_ip(request), limit=limit, window_seconds=window_seconds, add=True
        )
    except Exception as error:  # redis ConnectionError / TimeoutError, or any cache failure
        logger.warning("%s rate limit not enforced: the cache is unavailable (%s)", scope, error)
        return True
    return found.count <= limit


def too_many_requests(window_seconds: int = 60) -> HttpResponse:
    response = HttpResponse(
        "Too many requests from your address. Wait a minute and try again.\n",
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(window_seconds)
    return response


def limit_per_client(scope: str, setting: str, default: int) -> Callable:
    """Decorate a view: at most `settings.<setting>` (else `default`) requests per client IP per minute."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not hit(request, scope=scope, limit=getattr(settings, setting, default)):
                return too_many_requests()
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
