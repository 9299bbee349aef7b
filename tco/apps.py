from __future__ import annotations

from django.apps import AppConfig


class TcoConfig(AppConfig):
    name = "tco"
    verbose_name = "Build vs rent (TCO)"
