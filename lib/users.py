"""Who did it: the signed-in user a write is attributed to, or None (anonymous requests, commands, tasks)."""

from __future__ import annotations

from typing import Any


def signed_in_user(user: Any) -> Any:
    """``user`` when it is a signed-in account, else None (an AnonymousUser or no user at all)."""
    return user if user is not None and getattr(user, "is_authenticated", False) else None
