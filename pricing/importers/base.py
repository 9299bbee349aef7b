"""Types shared by the importers: parsed rows, row errors, skipped rows and the name catalog.

Importers are pure: they take text and a `Catalog` of known names (built once per import from
the database by the service) and return a `ParseResult`. They never touch the database.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from pricing.names import normalise_name

MICRO = Decimal("0.000001")
HALF_CENT = Decimal("0.005")
MAX_PRICE = Decimal(10) ** 8  # the observation columns hold 8 integer digits


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


@dataclass(slots=True)
class Skip:
    line: int
    reason: str
    value: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(slots=True)
class PriceRow:
    line: int
    provider_id: int
    offering: str
    gpu_model_id: int
    gpus_per_instance: int
    region: str
    pricing_term: str
    observed_on: date
    price_per_instance_hour: Decimal
    price_per_gpu_hour: Decimal
    currency: str = "USD"
    source_url: str = ""

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
    format: str
    rows: list[PriceRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    rows_total: int = 0


def per_gpu(price_per_instance_hour: Decimal, gpus: int) -> Decimal:
    """$/GPU-hour is always the instance price divided by its GPUs, kept to a millionth of a dollar."""
    return (price_per_instance_hour / gpus).quantize(MICRO, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class ProviderRef:
    id: int
    name: str
    kind: str


class Catalog:
    """Known GPU and provider names, matched case- and separator-insensitively (see `normalise_name`).

    GPU names resolve through the one alias table (GpuAlias) plus each model's own name.
    """

    # Cloud keys SkyPilot uses for its catalogs that differ from the provider's display name.
    PROVIDER_SHORT_NAMES = {"gcp": "Google Cloud", "google": "Google Cloud", "oci": "Oracle", "vast": "Vast.ai"}

    def __init__(self, *, gpu_names: dict[str, tuple[int, str]], providers: list[ProviderRef]) -> None:
        self._gpus = {normalise_name(name): ref for name, ref in gpu_names.items()}
        self._providers = {normalise_name(p.name): p for p in providers}
        for short, full in self.PROVIDER_SHORT_NAMES.items():
            if normalise_name(full) in self._providers:
                self._providers.setdefault(short, self._providers[normalise_name(full)])
        self._gpu_cache: dict[str, tuple[int, str] | None] = {}

    def gpu(self, raw: str) -> tuple[int, str] | None:
        """(id, model name) for a GPU name from a file, or None when unknown."""
        try:
            return self._gpu_cache[raw]
        except KeyError:
            found = self._gpus.get(normalise_name(raw))
            self._gpu_cache[raw] = found
            return found

    def gpu_error(self, raw: str) -> str:
        key = normalise_name(raw)
        close = difflib.get_close_matches(key, self._gpus.keys(), n=12, cutoff=0.5)
        names = list(dict.fromkeys(self._gpus[k][1] for k in close))[:4]
        hint = f"; closest known: {', '.join(names)}" if names else ""
        return f"unknown GPU model {raw!r}{hint}. If it is another name for a known model, add an alias in the admin."

    def provider(self, raw: str) -> ProviderRef | None:
        return self._providers.get(normalise_name(raw))

    def provider_error(self, raw: str) -> str:
        close = difflib.get_close_matches(normalise_name(raw), self._providers.keys(), n=8, cutoff=0.5)
        names = list(dict.fromkeys(self._providers[k].name for k in close))[:4]
        hint = f"; closest known: {', '.join(names)}" if names else ""
        return f"unknown provider {raw!r}{hint}. Add it in the admin first."
