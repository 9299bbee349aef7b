"""Who is asking: a personal API token in ``Authorization: Bearer <token>`` (config/tokens.py), counted against its
per-minute limit, and what it may do: its user's role (config/roles.py), never more than its scope."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest
from ninja.security import HttpBearer

from config import ratelimit
from config.api.problems import ApiProblem
from config.models import ApiToken, TokenScope
from config.roles import is_editor, is_reader
from config.tokens import api_token_check

logger = logging.getLogger(__name__)
WINDOW_SECONDS = 60


class TokenAuth(HttpBearer):
    """A request with no token or a bad one (unknown, expired, revoked) gets 401; over the limit, 429."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        row = api_token_check(token)
        if row is None:
            return None
        request.user = row.user
        request.api_token = row
        _count(request, row)
        if not is_reader(row.user):
            raise ApiProblem(403, "Your account has no role yet (viewers read, editors change); ask an admin.")
        return row


def _count(request: HttpRequest, row: ApiToken) -> None:
    """One more request for this token in the current minute; 429 with Retry-After past API_REQUESTS_PER_MINUTE.
    Fails open when the cache is down (as the other limits do)."""
    limit = settings.API_REQUESTS_PER_MINUTE
    try:
        used = ratelimit.usage(
            request, scope="api", ident=str(row.pk), limit=limit, window_seconds=WINDOW_SECONDS, add=True
        )
    except Exception as error:  # redis ConnectionError / TimeoutError, or any cache failure
        logger.warning("API rate limit not enforced: the cache is unavailable (%s)", error)
        return
    if used.count > limit:
        raise ApiProblem(
            429,
            f"This token made more than {limit} requests this minute; wait {used.seconds_left} s and try again.",
            headers={"Retry-After": str(used.seconds_left)},
        )


def require_write(request: HttpRequest) -> None:
    """A write needs a token of write scope whose user is an editor (the pages' rule): else 403, nothing written."""
    token: ApiToken = request.api_token
    if token.scope != TokenScope.WRITE:
        raise ApiProblem(403, f"The token “{token.name}” has read scope; writing needs a token with write scope.")
    if not is_editor(request.user):
        raise ApiProblem(403, "Changing scenarios and importing prices needs the editor role; your role reads only.")
