"""Synthetic inputs for GP22 Section 3.1 (Propositions 1 and 2 tell collinear from non-collinear
x_i), from a seed: collinear sets x_i = c_i u, sets in general position, sets in a cone around a
direction (fixed ReLU signs on a unit close to it), and ``collinearity``, which certifies either up
to rounding. ``seeded_generator`` is the one source of randomness of the convergence-point modules.
"""

from __future__ import annotations

import torch

from claims.models._numerics import EPS

DTYPE = torch.float64


def seeded_generator(seed: int) -> torch.Generator:
    """A fresh ``torch.Generator`` seeded with ``seed``."""
    return torch.Generator().manual_seed(int(seed))


def unit_vector(n: int, seed: int, positive: bool = False, low: float = 0.2) -> torch.Tensor:
    """A unit vector in R^n from a seed; with ``positive`` its entries are in [low, 1] before
    normalizing (so every entry is bounded away from 0)."""
    generator = seeded_generator(seed)
    if positive:
        v = low + (1 - low) * torch.rand(n, generator=generator, dtype=DTYPE)
    else:
        v = torch.randn(n, generator=generator, dtype=DTYPE)
    return v / torch.linalg.vector_norm(v)


def collinear_inputs(
    coefficients: torch.Tensor | list[float], n: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """x_i = c_i u (rows), u a unit vector drawn from ``seed``; returns (x, u). The c_i must be
    nonzero (the memo assumes x_i != 0)."""
    c = torch.as_tensor(coefficients, dtype=DTYPE)
    if (c == 0).any():
        raise ValueError("x_i = 0 is excluded (Section 3.1 assumes x_i != 0)")
    u = unit_vector(n, seed)
    return c[:, None] * u[None, :], u


def general_position_inputs(m: int, n: int, seed: int) -> torch.Tensor:
    """m Gaussian rows in R^n (n >= 2), rescaled to norms in [0.5, 1.5]: in general position with
    probability 1, and certified non-collinear by ``collinearity`` in the tests."""
    if n < 2:
        raise ValueError("non-collinear inputs need n >= 2")
    generator = seeded_generator(seed)
    x = torch.randn(m, n, generator=generator, dtype=DTYPE)
    norms = 0.5 + torch.rand(m, generator=generator, dtype=DTYPE)
    return x * (norms / torch.linalg.vector_norm(x, dim=1))[:, None]


def cone_inputs(
    signs: torch.Tensor | list[float], n: int, seed: int, spread: float = 0.3
) -> tuple[torch.Tensor, torch.Tensor]:
    """x_i = s_i (u + spread z_i) with ||z_i|| <= 1, z_i orthogonal to u and drawn in general
    position: non-collinear for m >= 2 (n >= 2), and u . x_i = s_i exactly in exact arithmetic, so
    a unit whose weights are within ``1 - spread`` of +-u has a fixed sign on every sample. Returns
    (x, u)."""
    s = torch.as_tensor(signs, dtype=DTYPE)
    if n < 2:
        raise ValueError("non-collinear inputs need n >= 2")
    generator = seeded_generator(seed)
    u = unit_vector(n, seed + 7919)
    z = torch.randn(len(s), n, generator=generator, dtype=DTYPE)
    z = z - (z @ u)[:, None] * u[None, :]
    z = z / torch.linalg.vector_norm(z, dim=1, keepdim=True).clamp_min(1.0)
    scale = 0.5 + 0.5 * torch.rand(len(s), generator=generator, dtype=DTYPE)
    return s[:, None] * (u[None, :] + spread * scale[:, None] * z), u


def collinearity(x: torch.Tensor) -> tuple[float, float]:
    """(sigma_2(X), its rounding bound): the rows of X are collinear iff sigma_2 = 0. A computed
    sigma_2 above max(shape) eps sigma_1 (what a backward-stable SVD can add to a singular value,
    plus the rounding of the rows themselves, a few eps ||X||) certifies that they are not; below
    it, they are collinear up to rounding."""
    s = torch.linalg.svdvals(x)
    second = float(s[1]) if len(s) > 1 else 0.0
    bound = (max(x.shape) + 8) * EPS * float(s[0])
    return second, bound
