"""The decision-link open-rate limiter counts in Redis; with Redis down or frozen it fails open, fast, logged.

No real Redis is needed: a loopback port nobody listens on is "down", and a loopback socket that accepts
connections but never answers is "frozen" (what a stopped or overloaded Redis looks like to a client).
"""

from __future__ import annotations

import logging
import socket
import time

import pytest


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def frozen_port():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)  # the kernel completes connections; nothing ever reads or answers
    yield server.getsockname()[1]
    server.close()


def _redis_cache(settings, port: int) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }


@pytest.mark.parametrize("redis_state", ["down", "frozen"])
def test_a_decision_link_opens_at_once_while_redis_is_down_or_frozen(
    request, settings, link_path, anon, caplog, redis_state
):
    port = request.getfixturevalue(f"{'closed' if redis_state == 'down' else 'frozen'}_port")
    _redis_cache(settings, port)

    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="tco.throttle"):
        response = anon.get(link_path)
    elapsed = time.monotonic() - started

    assert response.status_code == 200
    assert elapsed < 2.0, f"the page waited {elapsed:.1f} s for Redis"
    assert any("rate limit" in record.getMessage() for record in caplog.records), caplog.text


def test_an_unknown_token_is_still_the_plain_404_while_redis_is_down(db, settings, closed_port, anon):
    _redis_cache(settings, closed_port)
    assert anon.get("/d/" + "x" * 43).status_code == 404
