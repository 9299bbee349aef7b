"""Writes of exchange rates: an ECB reference-rate file imported all or nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from lib.users import signed_in_user
from pricing.importers import decode
from pricing.importers.base import RowError
from pricing.importers.ecb_rates import BASE, parse_ecb_rates
from pricing.models import ExchangeRate

ECB_SOURCE = "ECB euro reference rates"
RATE_PLACES = Decimal("0.0000000001")


@dataclass
class RatesImport:
    """What an import did: new rows, rows already known (same pair, date, source and rate), skipped cells."""

    new: int = 0
    known: int = 0
    blank: int = 0
    errors: list[RowError] = field(default_factory=list)

    @property
    def summary(self) -> str:
        if self.errors:
            return f"rejected: {len(self.errors)} error(s); nothing was imported"
        return f"{self.new} new, {self.known} already known, {self.blank} blank or N/A cells skipped"


def exchange_rates_import(
    *, content: bytes, source: str = ECB_SOURCE, imported_from: str = "", user: AbstractBaseUser | None = None
) -> RatesImport:
    """Store the EUR → X rates of an ECB-layout file. One bad cell and nothing is stored (every error listed);
    a rate already stored for the same pair, date and source must agree, since rates are history."""
    try:
        parsed = parse_ecb_rates(decode(content))
    except ValueError as error:
        return RatesImport(errors=[RowError(0, "", "", str(error))])
    outcome = RatesImport(blank=parsed.blank_cells, errors=list(parsed.errors))
    if outcome.errors:
        return outcome
    source = source.strip()[:200] or ECB_SOURCE
    days = {row.rate_date for row in parsed.rows}
    stored = {
        (quote, day): rate
        for quote, day, rate in ExchangeRate.objects.filter(base=BASE, source=source, rate_date__in=days).values_list(
            "quote", "rate_date", "rate"
        )
    }
    fresh = []
    for row in parsed.rows:
        rate = row.rate.quantize(RATE_PLACES)
        known = stored.get((row.quote, row.rate_date))
        if known is None:
            fresh.append(
                ExchangeRate(
                    base=BASE,
                    quote=row.quote,
                    rate=rate,
                    rate_date=row.rate_date,
                    source=source,
                    imported_from=imported_from[:500],
                    created_by=signed_in_user(user),
                )
            )
        elif known == rate:
            outcome.known += 1
        else:
            outcome.errors.append(
                RowError(
                    row.line,
                    row.quote,
                    str(row.rate),
                    f"{source} already has {known.normalize():f} for {row.rate_date}; rates are history, "
                    "not updated by an import",
                )
            )
    if outcome.errors:
        return outcome
    with transaction.atomic():
        ExchangeRate.objects.bulk_create(fresh, batch_size=500)
    outcome.new = len(fresh)
    return outcome
