"""Unit tests of ``claims.models._rank``: GP22 Section 4.1's rank (normalized singular values above 1e-4,
spectral or Frobenius normalization) and the authors' code's convention (above 1e-3 ||W||_F), on
matrices with prescribed singular values placed on both sides of the thresholds."""

from __future__ import annotations

import pytest
import torch

from claims.models._rank import (
    AUTHORS_CODE_RATIO,
    SECTION41_NORMALIZATION,
    SECTION41_THRESHOLD,
    authors_code_rank,
    section41_rank,
    singular_values,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def with_singular_values(values: list[float], rows: int, cols: int, seed: int = 0) -> torch.Tensor:
    """U diag(values) V^T with random orthonormal U (rows x r), V (cols x r), r = len(values)."""
    generator = torch.Generator().manual_seed(seed)
    u, _ = torch.linalg.qr(torch.randn(rows, len(values), generator=generator, dtype=torch.float64))
    v, _ = torch.linalg.qr(torch.randn(cols, len(values), generator=generator, dtype=torch.float64))
    return u @ torch.diag(torch.tensor(values, dtype=torch.float64)) @ v.T


def test_constants_are_the_memos():
    assert SECTION41_THRESHOLD == 1e-4
    assert SECTION41_NORMALIZATION == "spectral"
    assert AUTHORS_CODE_RATIO == 1e-3


@pytest.mark.parametrize("rows, cols", [(6, 6), (9, 6), (6, 11)])
def test_section41_counts_normalized_values_above_the_threshold(rows, cols):
    # Scale 3: normalized values 1, 0.5, 1.01e-4 (in), 0.99e-4, 1e-8 (out), and a zero direction.
    matrix = with_singular_values([3.0, 1.5, 3 * 1.01e-4, 3 * 0.99e-4, 3e-8, 0.0], rows, cols)
    torch.testing.assert_close(
        singular_values(matrix)[:3], torch.tensor([3.0, 1.5, 3.03e-4], dtype=torch.float64)
    )
    assert section41_rank(matrix).item() == 3
    assert section41_rank(matrix, threshold=1e-9).item() == 5
    assert section41_rank(matrix, threshold=0.6).item() == 1


def test_frobenius_normalization_divides_by_the_frobenius_norm():
    # Four unit values and 1.5e-4: ||W||_F = 2 (to 1e-8), so 1.5e-4 / 2 = 0.75e-4 falls below 1e-4
    # under the Frobenius normalization but not under the spectral one.
    matrix = 7.0 * with_singular_values([1.0, 1.0, 1.0, 1.0, 1.5e-4], 8, 5, seed=1)
    assert section41_rank(matrix).item() == 5
    assert section41_rank(matrix, normalization="spectral").item() == 5
    assert section41_rank(matrix, normalization="frobenius").item() == 4
    with pytest.raises(ValueError):
        section41_rank(matrix, normalization="nuclear")


def test_authors_code_rank_is_relative_to_the_frobenius_norm():
    # ||W||_F = sqrt(1 + 4e-6 + 0.25e-6) ~ 1.0000021: 2e-3 is above 1e-3 ||W||_F, 0.5e-3 is not.
    matrix = 5.0 * with_singular_values([1.0, 2e-3, 0.5e-3, 1e-7], 7, 7, seed=2)
    assert authors_code_rank(matrix).item() == 2
    # The same matrix has Section 4.1 rank 3 (0.5e-3 > 1e-4 > 1e-7): the two conventions differ.
    assert section41_rank(matrix).item() == 3
    # Threshold just around a value: 1e-3 * ||W||_F vs the value 1.0000021e-3 * 5 (relative).
    assert authors_code_rank(5.0 * with_singular_values([1.0, 1.01e-3], 4, 4, seed=3)).item() == 2
    assert authors_code_rank(5.0 * with_singular_values([1.0, 0.99e-3], 4, 4, seed=3)).item() == 1


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5)])
def test_zero_matrix_has_rank_zero(shape):
    zero = torch.zeros(shape, dtype=torch.float64)
    assert section41_rank(zero).item() == 0
    assert section41_rank(zero, normalization="frobenius").item() == 0
    assert authors_code_rank(zero).item() == 0


def test_batched_over_leading_dimensions():
    generator = torch.Generator().manual_seed(4)
    ranks = torch.tensor([[0, 1, 2], [3, 4, 5]])
    matrices = torch.zeros(2, 3, 6, 5, dtype=torch.float64)
    for index in torch.cartesian_prod(torch.arange(2), torch.arange(3)):
        r = int(ranks[tuple(index)])
        left = torch.randn(6, r, generator=generator, dtype=torch.float64)
        matrices[tuple(index)] = left @ torch.randn(r, 5, generator=generator, dtype=torch.float64)
    for rank in (section41_rank(matrices), authors_code_rank(matrices)):
        assert rank.shape == (2, 3) and rank.dtype == torch.int64
        torch.testing.assert_close(rank, ranks)
    # Each entry of the batch equals the rank of the matrix alone.
    assert section41_rank(matrices[1, 2]).item() == 5
    assert singular_values(matrices).shape == (2, 3, 5)
