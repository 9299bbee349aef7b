"""The tco app's config; grants the editors' permissions after migrations."""

from __future__ import annotations

from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "Build vs rent (TCO)"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from config.roles import grant_editor_permissions

        # tco owns the roles (its first migration creates the groups); run once, after the last app migrated.
        post_migrate.connect(grant_editor_permissions, sender=self, dispatch_uid="tco.grant_editor_permissions")
