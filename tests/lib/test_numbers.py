"""lib.numbers reads any text a user may type: a value, blank, or a NumberTextError with a message."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lib.numbers import NumberTextError, read_decimal, read_integer
from tests.hypothesis_profiles import examples

MALFORMED = ["%", " % ", "%%", "-%", "+%", ".%", "$%", "-$%", "- %", ",", "$", "-", "+", ".", "e5", "E5", "$,", "1%%"]
# Text made of the characters numbers are built from, so the reader's every branch is reached, not only its first.
NUMBERISH = st.text(alphabet="0123456789.,%$+-eE _\u00a0\u0661", max_size=12)


@pytest.mark.parametrize("text", MALFORMED)
@pytest.mark.parametrize("percent", [True, False])
def test_malformed_numbers_are_a_number_text_error_with_a_message(text, percent):
    with pytest.raises(NumberTextError) as caught:
        read_decimal(text, percent=percent)
    assert str(caught.value).strip()


@pytest.mark.parametrize("text", ["%", " % ", "-%", ".%"])
def test_a_bare_percent_says_a_number_is_missing_before_it(text):
    with pytest.raises(NumberTextError, match="before the %"):
        read_decimal(text, percent=True)


@pytest.mark.parametrize("text", [*MALFORMED, "1e3", "1.5"])
def test_malformed_whole_numbers_are_a_number_text_error(text):
    with pytest.raises(NumberTextError) as caught:
        read_integer(text)
    assert str(caught.value).strip()


@pytest.mark.parametrize(
    ("text", "percent", "value"),
    [("8 %", True, Decimal("0.08")), ("-8%", True, Decimal("-0.08")), ("$324,000.50", False, Decimal("324000.50"))],
)
def test_well_formed_numbers_still_read(text, percent, value):
    assert read_decimal(text, percent=percent) == value


def _outcome(read, text, **kwargs):
    try:
        return read(text, **kwargs)
    except NumberTextError as error:
        assert str(error).strip(), repr(text)
        return error


@settings(max_examples=examples(400), deadline=None)
@given(text=st.one_of(NUMBERISH, st.text(max_size=30)), percent=st.booleans())
@example(text="%", percent=True)
@example(text=" % ", percent=False)
def test_any_text_reads_as_a_decimal_or_a_number_text_error(text, percent):
    value = _outcome(read_decimal, text, percent=percent)
    assert value is None or isinstance(value, Decimal | NumberTextError), (text, value)
    if isinstance(value, Decimal):
        assert value.is_finite()


@settings(max_examples=examples(300), deadline=None)
@given(text=st.one_of(NUMBERISH, st.text(max_size=30)))
@example(text="%")
def test_any_text_reads_as_a_whole_number_or_a_number_text_error(text):
    value = _outcome(read_integer, text)
    assert value is None or isinstance(value, int | NumberTextError), (text, value)
