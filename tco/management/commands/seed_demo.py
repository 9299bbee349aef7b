"""Load reference data, demo prices, demo scenarios and the demo accounts. Safe to run repeatedly."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand
from django.db import transaction

# Illustrative EUR rates in the ECB layout, so a demo can convert prices; not the ECB's published figures.
DEMO_FX_SOURCE = "Demo rates (illustrative, not ECB figures)"

DEMO_ACCOUNTS = [
    # username, password, group, is_staff
    ("analyst", "analyst-demo-2026", "editors", True),
    ("viewer", "viewer-demo-2026", "viewers", False),
]


class Command(BaseCommand):
    help = "Load reference data and demo data, and create the demo accounts (idempotent)."

    def handle(self, *args, **options) -> None:
        self._load_pricing()
        with transaction.atomic():
            for username, password, group_name, is_staff in DEMO_ACCOUNTS:
                user, created = User.objects.get_or_create(username=username, defaults={"is_staff": is_staff})
                if created:
                    user.set_password(password)
                    user.save()
                user.groups.add(Group.objects.get(name=group_name))
        self._load_scenarios()
        self.stdout.write(self.style.SUCCESS("Demo data ready. Log in as analyst / analyst-demo-2026."))

    def _load_pricing(self) -> None:
        """Reference data (missing rows only) and the demo prices, imported through the import service."""
        from django.conf import settings

        from pricing.services import demo_prices_load, demo_throughput_load, reference_data_load
        from pricing.services.fx import exchange_rates_import

        fixtures = settings.BASE_DIR / "fixtures"
        created = reference_data_load(path=fixtures / "reference.json")
        snapshots = demo_prices_load(manifest=fixtures / "prices" / "demo.json")
        rates = exchange_rates_import(content=(fixtures / "fx" / "demo-rates.csv").read_bytes(), source=DEMO_FX_SOURCE)
        self.stdout.write(f"Reference data: {created}. Demo price files imported: {len(snapshots)}.")
        self.stdout.write(f"Demo exchange rates ({DEMO_FX_SOURCE}): {rates.summary}.")
        for record in demo_throughput_load(manifest=fixtures / "throughput" / "demo.json"):
            self.stdout.write(f"Demo throughput {record.file_name}: {record.summary}.")
        for snapshot in snapshots:
            if snapshot.status not in ("imported", "duplicate"):
                self.stderr.write(f"{snapshot.source}: {snapshot.summary} {snapshot.errors[:3]}")

    def _load_scenarios(self) -> None:
        """The demo scenarios of fixtures/scenarios/, owned by the analyst; existing names are left alone."""
        from tco.demos import demos
        from tco.models import Scenario
        from tco.services import scenario_create_from_document

        analyst = User.objects.get(username="analyst")
        loaded = 0
        for demo in demos():
            if not Scenario.objects.filter(name=demo.name).exists():
                scenario_create_from_document(document=demo.document, user=analyst)
                loaded += 1
        self.stdout.write(f"Demo scenarios loaded: {loaded}.")
