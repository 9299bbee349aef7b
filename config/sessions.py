"""Sessions: Django's ``cached_db`` store, which reads a session from the cache and falls back to the database.

Django's store survives a failed cache read but not a failed write, so with Redis down every signed-in request would
answer 500. Here the cache is asked through ``lib.caching.FailSoft``: while it is down or frozen, sessions are read
from and written to the database alone, after one bounded wait (the cache's socket timeouts).
"""

from __future__ import annotations

from django.contrib.sessions.backends import cached_db

from lib.caching import FailSoft


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._cache = FailSoft(self._cache)
