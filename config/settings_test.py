"""Settings for the test suite: the one settings module, with a throwaway secret key when none is given.

So a bare ``pytest`` works from the project root (pyproject.toml names this module). Everything else still comes
from the environment: without DATABASE_URL and REDIS_URL the suite runs embedded (SQLite, jobs in-process), with
them against PostgreSQL and Redis (``.ci/run``'s scale-out mode).
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-not-for-production")
# A busy CI machine must not cancel a test's statement (bulk inserts, the end-of-test constraint checks) at the
# production default of 10 s; tests of the timeout itself set their own.
os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT_MS", "60000")

from config.settings import *  # noqa: F403

# Tests create users with passwords, some in fixtures shared by a module (the demo data's users): the production
# hasher would cost ~0.3 s for each.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A test database is thrown away: PostgreSQL need not wait for each commit to reach the disk (a crash loses at most
# the last commits, never consistency). The suite's flushes, schema changes and short transactions are commits.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    _options = DATABASES["default"]["OPTIONS"]  # noqa: F405
    _options["options"] = f"{_options['options']} -c synchronous_commit=off"
