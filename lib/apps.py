from __future__ import annotations

from django.apps import AppConfig


class LibConfig(AppConfig):
    name = "lib"
    verbose_name = "Shared presentation library"
