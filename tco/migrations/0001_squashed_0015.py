"""tco 0001-0015 squashed into one migration (Django's squashmigrations): a fresh database gets the tables in 21
operations instead of 227, each of which made Django re-render the model states. It `replaces` 0001-0015, so a
database that has them applied treats this one as applied; the old files stay until every deployment has run them.
The role groups are created here as in 0001_roles; the backfill of 0007 was elided (nothing to fill on a fresh
database)."""

import django.db.models.deletion
import django.utils.timezone
import simple_history.models
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models

GROUPS = ["viewers", "editors"]


def create_groups(apps, schema_editor) -> None:
    Group = apps.get_model("auth", "Group")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


def delete_groups(apps, schema_editor) -> None:
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    replaces = [
        ("tco", "0001_roles"),
        ("tco", "0002_scenarios"),
        ("tco", "0003_decisions"),
        ("tco", "0004_uncertainty"),
        ("tco", "0005_run_sent_at"),
        ("tco", "0006_scenario_currency_conversions"),
        ("tco", "0007_runs_and_simulations_job_model"),
        ("tco", "0008_option_labels_whole_option"),
        ("tco", "0009_option_price_path_source"),
        ("tco", "0010_scenario_inputs_from_catalogue"),
        ("tco", "0011_job_heartbeat"),
        ("tco", "0012_finance_inputs"),
        ("tco", "0013_actuals_bills_use_and_plans"),
        ("tco", "0014_training_plan_and_capacity_blocks"),
        ("tco", "0015_serving_configuration_and_sizing"),
    ]

    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("pricing", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(
            code=create_groups,
            reverse_code=delete_groups,
        ),
        migrations.CreateModel(
            name="Scenario",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200, verbose_name="Name")),
                (
                    "currency",
                    models.CharField(
                        blank=True,
                        default="USD",
                        help_text="ISO code; blank means the engine default (USD).",
                        max_length=3,
                        verbose_name="Currency",
                    ),
                ),
                ("horizon_months", models.PositiveSmallIntegerField(default=36, verbose_name="Horizon")),
                (
                    "discount_rate",
                    models.DecimalField(
                        decimal_places=10, default=Decimal("0.08"), max_digits=24, verbose_name="Discount rate"
                    ),
                ),
                ("fleet_gpus", models.PositiveIntegerField(default=8, verbose_name="Fleet size")),
                (
                    "burst_price_per_gpu_hour",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Paid for demand above owned capacity or a commitment.",
                        max_digits=24,
                        null=True,
                        verbose_name="Burst price",
                    ),
                ),
                (
                    "workload_tokens_per_second_per_gpu",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Throughput"
                    ),
                ),
                (
                    "workload_output_tokens_per_response",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Output tokens per response",
                    ),
                ),
                (
                    "workload_input_tokens_per_response",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Input tokens per response",
                    ),
                ),
                (
                    "workload_acceptance_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Accepted responses ÷ attempted.",
                        max_digits=24,
                        null=True,
                        verbose_name="Acceptance rate",
                    ),
                ),
                (
                    "forecast_kind",
                    models.CharField(
                        choices=[
                            ("flat", "Flat"),
                            ("ramp", "Linear ramp"),
                            ("seasonal", "Seasonal"),
                            ("pasted", "Pasted from a spreadsheet"),
                        ],
                        default="flat",
                        max_length=10,
                        verbose_name="Forecast shape",
                    ),
                ),
                (
                    "forecast_flat_utilization",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Utilization"
                    ),
                ),
                (
                    "forecast_ramp_from_utilization",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Utilization in month 1"
                    ),
                ),
                (
                    "forecast_ramp_to_utilization",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Utilization in the last month",
                    ),
                ),
                (
                    "forecast_seasonal_base_utilization",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Seasonal base utilization",
                    ),
                ),
                (
                    "forecast_seasonal_amplitude",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Seasonal amplitude"
                    ),
                ),
                (
                    "forecast_seasonal_peak_month",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="1-12, counted from the first month of the horizon.",
                        null=True,
                        verbose_name="Seasonal peak month",
                    ),
                ),
                (
                    "forecast_pasted_utilization",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="One value per month (or one value), 55% or 0.55.",
                        verbose_name="Pasted utilization",
                    ),
                ),
                ("version", models.PositiveIntegerField(default=1)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="scenarios",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "currency_conversions",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="[{from, to, mode, rate, rate_date, source, at}].",
                        verbose_name="currency conversion",
                    ),
                ),
                (
                    "cost_of_debt",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="What borrowing costs you before tax; a lease is compared with borrowing to buy at this rate after tax.",
                        max_digits=24,
                        null=True,
                        verbose_name="Cost of debt",
                    ),
                ),
                (
                    "refresh_policy",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("none", "Keep serving past the useful life"),
                            ("replace", "Replace at the end of the useful life"),
                            ("truncate", "Cut the comparison to the shortest life"),
                        ],
                        help_text="What happens when owned hardware reaches the end of its useful life within the horizon.",
                        max_length=10,
                        verbose_name="Refresh policy",
                    ),
                ),
                (
                    "tax_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Tax on profits: costs are deducted when paid, hardware through its tax depreciation. Below 100%.",
                        max_digits=24,
                        null=True,
                        verbose_name="Tax rate",
                    ),
                ),
                (
                    "training_checkpoint_interval_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="An interruption loses half an interval of work on average.",
                        max_digits=24,
                        null=True,
                        verbose_name="Checkpoint interval",
                    ),
                ),
                (
                    "training_cluster_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="GPUs one run uses at once; an owned option must have at least this many.",
                        null=True,
                        verbose_name="Cluster size",
                    ),
                ),
                (
                    "training_gpu_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="One attempt, without interruptions. Or leave blank and give the model's size below.",
                        max_digits=24,
                        null=True,
                        verbose_name="GPU-hours per run",
                    ),
                ),
                (
                    "training_interruptions_per_million_gpu_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Llama 3's run on 16,384 GPUs: about 19.7.",
                        max_digits=24,
                        null=True,
                        verbose_name="Interruptions",
                    ),
                ),
                (
                    "training_mfu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of the GPU's dense peak the run achieves; 35-45% is typical for large runs.",
                        max_digits=24,
                        null=True,
                        verbose_name="Model FLOPs utilization (MFU)",
                    ),
                ),
                (
                    "training_other_cost_per_run",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Data preparation, evaluation.",
                        max_digits=24,
                        null=True,
                        verbose_name="Other costs per run",
                    ),
                ),
                (
                    "training_params_billion",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Dense parameters; training takes 6 x parameters x tokens floating-point operations.",
                        max_digits=24,
                        null=True,
                        verbose_name="Model parameters",
                    ),
                ),
                (
                    "training_peak_tflops",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Dense, at the run's precision (an H100 SXM: 989 at FP16/BF16).",
                        max_digits=24,
                        null=True,
                        verbose_name="GPU peak (dense)",
                    ),
                ),
                (
                    "training_restart_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="The whole cluster waits this long after each interruption.",
                        max_digits=24,
                        null=True,
                        verbose_name="Restart time",
                    ),
                ),
                (
                    "training_runs_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Attempts started a year, failed ones included.",
                        max_digits=24,
                        null=True,
                        verbose_name="Training runs",
                    ),
                ),
                (
                    "training_success_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of runs that become a validated model version.",
                        max_digits=24,
                        null=True,
                        verbose_name="Validated share of runs",
                    ),
                ),
                (
                    "training_tokens_billion",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Training tokens"
                    ),
                ),
                (
                    "serving_context_tokens",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Tokens of KV cache one request holds at most.",
                        null=True,
                        verbose_name="Context per request",
                    ),
                ),
                (
                    "serving_headroom",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Capacity kept spare above the traffic.",
                        max_digits=24,
                        null=True,
                        verbose_name="Headroom",
                    ),
                ),
                (
                    "serving_kv_bits",
                    models.CharField(
                        choices=[("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8)")],
                        default="16",
                        max_length=10,
                        verbose_name="KV cache precision",
                    ),
                ),
                (
                    "serving_language_model",
                    models.CharField(
                        blank=True,
                        help_text="A model of the model catalogue, by its name.",
                        max_length=100,
                        verbose_name="Language model",
                    ),
                ),
                (
                    "serving_statistic",
                    models.CharField(
                        choices=[("median", "Median"), ("p99", "99th percentile")],
                        default="median",
                        help_text="Which statistic of the measured latencies the targets hold at.",
                        max_length=10,
                        verbose_name="Latency statistic",
                    ),
                ),
                (
                    "serving_tpot_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Time per output token target",
                    ),
                ),
                (
                    "serving_traffic",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="One request-size bucket a line: requests per second, input tokens, output tokens (2.5, 1200, 350).",
                        verbose_name="Traffic",
                    ),
                ),
                (
                    "serving_ttft_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Time to first token target",
                    ),
                ),
                (
                    "serving_weight_bits",
                    models.CharField(
                        choices=[("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8/INT8)"), ("4", "4-bit (FP4/INT4)")],
                        default="16",
                        max_length=10,
                        verbose_name="Weight precision",
                    ),
                ),
                (
                    "sizing_applied",
                    models.JSONField(
                        blank=True,
                        help_text="{run, at, gpu, fleet_gpus, tokens_per_second_per_gpu, rows}.",
                        null=True,
                        verbose_name="sizing applied",
                    ),
                ),
            ],
            options={
                "ordering": ["-updated_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ScenarioOption",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("owned", "Owned (new)"),
                            ("secondary", "Owned (secondary)"),
                            ("hyperscaler", "Hyperscaler"),
                            ("neocloud", "Neocloud"),
                            ("marketplace", "Marketplace"),
                            ("api", "Managed model API"),
                        ],
                        max_length=20,
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                (
                    "gpu_count",
                    models.PositiveIntegerField(
                        blank=True, help_text="Blank: the fleet size.", null=True, verbose_name="GPU count"
                    ),
                ),
                (
                    "capex",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Purchase price of all the option's hardware (servers, GPUs, spares, installation), paid in month 1.",
                        max_digits=24,
                        null=True,
                        verbose_name="Capex, whole option",
                    ),
                ),
                (
                    "residual_value",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Expected resale value of all the option's hardware at the end of its life.",
                        max_digits=24,
                        null=True,
                        verbose_name="Residual value",
                    ),
                ),
                (
                    "useful_life_years",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Useful life"
                    ),
                ),
                (
                    "cost_of_capital",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Cost of capital"
                    ),
                ),
                (
                    "power_kw",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Power at full load, whole option",
                    ),
                ),
                (
                    "idle_power_kw",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="All the option's servers, idle. Blank: same as full load.",
                        max_digits=24,
                        null=True,
                        verbose_name="Idle power, whole option",
                    ),
                ),
                (
                    "pue",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Facility power ÷ IT power; blank = 1.",
                        max_digits=24,
                        null=True,
                        verbose_name="PUE",
                    ),
                ),
                (
                    "electricity_per_kwh",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Electricity"
                    ),
                ),
                (
                    "facility_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Facility / colocation"
                    ),
                ),
                (
                    "network_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Network"
                    ),
                ),
                (
                    "software_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Software"
                    ),
                ),
                (
                    "support_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Support"
                    ),
                ),
                (
                    "operations_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Operations staff"
                    ),
                ),
                (
                    "price_per_gpu_hour",
                    models.DecimalField(blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Price"),
                ),
                (
                    "billing",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("on_demand", "On demand"),
                            ("committed", "Committed"),
                            ("capacity_block", "Capacity block"),
                        ],
                        help_text="Blank: on demand.",
                        max_length=14,
                        verbose_name="Billing",
                    ),
                ),
                ("committed_gpus", models.PositiveIntegerField(blank=True, null=True, verbose_name="Committed GPUs")),
                (
                    "extras_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Storage, egress, support plans.",
                        max_digits=24,
                        null=True,
                        verbose_name="Extras: storage, egress, support",
                    ),
                ),
                (
                    "price_change_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="-0.10 = prices fall 10 % a year.",
                        max_digits=24,
                        null=True,
                        verbose_name="Price change",
                    ),
                ),
                (
                    "price_per_million_input_tokens",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Price per million input tokens",
                    ),
                ),
                (
                    "price_per_million_output_tokens",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Price per million output tokens",
                    ),
                ),
                (
                    "tokens_per_second_per_gpu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Blank: the workload's.",
                        max_digits=24,
                        null=True,
                        verbose_name="Output tokens per second per GPU",
                    ),
                ),
                (
                    "acceptance_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Blank: the workload's.",
                        max_digits=24,
                        null=True,
                        verbose_name="Acceptance rate",
                    ),
                ),
                ("price_source", models.JSONField(blank=True, null=True)),
                ("assumed_fields", models.JSONField(blank=True, default=list)),
                ("prefill_note", models.TextField(blank=True)),
                (
                    "gpu_model",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="scenario_options",
                        to="pricing.gpumodel",
                    ),
                ),
                (
                    "price_observation",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="scenario_options",
                        to="pricing.priceobservation",
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="options", to="tco.scenario"
                    ),
                ),
                ("price_path_source", models.JSONField(blank=True, null=True)),
                (
                    "after_term",
                    models.CharField(
                        blank=True,
                        choices=[("renew", "Renew"), ("on_demand", "Fall back to on demand")],
                        max_length=10,
                        verbose_name="After a term",
                    ),
                ),
                (
                    "age_at_purchase_months",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="A used unit starts this far along the resale curve.",
                        max_digits=24,
                        null=True,
                        verbose_name="Age at purchase",
                    ),
                ),
                (
                    "bonus_depreciation",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Deducted in tax year 1; the method applies to the rest.",
                        max_digits=24,
                        null=True,
                        verbose_name="Bonus depreciation",
                    ),
                ),
                (
                    "capex_change_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Price of a replacement unit (refresh policy: replace).",
                        max_digits=24,
                        null=True,
                        verbose_name="Replacement price change",
                    ),
                ),
                (
                    "commitment_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Each term locks the price of the month it starts.",
                        null=True,
                        verbose_name="Commitment term",
                    ),
                ),
                (
                    "down_payment_share",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of the price paid at purchase; the loan covers the rest.",
                        max_digits=24,
                        null=True,
                        verbose_name="Down payment",
                    ),
                ),
                (
                    "financing",
                    models.CharField(
                        blank=True,
                        choices=[("cash", "Pay cash"), ("loan", "Loan"), ("lease", "Lease")],
                        max_length=10,
                        verbose_name="Financing",
                    ),
                ),
                (
                    "lease_buyout_price",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Paid at the end of the lease; the hardware is then depreciated and sold like a purchase.",
                        max_digits=24,
                        null=True,
                        verbose_name="Lease buyout price",
                    ),
                ),
                (
                    "lease_end",
                    models.CharField(
                        blank=True,
                        choices=[("return", "Return the hardware"), ("buyout", "Buy it out")],
                        max_length=10,
                        verbose_name="Lease end",
                    ),
                ),
                (
                    "lease_payment",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Lease payment"
                    ),
                ),
                (
                    "lease_payment_interval_months",
                    models.PositiveIntegerField(blank=True, null=True, verbose_name="Lease payment interval"),
                ),
                (
                    "lease_payment_timing",
                    models.CharField(
                        blank=True,
                        choices=[("advance", "In advance"), ("arrears", "In arrears")],
                        max_length=10,
                        verbose_name="Lease payment timing",
                    ),
                ),
                (
                    "lease_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="A whole number of payment intervals, at most the horizon.",
                        null=True,
                        verbose_name="Lease term",
                    ),
                ),
                (
                    "loan_apr",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Nominal annual rate, compounded monthly.",
                        max_digits=24,
                        null=True,
                        verbose_name="Loan APR",
                    ),
                ),
                (
                    "loan_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Level payments at the end of each month.",
                        null=True,
                        verbose_name="Loan term",
                    ),
                ),
                (
                    "on_demand_price_per_gpu_hour",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="For hours above or outside the commitment, and a capacity block's inference hours.",
                        max_digits=24,
                        null=True,
                        verbose_name="On-demand price",
                    ),
                ),
                (
                    "price_change_by_year",
                    models.JSONField(
                        blank=True,
                        help_text="E.g. -25%, -10%, 0%; the last repeats. Instead of a price change per year.",
                        null=True,
                        verbose_name="Price change by year",
                    ),
                ),
                (
                    "resale_curve",
                    models.JSONField(
                        blank=True,
                        help_text="E.g. 0: 100%, 12: 70%, 36: 40%. It sets the residual value: leave that blank.",
                        null=True,
                        verbose_name="Resale curve",
                    ),
                ),
                (
                    "tax_depreciation",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("macrs_3", "MACRS 3-year"),
                            ("macrs_5", "MACRS 5-year"),
                            ("macrs_7", "MACRS 7-year"),
                            ("straight_line", "Straight line"),
                            ("none", "Not deducted"),
                        ],
                        help_text="MACRS: IRS Pub 946, half-year convention.",
                        max_length=13,
                        verbose_name="Tax depreciation",
                    ),
                ),
                (
                    "tax_life_years",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Tax life"
                    ),
                ),
                (
                    "upfront_share",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of each term paid when it starts.",
                        max_digits=24,
                        null=True,
                        verbose_name="Upfront share",
                    ),
                ),
                (
                    "block_days",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Paid in full when the block starts, every hour used or not (1 to 182 days).",
                        null=True,
                        verbose_name="Block length",
                    ),
                ),
                (
                    "block_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="A capacity block rents this many GPUs together; blocks of one run go side by side.",
                        null=True,
                        verbose_name="GPUs per block",
                    ),
                ),
                ("throughput_source", models.JSONField(blank=True, null=True)),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.CreateModel(
            name="HistoricalSecondaryDiligenceItem",
            fields=[
                ("id", models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name="ID")),
                (
                    "key",
                    models.CharField(
                        choices=[
                            ("exact_configuration", "Exact configuration"),
                            ("condition_testing", "Condition and testing"),
                            ("provenance", "Provenance"),
                            ("memory_population", "Memory population"),
                            ("nic_fabric", "NIC and fabric compatibility"),
                            ("psu_rail_cable_cooling", "PSU, rails, cables and cooling"),
                            ("parts_support_owner", "Parts and support owner"),
                            ("warranty_months", "Warranty"),
                        ],
                        max_length=40,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("open", "Open"),
                            ("ok", "Checked, fine"),
                            ("concern", "Concern"),
                            ("na", "Not applicable"),
                        ],
                        default="open",
                        max_length=10,
                    ),
                ),
                ("note", models.TextField(blank=True)),
                (
                    "warranty_months",
                    models.PositiveSmallIntegerField(blank=True, help_text="Only for the warranty item.", null=True),
                ),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "option",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="tco.scenariooption",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical secondary diligence item",
                "verbose_name_plural": "historical secondary diligence items",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="SecondaryDiligenceItem",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "key",
                    models.CharField(
                        choices=[
                            ("exact_configuration", "Exact configuration"),
                            ("condition_testing", "Condition and testing"),
                            ("provenance", "Provenance"),
                            ("memory_population", "Memory population"),
                            ("nic_fabric", "NIC and fabric compatibility"),
                            ("psu_rail_cable_cooling", "PSU, rails, cables and cooling"),
                            ("parts_support_owner", "Parts and support owner"),
                            ("warranty_months", "Warranty"),
                        ],
                        max_length=40,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("open", "Open"),
                            ("ok", "Checked, fine"),
                            ("concern", "Concern"),
                            ("na", "Not applicable"),
                        ],
                        default="open",
                        max_length=10,
                    ),
                ),
                ("note", models.TextField(blank=True)),
                (
                    "warranty_months",
                    models.PositiveSmallIntegerField(blank=True, help_text="Only for the warranty item.", null=True),
                ),
                (
                    "option",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="diligence_items",
                        to="tco.scenariooption",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("option", "key"), name="diligence_item_once_per_option")
                ],
            },
        ),
        migrations.CreateModel(
            name="DecisionSnapshot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("content", models.TextField()),
                ("content_hash", models.CharField(help_text="SHA-256 of the content, hex.", max_length=64)),
                ("engine_version", models.CharField(max_length=20)),
                ("scenario_version", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="decision_snapshots",
                        to="tco.scenario",
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
            },
        ),
        migrations.CreateModel(
            name="DecisionLink",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token_hash", models.CharField(max_length=64, unique=True)),
                ("note", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("open_count", models.PositiveIntegerField(default=0)),
                ("last_opened_at", models.DateTimeField(blank=True, null=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "revoked_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="decision_links", to="tco.scenario"
                    ),
                ),
                (
                    "snapshot",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="link", to="tco.decisionsnapshot"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ScenarioBrief",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "question",
                    models.CharField(
                        blank=True,
                        help_text="Blank: “Which option should we choose?”",
                        max_length=300,
                        verbose_name="decision question",
                    ),
                ),
                ("workload_brief", models.TextField(blank=True, verbose_name="workload brief")),
                ("answer_requirements", models.TextField(blank=True)),
                ("answer_utilization", models.TextField(blank=True)),
                ("answer_data_location", models.TextField(blank=True)),
                ("answer_infrastructure", models.TextField(blank=True)),
                ("answer_time_to_capacity", models.TextField(blank=True)),
                ("answer_support", models.TextField(blank=True)),
                ("answer_economics", models.TextField(blank=True)),
                ("version", models.PositiveIntegerField(default=1)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "scenario",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="brief", to="tco.scenario"
                    ),
                ),
                (
                    "updated_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="DecisionRecord",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "action",
                    models.CharField(choices=[("decided", "Decided"), ("reopened", "Re-opened")], max_length=10),
                ),
                (
                    "option_name",
                    models.CharField(blank=True, help_text="The chosen option, as named then.", max_length=200),
                ),
                ("option_kind", models.CharField(blank=True, max_length=20)),
                ("rationale", models.TextField(blank=True)),
                ("scenario_version", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="decision_records", to="tco.scenario"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
                "indexes": [models.Index(fields=["scenario", "-created_at", "-id"], name="decision_record_latest")],
            },
        ),
        migrations.CreateModel(
            name="HistoricalInputRange",
            fields=[
                ("id", models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name="ID")),
                ("field", models.CharField(help_text="The input: an option field, or a scenario path.", max_length=60)),
                ("low", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="low")),
                ("likely", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="likely")),
                ("high", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="high")),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "option",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="tco.scenariooption",
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="tco.scenario",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical input range",
                "verbose_name_plural": "historical input ranges",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="InputRange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("field", models.CharField(help_text="The input: an option field, or a scenario path.", max_length=60)),
                ("low", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="low")),
                ("likely", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="likely")),
                ("high", models.DecimalField(decimal_places=10, max_digits=24, verbose_name="high")),
                (
                    "option",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ranges",
                        to="tco.scenariooption",
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="input_ranges", to="tco.scenario"
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("option__isnull", True)),
                        fields=("scenario", "field"),
                        name="range_once_per_input",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("option__isnull", False)),
                        fields=("option", "field"),
                        name="range_once_per_option_input",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="ScenarioRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "scenario_version",
                    models.PositiveIntegerField(help_text="The scenario version this run was computed for."),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("pending", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("document", models.JSONField(help_text="The tco-scenario/1 document evaluated.")),
                ("result", models.JSONField(blank=True, help_text="The engine's tco-result/1.", null=True)),
                (
                    "figures",
                    models.JSONField(blank=True, help_text="Plotly figure dicts keyed by chart name.", null=True),
                ),
                (
                    "problems",
                    models.JSONField(blank=True, default=list, help_text="[{path, message}] when the engine refused."),
                ),
                ("error", models.TextField(blank=True)),
                ("engine_version", models.CharField(blank=True, max_length=20)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "started_at",
                    models.DateTimeField(blank=True, help_text="When a worker (or a command) claimed it.", null=True),
                ),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="runs", to="tco.scenario"
                    ),
                ),
                (
                    "sent_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the job was last handed to the workers; empty: not (yet) sent.",
                        null=True,
                    ),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the worker running it last said it is alive; empty: no worker beats.",
                        null=True,
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
                "indexes": [models.Index(fields=["scenario", "status", "-id"], name="scenario_run_latest")],
            },
        ),
        migrations.CreateModel(
            name="UncertaintyRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("scenario_version", models.PositiveIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Queued"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("progress", models.FloatField(default=0.0)),
                ("stage", models.CharField(blank=True, max_length=40)),
                ("cancel_requested", models.BooleanField(default=False)),
                ("document", models.JSONField(help_text="The tco-scenario/1 document.")),
                ("uncertainty", models.JSONField(default=dict, help_text="{path: {low, likely, high}}.")),
                ("trials", models.PositiveIntegerField(default=20000)),
                ("seed", models.PositiveIntegerField(default=0)),
                ("load_profile", models.JSONField(blank=True, default=list, help_text="GPUs busy per hour.")),
                ("load_profile_source", models.CharField(blank=True, max_length=200)),
                ("result", models.JSONField(blank=True, help_text="{simulation, tornado, fleet_plan}.", null=True)),
                ("figures", models.JSONField(blank=True, null=True)),
                ("problems", models.JSONField(blank=True, default=list)),
                ("error", models.TextField(blank=True)),
                ("engine_version", models.CharField(blank=True, max_length=20)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "started_at",
                    models.DateTimeField(blank=True, help_text="When a worker (or a command) claimed it.", null=True),
                ),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="uncertainty_runs", to="tco.scenario"
                    ),
                ),
                (
                    "sent_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the job was last handed to the workers; empty: not (yet) sent.",
                        null=True,
                    ),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the worker running it last said it is alive; empty: no worker beats.",
                        null=True,
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
                "indexes": [models.Index(fields=["scenario", "status", "-id"], name="uncertainty_run_latest")],
            },
        ),
        migrations.CreateModel(
            name="ActualsImport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("focus", "FOCUS billing export"),
                            ("owned", "Owned costs (invoices, energy)"),
                            ("dcgm", "DCGM exporter scrape"),
                            ("prometheus", "Prometheus query result"),
                            ("opencost", "OpenCost allocation response"),
                        ],
                        max_length=12,
                    ),
                ),
                ("file_name", models.CharField(max_length=300)),
                ("sha256", models.CharField(max_length=64, unique=True)),
                ("rows_read", models.PositiveBigIntegerField(default=0)),
                (
                    "lines_kept",
                    models.PositiveIntegerField(default=0, help_text="Grouped billing lines or utilization samples."),
                ),
                ("problems", models.JSONField(blank=True, default=list)),
                ("imported_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "imported_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["-imported_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="ActualsPlan",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "start_month",
                    models.CharField(help_text="The calendar month of the plan's month 1 (YYYY-MM).", max_length=7),
                ),
                ("months_in_a_row", models.PositiveSmallIntegerField(default=3)),
                ("document", models.JSONField()),
                ("result", models.JSONField()),
                ("verdict_holds", models.BooleanField(default=True)),
                ("verdict_since", models.CharField(blank=True, max_length=7)),
                ("verdict_text", models.CharField(blank=True, max_length=300)),
                ("checked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "warned_since",
                    models.CharField(
                        blank=True,
                        help_text="The turn the owner was e-mailed about (one e-mail per turn).",
                        max_length=7,
                    ),
                ),
                ("warned_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "decision",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="tco.decisionrecord"
                    ),
                ),
                (
                    "scenario",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, related_name="actuals_plan", to="tco.scenario"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="MappingRule",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveIntegerField(default=0)),
                ("option_name", models.CharField(max_length=200)),
                ("provider", models.CharField(blank=True, max_length=200)),
                ("service", models.CharField(blank=True, max_length=200)),
                ("sku", models.CharField(blank=True, max_length=300)),
                ("resource", models.CharField(blank=True, max_length=500)),
                ("tag", models.CharField(blank=True, max_length=300)),
                (
                    "plan",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="rules", to="tco.actualsplan"
                    ),
                ),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.CreateModel(
            name="UtilizationSample",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("month", models.CharField(max_length=7)),
                ("provider", models.CharField(max_length=40)),
                (
                    "service",
                    models.CharField(
                        blank=True, help_text="Cluster or namespace, when the source says.", max_length=200
                    ),
                ),
                ("resource", models.CharField(blank=True, max_length=500)),
                ("gpu", models.CharField(blank=True, help_text="The GPU's UUID or index.", max_length=200)),
                ("gpu_model", models.CharField(blank=True, max_length=100)),
                ("busy_gpu_hours", models.FloatField(blank=True, null=True)),
                ("gpu_hours", models.FloatField(default=0.0, help_text="GPU-hours observed (or allocated).")),
                ("cost", models.DecimalField(blank=True, decimal_places=10, max_digits=24, null=True)),
                ("currency", models.CharField(blank=True, max_length=3)),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="samples", to="tco.actualsimport"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="BillingLine",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("month", models.CharField(help_text="YYYY-MM of ChargePeriodStart, in UTC.", max_length=7)),
                ("provider", models.CharField(max_length=200)),
                ("service", models.CharField(blank=True, max_length=200)),
                ("sku", models.CharField(blank=True, max_length=300)),
                ("resource", models.CharField(blank=True, max_length=500)),
                ("tags", models.TextField(blank=True, help_text="The row's Tags as written (a JSON object).")),
                ("charge_category", models.CharField(blank=True, max_length=40)),
                ("currency", models.CharField(max_length=3)),
                ("gpu_model", models.CharField(blank=True, max_length=100)),
                ("gpus_per_instance", models.PositiveIntegerField(default=0)),
                ("billed_cost", models.DecimalField(decimal_places=10, max_digits=24)),
                ("effective_cost", models.DecimalField(decimal_places=10, max_digits=24)),
                ("list_cost", models.DecimalField(decimal_places=10, default=0, max_digits=24)),
                ("gpu_hours", models.FloatField(default=0.0)),
                ("row_count", models.PositiveIntegerField(default=1)),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="billing_lines",
                        to="tco.actualsimport",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["month", "provider", "service", "sku"], name="billing_line_month")],
            },
        ),
        migrations.CreateModel(
            name="HistoricalScenario",
            fields=[
                ("id", models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name="ID")),
                ("name", models.CharField(max_length=200, verbose_name="Name")),
                (
                    "currency",
                    models.CharField(
                        blank=True,
                        default="USD",
                        help_text="ISO code; blank means the engine default (USD).",
                        max_length=3,
                        verbose_name="Currency",
                    ),
                ),
                ("horizon_months", models.PositiveSmallIntegerField(default=36, verbose_name="Horizon")),
                (
                    "discount_rate",
                    models.DecimalField(
                        decimal_places=10, default=Decimal("0.08"), max_digits=24, verbose_name="Discount rate"
                    ),
                ),
                ("fleet_gpus", models.PositiveIntegerField(default=8, verbose_name="Fleet size")),
                (
                    "burst_price_per_gpu_hour",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Paid for demand above owned capacity or a commitment.",
                        max_digits=24,
                        null=True,
                        verbose_name="Burst price",
                    ),
                ),
                (
                    "workload_tokens_per_second_per_gpu",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Throughput"
                    ),
                ),
                (
                    "workload_output_tokens_per_response",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Output tokens per response",
                    ),
                ),
                (
                    "workload_input_tokens_per_response",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Input tokens per response",
                    ),
                ),
                (
                    "workload_acceptance_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Accepted responses ÷ attempted.",
                        max_digits=24,
                        null=True,
                        verbose_name="Acceptance rate",
                    ),
                ),
                (
                    "forecast_kind",
                    models.CharField(
                        choices=[
                            ("flat", "Flat"),
                            ("ramp", "Linear ramp"),
                            ("seasonal", "Seasonal"),
                            ("pasted", "Pasted from a spreadsheet"),
                        ],
                        default="flat",
                        max_length=10,
                        verbose_name="Forecast shape",
                    ),
                ),
                (
                    "forecast_flat_utilization",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Utilization"
                    ),
                ),
                (
                    "forecast_ramp_from_utilization",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Utilization in month 1"
                    ),
                ),
                (
                    "forecast_ramp_to_utilization",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Utilization in the last month",
                    ),
                ),
                (
                    "forecast_seasonal_base_utilization",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Seasonal base utilization",
                    ),
                ),
                (
                    "forecast_seasonal_amplitude",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Seasonal amplitude"
                    ),
                ),
                (
                    "forecast_seasonal_peak_month",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="1-12, counted from the first month of the horizon.",
                        null=True,
                        verbose_name="Seasonal peak month",
                    ),
                ),
                (
                    "forecast_pasted_utilization",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="One value per month (or one value), 55% or 0.55.",
                        verbose_name="Pasted utilization",
                    ),
                ),
                ("version", models.PositiveIntegerField(default=1)),
                ("created_at", models.DateTimeField(blank=True, editable=False)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "currency_conversions",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="[{from, to, mode, rate, rate_date, source, at}].",
                        verbose_name="currency conversion",
                    ),
                ),
                (
                    "cost_of_debt",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="What borrowing costs you before tax; a lease is compared with borrowing to buy at this rate after tax.",
                        max_digits=24,
                        null=True,
                        verbose_name="Cost of debt",
                    ),
                ),
                (
                    "refresh_policy",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("none", "Keep serving past the useful life"),
                            ("replace", "Replace at the end of the useful life"),
                            ("truncate", "Cut the comparison to the shortest life"),
                        ],
                        help_text="What happens when owned hardware reaches the end of its useful life within the horizon.",
                        max_length=10,
                        verbose_name="Refresh policy",
                    ),
                ),
                (
                    "tax_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Tax on profits: costs are deducted when paid, hardware through its tax depreciation. Below 100%.",
                        max_digits=24,
                        null=True,
                        verbose_name="Tax rate",
                    ),
                ),
                (
                    "training_checkpoint_interval_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="An interruption loses half an interval of work on average.",
                        max_digits=24,
                        null=True,
                        verbose_name="Checkpoint interval",
                    ),
                ),
                (
                    "training_cluster_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="GPUs one run uses at once; an owned option must have at least this many.",
                        null=True,
                        verbose_name="Cluster size",
                    ),
                ),
                (
                    "training_gpu_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="One attempt, without interruptions. Or leave blank and give the model's size below.",
                        max_digits=24,
                        null=True,
                        verbose_name="GPU-hours per run",
                    ),
                ),
                (
                    "training_interruptions_per_million_gpu_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Llama 3's run on 16,384 GPUs: about 19.7.",
                        max_digits=24,
                        null=True,
                        verbose_name="Interruptions",
                    ),
                ),
                (
                    "training_mfu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of the GPU's dense peak the run achieves; 35-45% is typical for large runs.",
                        max_digits=24,
                        null=True,
                        verbose_name="Model FLOPs utilization (MFU)",
                    ),
                ),
                (
                    "training_other_cost_per_run",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Data preparation, evaluation.",
                        max_digits=24,
                        null=True,
                        verbose_name="Other costs per run",
                    ),
                ),
                (
                    "training_params_billion",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Dense parameters; training takes 6 x parameters x tokens floating-point operations.",
                        max_digits=24,
                        null=True,
                        verbose_name="Model parameters",
                    ),
                ),
                (
                    "training_peak_tflops",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Dense, at the run's precision (an H100 SXM: 989 at FP16/BF16).",
                        max_digits=24,
                        null=True,
                        verbose_name="GPU peak (dense)",
                    ),
                ),
                (
                    "training_restart_hours",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="The whole cluster waits this long after each interruption.",
                        max_digits=24,
                        null=True,
                        verbose_name="Restart time",
                    ),
                ),
                (
                    "training_runs_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Attempts started a year, failed ones included.",
                        max_digits=24,
                        null=True,
                        verbose_name="Training runs",
                    ),
                ),
                (
                    "training_success_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of runs that become a validated model version.",
                        max_digits=24,
                        null=True,
                        verbose_name="Validated share of runs",
                    ),
                ),
                (
                    "training_tokens_billion",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Training tokens"
                    ),
                ),
                (
                    "serving_context_tokens",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Tokens of KV cache one request holds at most.",
                        null=True,
                        verbose_name="Context per request",
                    ),
                ),
                (
                    "serving_headroom",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Capacity kept spare above the traffic.",
                        max_digits=24,
                        null=True,
                        verbose_name="Headroom",
                    ),
                ),
                (
                    "serving_kv_bits",
                    models.CharField(
                        choices=[("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8)")],
                        default="16",
                        max_length=10,
                        verbose_name="KV cache precision",
                    ),
                ),
                (
                    "serving_language_model",
                    models.CharField(
                        blank=True,
                        help_text="A model of the model catalogue, by its name.",
                        max_length=100,
                        verbose_name="Language model",
                    ),
                ),
                (
                    "serving_statistic",
                    models.CharField(
                        choices=[("median", "Median"), ("p99", "99th percentile")],
                        default="median",
                        help_text="Which statistic of the measured latencies the targets hold at.",
                        max_length=10,
                        verbose_name="Latency statistic",
                    ),
                ),
                (
                    "serving_tpot_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Time per output token target",
                    ),
                ),
                (
                    "serving_traffic",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="One request-size bucket a line: requests per second, input tokens, output tokens (2.5, 1200, 350).",
                        verbose_name="Traffic",
                    ),
                ),
                (
                    "serving_ttft_ms",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Time to first token target",
                    ),
                ),
                (
                    "serving_weight_bits",
                    models.CharField(
                        choices=[("16", "16-bit (BF16/FP16)"), ("8", "8-bit (FP8/INT8)"), ("4", "4-bit (FP4/INT4)")],
                        default="16",
                        max_length=10,
                        verbose_name="Weight precision",
                    ),
                ),
                (
                    "sizing_applied",
                    models.JSONField(
                        blank=True,
                        help_text="{run, at, gpu, fleet_gpus, tokens_per_second_per_gpu, rows}.",
                        null=True,
                        verbose_name="sizing applied",
                    ),
                ),
            ],
            options={
                "verbose_name": "historical scenario",
                "verbose_name_plural": "historical scenarios",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="HistoricalScenarioOption",
            fields=[
                ("id", models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name="ID")),
                ("position", models.PositiveIntegerField(default=0)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("owned", "Owned (new)"),
                            ("secondary", "Owned (secondary)"),
                            ("hyperscaler", "Hyperscaler"),
                            ("neocloud", "Neocloud"),
                            ("marketplace", "Marketplace"),
                            ("api", "Managed model API"),
                        ],
                        max_length=20,
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                (
                    "gpu_count",
                    models.PositiveIntegerField(
                        blank=True, help_text="Blank: the fleet size.", null=True, verbose_name="GPU count"
                    ),
                ),
                (
                    "capex",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Purchase price of all the option's hardware (servers, GPUs, spares, installation), paid in month 1.",
                        max_digits=24,
                        null=True,
                        verbose_name="Capex, whole option",
                    ),
                ),
                (
                    "residual_value",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Expected resale value of all the option's hardware at the end of its life.",
                        max_digits=24,
                        null=True,
                        verbose_name="Residual value",
                    ),
                ),
                (
                    "useful_life_years",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Useful life"
                    ),
                ),
                (
                    "cost_of_capital",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Cost of capital"
                    ),
                ),
                (
                    "power_kw",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Power at full load, whole option",
                    ),
                ),
                (
                    "idle_power_kw",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="All the option's servers, idle. Blank: same as full load.",
                        max_digits=24,
                        null=True,
                        verbose_name="Idle power, whole option",
                    ),
                ),
                (
                    "pue",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Facility power ÷ IT power; blank = 1.",
                        max_digits=24,
                        null=True,
                        verbose_name="PUE",
                    ),
                ),
                (
                    "electricity_per_kwh",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Electricity"
                    ),
                ),
                (
                    "facility_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Facility / colocation"
                    ),
                ),
                (
                    "network_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Network"
                    ),
                ),
                (
                    "software_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Software"
                    ),
                ),
                (
                    "support_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Support"
                    ),
                ),
                (
                    "operations_per_year",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Operations staff"
                    ),
                ),
                (
                    "price_per_gpu_hour",
                    models.DecimalField(blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Price"),
                ),
                (
                    "billing",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("on_demand", "On demand"),
                            ("committed", "Committed"),
                            ("capacity_block", "Capacity block"),
                        ],
                        help_text="Blank: on demand.",
                        max_length=14,
                        verbose_name="Billing",
                    ),
                ),
                ("committed_gpus", models.PositiveIntegerField(blank=True, null=True, verbose_name="Committed GPUs")),
                (
                    "extras_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Storage, egress, support plans.",
                        max_digits=24,
                        null=True,
                        verbose_name="Extras: storage, egress, support",
                    ),
                ),
                (
                    "price_change_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="-0.10 = prices fall 10 % a year.",
                        max_digits=24,
                        null=True,
                        verbose_name="Price change",
                    ),
                ),
                (
                    "price_per_million_input_tokens",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Price per million input tokens",
                    ),
                ),
                (
                    "price_per_million_output_tokens",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        max_digits=24,
                        null=True,
                        verbose_name="Price per million output tokens",
                    ),
                ),
                (
                    "tokens_per_second_per_gpu",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Blank: the workload's.",
                        max_digits=24,
                        null=True,
                        verbose_name="Output tokens per second per GPU",
                    ),
                ),
                (
                    "acceptance_rate",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Blank: the workload's.",
                        max_digits=24,
                        null=True,
                        verbose_name="Acceptance rate",
                    ),
                ),
                ("price_source", models.JSONField(blank=True, null=True)),
                ("assumed_fields", models.JSONField(blank=True, default=list)),
                ("prefill_note", models.TextField(blank=True)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1),
                ),
                (
                    "gpu_model",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="pricing.gpumodel",
                    ),
                ),
                (
                    "history_user",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "price_observation",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="pricing.priceobservation",
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="tco.scenario",
                    ),
                ),
                ("price_path_source", models.JSONField(blank=True, null=True)),
                (
                    "after_term",
                    models.CharField(
                        blank=True,
                        choices=[("renew", "Renew"), ("on_demand", "Fall back to on demand")],
                        max_length=10,
                        verbose_name="After a term",
                    ),
                ),
                (
                    "age_at_purchase_months",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="A used unit starts this far along the resale curve.",
                        max_digits=24,
                        null=True,
                        verbose_name="Age at purchase",
                    ),
                ),
                (
                    "bonus_depreciation",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Deducted in tax year 1; the method applies to the rest.",
                        max_digits=24,
                        null=True,
                        verbose_name="Bonus depreciation",
                    ),
                ),
                (
                    "capex_change_per_year",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Price of a replacement unit (refresh policy: replace).",
                        max_digits=24,
                        null=True,
                        verbose_name="Replacement price change",
                    ),
                ),
                (
                    "commitment_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Each term locks the price of the month it starts.",
                        null=True,
                        verbose_name="Commitment term",
                    ),
                ),
                (
                    "down_payment_share",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of the price paid at purchase; the loan covers the rest.",
                        max_digits=24,
                        null=True,
                        verbose_name="Down payment",
                    ),
                ),
                (
                    "financing",
                    models.CharField(
                        blank=True,
                        choices=[("cash", "Pay cash"), ("loan", "Loan"), ("lease", "Lease")],
                        max_length=10,
                        verbose_name="Financing",
                    ),
                ),
                (
                    "lease_buyout_price",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Paid at the end of the lease; the hardware is then depreciated and sold like a purchase.",
                        max_digits=24,
                        null=True,
                        verbose_name="Lease buyout price",
                    ),
                ),
                (
                    "lease_end",
                    models.CharField(
                        blank=True,
                        choices=[("return", "Return the hardware"), ("buyout", "Buy it out")],
                        max_length=10,
                        verbose_name="Lease end",
                    ),
                ),
                (
                    "lease_payment",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Lease payment"
                    ),
                ),
                (
                    "lease_payment_interval_months",
                    models.PositiveIntegerField(blank=True, null=True, verbose_name="Lease payment interval"),
                ),
                (
                    "lease_payment_timing",
                    models.CharField(
                        blank=True,
                        choices=[("advance", "In advance"), ("arrears", "In arrears")],
                        max_length=10,
                        verbose_name="Lease payment timing",
                    ),
                ),
                (
                    "lease_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="A whole number of payment intervals, at most the horizon.",
                        null=True,
                        verbose_name="Lease term",
                    ),
                ),
                (
                    "loan_apr",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Nominal annual rate, compounded monthly.",
                        max_digits=24,
                        null=True,
                        verbose_name="Loan APR",
                    ),
                ),
                (
                    "loan_term_months",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Level payments at the end of each month.",
                        null=True,
                        verbose_name="Loan term",
                    ),
                ),
                (
                    "on_demand_price_per_gpu_hour",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="For hours above or outside the commitment, and a capacity block's inference hours.",
                        max_digits=24,
                        null=True,
                        verbose_name="On-demand price",
                    ),
                ),
                (
                    "price_change_by_year",
                    models.JSONField(
                        blank=True,
                        help_text="E.g. -25%, -10%, 0%; the last repeats. Instead of a price change per year.",
                        null=True,
                        verbose_name="Price change by year",
                    ),
                ),
                (
                    "resale_curve",
                    models.JSONField(
                        blank=True,
                        help_text="E.g. 0: 100%, 12: 70%, 36: 40%. It sets the residual value: leave that blank.",
                        null=True,
                        verbose_name="Resale curve",
                    ),
                ),
                (
                    "tax_depreciation",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("macrs_3", "MACRS 3-year"),
                            ("macrs_5", "MACRS 5-year"),
                            ("macrs_7", "MACRS 7-year"),
                            ("straight_line", "Straight line"),
                            ("none", "Not deducted"),
                        ],
                        help_text="MACRS: IRS Pub 946, half-year convention.",
                        max_length=13,
                        verbose_name="Tax depreciation",
                    ),
                ),
                (
                    "tax_life_years",
                    models.DecimalField(
                        blank=True, decimal_places=10, max_digits=24, null=True, verbose_name="Tax life"
                    ),
                ),
                (
                    "upfront_share",
                    models.DecimalField(
                        blank=True,
                        decimal_places=10,
                        help_text="Share of each term paid when it starts.",
                        max_digits=24,
                        null=True,
                        verbose_name="Upfront share",
                    ),
                ),
                (
                    "block_days",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Paid in full when the block starts, every hour used or not (1 to 182 days).",
                        null=True,
                        verbose_name="Block length",
                    ),
                ),
                (
                    "block_gpus",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="A capacity block rents this many GPUs together; blocks of one run go side by side.",
                        null=True,
                        verbose_name="GPUs per block",
                    ),
                ),
                ("throughput_source", models.JSONField(blank=True, null=True)),
            ],
            options={
                "verbose_name": "historical scenario option",
                "verbose_name_plural": "historical scenario options",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="SizingRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "scenario_version",
                    models.PositiveIntegerField(help_text="The scenario version this sizing was computed for."),
                ),
                ("document", models.JSONField(help_text="The tco-sizing/1 document sized.")),
                ("result", models.JSONField(blank=True, help_text="The engine's tco-sizing-result/1.", null=True)),
                (
                    "problems",
                    models.JSONField(blank=True, default=list, help_text="[{path, message}] when the engine refused."),
                ),
                (
                    "gpus",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="Per GPU in the document's order: {gpu_model_id, price_source, rows}.",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "scenario",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="sizing_runs", to="tco.scenario"
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
            },
        ),
    ]
