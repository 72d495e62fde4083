"""The starts of Theorem 2's Eq. (13) path families (Appendix D): a linear ResNetFree block then Fin (M = 1),
W2 through a block (M = 2), and linear convolutions then Fin (K convolutions). Their networks, data and
seeds are fixed here, so that every claim test that follows them (Eq. (13) with the proof's D, and D from the
printed pieces) judges the same paths."""

from __future__ import annotations

import torch

from claims.lj22._alignment import (
    separable_data, theorem2_network, theorem2_network_through_block, theorem2_network_with_convolutions,
)
from claims.models import DagNetwork, Risk, with_bias_column

THEOREM2_BLOCK_SHAPE = (3, 5, 4, 3)
"""d, front width, block hidden b, block out c (the M = 1 network)."""
THEOREM2_THROUGH_BLOCK_SHAPE = (3, 10, 10, 4, 1)
"""d, front width, W2 width, block hidden b, block out c (the M = 2 network)."""
THEOREM2_CONV_CHAIN = (3, 3, 5, ((8, 3), (1, 2)))
"""d, front channels a_1, length L, convolutions (c_k, b_k): T_1 in R^{3 x 3 x 8} (n_1 = 3 positions), T_2 in
R^{8 x 2 x 1} (n_2 = 2), Fin 1 x 2. V_c(1) = max dim Fin x min(a_2, b_2) = 2 x 2 = 4 < rank T1_1 <= 8: Eq. (13)
for the first convolution says something, and Lemma 10's factor min(a_2, b_2) = 2 enters its chain."""


def theorem2_block_start(seed: int, scale: float = 1.0, fin_factor: float = 1.0) -> tuple[Risk, torch.Tensor]:
    """The M = 1 network on separable data (seed ``seed``), weights N(0, scale^2) (generator seed 500 + seed),
    Fin's weights multiplied by ``fin_factor``."""
    network = theorem2_network(*THEOREM2_BLOCK_SHAPE)
    x, y = separable_data(16, THEOREM2_BLOCK_SHAPE[0], 0.3, seed)
    g = torch.Generator().manual_seed(500 + seed)
    theta = scale * torch.randn(network.n_parameters, generator=g, dtype=torch.float64)
    if fin_factor != 1.0:  # through the edges: Fin's parameters are not a slice of theta
        w = network.edge_weights(theta)
        w[torch.tensor(network.matrices["Fin"])] *= fin_factor
        theta = network.parameters_of(w)
    return Risk(network, with_bias_column(x), y), theta


def theorem2_block_sides(network: DagNetwork, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(A, Fin) of the M = 1 network: A = [U Z] of the block (Theorem 1 case 7's invariant Fin^T Fin - A A^T)."""
    w = network.edge_weights(theta)
    A = torch.cat([network.weight_matrix("B2.U", w), network.weight_matrix("B2.Z", w)], 1)
    return A, network.weight_matrix("Fin", w)


def theorem2_through_block_start(seed: int, scale: float = 1.5) -> tuple[Risk, torch.Tensor]:
    """The M = 2 network on separable data (seed ``seed``) with W2(0) = scale x an orthogonal matrix (a flat
    spectrum, ||W2||_F^2 / 8 > ||W2||_2^2: the only starts where Eq. (13) for W2 is not vacuous) and N(0, 1)
    weights elsewhere (generator seed 700 + seed)."""
    network = theorem2_network_through_block(*THEOREM2_THROUGH_BLOCK_SHAPE)
    x, y = separable_data(16, THEOREM2_THROUGH_BLOCK_SHAPE[0], 0.3, seed)
    g = torch.Generator().manual_seed(700 + seed)
    w = network.edge_weights(torch.randn(network.n_parameters, generator=g, dtype=torch.float64))
    width, front = THEOREM2_THROUGH_BLOCK_SHAPE[2], THEOREM2_THROUGH_BLOCK_SHAPE[1]
    q, _ = torch.linalg.qr(torch.randn(width, front, generator=g, dtype=torch.float64))
    w[torch.tensor(network.matrices["W2"])] = scale * q
    return Risk(network, with_bias_column(x), y), network.parameters_of(w)


def theorem2_through_block_matrices(network: DagNetwork, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    """W2, the block's Y, U, Z and Fin of the M = 2 network."""
    w = network.edge_weights(theta)
    return {k: network.weight_matrix(k, w) for k in ("W2", "B3.Y", "B3.U", "B3.Z", "Fin")}


def theorem2_convolution_start(
    shape, seed: int, scale: float = 1.0, flat_first_kernel: bool = False,
) -> tuple[Risk, torch.Tensor]:
    """The network of ``shape`` (``theorem2_network_with_convolutions``) on separable data (seed ``seed``),
    weights N(0, scale^2) (generator seed 800 + seed); with ``flat_first_kernel`` the first kernel's T1
    (c x a b) starts as 1.5 x orthonormal rows (a flat spectrum: the left side of Eq. (13) is positive at t = 0,
    as for W2 through a block)."""
    d, channels, length, convolutions = shape
    network = theorem2_network_with_convolutions(d, channels, length, convolutions)
    x, y = separable_data(16, d, 0.3, seed)
    g = torch.Generator().manual_seed(800 + seed)
    theta = scale * torch.randn(network.n_parameters, generator=g, dtype=torch.float64)
    if flat_first_kernel:
        edges = torch.tensor(network.tensors["C2"])
        a, b, c = edges.shape
        q, _ = torch.linalg.qr(torch.randn(a * b, c, generator=g, dtype=torch.float64))
        # kernel_rows(T) = T.reshape(a b, c)^T: the kernel whose T1 is 1.5 q^T (orthogonal rows)
        theta[torch.tensor(network.parameters)[edges]] = 1.5 * q.reshape(a, b, c)
    return Risk(network, with_bias_column(x), y), theta
