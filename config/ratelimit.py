"""Fixed-window counters in the cache, so every web process behind a load balancer shares them (Redis when
REDIS_URL is set; a per-process memory cache otherwise). The same approach as the decision-link limiter."""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


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


def _key(scope: str, ident: str, window_seconds: int) -> str:
    window = int(_now() // window_seconds)
    digest = hashlib.sha256(ident.encode("utf-8")).hexdigest()[:32]
    return f"throttle:{scope}:{digest}:{window}"


def count(*, scope: str, ident: str, window_seconds: int) -> int:
    """How often `ident` was counted in the current window."""
    return cache.get(_key(scope, ident, window_seconds), 0)


def add(*, scope: str, ident: str, window_seconds: int) -> int:
    """Count one more for `ident` in the current window; the new count."""
    key = _key(scope, ident, window_seconds)
    cache.add(key, 0, timeout=window_seconds * 2)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window_seconds * 2)
        return 1


def seconds_left(window_seconds: int) -> int:
    """Seconds until the current window ends (when its counts no longer apply)."""
    return max(1, int(window_seconds - _now() % window_seconds))
