"""The balanced starts of LJ22's Significance of Theorem 1 (claims.lj22._balanced_chains)."""

from __future__ import annotations

import pytest
import torch

from claims.lj22 import balanced_chain, balanced_pair_chain


def gram_gap(upper: torch.Tensor, lower: torch.Tensor) -> float:
    return float((upper.T @ upper - lower @ lower.T).abs().max())


@pytest.mark.parametrize("widths", [(3, 4, 4, 1), (2, 1), (4, 2, 5, 3, 1)])
def test_whole_chain_is_balanced_and_rank_one(widths):
    weights = balanced_chain(widths, torch.Generator().manual_seed(1))
    assert [tuple(w.shape) for w in weights] == [(widths[k + 1], widths[k]) for k in range(len(widths) - 1)]
    for lower, upper in zip(weights, weights[1:]):
        assert gram_gap(upper, lower) < 1e-13
    for w in weights:
        s = torch.linalg.svdvals(w)
        assert len(s) == 1 or s[1] < 1e-14 * s[0]


@pytest.mark.parametrize("widths", [(3, 4, 4, 1), (2, 4, 3, 2, 1), (4, 3, 5, 1)])
def test_pair_is_balanced_with_rank_above_one(widths):
    weights = balanced_pair_chain(widths, torch.Generator().manual_seed(2))
    assert [tuple(w.shape) for w in weights] == [(widths[k + 1], widths[k]) for k in range(len(widths) - 1)]
    assert gram_gap(weights[1], weights[0]) < 1e-13
    s1, s2 = torch.linalg.svdvals(weights[0]), torch.linalg.svdvals(weights[1])
    rank = min(widths[:3])
    assert torch.allclose(s1[:rank], s2[:rank], rtol=1e-13) and s1[1] > 0.01 * s1[0]
    assert gram_gap(weights[2], weights[1]) > 1e-3  # the next pair is not balanced


def test_chain_must_end_in_scalar_output():
    with pytest.raises(ValueError):
        balanced_chain((3, 4, 2), torch.Generator())
