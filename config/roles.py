"""Roles are Django groups (created by tco's first migration): viewers read, editors change.

Superusers count as editors. Both apps ask here, so a role means the same on every page. Editors who are
also staff maintain the reference data in the admin (EDITOR_ADMIN_PERMISSIONS, granted after every migrate).
"""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import ValidationError

VIEWERS = "viewers"
EDITORS = "editors"

# What an editor may do in the admin: keep the reference data (providers, GPU models and their aliases,
# scheduled import sources, exchange rates typed in). Imported prices and their snapshots are history: view only.
EDITOR_ADMIN_PERMISSIONS = {
    "pricing.provider": ("view", "add", "change"),
    "pricing.gpumodel": ("view", "add", "change"),
    "pricing.gpualias": ("view", "add", "change", "delete"),
    "pricing.importsource": ("view", "add", "change", "delete"),
    "pricing.exchangerate": ("view", "add", "change"),
    "pricing.pricesnapshot": ("view",),
    "pricing.priceobservation": ("view",),
}


def _roles(user: AbstractBaseUser) -> frozenset[str]:
    """The user's roles (VIEWERS, EDITORS), read once per user object, that is once per request (RoleBackend reads
    them with the user)."""
    cached = getattr(user, "_roles", None)
    if cached is None:
        cached = frozenset(user.groups.filter(name__in=(VIEWERS, EDITORS)).values_list("name", flat=True))
        user._roles = cached
    return cached


class RoleBackend(ModelBackend):
    """Django's ModelBackend, except that each request's signed-in user is read together with their roles: one
    query instead of two on every page, still read fresh on every request. Plain SQL: compiling the ORM's version
    of this query cost more than the query it saves."""

    def get_user(self, user_id):
        users = get_user_model()
        try:
            pk = users._meta.pk.to_python(user_id)  # sessions hold it as text
        except ValidationError:
            return None
        user = next(iter(users._default_manager.raw(_user_with_roles_sql(), [pk])), None)
        if user is None or not self.user_can_authenticate(user):
            return None
        user._roles = frozenset(role for role in (VIEWERS, EDITORS) if getattr(user, f"is_in_{role}"))
        return user


@functools.cache
def _user_with_roles_sql() -> str:
    users = get_user_model()
    memberships = users._meta.get_field("groups").remote_field.through._meta
    user_column = memberships.get_field(users._meta.model_name).column
    group_column = memberships.get_field("group").column

    def member_of(role: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM {memberships.db_table} m JOIN {Group._meta.db_table} g ON g.id = m.{group_column} "
            f"WHERE m.{user_column} = u.{users._meta.pk.column} AND g.name = '{role}') AS is_in_{role}"
        )

    return (
        f"SELECT u.*, {member_of(VIEWERS)}, {member_of(EDITORS)} "
        f"FROM {users._meta.db_table} u WHERE u.{users._meta.pk.column} = %s"
    )


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
