"""Numerical ranks of weight matrices (GP22 Section 4.1), batched over leading dimensions.

The memo: "To estimate the rank of a given matrix, we normalize it and count how many of its
singular values are outside [-1e-4, 1e-4]". Singular values are non-negative, so this counts the
normalized singular values above 1e-4. The authors' public code uses a different convention,
singular values above 1e-3 times the Frobenius norm; both are provided, so a claim can be read
under either and the choice is visible in the report.

Every function takes matrices of shape (..., rows, cols) and returns int64 ranks of shape (...).
"""

from __future__ import annotations

from typing import Literal

import torch

Normalization = Literal["spectral", "frobenius"]

SECTION41_THRESHOLD = 1e-4
"""Section 4.1's cut-off on the normalized singular values."""

SECTION41_NORMALIZATION: Normalization = "spectral"
"""Which norm "we normalize it" divides by; the memo does not say. The spectral norm (largest
singular value) is chosen because it makes the count scale-free in the most direct way: the
normalized singular values lie in [0, 1] with the largest exactly 1, so the threshold 1e-4 is a
relative cut-off against the dominant direction whatever the matrix's size. Dividing by the
Frobenius norm instead shrinks every normalized value by up to sqrt(rank), which makes the count
depend on how many directions are large (``normalization="frobenius"`` gives that reading)."""

AUTHORS_CODE_RATIO = 1e-3
"""The authors' public code: rank = #{singular values > 1e-3 ||W||_F}."""


def singular_values(matrices: torch.Tensor) -> torch.Tensor:
    """Singular values in descending order, shape (..., min(rows, cols))."""
    return torch.linalg.svdvals(matrices)


def section41_rank_of_values(
    values: torch.Tensor,
    threshold: float = SECTION41_THRESHOLD,
    normalization: Normalization = SECTION41_NORMALIZATION,
) -> torch.Tensor:
    """``section41_rank`` from precomputed singular values (descending, as ``singular_values``
    returns them), so one SVD serves both conventions."""
    if normalization == "spectral":
        scale = values[..., 0]
    elif normalization == "frobenius":
        scale = torch.linalg.vector_norm(values, dim=-1)
    else:
        raise ValueError(f"unknown normalization {normalization!r}")
    # A zero matrix has no direction to normalize by: rank 0 (not 0/0).
    nonzero = scale > 0
    normalized = values / torch.where(nonzero, scale, torch.ones_like(scale))[..., None]
    return torch.where(nonzero, (normalized > threshold).sum(dim=-1), 0)


def section41_rank(
    matrices: torch.Tensor,
    threshold: float = SECTION41_THRESHOLD,
    normalization: Normalization = SECTION41_NORMALIZATION,
) -> torch.Tensor:
    """Section 4.1's rank: the number of singular values of W / ||W|| above ``threshold`` (outside
    [-threshold, threshold]), ||.|| the spectral norm by default (``SECTION41_NORMALIZATION``) or
    the Frobenius norm; a zero matrix has rank 0."""
    return section41_rank_of_values(singular_values(matrices), threshold, normalization)


def authors_code_rank_of_values(values: torch.Tensor, ratio: float = AUTHORS_CODE_RATIO) -> torch.Tensor:
    """``authors_code_rank`` from precomputed singular values."""
    frobenius = torch.linalg.vector_norm(values, dim=-1, keepdim=True)
    # Strict comparison: a zero matrix (all values 0 = ratio * 0) has rank 0.
    return (values > ratio * frobenius).sum(dim=-1)


def authors_code_rank(matrices: torch.Tensor, ratio: float = AUTHORS_CODE_RATIO) -> torch.Tensor:
    """The authors' public code's rank: the number of singular values above ratio * ||W||_F."""
    return authors_code_rank_of_values(singular_values(matrices), ratio)
