"""API tokens in the admin: a superuser sees every user's tokens (never the secret) and revokes any."""

from __future__ import annotations

from django.contrib import admin, messages

from config.models import ApiToken
from config.tokens import api_token_revoke


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "scope", "key", "state", "created_at", "expires_at", "last_used_at", "revoked_at"]
    list_filter = ["scope", "revoked_at"]
    search_fields = ["name", "user__username", "key"]
    readonly_fields = [
        "user",
        "name",
        "scope",
        "key",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
        "revoked_by",
    ]
    fields = readonly_fields
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:  # made on the token page or by `manage.py api_token`
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset) -> None:
        revoked = sum(api_token_revoke(token=token, by=request.user) for token in queryset)
        self.message_user(request, f"Revoked {revoked} token{'s' if revoked != 1 else ''}.", messages.SUCCESS)
