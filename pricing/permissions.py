from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User


def is_editor(user: User | AnonymousUser) -> bool:
    """Editors may import prices: members of the `editors` group, and superusers."""
    if not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name="editors").exists()
