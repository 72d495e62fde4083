"""Balanced starts of linear chains, the hypothesis of LJ22's "Significance of Theorem 1" (Section 4):
W_{k+1}^T W_{k+1} = W_k W_k^T at t = 0 (the right-hand side of Theorem 1's conservation law set to 0).

**Whole chain** (``balanced_chain``): the chain d_0 -> n_1 -> ... -> n_{L-1} -> 1 ends in the output row
W_L = w^T, so W_L^T W_L = w w^T is rank one, and balance forces, layer by layer down the chain, W_{L-1} = w a^T
and W_k = ||w|| a_k a_{k-1}^T with unit vectors a_k (any sign is absorbed into a_k): every balanced start of
such a chain is rank one, which is the statement's own argument ("the final layer is a row vector, which is
rank 1"). The drawn parts are w and the unit vectors.

**One pair** (``balanced_pair_chain``): only (W_1, W_2) balanced, the rest of the chain free: W_2 = U S V^T of
rank r <= min(d_0, n_1, n_2) (the top r singular triples of a Gaussian matrix) and W_1 = V S R^T with R (d_0 x r)
orthonormal columns, so W_1 W_1^T = V S^2 V^T = W_2^T W_2, while W_1 and W_2 are of rank r, not one: the
statement's first half (the two matrices share their singular values) without its rank-one conclusion.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

F64 = torch.float64


def _unit(n: int, gen: torch.Generator) -> torch.Tensor:
    a = torch.randn(n, generator=gen, dtype=F64)
    return a / torch.linalg.vector_norm(a)


def balanced_chain(widths: Sequence[int], gen: torch.Generator) -> list[torch.Tensor]:
    """[W_1, ..., W_L] for widths (d_0, n_1, ..., n_{L-1}, 1): W_L = w^T with w Gaussian, W_k = ||w|| a_k a_{k-1}^T
    (a_{L-1} = w / ||w||, the others random unit vectors); W_{k+1}^T W_{k+1} = W_k W_k^T for every k."""
    if widths[-1] != 1:
        raise ValueError(f"the chain must end in the scalar output, got widths {list(widths)}")
    w = torch.randn(widths[-2], generator=gen, dtype=F64)
    size = torch.linalg.vector_norm(w)
    vectors = [_unit(n, gen) for n in widths[:-2]] + [w / size]
    return [size * torch.outer(vectors[k + 1], vectors[k]) for k in range(len(widths) - 2)] + [w[None]]


def balanced_pair_chain(widths: Sequence[int], gen: torch.Generator) -> list[torch.Tensor]:
    """[W_1, ..., W_L] for widths (d_0, n_1, n_2, ...): W_2 = U S V^T, rank r = min(d_0, n_1, n_2), W_1 = V S R^T
    (R: d_0 x r, orthonormal columns) so that W_2^T W_2 = W_1 W_1^T; W_3, ... Gaussian over sqrt(fan-in)."""
    if len(widths) < 4:
        raise ValueError("a balanced pair (W_1, W_2) with a free layer after it needs at least three matrices")
    d0, n1, n2 = widths[0], widths[1], widths[2]
    rank = min(d0, n1, n2)
    u, s, vt = torch.linalg.svd(torch.randn(n2, n1, generator=gen, dtype=F64), full_matrices=False)
    u, s, v = u[:, :rank], s[:rank], vt[:rank].T
    r, _ = torch.linalg.qr(torch.randn(d0, rank, generator=gen, dtype=F64))
    rest = [torch.randn(widths[k + 1], widths[k], generator=gen, dtype=F64) / widths[k] ** 0.5
            for k in range(2, len(widths) - 1)]
    return [(v * s) @ r.T, (u * s) @ v.T, *rest]
