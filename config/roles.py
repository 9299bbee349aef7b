"""Roles are Django groups (created by tco's first migration): viewers read, editors change.

Superusers count as editors. Both apps ask here, so a role means the same on every page.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

VIEWERS = "viewers"
EDITORS = "editors"


def _group_names(user: AbstractBaseUser) -> frozenset[str]:
    """The user's group names, read once per user object (that is, once per request)."""
    cached = getattr(user, "_group_names", None)
    if cached is None:
        cached = frozenset(user.groups.values_list("name", flat=True))
        user._group_names = cached
    return cached


def is_editor(user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and (user.is_superuser or EDITORS in _group_names(user))


def is_reader(user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and (user.is_superuser or bool({VIEWERS, EDITORS} & _group_names(user)))
