"""Make a personal API token for a user (automation: CI, a scheduled notebook). The token alone is the last line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from config.models import TokenScope
from config.tokens import TokenError, api_token_create


class Command(BaseCommand):
    help = "Create an API token for USER and print it (shown once; only its hash is kept)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username", help="the user the token acts as (its roles are theirs)")
        parser.add_argument("--scope", choices=TokenScope.values, default=TokenScope.READ)
        parser.add_argument("--name", default="command line", help="what the token is for")
        parser.add_argument("--expires-days", type=int, default=None, help="days until it expires (default: never)")

    def handle(self, *args, username: str, scope: str, name: str, expires_days: int | None, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"There is no user {username!r}.")
        try:
            row, token = api_token_create(user=user, name=name, scope=scope, expires_days=expires_days)
        except TokenError as error:
            raise CommandError(str(error)) from None
        expiry = row.expires_at.strftime("%Y-%m-%d %H:%M UTC") if row.expires_at else "never"
        self.stderr.write(f"{row.get_scope_display()} token “{row.name}” for {username}, expires {expiry}:")
        self.stdout.write(token)
