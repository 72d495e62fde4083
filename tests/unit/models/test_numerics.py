"""The rounding helpers of ``claims.models._numerics``."""

from __future__ import annotations


def test_sides_rounding_is_256_ulps_of_the_sides_magnitudes():
    from claims.models import EPS, sides_rounding

    assert sides_rounding(-2.0, 3.0) == 256 * EPS * 5.0 and sides_rounding(0.0, 0.0) == 0.0
