"""The statistics under ``claims.evidence._trend`` checked against independent references at small exact
designs: the correlations (Pearson's on the given ranks, row by row, so Spearman's when given ranks;
Kendall's tau-b) against scipy, their value on constant rows (0, never NaN, never left unwritten), the
permutation p-values, the detectable effect, saturation and the negative control's permuted levels.
Pinned after mutation testing found these unchecked (README, "Mutation testing")."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from claims.evidence._trend import _correlations

TIED_LEVELS = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0])
ROWS = np.array([[1.0, 2.0, 2.0, 4.0, 5.0, 6.0], [6.0, 5.0, 5.0, 3.0, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]])


# ---- _correlations ----


def test_the_spearman_branch_is_pearsons_correlation_of_the_given_ranks_row_by_row():
    # rows on different offsets and scales: each row is centred and scaled on its own
    rows = ROWS * np.array([[0.01], [1.0], [100.0]]) + np.array([[0.0], [5.0], [-3.0]])
    expected = [pearsonr(TIED_LEVELS, row).statistic for row in rows]
    np.testing.assert_allclose(_correlations(TIED_LEVELS, rows, "spearman"), expected, rtol=1e-13)


def test_the_kendall_branch_is_tau_b_row_by_row():
    expected = [kendalltau(TIED_LEVELS, row, variant="b").statistic for row in ROWS]
    np.testing.assert_allclose(_correlations(TIED_LEVELS, ROWS, "kendall"), expected, rtol=1e-13)
    # tau-b, not tau-a: with ties on both sides the pair counts of each side are in the denominator
    assert _correlations(TIED_LEVELS, ROWS[2:], "kendall")[0] == pytest.approx(12 / np.sqrt(22 * 16), rel=1e-14)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_both_statistics_take_any_leading_shape(statistic):
    batched = np.stack([ROWS, ROWS[::-1]])  # shape (2, 3, 6)
    flat = _correlations(TIED_LEVELS, ROWS, statistic)
    np.testing.assert_allclose(_correlations(TIED_LEVELS, batched, statistic), [flat, flat[::-1]], rtol=1e-14)
    np.testing.assert_allclose(_correlations(TIED_LEVELS, ROWS[1], statistic), flat[1], rtol=1e-14)


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_two_runs_are_perfectly_correlated_or_anticorrelated(statistic):
    # the smallest design: Spearman's sums of squares are 1/2 each, so the denominator is 1/2
    ranks = np.array([1.0, 2.0])
    assert _correlations(ranks, np.array([[1.0, 2.0], [2.0, 1.0]]), statistic).tolist() == [1.0, -1.0]


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_integer_ranks_give_float_correlations(statistic):
    values = _correlations(np.array([1, 2, 3, 4]), np.array([[1, 2, 3, 4], [4, 3, 1, 2]]), statistic)
    assert values.dtype == np.float64 and values[0] == 1.0 and values[1] < 0


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_a_constant_side_has_correlation_zero_every_time(statistic):
    # np.divide's `where` leaves the other entries as `out` holds them: they must be written as 0. The
    # buffer a previous call freed (holding nonzero correlations) is what an unwritten output would show.
    constant = np.full((3, 6), 2.0)
    for _ in range(20):
        assert np.all(_correlations(TIED_LEVELS, ROWS, statistic) != 0)
        assert _correlations(TIED_LEVELS, constant, statistic).tolist() == [0.0, 0.0, 0.0]
        assert _correlations(np.full(6, 3.0), ROWS, statistic).tolist() == [0.0, 0.0, 0.0]
    for rows in (130, 200, 1000):  # batches past numpy's small-block cache: malloc's reuse differs
        alternating = np.tile([ROWS[0], np.full(6, 2.0)], (rows // 2, 1))
        assert not np.any(_correlations(TIED_LEVELS, alternating, statistic)[1::2])
        assert not np.any(_correlations(np.full(6, 3.0), alternating, statistic))
