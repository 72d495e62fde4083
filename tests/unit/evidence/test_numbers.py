"""The one number format (``claims.evidence._numbers``): 4 significant digits, and more only where two numbers that
one message compares would otherwise print equal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claims.evidence._numbers import ROUND_TRIP_DIGITS, SIGNIFICANT_DIGITS, digits_apart, format_apart, format_number


def test_numbers_print_at_four_significant_digits():
    assert SIGNIFICANT_DIGITS == 4
    assert [format_number(v) for v in (0.12345, 2.220446e-15, 1234.56, 0.0, None)] == [
        "0.1235", "2.22e-15", "1235", "0", "-"]
    assert format_number(0.12345, signed=True) == "+0.1235"


def test_compared_numbers_get_the_digits_that_tell_them_apart():
    assert digits_apart(0.30001, 0.3) == 5 and digits_apart(0.3049, 0.3) == SIGNIFICANT_DIGITS
    assert digits_apart(1.0, 1.0) == SIGNIFICANT_DIGITS  # equal numbers need nothing more
    assert format_apart(0.30001, 0.3) == ["0.30001", "0.3"] and format_apart(0.3049, 0.3) == ["0.3049", "0.3"]


finite = st.floats(allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_two_distinct_numbers_print_distinct_and_in_their_order(a, b):
    digits = digits_apart(a, b)
    shown_a, shown_b = float(format_number(a, digits=digits)), float(format_number(b, digits=digits))
    assert SIGNIFICANT_DIGITS <= digits <= ROUND_TRIP_DIGITS
    if a != b:
        assert shown_a != shown_b and (shown_a < shown_b) == (a < b)
