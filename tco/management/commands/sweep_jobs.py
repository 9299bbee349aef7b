"""Unstick jobs: send again those whose message never reached a worker, fail those whose worker died."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from lib.jobs import sweep_all


class Command(BaseCommand):
    help = (
        "Send again jobs (evaluations, simulations, imports) still pending because the broker was down or their "
        "message was lost, and fail those still running past their time limit (their worker died). Celery beat "
        "runs this every minute."
    )

    def handle(self, *args, **options) -> None:
        for model, result in sweep_all():
            self.stdout.write(f"{model.noun.capitalize()}s: {result}")
