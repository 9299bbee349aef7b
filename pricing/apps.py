"""The pricing app's config."""

from __future__ import annotations

from django.apps import AppConfig


class PricingConfig(AppConfig):
    name = "pricing"
    verbose_name = "GPU pricing"
