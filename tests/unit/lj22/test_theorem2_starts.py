"""claims.lj22's Theorem 2 starts: the shapes they promise, their seeds, and the flat spectra their docstrings state."""

from __future__ import annotations

import torch

from claims.lj22 import (
    THEOREM2_BLOCK_SHAPE, THEOREM2_CONV_CHAIN, THEOREM2_THROUGH_BLOCK_SHAPE, convolution_chain, theorem2_block_sides,
    theorem2_block_start, theorem2_convolution_start, theorem2_through_block_matrices, theorem2_through_block_start,
)
from claims.models import kernel_rows


def test_block_start_is_seeded_normal_weights_and_fin_factor_scales_fin_only():
    risk, theta = theorem2_block_start(1)
    expected = torch.randn(risk.network.n_parameters, generator=torch.Generator().manual_seed(501), dtype=torch.float64)
    assert torch.equal(theta, expected)
    A, F = theorem2_block_sides(risk.network, theta)
    d, front, hidden, out = THEOREM2_BLOCK_SHAPE
    assert F.shape[0] == 1 and A.shape[0] == F.shape[1] == out
    _, scaled = theorem2_block_start(1, scale=0.5, fin_factor=4.0)
    A2, F2 = theorem2_block_sides(risk.network, scaled)
    assert torch.equal(A2, 0.5 * A) and torch.equal(F2, 2.0 * F)  # 0.5 x 4 on Fin, 0.5 elsewhere: exact in binary
    assert torch.equal(theorem2_block_start(1)[0].x, risk.x) and not torch.equal(theorem2_block_start(2)[0].x, risk.x)


def test_through_block_start_has_an_orthogonal_w2_of_the_stated_scale():
    risk, theta = theorem2_through_block_start(0, scale=1.5)
    W2 = theorem2_through_block_matrices(risk.network, theta)["W2"]
    d, front, width, hidden, out = THEOREM2_THROUGH_BLOCK_SHAPE
    assert W2.shape == (width, front)
    assert torch.allclose(torch.linalg.svdvals(W2), torch.full((width,), 1.5, dtype=torch.float64), atol=1e-13, rtol=0)


def test_convolution_start_flat_first_kernel_has_orthonormal_rows_times_1_5():
    risk, theta = theorem2_convolution_start(THEOREM2_CONV_CHAIN, 0, flat_first_kernel=True)
    kernels, _ = convolution_chain(risk.network, theta)
    T1 = kernel_rows(kernels[0])
    assert torch.allclose(T1 @ T1.T, 2.25 * torch.eye(T1.shape[0], dtype=torch.float64), atol=1e-13, rtol=0)
    _, plain = theorem2_convolution_start(THEOREM2_CONV_CHAIN, 0, scale=2.0)
    unit = torch.randn(plain.numel(), generator=torch.Generator().manual_seed(800), dtype=torch.float64)
    assert torch.equal(plain, 2.0 * unit)
