"""Unit tests of ``claims.bsj25._tails`` (Section 5's plateau remark): from which layer a direction's W_l are rank
one (``rank_one_tail``) and its ReLUs act as the identity (``linear_tail``), and the single path as a parameter
vector (``single_path_direction``); and ``claims.bsj25._s_time.residual_lipschitz`` (BSJ25.S22's convergence
tolerance: how far the tangential residual moves per unit change of the direction)."""

from __future__ import annotations

import math

import pytest
import torch

from claims.bsj25._instances import example1_instance, random_instance
from claims.bsj25._reference import path_speeds
from claims.bsj25._saddle import localized_loss, unflatten
from claims.bsj25._tails import linear_tail, rank_one_tail, single_path_direction

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F64 = torch.float64


def eq2(last: float = -1.0) -> list[torch.Tensor]:
    """Example 1's Eq. (2) (W_3 = -1: speed 1/2): ranks (2, 1, 1), Z_2 = (|x_1| - |x_2|) / 4 of both signs."""
    return [0.5 * torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], dtype=F64),
            0.5 * torch.tensor([[1.0, -1.0, 1.0, -1.0]], dtype=F64), torch.tensor([[last]], dtype=F64)]


def test_tails_of_example_1_eq_2():
    weights = eq2()
    x = example1_instance().x
    assert rank_one_tail(weights) == 2  # W_1 has rank 2
    assert linear_tail(weights, x) == 3  # the ReLU of layer 2 cuts: the condition is empty
    assert -float(localized_loss(weights, x, example1_instance().g)) == pytest.approx(0.5, abs=1e-15)


def test_rank_one_tail_boundaries():
    gen = torch.Generator().manual_seed(0)
    full = [torch.randn(3, 3, generator=gen, dtype=F64) for _ in range(3)]
    assert rank_one_tail(full) == 4  # W_L of rank 3: no rank-one tail
    one = torch.outer(torch.randn(3, generator=gen, dtype=F64), torch.randn(3, generator=gen, dtype=F64))
    assert rank_one_tail(full[:2] + [one]) == 3
    assert rank_one_tail([one, full[1], one, one]) == 3  # a rank-one layer below a full one does not count
    assert rank_one_tail([one, torch.zeros(3, 3, dtype=F64), one]) == 1  # rank 0 is at most one


def test_linear_tail_boundaries():
    x = torch.rand(3, 5, generator=torch.Generator().manual_seed(1), dtype=F64) + 0.5
    positive = [torch.full((3, 3), 0.2, dtype=F64) for _ in range(3)]
    assert linear_tail(positive, x) == 1  # nonnegative weights on positive data: no ReLU acts
    cut = [positive[0], positive[1].clone(), positive[2]]
    cut[1][0, 0] = -5.0  # unit 1 of layer 2 goes negative: the ReLU of layer 2 acts
    assert linear_tail(cut, x) == 3
    first = [-positive[0], positive[1], positive[2]]  # layer 1 all negative: Z^s_1 = 0, then Z_2 = 0 (identity)
    assert linear_tail(first, x) == 2


def test_single_path_direction_speed_and_norm():
    instance = random_instance(7, 3, 9, 2)
    q = torch.tensor([0.6, -0.2, 0.5], dtype=F64)
    for depth in (2, 3, 5):
        shapes = instance.shapes(depth, 4)
        rho = single_path_direction(q, instance.x, instance.g, shapes)
        assert float(rho @ rho) == pytest.approx(depth, rel=1e-14)
        speed = -float(localized_loss(unflatten(rho, shapes), instance.x, instance.g))
        expected = float(path_speeds(instance.x, instance.g, (q / torch.linalg.vector_norm(q))[None])[0])
        assert speed == pytest.approx(expected, rel=1e-13)
        assert rank_one_tail(unflatten(rho, shapes)) == 1
        assert linear_tail(unflatten(rho, shapes), instance.x) == 2


def test_single_path_direction_rejects_depth_one_and_a_dead_path():
    instance = random_instance(7, 3, 9, 2)
    with pytest.raises(ValueError, match="depth >= 2"):
        single_path_direction(torch.ones(3, dtype=F64), instance.x, instance.g, instance.shapes(1, 4))
    x = torch.ones(3, 4, dtype=F64)
    with pytest.raises(ValueError, match="speed 0"):
        single_path_direction(-torch.ones(3, dtype=F64), x, torch.ones(1, 4, dtype=F64), ((2, 3), (1, 2)))
    assert math.isfinite(float(single_path_direction(torch.ones(3, dtype=F64), x, torch.ones(1, 4, dtype=F64),
                                                     ((2, 3), (1, 2))).sum()))


def test_residual_lipschitz_bounds_the_residual_change_near_an_escape_direction():
    """``claims.bsj25._s_time.residual_lipschitz``: at a computed escape direction, r(theta + delta) - r(theta) stays
    within K ||delta|| (+ the rounding of r) for small random delta, and K is attained to first order along some
    delta (the Riemannian Hessian's top eigenvector): the bound is not loose by more than the factor (1 + r)."""
    from claims.bsj25._s_time import residual_lipschitz, residual_rounding, tangential_residual
    from claims.bsj25._solver import solve_escape

    instance = random_instance(2200, 4, 10, 2, positive=True)  # positive inputs: a smooth optimum
    shapes = instance.shapes(3, 4)
    found = solve_escape(instance.x, instance.g, shapes, restarts=8)
    theta = found.rho / torch.linalg.vector_norm(found.rho)
    k = residual_lipschitz(theta, shapes, instance.x, instance.g)
    base = tangential_residual(theta.numpy(), shapes, instance.x.numpy(), instance.g.numpy())
    rounding = residual_rounding(theta, shapes, instance.x, instance.g)
    gen = torch.Generator().manual_seed(3)
    changes = []
    for _ in range(20):
        delta = torch.randn(len(theta), generator=gen, dtype=F64)
        delta = 1e-7 * delta / torch.linalg.vector_norm(delta)
        moved = tangential_residual((theta + delta).numpy(), shapes, instance.x.numpy(), instance.g.numpy())
        changes.append(abs(moved - base) / 1e-7)
        assert abs(moved - base) <= k * 1e-7 * (1 + 1e-3) + 2 * rounding
    assert max(changes) > 0.05 * k  # random directions see a fair share of K
