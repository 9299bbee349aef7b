"""Values kept in Django's cache (Redis when ``REDIS_URL`` is set, shared by every process; local memory otherwise)
under keys that name everything they depend on, so an entry never needs invalidating.

The cache only saves work: while it is down or frozen the value is built as if it were empty, the failure is logged
once, and the cache is left alone for a while so no request waits on it twice (its socket timeouts bound the one
wait, see ``REDIS_CACHE_OPTIONS``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

logger = logging.getLogger(__name__)
Value = TypeVar("Value")
PAUSE_SECONDS = 30.0  # after a failure, how long the cache is not asked
_paused_until = 0.0
_lock = threading.Lock()


def kept(key: str, build: Callable[[], Value], *, timeout: int, keep: Callable[[], bool] | None = None) -> Value:
    """The value under ``key``, built on a miss and kept for ``timeout`` seconds unless ``keep()`` (asked after
    building) says no: for a value whose key was read from the database, which may have changed meanwhile."""
    value = _call(cache.get, key)
    if value is None:
        value = build()
        if keep is None or keep():
            _call(cache.set, key, value, timeout)
    return value


def remember(key: str, value: Any, *, timeout: int) -> None:
    """Keep ``value`` under ``key`` for ``timeout`` seconds (skipped while the cache is down)."""
    _call(cache.set, key, value, timeout)


def recall_many(keys: list[str]) -> dict[str, Any]:
    """The values kept under ``keys`` (those missing, or all while the cache is down, left out)."""
    return _call(cache.get_many, keys) or {}


class FailSoft:
    """A cache whose every call goes through the same rule as ``kept``: while the cache is down or frozen a read is
    a miss and a write is skipped (for Django's ``cached_db`` sessions, which then read and write the database
    alone instead of answering 500)."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._wrapped, name)
        if not callable(method):
            return method
        return lambda *args, **kwargs: _call(lambda: method(*args, **kwargs))

    def __contains__(self, key: str) -> bool:
        return bool(_call(lambda: key in self._wrapped))


def _call(method: Callable[..., Any], *args: Any) -> Any:
    global _paused_until
    if time.monotonic() < _paused_until:
        return None
    try:
        return method(*args)
    except Exception as error:  # redis ConnectionError / TimeoutError, or any cache failure: render without it
        with _lock:
            first = time.monotonic() >= _paused_until
            _paused_until = time.monotonic() + PAUSE_SECONDS
        if first:
            logger.warning("cache unavailable, rendering without it for %.0f s: %s", PAUSE_SECONDS, error)
        return None


def resume() -> None:
    """Ask the cache again at once (the test suite does, between tests)."""
    global _paused_until
    _paused_until = 0.0
