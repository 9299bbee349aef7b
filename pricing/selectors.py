"""Reads of the pricing app. Each returns a queryset or plain data in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db import connection
from django.db.models import Avg, Case, Exists, Max, OuterRef, Prefetch, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce, TruncWeek

from lib.currencies import DEFAULT_CURRENCY
from pricing import fx, trends
from pricing.fx import Rate
from pricing.importers import Catalog, ProviderRef
from pricing.importers.throughput import THROUGHPUT_COLUMNS
from pricing.models import (
    CurrentPrice,
    ExchangeRate,
    GpuAlias,
    GpuModel,
    LanguageModel,
    PriceObservation,
    PriceSnapshot,
    PricingTerm,
    Provider,
    ProviderKind,
    SnapshotStatus,
    ThroughputImport,
    ThroughputMeasurement,
)

TOKEN_PRICE_ORDER = ("price_per_million_input_tokens", "price_per_million_output_tokens")

# What makes an offering re-priced between two files: its GPU-hour price, or a model API's per-token prices.
DIFF_PRICES = ("price_per_gpu_hour", *TOKEN_PRICE_ORDER, "price_per_million_cached_input_tokens")
# An offering as one feed prices it (two feeds may disagree on one day; each keeps its own history).
OFFERING_FIELDS = ("provider_id", "offering", "gpu_model_id", "gpus_per_instance", "region", "pricing_term", "feed")


def import_catalog() -> Catalog:
    """Every GPU and provider name an import may use, with their aliases, built once per import (three queries)."""
    gpu_names: dict[str, tuple[int, str]] = {}
    for alias, model_id, model_name in GpuAlias.objects.values_list("alias", "gpu_model_id", "gpu_model__name"):
        gpu_names[alias] = (model_id, model_name)
    for model_id, model_name in GpuModel.objects.values_list("id", "name"):
        gpu_names.setdefault(model_name, (model_id, model_name))
    providers = [ProviderRef(*values) for values in Provider.objects.values_list("id", "name", "kind")]
    aliases = dict(Provider.objects.filter(aliases__isnull=False).values_list("aliases__alias", "name"))
    return Catalog(gpu_names=gpu_names, providers=providers, provider_aliases=aliases)


def latest_prices(
    *,
    gpu_model_id: int | None = None,
    provider_kind: str = "",
    pricing_term: str = "",
    region: str = "",
    descending: bool = False,
) -> QuerySet[CurrentPrice]:
    """The current price of every offering (its latest observation, read with it), cheapest first; ties by provider
    name, offering, region, then observation id, so that pages never overlap.

    The current-price table the imports keep: one row per offering whatever the number of observations, filtered,
    counted, ordered and sliced on its own columns; the observations of the rows read come in one more query, by
    primary key (so the last page costs what the first does).

    GPU rentals, priced per GPU-hour; with `provider_kind` "api", the model APIs instead, priced per million tokens
    (input, then output, cheapest first)."""
    per_token = provider_kind == ProviderKind.API
    rows = CurrentPrice.objects.filter(gpu_model__isnull=per_token)
    if gpu_model_id:
        rows = rows.filter(gpu_model_id=gpu_model_id)
    if provider_kind:
        rows = rows.filter(provider__kind=provider_kind)
    if pricing_term:
        rows = rows.filter(pricing_term=pricing_term)
    if region:
        rows = rows.filter(region__icontains=region)
    prices = TOKEN_PRICE_ORDER if per_token else ("price_per_gpu_hour",)
    order = (*(f"-{p}" if descending else p for p in prices), "provider__name", "offering", "region", "observation_id")
    return rows.select_related("provider", "gpu_model").prefetch_related("observation").order_by(*order)


def offering_history(*, observation: PriceObservation) -> QuerySet[PriceObservation]:
    """Every observation of the same offering as `observation`, oldest first."""
    same = {name: getattr(observation, name) for name in OFFERING_FIELDS}
    return PriceObservation.objects.filter(**same).select_related("snapshot").order_by("observed_on", "snapshot_id")


def latest_snapshot_per_source() -> QuerySet[PriceSnapshot]:
    """The most recent snapshot of each source (file, URL or schedule), newest first."""
    newest_ids = PriceSnapshot.objects.values("source").annotate(newest=Max("id")).values("newest")
    return PriceSnapshot.objects.filter(id__in=newest_ids).order_by("-created_at", "-id")


def failed_snapshots(limit: int = 10) -> QuerySet[PriceSnapshot]:
    """The latest imports that were rejected or failed, newest first."""
    bad = Q(status=SnapshotStatus.REJECTED) | Q(status=SnapshotStatus.FAILED)
    return PriceSnapshot.objects.filter(bad).order_by("-created_at", "-id")[:limit]


def snapshot_list() -> QuerySet[PriceSnapshot]:
    """Every import, newest first, without the row lists (skipped, merged, held back) only its own page shows."""
    rows = PriceSnapshot.objects.select_related("created_by").defer("skipped", "merged", "held_back")
    return rows.order_by("-created_at", "-id")


def comparison_points(
    *, gpu_model_id: int, pricing_term: str, provider_kind: str = "", region: str = ""
) -> list[tuple]:
    """Latest prices of one GPU model and term, filtered like the Market table (one query): per price, its provider,
    kind, offering, region, GPUs per instance, price per GPU-hour (a float) and currency, a chart's point fields."""
    rows = latest_prices(
        gpu_model_id=gpu_model_id, pricing_term=pricing_term, provider_kind=provider_kind, region=region
    )
    columns = ("provider__name", "provider__kind", "offering", "region", "gpus_per_instance")
    return [
        (*values[:5], float(values[5]), values[6])
        for values in rows.values_list(*columns, "price_per_gpu_hour", "currency")
    ]


@dataclass(frozen=True)
class PriceChange:
    provider: str
    offering: str
    gpu_model: str
    gpus_per_instance: int
    region: str
    pricing_term: str
    old_price_per_gpu_hour: Decimal | None
    new_price_per_gpu_hour: Decimal | None
    currency: str

    @property
    def pricing_term_label(self) -> str:
        return PricingTerm(self.pricing_term).label if self.pricing_term in PricingTerm.values else self.pricing_term

    @property
    def change_ratio(self) -> float | None:
        if self.old_price_per_gpu_hour and self.new_price_per_gpu_hour is not None:
            return float(self.new_price_per_gpu_hour / self.old_price_per_gpu_hour - 1)
        return None


@dataclass(frozen=True)
class SnapshotDiff:
    added: list[PriceChange]
    removed: list[PriceChange]
    changed: list[PriceChange]
    unchanged: int
    partly_known: list[PriceSnapshot] = field(default_factory=list)


def _offerings(snapshot: PriceSnapshot) -> dict[tuple, dict]:
    """The offerings of a snapshot's file; an offering the file lists on several dates counts at its latest one."""
    values = (
        PriceObservation.objects.filter(memberships__snapshot=snapshot)
        .order_by("observed_on", "id")
        .values(*OFFERING_FIELDS, "provider__name", "gpu_model__name", *DIFF_PRICES, "currency")
    )
    return {tuple(row[name] for name in OFFERING_FIELDS): row for row in values}


def _change(row: dict, old: Decimal | None, new: Decimal | None) -> PriceChange:
    return PriceChange(
        row["provider__name"],
        row["offering"],
        row["gpu_model__name"],
        row["gpus_per_instance"],
        row["region"],
        row["pricing_term"],
        old,
        new,
        row["currency"],
    )


def snapshot_diff(*, old: PriceSnapshot, new: PriceSnapshot) -> SnapshotDiff:
    """Offerings added, removed and re-priced from the file of snapshot `old` to that of `new` (two queries).

    Compares what each file contained, whether the snapshot stored a row or found it already known.
    `partly_known` lists those of the two snapshots imported before files were recorded whole.
    """
    before, after = _offerings(old), _offerings(new)
    added = [_change(row, None, row["price_per_gpu_hour"]) for key, row in after.items() if key not in before]
    removed = [_change(row, row["price_per_gpu_hour"], None) for key, row in before.items() if key not in after]
    changed = [
        _change(row, before[key]["price_per_gpu_hour"], row["price_per_gpu_hour"])
        for key, row in after.items()
        if key in before and any(before[key][price] != row[price] for price in DIFF_PRICES)
    ]
    unchanged = sum(1 for key in after if key in before) - len(changed)

    def order(change: PriceChange) -> tuple:
        return (change.provider, change.gpu_model, change.offering, change.region, change.pricing_term)

    return SnapshotDiff(
        sorted(added, key=order),
        sorted(removed, key=order),
        sorted(changed, key=order),
        unchanged,
        partly_known=[snapshot for snapshot in (old, new) if not snapshot.contents_recorded],
    )


def gpu_models_with_prices() -> QuerySet[GpuModel]:
    return GpuModel.objects.filter(Exists(CurrentPrice.objects.filter(gpu_model=OuterRef("pk")))).order_by("name")


def export_rows(*, snapshot_id: int | None = None, latest: bool = False) -> QuerySet:
    """Observations as canonical-format values, for `export_prices`; with `snapshot_id`, every row of that file."""
    rows = PriceObservation.objects.filter(current__isnull=False) if latest else PriceObservation.objects.all()
    if snapshot_id is not None:
        rows = rows.filter(memberships__snapshot_id=snapshot_id)
    return rows.order_by("observed_on", "provider__name", "offering", "region", "pricing_term", "id").values_list(
        "provider__name",
        "provider__kind",
        "gpu_model__name",
        "gpus_per_instance",
        "offering",
        "region",
        "pricing_term",
        "price_per_instance_hour",
        "price_per_gpu_hour",
        "currency",
        "observed_on",
        "source_url",
        "price_per_million_input_tokens",
        "price_per_million_output_tokens",
        "price_per_million_cached_input_tokens",
    )


def _current_matching(*, gpu: str, provider: str, term: str, currency: str, per_token: bool) -> QuerySet[CurrentPrice]:
    """The current price of each offering matching the price picker's search (names in any case, part of them): GPU
    prices, or with `per_token` model APIs' prices, whose `gpu` search is the model's name (the offering)."""
    rows = CurrentPrice.objects.filter(gpu_model__isnull=per_token)
    if gpu:
        rows = rows.filter(offering__icontains=gpu) if per_token else rows.filter(gpu_model__name__icontains=gpu)
    if provider:
        rows = rows.filter(provider__name__icontains=provider)
    if term:
        rows = rows.filter(pricing_term=term)
    if currency:
        rows = rows.filter(currency=currency)
    return rows


def market_prices(
    *,
    gpu: str = "",
    provider: str = "",
    term: str = "",
    currency: str = "",
    limit: int = 25,
    offset: int = 0,
    per_token: bool = False,
    first_terms: Sequence[str] = (),
) -> list[PriceObservation]:
    """Latest observation per offering for the price picker, filtered by the search: the `first_terms` (the option's
    own) first, cheapest first within them and within the rest (a model API by its input price, then its output
    price); ``limit`` of them from the ``offset``-th (``market_price_count`` says how many match). Matched, ordered
    and sliced on the current-price table, like ``latest_prices``; the page's observations come in one more query,
    by primary key."""
    prices = (
        ("price_per_million_input_tokens", "price_per_million_output_tokens") if per_token else ("price_per_gpu_hour",)
    )
    order = (*prices, "provider__name", "offering", "region", "observation_id")
    observations = Prefetch(
        "observation", queryset=PriceObservation.objects.select_related("provider", "gpu_model", "snapshot")
    )
    rows = _current_matching(gpu=gpu, provider=provider, term=term, currency=currency, per_token=per_token)
    if first_terms:
        rows = rows.annotate(other_term=Case(When(pricing_term__in=list(first_terms), then=Value(1)), default=Value(2)))
        order = ("other_term", *order)
    rows = rows.order_by(*order)
    return [row.observation for row in rows.prefetch_related(observations)[offset : offset + limit]]


def market_price_count(
    *, gpu: str = "", provider: str = "", term: str = "", currency: str = "", per_token: bool = False
) -> int:
    """How many offerings ``market_prices`` pages through for the same search."""
    return _current_matching(gpu=gpu, provider=provider, term=term, currency=currency, per_token=per_token).count()


def exchange_rate(base: str, quote: str, *, on: date | None = None) -> Rate | None:
    """The rate converting `base` into `quote` nearest `on` (the latest on or before it, else the earliest after;
    the latest of all when `on` is None), or None when no stored rate connects the two currencies.

    Direct rates, inverted ones and cross rates via EUR (two rates of one date and source) compete; the one
    dated nearest wins, a direct rate on a tie.
    """
    if base == quote:
        return fx.identity(base)
    candidates: list[Rate] = []
    for row in _nearest(ExchangeRate.objects.filter(base=base, quote=quote), on)[:1]:
        candidates.append(_rate(row))
    for row in _nearest(ExchangeRate.objects.filter(base=quote, quote=base), on)[:1]:
        candidates.append(_rate(row).inverse)
    if fx.PIVOT not in (base, quote):
        to_base = {(r.rate_date, r.source): r for r in _nearest(_pivot_rows(base), on)[:400]}
        for row in _nearest(_pivot_rows(quote), on)[:400]:
            match = to_base.get((row.rate_date, row.source))
            if match is not None:
                candidates.append(fx.cross(_rate(match), _rate(row)))
                break
    if not candidates:
        return None
    return min(candidates, key=lambda rate: (_distance(rate.rate_date, on), bool(rate.via)))


def _pivot_rows(quote: str) -> QuerySet[ExchangeRate]:
    return ExchangeRate.objects.filter(base=fx.PIVOT, quote=quote)


def _nearest(rows: QuerySet[ExchangeRate], on: date | None) -> list[ExchangeRate]:
    if on is None:
        return list(rows.order_by("-rate_date", "source")[:400])
    before = list(rows.filter(rate_date__lte=on).order_by("-rate_date", "source")[:400])
    return before or list(rows.filter(rate_date__gt=on).order_by("rate_date", "source")[:400])


def _distance(day: date | None, on: date | None) -> tuple[int, int]:
    if day is None or on is None:
        return (0, -(day.toordinal() if day else 0))
    return (0, (on - day).days) if day <= on else (1, (day - on).days)


def _rate(row: ExchangeRate) -> Rate:
    return Rate(row.base, row.quote, row.rate, row.rate_date, row.source)


def newer_observations(observation_ids: Iterable[int]) -> dict[int, PriceObservation]:
    """For each observation id, the latest observation of the same offering (provider, offering, GPU model and
    count, region, term) when it is dated after it: the offering's current price (two queries)."""
    newer = CurrentPrice.objects.filter(
        **{name: OuterRef(name) for name in OFFERING_FIELDS}, observed_on__gt=OuterRef("observed_on")
    ).values("observation_id")
    pairs = dict(
        PriceObservation.objects.filter(pk__in=set(observation_ids))
        .annotate(newer_id=Subquery(newer))
        .filter(newer_id__isnull=False)
        .values_list("pk", "newer_id")
    )
    if not pairs:
        return {}
    found = PriceObservation.objects.select_related("provider").in_bulk(set(pairs.values()))
    return {pk: found[newer_id] for pk, newer_id in pairs.items()}


def market_revision() -> tuple:
    """What ``market_revision_sql`` reads, in one query: equal values mean the Market's pages show the same."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {market_revision_sql()}")
        return tuple(cursor.fetchone())


def market_revision_sql() -> str:
    """SQL select-list columns (for a stamp query) that change whenever what other pages show of the Market does:
    a new observation (observations are append-only: no code path and no admin page edits or deletes them; imports
    store one at a time, so MAX(id) moves with every commit), a
    provider renamed, or a GPU model added, edited or removed. Providers and GPU models with observations cannot be
    deleted (PROTECT). Portable SQL."""
    observations, providers, gpu_models = (m._meta.db_table for m in (PriceObservation, Provider, GpuModel))
    return (
        f"(SELECT MAX(id) FROM {observations}), (SELECT MAX(updated_at) FROM {providers}), "
        f"(SELECT COUNT(*) FROM {gpu_models}), (SELECT MAX(updated_at) FROM {gpu_models})"
    )


def price_trend(
    *, gpu_model: GpuModel, pricing_term: str, months: int = 12, currency: str = DEFAULT_CURRENCY
) -> trends.PriceTrend:
    """Where ``gpu_model``'s ``pricing_term`` prices in ``currency`` are heading: the weekly index over the
    ``months`` months to its newest observation, and the change per year fitted to it (pricing.trends).

    Two queries: the newest date, then one row per offering and week (its mean price that week), grouped by the
    database over the (GPU model, term, date) index; pandas takes the medians."""
    rows = PriceObservation.objects.filter(gpu_model=gpu_model, pricing_term=pricing_term, currency=currency)
    last_day = rows.aggregate(last=Max("observed_on"))["last"]
    found = trends.PriceTrend(gpu_model.name, pricing_term, currency, months, None, last_day, [], None)
    if last_day is None:
        return found
    first_day = trends.window_start(last_day, months)
    weekly = list(
        rows.filter(observed_on__gte=first_day)
        .annotate(week=TruncWeek("observed_on"))
        .values("week", "provider_id", "offering", "gpus_per_instance", "region")
        .annotate(price=Avg("price_per_gpu_hour"))
        .values_list("week", "provider_id", "offering", "gpus_per_instance", "region", "price")
    )
    keyed = [(week, tuple(key), float(price)) for week, *key, price in weekly]
    index = trends.weekly_index(keyed)
    offerings = len({key for _, key, _ in keyed})
    return trends.PriceTrend(
        gpu_model.name, pricing_term, currency, months, first_day, last_day, index, trends.fit_trend(index), offerings
    )


def market_currencies() -> list[str]:
    """The currencies the Market's current prices are in, USD first."""
    codes = set(CurrentPrice.objects.values_list("currency", flat=True).distinct())
    return sorted(codes, key=lambda code: (code != DEFAULT_CURRENCY, code))


# ---- the GPU and model catalogues and the throughput library -------------------------------------------------------

GPU_CATALOGUE_FIELDS = (
    "id",
    "name",
    "vendor",
    "form_factor",
    "memory_gb",
    "memory_gib",
    "memory_bandwidth_tb_per_s",
    "peak_dense_tflops_fp16",
    "peak_dense_tflops_fp8",
    "peak_dense_tflops_fp4",
    "tdp_watts",
    "gpus_per_node",
    "spec_source",
)
# A tco-sizing/1 document's measured row; throughput_rows adds its id (the measurement's) and measured_on.
THROUGHPUT_ROW_FIELDS = (
    "tp",
    "concurrency",
    "input_tokens",
    "output_tokens",
    "output_tokens_per_second_per_gpu",
    "ttft_ms",
    "tpot_ms",
    "source",
)
# What tells two runs of the same operating point apart besides their date: the newest of each is the one sizing
# reads; the older ones stay in the library.
_SAME_POINT = ("tp", "concurrency", "input_tokens", "output_tokens", "precision", "kv_bits")
_SAME_SETUP = ("hardware", "software", "configuration")


def gpu_catalogue(*, with_memory_only: bool = False) -> list[dict]:
    """Every GPU model with its sizing figures (GPU_CATALOGUE_FIELDS; decimals as Decimal, blanks as None), in the
    catalogue's order (vendor, name). `with_memory_only`: only those whose runtime memory is known."""
    models = GpuModel.objects.all()
    if with_memory_only:
        models = models.filter(memory_gib__isnull=False)
    return list(models.values(*GPU_CATALOGUE_FIELDS))


def language_models() -> QuerySet[LanguageModel]:
    """The model catalogue, by name."""
    return LanguageModel.objects.all()


# A tco-sizing/1 document's `model` section, read from the model catalogue.
MODEL_SHAPE_FIELDS = (
    "name",
    "params_billion",
    "layers",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "kv_lora_rank",
    "qk_rope_head_dim",
)


def language_model_shape(*, language_model: LanguageModel) -> dict:
    """The model as a sizing document's `model` section: MODEL_SHAPE_FIELDS, parameters as a float, the latent
    attention sizes only for a model that has them."""
    shape = {name: getattr(language_model, name) for name in MODEL_SHAPE_FIELDS}
    shape["params_billion"] = float(shape["params_billion"])
    if not language_model.is_latent:
        del shape["kv_lora_rank"], shape["qk_rope_head_dim"]
    return shape


def throughput_rows(
    *,
    gpu_model: GpuModel | int,
    language_model: LanguageModel | int,
    weight_bits: int,
    statistic: str = "median",
    latest_only: bool = True,
) -> list[dict]:
    """The measured rows of one model on one GPU type at one weight precision and latency statistic, in the shape
    of a tco-sizing/1 document's measured rows (THROUGHPUT_ROW_FIELDS) plus `id` (the measurement's, which the
    document takes too) and `measured_on` (a date or None: say it with the source, and take it out of the row
    before the row goes into a document's `gpus[].throughput`).

    `latest_only`: of several runs of the same operating point on the same setup, only the newest (by date, then
    by import order); the older ones remain in the library and its export. One query."""
    order = ("tp", "input_tokens", "output_tokens", "concurrency", "id")
    rows = list(
        ThroughputMeasurement.objects.filter(
            gpu_model=gpu_model, language_model=language_model, weight_bits=weight_bits, statistic=statistic
        )
        .order_by(*order)
        .values("id", "measured_on", *THROUGHPUT_ROW_FIELDS, "precision", "kv_bits", *_SAME_SETUP)
    )
    if latest_only:
        kept: dict[tuple, dict] = {}
        for row in rows:
            key = tuple(row[name] for name in (*_SAME_POINT, *_SAME_SETUP))
            if key not in kept or _newer(row, kept[key]):
                kept[key] = row
        # MLPerf publishes no concurrency: None sorts first, as the database orders it on SQLite.
        rows = sorted(kept.values(), key=lambda row: tuple(_sortable(row[name]) for name in order))
    return [{name: row[name] for name in (*THROUGHPUT_ROW_FIELDS, "id", "measured_on")} for row in rows]


def _sortable(value: int | None) -> int:
    return -1 if value is None else value


def _newer(row: dict, than: dict) -> bool:
    """Whether `row` is a later run than `than`: a later date (an undated run is older than any dated one), then a
    later import."""
    day, other = row["measured_on"] or date.min, than["measured_on"] or date.min
    return (day, row["id"]) > (other, than["id"])


def throughput_library(*, gpu_model_id: int | None = None, language_model_id: int | None = None) -> QuerySet:
    """The measurements for the library page, newest import first, with their GPU and model read along."""
    rows = ThroughputMeasurement.objects.select_related("gpu_model", "language_model", "throughput_import")
    if gpu_model_id:
        rows = rows.filter(gpu_model_id=gpu_model_id)
    if language_model_id:
        rows = rows.filter(language_model_id=language_model_id)
    return rows.order_by("gpu_model__name", "model_name", "tp", "input_tokens", "output_tokens", "concurrency", "id")


def throughput_export_rows() -> QuerySet:
    """Every measurement as a tuple in THROUGHPUT_COLUMNS order (the catalogue's model name where the row is linked
    to one, else the name as the source wrote it), oldest first."""
    model = Coalesce("language_model__name", "model_name")
    fields = ("gpu_model__name" if column == "gpu_model" else column for column in THROUGHPUT_COLUMNS)
    return ThroughputMeasurement.objects.order_by("id").annotate(model=model).values_list(*fields)


def throughput_gpus() -> QuerySet[GpuModel]:
    """The GPU models with at least one measurement (the library's filter)."""
    return GpuModel.objects.filter(Exists(ThroughputMeasurement.objects.filter(gpu_model=OuterRef("pk"))))


def throughput_models() -> QuerySet[LanguageModel]:
    """The language models with at least one measurement (the library's filter)."""
    return LanguageModel.objects.filter(Exists(ThroughputMeasurement.objects.filter(language_model=OuterRef("pk"))))


def throughput_imports(limit: int = 10) -> QuerySet[ThroughputImport]:
    return ThroughputImport.objects.order_by("-created_at", "-id")[:limit]
