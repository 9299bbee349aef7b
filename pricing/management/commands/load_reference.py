"""Load the reference data every deployment needs: `manage.py load_reference [PATH]` (run after `migrate`)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing import services


class Command(BaseCommand):
    help = (
        "Create the providers (with their SkyPilot cloud names as aliases), GPU models, GPU aliases and language "
        "models of fixtures/reference.json that are missing, and give GPU models without a spec source the "
        "fixture's sizing figures. Rows that exist are left as edited in the admin; safe to rerun."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default="", help="A reference fixture; default fixtures/reference.json.")

    def handle(self, *args, path: str, **options) -> None:
        fixture = Path(path) if path else Path(settings.BASE_DIR) / "fixtures" / "reference.json"
        if not fixture.is_file():
            raise CommandError(f"{fixture}: no such file.")
        created = services.reference_data_load(path=fixture)
        filled = created.pop("gpu_specs", 0)
        text = "Reference data loaded: " + ", ".join(f"{n} new {what}" for what, n in created.items())
        self.stdout.write(text + f"; sizing figures given to {filled} GPU models")
