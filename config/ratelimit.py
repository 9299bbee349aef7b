"""Request counters over fixed windows, kept by django-ratelimit in Django's cache: every web process behind a
load balancer shares them (Redis when REDIS_URL is set; a per-process memory cache otherwise). Both limiters
use them: failed sign-ins (config/login_throttle.py) and decision-link opens (tco/web/throttle.py).

Only the client's address is the project's own (which proxies to trust). A cache that is down raises here; each
limiter decides to fail open.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage


def client_ip(request: HttpRequest) -> str:
    """The client's address. Behind `TRUSTED_PROXY_HOPS` proxies that append to X-Forwarded-For, the address
    the outermost trusted proxy saw; otherwise the socket's peer (a client-supplied header is never trusted)."""
    hops = getattr(settings, "TRUSTED_PROXY_HOPS", 0)
    if hops:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


@dataclass(frozen=True)
class Usage:
    count: int  # how often `ident` was counted in the current window
    seconds_left: int  # until the window ends (when its count no longer applies)


def usage(request: HttpRequest, *, scope: str, ident: str, limit: int, window_seconds: int, add: bool) -> Usage:
    """The count of `ident` in `scope`'s current window, one more first when `add`. Raises when the cache does."""
    found = get_usage(
        request,
        group=scope,
        key=lambda group, request: ident,
        rate=(limit, window_seconds),
        increment=add,
    )
    if found is None:  # RATELIMIT_ENABLE is off
        return Usage(count=0, seconds_left=window_seconds)
    # A count that vanished between django-ratelimit's add and incr comes back as 0 (with a limit of 0): it counts
    # as nothing yet, never as over the limit.
    # The window's last second still counts (django-ratelimit's window ends at time_left, inclusive).
    return Usage(count=found["count"], seconds_left=found["time_left"] + 1)
