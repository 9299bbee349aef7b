"""Django's database sessions, read with one plain SQL statement.

Every signed-in request reads its session first; compiling the ORM's version of this one-row query cost more than
running it (as for the user and their roles, config.roles.RoleBackend). Same table, same rows: nothing else changes.
"""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.utils import timezone


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        rows = self.model.objects.raw(_session_sql(self.model), [self.session_key, timezone.now()])
        session = next(iter(rows), None)
        if session is None:  # unknown or expired: a new, empty session, as Django's own store does
            self._session_key = None
        return session


@functools.cache
def _session_sql(model) -> str:
    fields = {name: model._meta.get_field(name).column for name in ("session_key", "session_data", "expire_date")}
    return (
        f"SELECT {', '.join(fields.values())} FROM {model._meta.db_table} "
        f"WHERE {fields['session_key']} = %s AND {fields['expire_date']} > %s"
    )
