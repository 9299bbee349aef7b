"""A CSV writes every number in full: a spreadsheet or a reader sees 0.0000493933885432, never 4.93933885432e-05."""

from __future__ import annotations

import csv
import io

import pytest

from tco.exports.files import csv_text, file_number
from tco.exports.tables import Table


@pytest.mark.parametrize(
    "value,written",
    [
        (4.93933885432e-05, "0.0000493933885432"),  # a cost per accepted response of a cheap API
        (1.5e16, "15000000000000000"),
        (11.059999999999999, "11.06"),
        (0.5, "0.5"),
    ],
)
def test_a_number_is_written_in_full_and_reads_back_as_the_same_value(value, written):
    text = csv_text(Table(headers=["cost (EUR)"], rows=[[value]], styles=["money"]))
    cell = list(csv.reader(io.StringIO(text)))[1][0]
    assert cell == written and float(cell) == file_number(value)
