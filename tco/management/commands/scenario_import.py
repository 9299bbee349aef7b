"""Create a scenario from a tco-scenario/1 JSON file and print its id."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from lib.jsontext import JSONTextError, read_json
from tco.engine import ScenarioError
from tco.engine.errors import problem_text
from tco.services import scenario_create_from_document


class Command(BaseCommand):
    help = "Import a scenario document (tco-scenario/1 JSON file, '-' for stdin) and print the new scenario's id."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="path of the JSON file")

    def handle(self, *args, file: str, **options) -> None:
        path = Path(file)
        try:
            text = sys.stdin.read() if file == "-" else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"Cannot read {file}: {error}") from None
        try:
            document = read_json(text)
        except JSONTextError as error:
            raise CommandError(f"{file} is not valid JSON: {error}") from None
        try:
            scenario = scenario_create_from_document(document=document, user=None)
        except ScenarioError as error:
            lines = "\n".join(f"  {problem_text(problem, document)}" for problem in error.problems)
            raise CommandError(f"{file} was not imported:\n{lines}") from None
        self.stdout.write(str(scenario.pk))
