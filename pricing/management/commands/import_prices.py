"""Import a price file or URL: `manage.py import_prices PATH_OR_URL [--format] [--provider] [--observed-on]`."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing import fetch, services
from pricing.importers import registry
from pricing.models import SnapshotOrigin, SnapshotStatus


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--observed-on {value!r} is not a date; use YYYY-MM-DD.") from None


class Command(BaseCommand):
    help = "Import GPU prices (" + ", ".join(f.label for f in registry.FORMATS) + ") from a file or an allowed URL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("location", metavar="PATH_OR_URL")
        parser.add_argument("--format", choices=registry.format_names(), default=registry.AUTO)
        needing = ", ".join(f.name for f in registry.FORMATS if f.needs_provider)
        parser.add_argument(
            "--provider",
            default="",
            help=f"Provider of every row (required for {needing}); a SkyPilot cloud name such as gcp works.",
        )
        parser.add_argument("--observed-on", default="", help="Date (YYYY-MM-DD) for rows without one; default today.")
        parser.add_argument(
            "--new-provider",
            action="append",
            default=[],
            metavar="NAME",
            help="Confirm a provider the file introduces although its name resembles a known one (repeatable).",
        )

    def handle(
        self, *args, location: str, format: str, provider: str, observed_on: str, new_provider: list[str], **options
    ) -> None:
        observed = _date(observed_on) if observed_on else None
        try:
            with services.price_file_open(location, format=format) as fetched:
                snapshot = services.price_snapshot_import(
                    content=fetched.content,
                    origin=SnapshotOrigin.COMMAND,
                    source=location,
                    file_name=fetched.file_name,
                    url=fetched.url,
                    format=format,
                    provider_name=provider,
                    observed_on=observed,
                    new_providers=frozenset(new_provider),
                )
        except fetch.FetchError as exc:
            raise CommandError(str(exc)) from None
        if snapshot.status in (SnapshotStatus.REJECTED, SnapshotStatus.FAILED):
            for error in snapshot.errors:
                self.stderr.write(_error_line(error))
            raise CommandError(f"{location}: snapshot #{snapshot.pk} {snapshot.summary}")
        note = " (nothing new: every price was already known)" if snapshot.status == SnapshotStatus.DUPLICATE else ""
        self.stdout.write(f"{location}: snapshot #{snapshot.pk} {snapshot.status}: {snapshot.summary}{note}")


def _error_line(error: dict) -> str:
    parts = [f"line {error['line']}" if error.get("line") else "file"]
    if error.get("column"):
        parts.append(f"column {error['column']}")
    if error.get("value"):
        parts.append(f"value {error['value']!r}")
    return ", ".join(parts) + f": {error['reason']}"
