"""Types shared by the importers: parsed rows, row errors, skipped and held-back rows, the name catalog.

Importers are pure: they take text and a `ParseContext` holding a `Catalog` of known names (built once per
import from the database by the service) and return a `ParseResult`. They never touch the database.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from lib.currencies import DEFAULT_CURRENCY
from pricing.names import normalise_name

MICRO = Decimal("0.000001")
HALF_CENT = Decimal("0.005")
MAX_PRICE = Decimal(10) ** 8  # the observation columns hold 8 integer digits
# The region of a price whose file names none: one spelling, so the Market groups such rows together.
UNKNOWN_REGION = "unknown region"
API_KIND = "api"  # the provider kind priced per token


@dataclass(slots=True)
class RowError:
    line: int
    column: str
    value: str
    reason: str

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        column = f", column {self.column}" if self.column else ""
        value = f", value {self.value!r}" if self.value != "" else ""
        return f"{where}{column}{value}: {self.reason}"


class RowRefused(Exception):
    """Raised inside a parser's row loop for an entry it refuses, carrying the row error the loop records."""

    def __init__(self, error: RowError) -> None:
        super().__init__(error.reason)
        self.error = error


@dataclass(slots=True)
class Skip:
    """A row that gave no price of its own: skipped (not a GPU price), merged into another row's
    observation, or held back (a name to map first; `name` is that name, `kind` "gpu" or "provider")."""

    line: int
    reason: str
    value: str = ""
    name: str = ""
    kind: str = ""

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v or k in ("line", "reason", "value")}


@dataclass(slots=True)
class PriceRow:
    """One price: a GPU rental's per hour, or (no GPU model, no GPU count, no hourly prices) a model API's in $ per
    million input, output and cached-input tokens."""

    line: int
    provider_id: int
    offering: str
    gpu_model_id: int | None
    gpus_per_instance: int | None
    region: str
    pricing_term: str
    observed_on: date
    price_per_instance_hour: Decimal | None
    price_per_gpu_hour: Decimal | None
    currency: str = DEFAULT_CURRENCY
    source_url: str = ""
    channel_id: int | None = None
    upfront_fee: Decimal | None = None
    """A reservation's one-off fee, already spread over the term's hours in the prices above."""
    price_per_million_input_tokens: Decimal | None = None
    price_per_million_output_tokens: Decimal | None = None
    price_per_million_cached_input_tokens: Decimal | None = None

    @property
    def is_per_token(self) -> bool:
        return self.gpu_model_id is None

    def prices(self) -> tuple:
        """What must not change under the same key (history is not overwritten)."""
        return (
            self.price_per_gpu_hour,
            self.price_per_million_input_tokens,
            self.price_per_million_output_tokens,
            self.price_per_million_cached_input_tokens,
        )

    def key(self) -> tuple:
        """The natural key of an observation (unique in the database)."""
        return (
            self.provider_id,
            self.offering,
            self.gpu_model_id,
            self.gpus_per_instance,
            self.region,
            self.pricing_term,
            self.observed_on,
        )


@dataclass
class ParseResult:
    """What a file contained. Every data row is accounted for exactly once: it gave prices (`rows`, several
    per line for on-demand and spot), or it is in `skipped`, `merged` or `held_back`."""

    format: str
    rows: list[PriceRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    merged: list[Skip] = field(default_factory=list)
    held_back: list[Skip] = field(default_factory=list)
    warnings: list[Skip] = field(default_factory=list)
    """Prices imported as the file gives them that look wrong (a spot price above the on-demand one)."""
    rows_total: int = 0
    new_providers: list[ProviderRef] = field(default_factory=list)

    def count_row(self, line: int, max_rows: int, unit: str = "data rows") -> bool:
        """Counts one row (or entry); False, with the error, once the file has more than ``max_rows``."""
        self.rows_total += 1
        if self.rows_total > max_rows:
            reason = f"more than {max_rows:,} {unit} (PRICE_IMPORT_MAX_ROWS); split the file"
            self.errors.append(RowError(line, "", "", reason))
            return False
        return True


def per_million(price_per_token: Decimal) -> Decimal:
    """$ per million tokens from $ per token, kept to a millionth of a dollar (half-up)."""
    return (price_per_token * 1_000_000).quantize(MICRO, rounding=ROUND_HALF_UP)


def per_gpu(price_per_instance_hour: Decimal, gpus: int) -> Decimal:
    """$/GPU-hour is always the instance price divided by its GPUs, kept to a millionth of a dollar."""
    return (price_per_instance_hour / gpus).quantize(MICRO, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class ProviderRef:
    id: int
    name: str
    kind: str


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or `limit + 1` as soon as it must exceed `limit` (cheap for long names)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def typo_limit(key: str) -> int:
    """How many edits make two names look like a typo of each other: 1 for short names, 2 from 8 characters."""
    return 1 if len(key) < 8 else 2


def hint_limit(key: str) -> int:
    """How far a name may be from a known one to be suggested: 2 edits, a third of the name for long names."""
    return max(2, len(key) // 3)


def close_names(raw: str, known: dict[str, str], *, limit_of=hint_limit) -> list[str]:
    """Display names of the `known` (normalised key → display name) close to `raw`, nearest first."""
    key = normalise_name(raw)
    limit = limit_of(key)
    scored = sorted(
        (distance, name)
        for candidate, name in known.items()
        if (distance := edit_distance(key, candidate, limit)) <= limit
    )
    return list(dict.fromkeys(name for _, name in scored))[:4]


class Catalog:
    """Known GPU and provider names, matched case- and separator-insensitively (see `normalise_name`).

    GPU names resolve through the alias table (GpuAlias) plus each model's own name; providers through
    ProviderAlias (SkyPilot cloud names such as `gcp`, `oci`, `do`) plus their own name.
    """

    def __init__(
        self,
        *,
        gpu_names: dict[str, tuple[int, str]],
        providers: list[ProviderRef],
        provider_aliases: dict[str, str] | None = None,
    ) -> None:
        self._gpus = {normalise_name(name): ref for name, ref in gpu_names.items()}
        self._providers = {normalise_name(p.name): p for p in providers}
        by_name = {p.name: p for p in providers}
        for alias, name in (provider_aliases or {}).items():
            if name in by_name:
                self._providers.setdefault(normalise_name(alias), by_name[name])
        self._gpu_cache: dict[str, tuple[int, str] | None] = {}
        # Known names close to a name, per (kind, normalised name): a file naming one unknown GPU on 20,000 rows
        # searches once, not 20,000 times. Provider entries are dropped when the file adds a provider.
        self._close: dict[tuple[str, str], list[str]] = {}
        self._provisional = 0

    def gpu(self, raw: str) -> tuple[int, str] | None:
        """(id, model name) for a GPU name from a file, or None when unknown."""
        try:
            return self._gpu_cache[raw]
        except KeyError:
            found = self._gpus.get(normalise_name(raw))
            self._gpu_cache[raw] = found
            return found

    def _closest(self, kind: str, raw: str) -> list[str]:
        key = (kind, normalise_name(raw))
        if key not in self._close:
            if kind == "gpu":
                self._close[key] = close_names(raw, {k: ref[1] for k, ref in self._gpus.items()})
            else:
                limit_of = typo_limit if kind == "provider typo" else hint_limit
                self._close[key] = close_names(raw, {k: p.name for k, p in self._providers.items()}, limit_of=limit_of)
        return self._close[key]

    def gpu_error(self, raw: str) -> str:
        names = self._closest("gpu", raw)
        hint = f"; closest known: {', '.join(names)}" if names else ""
        return f"unknown GPU model {raw!r}{hint}. If it is another name for a known model, add an alias in the admin."

    def provider(self, raw: str) -> ProviderRef | None:
        return self._providers.get(normalise_name(raw))

    def provider_lookalikes(self, raw: str) -> list[str]:
        """Known providers `raw` may be a typo of (the guard before a file adds a provider)."""
        return self._closest("provider typo", raw)

    def provider_error(self, raw: str) -> str:
        names = self._closest("provider", raw)
        hint = f"; closest known: {', '.join(names)}" if names else ""
        return (
            f"unknown provider {raw!r}{hint}. Add it (or an alias for it) in the admin under Providers, "
            "or run `manage.py load_reference` if this deployment has no reference data yet."
        )

    def add_provisional_provider(self, name: str, kind: str) -> ProviderRef:
        """A provider a file introduces: a negative id the service replaces once it has created the provider."""
        self._provisional -= 1
        ref = ProviderRef(self._provisional, name, kind)
        self._providers[normalise_name(name)] = ref
        self._close = {key: names for key, names in self._close.items() if key[0] == "gpu"}
        return ref


@dataclass(frozen=True)
class ParseContext:
    """Everything a parser needs besides the text."""

    catalog: Catalog
    today: date
    max_rows: int
    variant: str = ""
    provider: ProviderRef | None = None
    observed_on: date | None = None
    source_url: str = ""
    new_providers: frozenset[str] = frozenset()


class ApiProviders:
    """The providers of a model API price feed's entries, by name: a known model API provider, or one the file adds
    (of kind api); None for a known provider of another kind (a hyperscaler is not a model API)."""

    def __init__(self, context: ParseContext, result: ParseResult) -> None:
        self.catalog, self.result = context.catalog, result
        self.found: dict[str, ProviderRef | None] = {}

    def get(self, name: str) -> ProviderRef | None:
        if name not in self.found:
            known = self.catalog.provider(name)
            if known is None:
                known = self.catalog.add_provisional_provider(name, API_KIND)
                self.result.new_providers.append(known)
            self.found[name] = known if known.kind == API_KIND else None
        return self.found[name]

    @staticmethod
    def not_an_api(name: str) -> str:
        return f"{name} is not a model API provider in the reference data; add a model API provider for it"
