"""Settings for the test suite: the one settings module, with a throwaway secret key when none is given.

So a bare ``pytest`` works from the project root (pyproject.toml names this module). Everything else still comes
from the environment: without DATABASE_URL and REDIS_URL the suite runs embedded (SQLite, jobs in-process), with
them against PostgreSQL and Redis (``.ci/run``'s scale-out mode).
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-not-for-production")

from config.settings import *  # noqa: F403
