"""Owned costs (invoices, energy) as a simple CSV, pure: file in, billing groups and problems out.

Columns, by name, in any order (docs/import-formats.md): ``month`` (YYYY-MM), ``kind`` (invoice, energy, or any
word: facility, support, ...), ``amount``, ``currency`` (ISO 4217), and optionally ``description`` and
``resource`` (a server, rack or site id the mapping rules can match). Each row becomes a billing line of provider
"Owned", service = kind, SKU = description. A bad row is named by line and column; the whole file is refused then.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal, InvalidOperation

from lib.currencies import is_currency
from tco.actuals.focus import BillingGroup

OWNED_PROVIDER = "Owned"
REQUIRED = ("month", "kind", "amount", "currency")
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
MAX_PROBLEMS = 100


class OwnedCostsError(ValueError):
    """Not an owned-costs CSV: its required columns are missing."""


def looks_like_owned_costs(header_line: str) -> bool:
    names = {name.strip().lower() for name in next(csv.reader([header_line]), [])}
    return set(REQUIRED) <= names


def parse_owned_costs(text: str) -> tuple[list[BillingGroup], int, list[str]]:
    """(groups, rows read, problems) of an owned-costs CSV."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    names = {name.strip().lower(): name for name in reader.fieldnames or []}
    missing = [column for column in REQUIRED if column not in names]
    if missing:
        raise OwnedCostsError(
            "Not an owned-costs CSV: the column(s) " + ", ".join(missing) + " are missing "
            "(month, kind, amount, currency; description and resource optional)."
        )
    groups: list[BillingGroup] = []
    problems: list[str] = []
    rows = 0
    for line, row in enumerate(reader, start=2):
        rows += 1

        def cell(column: str, row: dict = row) -> str:
            return (row.get(names.get(column, ""), "") or "").strip()

        month, kind, amount, currency = cell("month"), cell("kind"), cell("amount"), cell("currency").upper()
        bad = []
        if not _MONTH.match(month):
            bad.append(f"Line {line}, column month: {month!r} is not a month written YYYY-MM.")
        if not kind:
            bad.append(f"Line {line}, column kind: empty; say what the cost is (invoice, energy, ...).")
        try:
            value = Decimal(amount)
            if not value.is_finite():
                raise InvalidOperation
        except InvalidOperation:
            bad.append(f"Line {line}, column amount: {amount!r} is not a number.")
            value = Decimal(0)
        if not is_currency(currency):
            bad.append(f"Line {line}, column currency: {currency!r} is not an ISO 4217 currency code.")
        if bad:
            problems.extend(bad[: max(MAX_PROBLEMS - len(problems), 0)])
            continue
        groups.append(
            BillingGroup(
                month=month,
                provider=OWNED_PROVIDER,
                service=kind.lower(),
                sku=cell("description"),
                resource=cell("resource"),
                tags="",
                category=kind.lower(),
                currency=currency,
                gpu_model="",
                gpus=0,
                billed_cost=float(value),
                effective_cost=float(value),
                list_cost=0.0,
                rows=1,
            )
        )
    return ([] if problems else groups), rows, problems
