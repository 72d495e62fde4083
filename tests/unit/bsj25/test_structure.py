"""Unit tests of ``claims.bsj25``'s one-neuron form, ReLU balance rates and drifts, and the singular gap."""

from __future__ import annotations

from fractions import Fraction

import torch

from claims.bsj25 import (
    balance_drift, balance_matrix, balance_rate, exact_network, one_neuron_value, second_singular_ratio,
    two_sided_form,
)


def test_two_sided_form_matches_the_network():
    a, v = [Fraction(1), Fraction(-2)], [Fraction(1), Fraction(3)]
    later = [[[Fraction(1), Fraction(1)], [Fraction(-1), Fraction(2)]], [[Fraction(1), Fraction(-1)]]]
    weights = [[[ai * vj for vj in v] for ai in a]] + later
    u, w = two_sided_form(a, later)
    for x in ([Fraction(1), Fraction(0)], [Fraction(-1), Fraction(1, 3)], [Fraction(0), Fraction(-2)]):
        assert exact_network(weights, x) == one_neuron_value(u, w, v, x)


def test_absolute_value_network_is_two_sided():
    half = Fraction(1, 2)
    net = [[[half, Fraction(0)], [-half, Fraction(0)]], [[half, half]]]
    assert (exact_network(net, [Fraction(1), Fraction(0)]) == exact_network(net, [Fraction(-1), Fraction(0)])
            == [Fraction(1, 4)])


def _network(seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(3, 5, generator=gen, dtype=torch.float64) + 0.5
    g = torch.randn(2, 5, generator=gen, dtype=torch.float64)
    weights = [torch.rand(4, 3, generator=gen, dtype=torch.float64) + 0.2,
               torch.randn(4, 4, generator=gen, dtype=torch.float64),
               torch.randn(2, 4, generator=gen, dtype=torch.float64)]
    return x, g, weights


def test_balance_rate_is_the_derivative_along_the_flow():
    x, g, weights = _network(1)
    leaves = [w.clone().requires_grad_(True) for w in weights]
    (g * (leaves[2] @ torch.relu(leaves[1] @ torch.relu(leaves[0] @ x)))).sum().backward()
    h = 1e-6
    moved = [w - h * l.grad for w, l in zip(weights, leaves)]
    for layer, diagonal in ((2, False), (3, True)):
        numeric = (balance_matrix(moved, layer, diagonal) - balance_matrix(weights, layer, diagonal)) / h
        rate = balance_rate(weights, x, g, layer, diagonal)
        assert torch.allclose(numeric, rate.rate, atol=1e-4 * float(rate.scale.max()))
    assert balance_rate(weights, x, g, 2, False).nonnegative


def test_balance_drift_shrinks_with_the_step():
    x, g, weights = _network(1)
    drift = balance_drift(weights, x, g, 2, False, 0.01, (2, 4, 8, 16))
    assert drift.drifts[0] > drift.drifts[2] and len(drift.floors) == 4 and drift.term_change > 0


def test_second_singular_ratio():
    assert second_singular_ratio(torch.diag(torch.tensor([2.0, 1.0], dtype=torch.float64)))[0] == 0.5
    assert second_singular_ratio(torch.ones(1, 3, dtype=torch.float64))[0] == 0.0
