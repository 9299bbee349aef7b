"""Roles are Django groups (created by tco's first migration): viewers read, editors change.

Superusers count as editors. Both apps ask here, so a role means the same on every page. Editors who are
also staff maintain the reference data in the admin (EDITOR_ADMIN_PERMISSIONS, granted after every migrate).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

VIEWERS = "viewers"
EDITORS = "editors"

# What an editor may do in the admin: keep the reference data (providers, GPU models and their aliases,
# scheduled import and throughput sources, exchange rates typed in, language models, throughput measured by
# hand). Imported prices and measurements, and their imports, are history: view only.
EDITOR_ADMIN_PERMISSIONS = {
    "pricing.provider": ("view", "add", "change"),
    "pricing.gpumodel": ("view", "add", "change"),
    "pricing.gpualias": ("view", "add", "change", "delete"),
    "pricing.importsource": ("view", "add", "change", "delete"),
    "pricing.exchangerate": ("view", "add", "change"),
    "pricing.languagemodel": ("view", "add", "change"),
    "pricing.throughputmeasurement": ("view", "add"),
    "pricing.throughputimport": ("view",),
    "pricing.throughputsource": ("view", "add", "change", "delete"),
    "pricing.pricesnapshot": ("view",),
    "pricing.priceobservation": ("view",),
}


def _roles(user: AbstractBaseUser) -> frozenset[str]:
    """The user's roles (VIEWERS, EDITORS): one ORM query, once per user object, that is once per request."""
    cached = getattr(user, "_roles", None)
    if cached is None:
        cached = frozenset(user.groups.filter(name__in=(VIEWERS, EDITORS)).values_list("name", flat=True))
        user._roles = cached
    return cached


def is_editor(user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and (user.is_superuser or EDITORS in _roles(user))


def is_reader(user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and (user.is_superuser or bool(_roles(user)))


def grant_editor_permissions(**kwargs) -> None:
    """post_migrate: give the editors group exactly EDITOR_ADMIN_PERMISSIONS (idempotent; the permission rows
    only exist once every app has migrated, hence a signal rather than a data migration)."""
    from django.contrib.auth.models import Group, Permission

    editors, _ = Group.objects.get_or_create(name=EDITORS)
    wanted = Permission.objects.none()
    for model, actions in EDITOR_ADMIN_PERMISSIONS.items():
        app_label, model_name = model.split(".")
        wanted |= Permission.objects.filter(
            content_type__app_label=app_label,
            content_type__model=model_name,
            codename__in=[f"{action}_{model_name}" for action in actions],
        )
    editors.permissions.set(wanted)
