"""Print a scenario's tco-scenario/1 document as JSON on stdout."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tco.models import Scenario
from tco.selectors.uncertainty import export_document


class Command(BaseCommand):
    help = "Print the scenario document (tco-scenario/1 JSON, with its ranges as `uncertainty`) of scenario ID."

    def add_arguments(self, parser) -> None:
        parser.add_argument("scenario_id", type=int, help="the scenario's id (as in /scenarios/<id>/)")

    def handle(self, *args, scenario_id: int, **options) -> None:
        scenario = Scenario.objects.filter(pk=scenario_id).first()
        if scenario is None:
            raise CommandError(f"There is no scenario with id {scenario_id}.")
        self.stdout.write(json.dumps(export_document(scenario), indent=2, ensure_ascii=False))
