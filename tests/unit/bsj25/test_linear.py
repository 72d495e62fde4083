"""Unit tests of claims.bsj25's linear-network tools (Section 5)."""

from __future__ import annotations

import math

import torch

from claims.bsj25 import (
    balance_differences, balance_residuals, flow_balance_tolerance, flow_rank_one_tolerance, linear_flow, linear_loss,
    linear_search, linear_speed, optimal_linear_direction, optimal_linear_speed, random_instance, random_starts,
    rank_one_ratios, rank_one_start, search_contraction, search_residue, speed_rounding, unflatten,
)
from claims.models._numerics import gamma
from claims.bsj25._search import batched_value_and_gradient


def test_linear_loss_is_the_trace_form():
    instance = random_instance(3, 4, 6, 2)
    shapes = instance.shapes(3, 5)
    weights = unflatten(torch.randn(sum(r * c for r, c in shapes), dtype=torch.float64), shapes)
    expected = torch.trace(instance.g.T @ weights[2] @ weights[1] @ weights[0] @ instance.x)
    assert torch.allclose(linear_loss(weights, instance.x, instance.g), expected, rtol=1e-13)


def test_optimal_direction_attains_sigma_1_on_the_sphere_and_is_balanced_rank_one():
    instance = random_instance(1, 4, 8, 3)
    for depth in (2, 3, 6):
        shapes = instance.shapes(depth, 5)
        theta = optimal_linear_direction(instance.x, instance.g, shapes, seed=depth)
        assert math.isclose(float(theta.norm() ** 2), depth, rel_tol=1e-14)
        assert math.isclose(linear_speed(theta, shapes, instance.x, instance.g),
                            optimal_linear_speed(instance.x, instance.g), rel_tol=1e-13)
        weights = unflatten(theta, shapes)
        assert max(rank_one_ratios(weights)) < 1e-14 and max(balance_residuals(weights)) < 1e-14


def test_no_point_of_the_sphere_beats_sigma_1():
    instance = random_instance(2, 3, 5, 3)
    shapes = instance.shapes(3, 4)
    starts, finals = linear_search(instance.x, instance.g, shapes, restarts=8, seed=0, steps=50)
    best = optimal_linear_speed(instance.x, instance.g)
    for theta in torch.cat([starts, finals]):
        assert linear_speed(theta, shapes, instance.x, instance.g) <= best * (1 + 1e-13)


def test_rank_one_start_is_balanced_only_with_equal_scales():
    shapes = random_instance(0, 4, 8, 3).shapes(3, 5)
    balanced = unflatten(rank_one_start(shapes, (0.5, 0.5, 0.5), seed=1), shapes)
    unbalanced = unflatten(rank_one_start(shapes, (0.5, 0.3, 0.2), seed=1), shapes)
    assert max(balance_residuals(balanced)) < 1e-15 and min(balance_residuals(unbalanced)) > 0.1
    assert max(rank_one_ratios(unbalanced)) < 1e-15


def test_linear_flow_conserves_the_gram_differences():
    instance = random_instance(0, 4, 8, 3)
    shapes = instance.shapes(3, 5)
    theta0 = 0.05 * torch.randn(sum(r * c for r, c in shapes), generator=torch.Generator().manual_seed(4),
                               dtype=torch.float64)
    solution = linear_flow(theta0, shapes, instance.x, instance.g, (0.5, 1.0, 2.0))
    assert solution.success
    start = balance_differences(unflatten(theta0, shapes))
    for theta in solution.thetas:
        for d0, d in zip(start, balance_differences(unflatten(theta, shapes)), strict=True):
            assert float((d - d0).norm()) < 1e-8 * float(theta.norm()) ** 2


def _rank_and_balance_fractions(theta, shapes, residue):
    """Each layer's s_2/s_1 and each pair's balance residual over its tolerance at relative distance ``residue``."""
    weights, size = unflatten(theta, shapes), float(theta.norm())
    ranks = [ratio / flow_rank_one_tolerance(w, size, residue)
             for w, ratio in zip(weights, rank_one_ratios(weights), strict=True) if min(w.shape) > 1]
    balances = [residual / flow_balance_tolerance(weights, layer, size, residue)
                for layer, residual in enumerate(balance_residuals(weights), start=2)]
    return ranks + balances


def test_search_contraction_is_the_steps_largest_eigenvalue_off_the_optima():
    """The step's Jacobian at an optimum: eigenvalue 1 along the set of optima, the rest at most (1 + s_2/s_1) / 2,
    attained, at every depth (the derivation in ``search_contraction``)."""
    for seed, dims, depth, width in ((1, (3, 6, 2), 3, 3), (2, (4, 8, 3), 4, 2), (3, (2, 5, 2), 5, 4),
                                     (4, (4, 8, 3), 2, 3), (5, (3, 7, 3), 3, 5)):
        instance = random_instance(seed, *dims)
        shapes = instance.shapes(depth, width)
        theta = optimal_linear_direction(instance.x, instance.g, shapes, seed=seed)
        eta, radius = 1 / optimal_linear_speed(instance.x, instance.g), math.sqrt(depth)

        def step(t, shapes=shapes, instance=instance, eta=eta, radius=radius):
            _, gradient = batched_value_and_gradient(t[None], shapes, instance.x, instance.g, linear=True)
            moved = t - eta * gradient[0]
            return radius * moved / moved.norm()

        moduli = torch.linalg.eigvals(torch.autograd.functional.jacobian(step, theta)).abs()
        off_optima = float(moduli[moduli < 1 - 1e-9].max())
        s = torch.linalg.svdvals(instance.g @ instance.x.T)
        assert math.isclose(off_optima, (1 + float(s[1] / s[0])) / 2, rel_tol=1e-9)
        assert off_optima <= search_contraction(instance.x, instance.g) < off_optima + 1e-12


def test_search_residue_covers_optima_moved_by_it_and_rejects_other_points():
    """Optima moved by the stated relative distance (random directions) pass the rank-one and balance tolerances;
    the tolerances stay ~1e-14, far below the O(1) s_2/s_1 and balance residuals of random points of the sphere
    (which the negative control rejects with the same tolerances)."""
    gen = torch.Generator().manual_seed(7)
    for seed, depth in ((0, 2), (1, 3), (2, 5)):
        instance = random_instance(seed, 2 + seed, 4 + seed, 2)
        shapes = instance.shapes(depth, 2 + seed)
        optimum = optimal_linear_direction(instance.x, instance.g, shapes, seed=seed)
        residue = search_residue(optimum, shapes, instance.x, instance.g)
        assert 1e-16 < residue < 1e-13
        for _ in range(20):
            direction = torch.randn(optimum.shape, generator=gen, dtype=torch.float64)
            moved = optimum + residue * float(optimum.norm()) * direction / direction.norm()
            assert max(_rank_and_balance_fractions(moved, shapes, residue)) <= 1
        for start in random_starts(8, shapes, seed):
            fractions = _rank_and_balance_fractions(start, shapes, search_residue(start, shapes, instance.x,
                                                                                  instance.g))
            assert min(fractions) > 1e10


def test_speed_rounding_covers_a_stored_radius_and_rejects_other_points():
    """An optimum whose entries are all off by the normalization's gamma_{P+4} (its radius off by as much) keeps
    s within ``speed_rounding`` of s*; random points of the sphere are far outside it."""
    for seed, depth in ((0, 2), (1, 3), (2, 5)):
        instance = random_instance(seed, 2 + seed, 4 + seed, 2)
        shapes = instance.shapes(depth, 2 + seed)
        best = optimal_linear_speed(instance.x, instance.g)
        optimum = optimal_linear_direction(instance.x, instance.g, shapes, seed=seed)
        for factor in (1 + gamma(optimum.numel() + 4), 1 - gamma(optimum.numel() + 4)):
            scaled = factor * optimum
            assert abs(linear_speed(scaled, shapes, instance.x, instance.g) - best) <= speed_rounding(
                scaled, shapes, instance.x, instance.g)
        for start in random_starts(8, shapes, seed):
            error = abs(linear_speed(start, shapes, instance.x, instance.g) - best)
            assert error > 1e8 * speed_rounding(start, shapes, instance.x, instance.g)


def test_search_end_points_are_within_half_of_their_tolerances():
    """``linear_search``'s end points on small layers (2 x 2, where the old max(shape) eps alone reached 0.95):
    s_2/s_1 and balance residuals at most half of the tolerances ``search_residue`` gives."""
    for seed in range(3):
        instance = random_instance(seed, 2, 4, 2)
        for depth in (2, 4):
            shapes = instance.shapes(depth, 2)
            _, finals = linear_search(instance.x, instance.g, shapes, restarts=16, seed=seed)
            for theta in finals:
                residue = search_residue(theta, shapes, instance.x, instance.g)
                assert max(_rank_and_balance_fractions(theta, shapes, residue)) <= 0.5
