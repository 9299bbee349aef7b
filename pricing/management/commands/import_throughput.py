"""Import measured serving throughput: `manage.py import_throughput PATH [--format] [--gpu] [--model] ...`."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pricing import services
from pricing.importers.throughput import AUTO, FORMAT_NAMES, FORMATS
from pricing.models import ThroughputImportStatus

NEEDS = ("gpu", "tp", "input_tokens")


def _date(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise CommandError(f"--measured-on {value!r} is not a date; use YYYY-MM-DD.") from None


class Command(BaseCommand):
    help = "Import measured throughput (" + ", ".join(f.label for f in FORMATS) + ") into the throughput library."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="PATH")
        parser.add_argument("--format", choices=(AUTO, *FORMAT_NAMES), default=AUTO)
        needing = {
            name: ", ".join(f.name for f in FORMATS if name in f.needs) for name in ("gpu", "tp", "input_tokens")
        }
        parser.add_argument("--gpu", default="", help=f"The GPU of rows whose file names none ({needing['gpu']}).")
        parser.add_argument(
            "--model",
            default="",
            help="The model of rows whose file names none (vllm-bench); for mlperf, the one benchmark to keep.",
        )
        parser.add_argument("--tp", type=int, help=f"The tensor-parallel degree ({needing['tp']}).")
        parser.add_argument("--precision", default="", help="The weights' precision where the file lacks it (fp8).")
        parser.add_argument(
            "--input-tokens", type=int, help=f"The input tokens of a request ({needing['input_tokens']})."
        )
        parser.add_argument("--measured-on", default="", help="Date (YYYY-MM-DD) for rows the file does not date.")

    def handle(self, *args, path: str, format: str, measured_on: str, **options) -> None:
        location = Path(path)
        if not location.is_file():
            raise CommandError(f"{path}: no such file.")
        given = {key: options[key] for key in ("gpu", "model", "tp", "precision", "input_tokens")}
        given["measured_on"] = _date(measured_on) if measured_on else None
        record = services.throughput_import(
            content=location.read_bytes(), file_name=location.name, format=format, given=given
        )
        for entry in record.refused:
            self.stderr.write(_refusal_line(entry))
        line = f"{path}: throughput import #{record.pk} {record.get_status_display()}: {record.summary}"
        if record.status in (ThroughputImportStatus.REJECTED, ThroughputImportStatus.FAILED):
            raise CommandError(line)
        self.stdout.write(line)


def _refusal_line(entry: dict) -> str:
    parts = [f"record {entry['line']}" if entry.get("line") else "file"]
    if entry.get("column"):
        parts.append(f"field {entry['column']}")
    if entry.get("value"):
        parts.append(f"value {entry['value']!r}")
    return ", ".join(parts) + f": {entry['reason']}"
