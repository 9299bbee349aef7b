"""Personal API tokens: how a notebook, a CI job or a BI tool signs in to /api/v1/ as one of the site's users.

A token is shown once, when it is made; only its SHA-256 is kept (``token_hash``), next to a short public ``key``
that finds the row without searching by the secret (config/tokens.py compares the hash in constant time).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class TokenScope(models.TextChoices):
    READ = "read", "Read"
    WRITE = "write", "Read and write"


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What the token is for, e.g. “capacity notebook”.")
    scope = models.CharField(max_length=5, choices=TokenScope.choices, default=TokenScope.READ)
    key = models.CharField(max_length=16, unique=True, editable=False, help_text="The token's public start.")
    token_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Blank: never expires.")
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.key}…)"

    def is_active(self, now=None) -> bool:
        now = now or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)

    @property
    def state(self) -> str:
        """In words, for the token page and the admin: active, expired or revoked."""
        if self.revoked_at is not None:
            return "revoked"
        return "active" if self.is_active() else "expired"
