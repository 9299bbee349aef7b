"""Personal API tokens: made (shown once), checked on every API request, revoked.

A token reads ``gpc_<key>_<secret>``: the key (public, 8 characters) finds the row, the secret (32 random bytes)
is never stored; the row keeps the SHA-256 of the whole token and the check compares it in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from config.models import ApiToken, TokenScope
from lib.errors import AppError

PREFIX = "gpc_"
NAME_MAX = 100
EXPIRES_DAYS_MAX = 3650
# last_used_at is written at most this often per token: a busy script costs one UPDATE a minute, not one a request.
LAST_USED_EVERY = timedelta(minutes=1)


class TokenError(AppError, ValueError):
    """A token that cannot be made as asked: the message names the field."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_token_create(
    *, user: AbstractBaseUser, name: str, scope: str, expires_days: int | None = None
) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the token itself, which is never stored or shown again."""
    name = (name or "").strip()
    if not name:
        raise TokenError("Give the token a name that says what it is for.", field="name")
    if len(name) > NAME_MAX:
        raise TokenError(f"The name can be at most {NAME_MAX} characters; it has {len(name)}.", field="name")
    if scope not in TokenScope.values:
        raise TokenError(f"The scope is read or write, not {scope!r}.", field="scope")
    if expires_days is not None and not 1 <= expires_days <= EXPIRES_DAYS_MAX:
        raise TokenError(
            f"A token can last 1 to {EXPIRES_DAYS_MAX} days (or never expire); {expires_days} is outside that.",
            field="expires_days",
        )
    key = secrets.token_hex(4)
    while ApiToken.objects.filter(key=key).exists():  # 4 billion keys: a clash is rare, never fatal
        key = secrets.token_hex(4)
    token = f"{PREFIX}{key}_{secrets.token_urlsafe(32)}"
    now = timezone.now()
    row = ApiToken.objects.create(
        user=user,
        name=name,
        scope=scope,
        key=key,
        token_hash=token_hash(token),
        created_at=now,
        expires_at=None if expires_days is None else now + timedelta(days=expires_days),
    )
    return row, token


def api_token_revoke(*, token: ApiToken, by: AbstractBaseUser | None) -> bool:
    """Revoke for good; False when it was already revoked (nothing changes then)."""
    revoked_by = by if by is not None and by.is_authenticated else None
    return bool(
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=revoked_by
        )
    )


def api_token_check(token: str) -> ApiToken | None:
    """The active token ``token`` is (its user loaded), or None: malformed, unknown, wrong secret, expired, revoked
    or its user deactivated. Records the use (at most once a minute)."""
    if not token.startswith(PREFIX) or len(token) > 200:
        return None
    key, _, secret = token[len(PREFIX) :].partition("_")
    if not key or not secret:
        return None
    row = next(iter(ApiToken.objects.select_related("user").order_by().filter(key=key)[:1]), None)
    if row is None or not hmac.compare_digest(row.token_hash, token_hash(token)):
        return None
    now = timezone.now()
    if not row.is_active(now) or not row.user.is_active:
        return None
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used_at=now)
        row.last_used_at = now
    return row
