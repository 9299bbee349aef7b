"""The `lib` app: its template filters, and the statement timeout lifted while migrations run."""

from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_migrate


class LibConfig(AppConfig):
    name = "lib"
    verbose_name = "Shared presentation library"

    def ready(self) -> None:
        from lib.statement_timeout import lift_for_migrations, restore_after_migrations

        pre_migrate.connect(lift_for_migrations, dispatch_uid="lib.statement_timeout.lift")
        post_migrate.connect(restore_after_migrations, dispatch_uid="lib.statement_timeout.restore")
