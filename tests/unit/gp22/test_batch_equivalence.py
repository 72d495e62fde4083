"""claims.gp22's batch-mean matrix, its exact rank and minimum-norm inverse, and full_batch_point."""

from fractions import Fraction

import pytest

from claims import gp22


@pytest.mark.parametrize("m", [3, 4, 5])
def test_rank_and_inverse(m):
    for batch in range(1, m + 1):
        A = gp22.batch_mean_matrix(m, batch)
        L = gp22.minimum_norm_inverse(m, batch)
        rank = gp22.exact_rank(A)
        assert rank == (m if batch < m else 1)
        LA = [[sum((L[i][s] * A[s][j] for s in range(len(A))), Fraction(0)) for j in range(m)] for i in range(m)]
        if batch < m:
            assert LA == [[Fraction(int(i == j)) for j in range(m)] for i in range(m)]
        else:
            assert LA == [[Fraction(1, m)] * m for _ in range(m)]


def test_full_batch_point_is_stationary_for_gd_only():
    point = gp22.full_batch_point(gp22.balanced_chain_point(3, (3,), [0.5, 1.0, 1.5, 0.7], 1.1, 0.1, "squared", 5), 0.5)
    sg = point.gradients()
    gradient, scale, _ = gp22.batch_gradients(sg, sg.m)
    assert float(gradient.abs().max()) <= point.tolerance() * float(scale.max())
    assert float(sg.residual.abs().max()) > 1e-3
    recovered, rscale, tol = gp22.recovered_residuals(sg, 2, point.construction_roundings)
    assert float((recovered - sg.residual).abs().max()) <= tol * float(rscale.max() + sg.scale.max())
