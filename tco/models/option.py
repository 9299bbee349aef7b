"""Options of a scenario (owned, secondary, rentals, managed API) and the secondary diligence checklist."""

from __future__ import annotations

from django.db import models
from simple_history.models import HistoricalRecords

from lib.kinds import OWNED_KINDS, RENTAL_KINDS, kind_choices
from tco.models.fields import decimal_field
from tco.models.scenario import Scenario

# The kinds and their labels are defined once (tco.engine.kinds, lib.kinds); members: OptionKind.OWNED, ...
OptionKind = models.TextChoices("OptionKind", [(kind.upper(), (kind, label)) for kind, label in kind_choices()])

# The document's fields per kind, in document order (DESIGN 5.1 / engine contract).
COMMON_TAIL = ("tokens_per_second_per_gpu", "acceptance_rate")
OWNED_FIELDS = (
    "gpu_count",
    "capex",
    "residual_value",
    "useful_life_years",
    "cost_of_capital",
    "power_kw",
    "idle_power_kw",
    "pue",
    "electricity_per_kwh",
    "facility_per_year",
    "network_per_year",
    "software_per_year",
    "support_per_year",
    "operations_per_year",
    *COMMON_TAIL,
)
RENTAL_FIELDS = (
    "price_per_gpu_hour",
    "billing",
    "committed_gpus",
    "extras_per_year",
    "price_change_per_year",
    *COMMON_TAIL,
)
API_FIELDS = ("price_per_million_input_tokens", "price_per_million_output_tokens", "extras_per_year", "acceptance_rate")


def fields_for_kind(kind: str) -> tuple[str, ...]:
    if kind in OWNED_KINDS:
        return OWNED_FIELDS
    if kind in RENTAL_KINDS:
        return RENTAL_FIELDS
    return API_FIELDS


class Billing(models.TextChoices):
    ON_DEMAND = "on_demand", "On demand"
    COMMITTED = "committed", "Committed"


class ScenarioOption(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=20, choices=OptionKind.choices)
    name = models.CharField(max_length=200)

    # Owned and secondary hardware.
    gpu_count = models.PositiveIntegerField("GPUs", null=True, blank=True, help_text="Blank: the fleet size.")
    capex = decimal_field("capex", help_text="Purchase price of the hardware, paid in month 1.")
    residual_value = decimal_field("residual value", help_text="Expected resale value at the end of its life.")
    useful_life_years = decimal_field("useful life (years)")
    cost_of_capital = decimal_field("cost of capital (per year)")
    power_kw = decimal_field("power at full load (kW)")
    idle_power_kw = decimal_field("idle power (kW)", help_text="Blank: same as full load.")
    pue = decimal_field("PUE", help_text="Facility power ÷ IT power; blank = 1.")
    electricity_per_kwh = decimal_field("electricity (per kWh)")
    facility_per_year = decimal_field("facility / colocation (per year)")
    network_per_year = decimal_field("network (per year)")
    software_per_year = decimal_field("software (per year)")
    support_per_year = decimal_field("support (per year)")
    operations_per_year = decimal_field("operations staff (per year)")

    # Rentals (hyperscaler, neocloud, marketplace).
    price_per_gpu_hour = decimal_field("price (per GPU-hour)")
    billing = models.CharField(max_length=10, choices=Billing.choices, blank=True, help_text="Blank: on demand.")
    committed_gpus = models.PositiveIntegerField("committed GPUs", null=True, blank=True)
    extras_per_year = decimal_field("extras (per year)", help_text="Storage, egress, support plans.")
    price_change_per_year = decimal_field("price change (per year)", help_text="-0.10 = prices fall 10 % a year.")

    # Managed model API.
    price_per_million_input_tokens = decimal_field("price per million input tokens")
    price_per_million_output_tokens = decimal_field("price per million output tokens")

    # Any option may override the workload's throughput and acceptance.
    tokens_per_second_per_gpu = decimal_field("output tokens per second per GPU", help_text="Blank: the workload's.")
    acceptance_rate = decimal_field("acceptance rate", help_text="Blank: the workload's.")

    # Provenance of a price picked from the Market, copied here so later imports never change it.
    # Exported verbatim as the document's `price_source`; None for typed-in prices.
    price_source = models.JSONField(null=True, blank=True)
    price_observation = models.ForeignKey(
        "pricing.PriceObservation", null=True, blank=True, on_delete=models.SET_NULL, related_name="scenario_options"
    )
    gpu_model = models.ForeignKey(
        "pricing.GpuModel", null=True, blank=True, on_delete=models.SET_NULL, related_name="scenario_options"
    )
    # Fields still holding a prefilled typical figure (an assumption to replace with a quote).
    assumed_fields = models.JSONField(default=list, blank=True)
    prefill_note = models.TextField(blank=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_owned(self) -> bool:
        return self.kind in OWNED_KINDS

    @property
    def is_rental(self) -> bool:
        return self.kind in RENTAL_KINDS

    def document_fields(self) -> tuple[str, ...]:
        return fields_for_kind(self.kind)


class DiligenceStatus(models.TextChoices):
    OPEN = "open", "Open"
    OK = "ok", "Checked, fine"
    CONCERN = "concern", "Concern"
    NOT_APPLICABLE = "na", "Not applicable"


# The checklist for secondary hardware (background article 004), in display order.
DILIGENCE_ITEMS: tuple[tuple[str, str, str], ...] = (
    ("exact_configuration", "Exact configuration", "GPU model and form factor, CPU, RAM, storage, firmware."),
    ("condition_testing", "Condition and testing", "Physical condition; burn-in and test reports."),
    ("provenance", "Provenance", "Where the equipment came from; export-control screening."),
    ("memory_population", "Memory population", "DIMMs fully and correctly populated for the CPUs."),
    ("nic_fabric", "NIC and fabric compatibility", "NICs and fabric (InfiniBand/Ethernet) fit our network."),
    ("psu_rail_cable_cooling", "PSU, rails, cables and cooling", "Fits our racks, power feeds and cooling."),
    ("parts_support_owner", "Parts and support owner", "Who supplies spares and owns hardware failures."),
    ("warranty_months", "Warranty", "Months of warranty offered by the seller."),
)
DILIGENCE_KEYS = tuple(key for key, _, _ in DILIGENCE_ITEMS)


class SecondaryDiligenceItem(models.Model):
    option = models.ForeignKey(ScenarioOption, on_delete=models.CASCADE, related_name="diligence_items")
    key = models.CharField(max_length=40, choices=[(key, label) for key, label, _ in DILIGENCE_ITEMS])
    status = models.CharField(max_length=10, choices=DiligenceStatus.choices, default=DiligenceStatus.OPEN)
    note = models.TextField(blank=True)
    warranty_months = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Only for the warranty item.")

    history = HistoricalRecords()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["option", "key"], name="diligence_item_once_per_option")]

    def __str__(self) -> str:
        return f"{self.option}: {self.get_key_display()} ({self.status})"

    @property
    def position(self) -> int:
        return DILIGENCE_KEYS.index(self.key)

    @property
    def help(self) -> str:
        return DILIGENCE_ITEMS[self.position][2]
