from __future__ import annotations

import copy
import uuid

import pytest


@pytest.fixture(autouse=True)
def _own_throttle_counters(settings):
    """Each test counts sign-in failures under its own cache prefix (the cache may be a shared Redis)."""
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = f"test-{uuid.uuid4().hex}"
    settings.CACHES = caches
