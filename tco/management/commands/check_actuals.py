"""Hold every decision against its actuals again and warn owners once per turn: `manage.py check_actuals`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tco.services.actuals import actuals_check_all


class Command(BaseCommand):
    help = "What beat's hourly tco.tasks.check_actuals does, for cron in the embedded mode."

    def handle(self, *args, **options) -> None:
        checked, sent = actuals_check_all()
        self.stdout.write(f"{checked} decision(s) checked, {sent} warning(s) sent.")
