"""A per-client request limit kept in the cache, so every web process behind a load balancer shares the count
(Redis when REDIS_URL is set; a per-process memory cache otherwise)."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address. Behind `TRUSTED_PROXY_HOPS` proxies that append to X-Forwarded-For, the address
    the outermost trusted proxy saw; otherwise the socket's peer (a client-supplied header is never trusted)."""
    hops = getattr(settings, "TRUSTED_PROXY_HOPS", 0)
    if hops:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _now() -> float:
    return time.time()


def hit(*, scope: str, ident: str, limit: int, window_seconds: int = 60) -> bool:
    """Count one request of `ident` in the current fixed window; True while the count is within `limit`.
    Fails open: when the cache (Redis) is down or frozen the request is let through and the error logged;
    the cache's short socket timeouts (settings.REDIS_CACHE_OPTIONS) bound the wait."""
    window = int(_now() // window_seconds)
    digest = hashlib.sha256(ident.encode("utf-8")).hexdigest()[:32]
    key = f"throttle:{scope}:{digest}:{window}"
    try:
        cache.add(key, 0, timeout=window_seconds * 2)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window_seconds * 2)
            count = 1
    except Exception as error:  # redis ConnectionError / TimeoutError, or any cache failure
        logger.warning("%s rate limit not enforced: the cache is unavailable (%s)", scope, error)
        return True
    return count <= limit


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
            limit = getattr(settings, setting, default)
            if not hit(scope=scope, ident=client_ip(request), limit=limit):
                return too_many_requests()
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
