"""Price-file cells that Decimal() or date parsing would read but must not be stored: a price of 1e-308
(stored as 0), 1_0 (read as 10), Arabic-Indic digits, year 0001. Each rejects the file with a reason; the cell
parsers never raise anything but CellError (property-based)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing.importers import fields
from pricing.importers.fields import CellError
from tests.pricing.conftest import canonical
from tests.pricing.test_bad_files import GOOD, rejected

pytestmark = pytest.mark.usefixtures("reference", "no_observations")

ARABIC_INDIC_10 = "\u0661\u0660"


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("price_per_gpu_hour", "1e-308", "too small to store"),
        ("price_per_gpu_hour", "1_0", "not a number"),
        ("price_per_gpu_hour", ARABIC_INDIC_10, "not a number"),
        ("price_per_gpu_hour", "1E999999999", "not a number"),
        ("observed_on", "0001-01-01", "before 2000"),
        ("observed_on", "\u0662\u0660\u0662\u0666-11-01", "not a date"),
        ("gpus_per_instance", "1_0", "not a whole number of GPUs"),
        ("gpus_per_instance", ARABIC_INDIC_10, "not a whole number of GPUs"),
    ],
)
def test_a_hostile_cell_rejects_the_file_with_its_reason(column, value, reason):
    row = {
        "price_per_gpu_hour": GOOD.replace("23.92,2.99", f",{value}", 1),
        "observed_on": GOOD.replace("2026-11-01", value, 1),
        "gpus_per_instance": GOOD.replace(",8,", f",{value},", 1).replace("23.92,2.99", ",2.99", 1),
    }[column]
    errors = rejected(canonical(row))
    assert (errors[0][0], errors[0][1], errors[0][2]) == (2, column, value)
    assert errors[0][3].startswith(reason)


@given(st.text(max_size=30))
def test_the_cell_parsers_read_a_value_or_give_a_reason_never_anything_else(text):
    for parse in (fields.money, fields.gpu_count, lambda raw: fields.iso_date(raw, today=date(2026, 11, 30))):
        try:
            value = parse(text)
        except CellError:
            continue
        if isinstance(value, Decimal):
            assert fields.MIN_PRICE <= value < fields.MAX_PRICE
            assert text.isascii()
