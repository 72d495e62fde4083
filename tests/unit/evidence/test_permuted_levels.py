"""``permuted_levels`` (the negative control's design) against its docstring, computed independently.

The reference draws the same seeded candidate permutations and takes the first at the smallest
|Spearman's rho| with the true levels, stopping at rho = 0. Spearman's denominator is the same for every
candidate (each is a permutation of the same levels), so the reference compares the exact numerators
sum (2 r_i - n - 1)(2 c_i - n - 1), integers, with no rounding to break ties. Pinned after mutation
testing found the choice unchecked (docs/mutation-testing.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from claims.evidence._trend import permuted_levels

BATCHES = [float(v) for v in (8, 16, 32, 64) for _ in range(3)]
THIRTY = [float(v) for v in range(1, 31)]


def reference(levels, seed: int, candidates: int) -> list[float]:
    x = np.asarray(levels, dtype=float)
    twice_centred = (2 * rankdata(x) - (len(x) + 1)).astype(np.int64)
    rng = np.random.default_rng(seed)
    best, best_numerator = None, None
    for _ in range(candidates):
        candidate = rng.permutation(x)
        numerator = abs(int(twice_centred @ (2 * rankdata(candidate) - (len(x) + 1)).astype(np.int64)))
        if best_numerator is None or numerator < best_numerator:
            best, best_numerator = candidate, numerator
        if best_numerator == 0:
            break
    return [float(v) for v in best]


@pytest.mark.parametrize(("levels", "seed", "candidates"), [
    (BATCHES, 0, 1000), (BATCHES, 3, 5),
    # seed 7: the 9th candidate has sum (r - m)(c - m) = 1/2, the 20th has 0: the search goes on past the 9th
    ([1.0, 1.0, 2.0, 3.0, 4.0, 5.0], 7, 40), ([1.0, 2.0, 3.0, 4.0, 5.0], 1, 7), (THIRTY, 863, 1000), (THIRTY, 2, 40),
])
def test_permuted_levels_is_the_first_candidate_least_correlated_with_the_levels(levels, seed, candidates):
    assert permuted_levels(levels, seed, candidates) == reference(levels, seed, candidates)


def test_permuted_levels_defaults_to_seed_0_and_1000_candidates():
    assert permuted_levels(BATCHES) == reference(BATCHES, 0, 1000) != reference(BATCHES, 1, 1000)
    # seed 863: the 1001st candidate would be less correlated than the first 1000 (none of them at rho = 0)
    assert permuted_levels(THIRTY, 863) == reference(THIRTY, 863, 1000) != reference(THIRTY, 863, 1001)


def test_permuted_levels_reads_the_levels_in_float64():
    # integers past 2**53 round to ties in float64, as trend_test reads the levels it is given
    levels = [2**53 + k for k in range(12)]
    assert permuted_levels(levels, 1, 50) == permuted_levels(np.asarray(levels, dtype=float), 1, 50)
    assert permuted_levels(levels, 1, 50) == reference(levels, 1, 50)


@pytest.mark.parametrize("levels", [[2.0, 2.0, 2.0, 2.0], [3.0], [1.0, 2.0]])
def test_permuted_levels_of_a_design_that_no_order_decorrelates_is_the_first_candidate(levels):
    # tied levels (rho's denominator is 0) and two levels (|rho| = 1 for both orders): the first draw
    assert permuted_levels(levels, 4, 30) == [float(v) for v in np.random.default_rng(4).permutation(levels)]
