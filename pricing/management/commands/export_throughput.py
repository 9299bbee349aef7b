"""Write the throughput library as CSV on stdout: `manage.py export_throughput`."""

from __future__ import annotations

import os
import sys

from django.core.management.base import BaseCommand

from pricing.export import write_throughput_csv
from pricing.importers.throughput import THROUGHPUT_COLUMNS
from pricing.management.commands.export_prices import _Unbuffered
from pricing.selectors import throughput_export_rows


class Command(BaseCommand):
    help = "Export every measured throughput row as CSV: " + ", ".join(THROUGHPUT_COLUMNS) + "."

    def handle(self, *args, **options) -> None:
        try:
            write_throughput_csv(throughput_export_rows().iterator(chunk_size=2000), _Unbuffered(self.stdout))
            self.stdout.flush()
        except BrokenPipeError:
            # The reader stopped early (`export_throughput | head`): end quietly, as export_prices does.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
