"""The `config` app: connects the sign-in signals to the audit log; holds the personal API tokens."""

from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The project's own wiring: security signals (config/audit.py), error pages, API tokens (config/models.py)."""

    name = "config"
    verbose_name = "Site"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from config import audit

        user_login_failed.connect(audit.on_login_failed, dispatch_uid="config.audit.login_failed")
        user_logged_in.connect(audit.on_logged_in, dispatch_uid="config.audit.logged_in")
