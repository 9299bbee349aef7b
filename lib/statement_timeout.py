"""PostgreSQL's statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS, set on every connection in config/settings.py):
a web request's statement past it is cancelled and the reader told so; imports and migrations lift it.

A slow statement must not hold a gunicorn worker until gunicorn kills it (a bare 500 after 30 s, the others
queued behind it). Work that is meant to be long (an import of 200,000 rows, a migration over millions) runs
without the limit and under its own: the job's time limit, the operator's watch.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connection, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

QUERY_CANCELED = "57014"  # SQLSTATE of a statement cancelled by statement_timeout (or by an administrator)
logger = logging.getLogger(__name__)


def is_statement_timeout(error: BaseException) -> bool:
    return isinstance(error, OperationalError) and getattr(error.__cause__, "sqlstate", None) == QUERY_CANCELED


# What this request's writes committed: (their words, the headers that tell the page), set per request by the
# middleware. A statement cancelled after a save (the answer's reads) must not be reported as "Nothing was changed".
_committed: ContextVar[list[CommittedWrite] | None] = ContextVar("committed_writes", default=None)


class CommittedWrite:
    """A write this request committed: its words ("version 7 of “H100 plan”"), the headers that tell the page (the
    scenario's new version), and what to do if the page never showed it (``unseen``: called by the timeout page)."""

    def __init__(self, words: str, headers: Mapping[str, str], unseen: Callable[[], None] | None) -> None:
        self.words, self.headers, self.unseen = words, dict(headers), unseen


def note_write_committed(
    words: str, headers: Mapping[str, str] | None = None, *, unseen: Callable[[], None] | None = None
) -> None:
    """Called by a write inside its transaction: once the transaction commits, a statement timeout later in the same
    request says the write was saved, answers with ``headers`` and calls ``unseen`` (the page showing the edit never
    came: the writer may keep editing from the version before it)."""
    saved = _committed.get()
    if saved is not None:
        write = CommittedWrite(words, headers or {}, unseen)
        transaction.on_commit(lambda: saved.append(write))


def timeout_page(request: HttpRequest, error: BaseException) -> HttpResponse:
    """The 503 page of a cancelled statement: what happened, what was saved before it, and what to try."""
    logger.warning("statement timeout on %s %s: %s", request.method, request.path, error)
    seconds = settings.DATABASE_STATEMENT_TIMEOUT_MS / 1000
    saved = _committed.get() or []
    # Rendered without the database (the request's transaction may be aborted), like the 500 page.
    html = render_to_string("statement_timeout.html", {"seconds": f"{seconds:g}", "saved": [w.words for w in saved]})
    headers = {"Retry-After": "30"}
    for write in saved:
        headers.update(write.headers)
        if write.unseen is not None:
            write.unseen()
    return HttpResponse(html, status=503, headers=headers)


class StatementTimeoutMiddleware:
    """A view whose statement was cancelled answers 503 with the page that says so (``timeout_page``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _committed.set([])
        try:
            return self.get_response(request)
        finally:
            _committed.reset(token)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return timeout_page(request, exception) if is_statement_timeout(exception) else None


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a statement cancelled outside a view (a middleware's query: the session, the user's roles),
    which no middleware's ``process_exception`` sees, gets the same 503 page; anything else the plain 500 page."""
    error = sys.exc_info()[1]
    if error is not None and is_statement_timeout(error):
        return timeout_page(request, error)
    return defaults.server_error(request)


@contextmanager
def statement_timeout_lifted() -> Iterator[None]:
    """No statement timeout on this connection inside the block (on PostgreSQL); the one before is given back."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        (before,) = cursor.fetchone()
        cursor.execute("SET statement_timeout = 0")
    try:
        yield
    finally:
        if not connection.needs_rollback:  # a transaction being rolled back undoes the SET by itself
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('statement_timeout', %s, false)", [before])


_before_migrations: dict[str, str] = {}  # database alias -> its statement_timeout while migrations run


def lift_for_migrations(*, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """pre_migrate (sent once per app): a migration over millions of rows (an index, a backfill) may take minutes."""
    if connections[using].vendor != "postgresql" or using in _before_migrations:
        return
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        (_before_migrations[using],) = cursor.fetchone()
        cursor.execute("SET statement_timeout = 0")


def restore_after_migrations(*, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """post_migrate: the setting before migrating back (the test suite goes on on the same connection)."""
    before = _before_migrations.pop(using, None)
    if before is not None:
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [before])
