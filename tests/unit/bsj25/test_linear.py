"""Unit tests of claims.bsj25's linear-network tools (Section 5)."""

from __future__ import annotations

import math

import torch

from claims.bsj25 import (
    balance_differences, balance_residuals, linear_flow, linear_loss, linear_search, linear_speed,
    optimal_linear_direction, optimal_linear_speed, random_instance, rank_one_ratios, rank_one_start, unflatten,
)


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
