"""The one format of a measured number in the suite's text (issue 36: "numbers print at 4 significant digits unless
exactness is the point").

Two layers print measured numbers: the checks, whose failure and control messages the report shows verbatim as a
test's reason (why a claim is refuted, why a control was accepted), and the report itself
(``claims.report._headline`` and the modules that import it from there). The formatter lives here, below both, so
that a number reads the same in a reason as in the headline beside it.
"""

from __future__ import annotations

SIGNIFICANT_DIGITS = 4
"""How many significant digits the report's ordinary numbers print with (issue 36: "numbers print at 4 significant
digits unless exactness is the point"); claims.json keeps every digit. Exact values keep their own form: counts
and other integers, rationals (recorded as text), and the constants of a rule (a trend's alpha and minimum effect, a
factor, an order: ``:g``)."""

ROUND_TRIP_DIGITS = 17
"""Significant digits that tell any two distinct doubles apart (IEEE 754 binary64 round-trips through 17)."""


def format_number(value: float | None, signed: bool = False, digits: int = SIGNIFICANT_DIGITS) -> str:
    """A number as the report shows it, the one formatter of its ordinary numbers: ``SIGNIFICANT_DIGITS``
    significant digits (0.12345 -> "0.1235", 2.220446e-15 -> "2.22e-15", 1234.56 -> "1235", 123456.0 -> "1.235e+05"),
    "0" for zero, "-" for none; ``signed``: with its sign always (an effect, "+0.1235"; zero "+0"); ``digits``: another
    precision where a reader needs it (an erratum's counterexample, ``COUNTEREXAMPLE_DIGITS``)."""
    if value is None:
        return "-"
    if signed:
        return f"{value:+.{digits}g}"
    return "0" if value == 0 else f"{value:.{digits}g}"


def digits_apart(*values: float, digits: int = SIGNIFICANT_DIGITS) -> int:
    """The fewest significant digits, at least ``digits``, at which ``format_number`` prints the distinct ``values``
    distinct: for numbers that one message compares (a limit and the bound it lies outside, the two sides of an
    inequality), which must never print equal while they differ. Rounding to a fixed number of significant digits
    never reverses two numbers' order, so printed at these digits they also read in their true order. At most
    ``ROUND_TRIP_DIGITS``, which tell any two doubles apart."""
    distinct = set(values)
    for count in range(digits, ROUND_TRIP_DIGITS):
        if len({format_number(value, digits=count) for value in distinct}) == len(distinct):
            return count
    return ROUND_TRIP_DIGITS


def format_apart(*values: float) -> list[str]:
    """``values`` as ``format_number`` prints them, all at one precision, ``digits_apart``'s: numbers one message
    compares (an inequality's two sides; a detectable effect and the minimum effect it is said to exceed), distinct
    and in their order whenever they differ."""
    digits = digits_apart(*values)
    return [format_number(value, digits=digits) for value in values]
