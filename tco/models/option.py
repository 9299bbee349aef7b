"""Options of a scenario (owned, secondary, rentals, managed API) and the secondary diligence checklist.

The inputs' names, labels and help texts come from the engine's option-field catalogue (``tco.engine.catalogue``).
"""

from __future__ import annotations

from django.db import models
from simple_history.models import HistoricalRecords

from lib.kinds import API_KINDS, OWNED_KINDS, RENTAL_KINDS, kind_choices
from tco.models.fields import option_model_field
from tco.models.scenario import Scenario

# The kinds and their labels are defined once (lib.kinds); members: OptionKind.OWNED, ...
OptionKind = models.TextChoices("OptionKind", [(kind.upper(), (kind, label)) for kind, label in kind_choices()])


class ScenarioOption(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=20, choices=OptionKind.choices)
    name = models.CharField(max_length=200)

    # The catalogued inputs (owned and secondary hardware, rentals, managed model API, per-option overrides).
    gpu_count = option_model_field("gpu_count")
    capex = option_model_field("capex")
    residual_value = option_model_field("residual_value")
    useful_life_years = option_model_field("useful_life_years")
    cost_of_capital = option_model_field("cost_of_capital")
    power_kw = option_model_field("power_kw")
    idle_power_kw = option_model_field("idle_power_kw")
    pue = option_model_field("pue")
    electricity_per_kwh = option_model_field("electricity_per_kwh")
    facility_per_year = option_model_field("facility_per_year")
    network_per_year = option_model_field("network_per_year")
    software_per_year = option_model_field("software_per_year")
    support_per_year = option_model_field("support_per_year")
    operations_per_year = option_model_field("operations_per_year")
    price_per_gpu_hour = option_model_field("price_per_gpu_hour")
    billing = option_model_field("billing")
    committed_gpus = option_model_field("committed_gpus")
    block_gpus = option_model_field("block_gpus")
    block_days = option_model_field("block_days")
    extras_per_year = option_model_field("extras_per_year")
    price_change_per_year = option_model_field("price_change_per_year")
    price_per_million_input_tokens = option_model_field("price_per_million_input_tokens")
    price_per_million_output_tokens = option_model_field("price_per_million_output_tokens")
    tokens_per_second_per_gpu = option_model_field("tokens_per_second_per_gpu")
    acceptance_rate = option_model_field("acceptance_rate")
    # Finance depth: tax, financing, refresh and resale of owned hardware; price paths and commitment terms.
    tax_depreciation = option_model_field("tax_depreciation")
    tax_life_years = option_model_field("tax_life_years")
    bonus_depreciation = option_model_field("bonus_depreciation")
    financing = option_model_field("financing")
    loan_apr = option_model_field("loan_apr")
    loan_term_months = option_model_field("loan_term_months")
    down_payment_share = option_model_field("down_payment_share")
    lease_payment = option_model_field("lease_payment")
    lease_payment_interval_months = option_model_field("lease_payment_interval_months")
    lease_term_months = option_model_field("lease_term_months")
    lease_payment_timing = option_model_field("lease_payment_timing")
    lease_end = option_model_field("lease_end")
    lease_buyout_price = option_model_field("lease_buyout_price")
    capex_change_per_year = option_model_field("capex_change_per_year")
    resale_curve = option_model_field("resale_curve")
    age_at_purchase_months = option_model_field("age_at_purchase_months")
    price_change_by_year = option_model_field("price_change_by_year")
    commitment_term_months = option_model_field("commitment_term_months")
    upfront_share = option_model_field("upfront_share")
    after_term = option_model_field("after_term")
    on_demand_price_per_gpu_hour = option_model_field("on_demand_price_per_gpu_hour")

    # Provenance of a price picked from the Market, copied here so later imports never change it.
    # Exported verbatim as the document's `price_source`; None for typed-in prices.
    price_source = models.JSONField(null=True, blank=True)
    price_observation = models.ForeignKey(
        "pricing.PriceObservation", null=True, blank=True, on_delete=models.SET_NULL, related_name="scenario_options"
    )
    # Provenance of a price path taken from the Market's trend (the index, its weeks, the fitted change and interval,
    # the day it was adopted); the document's `price_path_source`. None for a typed-in change per year.
    price_path_source = models.JSONField(null=True, blank=True)
    # Provenance of a throughput sizing wrote (tco.services.sizing): the GPU, tensor-parallel degree and measured
    # rows (with their sources) its tokens_per_second_per_gpu and GPU count come from. None for typed-in figures.
    throughput_source = models.JSONField(null=True, blank=True)
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

    @property
    def takes_market_price(self) -> bool:
        """A rental (per GPU-hour) or a managed model API (per million tokens) can pick its price from the Market."""
        return self.kind in RENTAL_KINDS + API_KINDS


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
