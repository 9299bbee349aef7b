"""Write prices as canonical CSV on stdout: `manage.py export_prices [--snapshot ID] [--latest]`."""

from __future__ import annotations

import os
import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing.export import write_canonical_csv
from pricing.models import PriceSnapshot
from pricing.selectors import export_rows


class Command(BaseCommand):
    help = "Export price observations as canonical CSV (all of them, one snapshot's, or the latest per offering)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--snapshot", type=int, help="Every price in that snapshot's file (new or already known).")
        parser.add_argument("--latest", action="store_true", help="Only the latest price of each offering.")

    def handle(self, *args, snapshot: int | None, latest: bool, **options) -> None:
        if snapshot is not None and not PriceSnapshot.objects.filter(pk=snapshot).exists():
            raise CommandError(f"--snapshot {snapshot}: no such snapshot.")
        rows = export_rows(snapshot_id=snapshot, latest=latest).iterator(chunk_size=2000)
        try:
            write_canonical_csv(rows, _Unbuffered(self.stdout))
            self.stdout.flush()
        except BrokenPipeError:
            # The reader stopped early (`export_prices | head`): end quietly, as Unix tools do. Point stdout at
            # /dev/null so the interpreter's final flush does not raise the same error again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


class _Unbuffered:
    """Hands csv.writer's lines to the command's stdout without adding line endings of its own."""

    def __init__(self, out) -> None:
        self.out = out

    def write(self, text: str) -> None:
        self.out.write(text, ending="")
