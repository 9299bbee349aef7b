"""Unstick jobs: send again runs and uploads whose job never reached a worker, fail those whose worker died."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from pricing.services import price_snapshots_sweep
from tco.services import runs_sweep
from tco.services.uncertainty import uncertainty_runs_sweep


class Command(BaseCommand):
    help = (
        "Send again evaluation and import jobs still pending (broker was down, or the message was lost) and fail "
        "those still running past their time limit (their worker died). Celery beat runs this every minute."
    )

    def handle(self, *args, **options) -> None:
        self.stdout.write(f"Evaluation runs: {runs_sweep()}")
        self.stdout.write(f"Price imports: {price_snapshots_sweep()}")
        self.stdout.write(f"Simulations: {uncertainty_runs_sweep()}")
