"""Unit tests of the optimality references in claims.bsj25 (``_reference``: the best single path, the
restarts' summary), the near-rank-one instances' cut samples and label options (``_instances``), the speed
upper bound (``_bounds``) and the solver's warm starts kept in place (``_solver``'s ``warm_steps``)."""

from __future__ import annotations

import math

import pytest
import torch

from claims.bsj25._bounds import layer_ratios, speed_upper_bound, t31_constant
from claims.bsj25._instances import near_rank_one_instance, random_instance
from claims.bsj25._reference import path_speeds, search_spread, single_path_speed
from claims.bsj25._saddle import flatten, localized_loss, unflatten
from claims.bsj25._search import deepened_start, random_starts
from claims.bsj25._solver import solve_escape

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F64 = torch.float64
norm = torch.linalg.vector_norm


def single_path(q, w, depth, width, d_in):
    """The single path through q (unit) and w (unit), t_l = 1: its weights on the radius-sqrt(L) sphere."""
    weights = [torch.zeros(width, d_in, dtype=F64)]
    weights[0][0] = q
    for _ in range(depth - 2):
        middle = torch.zeros(width, width, dtype=F64)
        middle[0, 0] = 1.0
        weights.append(middle)
    last = torch.zeros(w.shape[0], width, dtype=F64)
    last[:, 0] = w
    weights.append(last)
    return weights


def test_path_speed_is_the_speed_of_the_single_path():
    instance = random_instance(5, 3, 7, 2)
    q = torch.tensor([0.3, -0.5, 0.8], dtype=F64)
    q = q / norm(q)
    speed = float(path_speeds(instance.x, instance.g, q[None])[0])
    w = -(instance.g @ torch.relu(instance.x.T @ q))
    w = w / norm(w)
    for depth in (2, 4):
        weights = single_path(q, w, depth, 3, 3)
        assert math.isclose(float(flatten(weights) @ flatten(weights)), depth)
        assert math.isclose(-float(localized_loss(weights, instance.x, instance.g)), speed, rel_tol=1e-14)


def test_single_path_speed_on_rank_one_nonnegative_inputs():
    """For X = u v^T (u, v >= 0) the best single path is q = u / ||u||: speed ||G v|| ||u|| (Prop. A.5's proof)."""
    instance, u, v = near_rank_one_instance(4, 3, 6, 2, 0.0, 2.0)
    speed, q = single_path_speed(instance.x, instance.g, samples=2000)
    assert math.isclose(speed, float(norm(instance.g @ v)) * float(norm(u)), rel_tol=1e-12)
    assert float(q @ u) / float(norm(u)) > 1 - 1e-6


def test_single_path_speed_matches_the_solver_where_the_optimum_is_a_single_path():
    instance, _, _ = near_rank_one_instance(3170, 3, 8, 2, 0.05, 1.0, aligned=0.2, cut=2)
    found = solve_escape(instance.x, instance.g, instance.shapes(3, 3), restarts=8, steps=100, fine_steps=100)
    speed, _ = single_path_speed(instance.x, instance.g, samples=4000)
    assert speed <= found.speed * (1 + 1e-13)
    assert math.isclose(speed, found.speed, rel_tol=1e-12)
    summary = search_spread(found, best=3)
    assert summary["restarts"] == 8 and 1 <= summary["agreeing"] <= 8
    assert len(summary["best_speeds"]) == 3 and summary["best_speeds"][0] == max(summary["best_speeds"])
    assert 0 <= summary["spread"] <= 1


def test_cut_instances_and_label_options():
    eps, cut = 0.05, 2
    instance, u, v = near_rank_one_instance(7, 3, 8, 2, eps, 2.0, aligned=0.3, cut=cut, signal=0.1)
    e = instance.x - torch.outer(u, v)
    assert math.isclose(float(torch.linalg.matrix_norm(e)), eps, rel_tol=1e-14)
    assert (v[:cut] == 0).all() and (v[cut:] > 0).all() and math.isclose(float(norm(v)), 1.0, rel_tol=1e-15)
    assert (u >= 0).all() and math.isclose(float(norm(u)), 2.0, rel_tol=1e-15)
    assert (u @ e[:, :cut] < 0).all()  # the cut samples point away from u
    full, _, _ = near_rank_one_instance(7, 3, 8, 2, eps, 2.0, aligned=0.3, cut=cut)
    # G = -signal w v^T + N with N v = 0: G v scales with the signal, and the rest does not move
    torch.testing.assert_close(instance.g @ v, 0.1 * (full.g @ v), rtol=1e-14, atol=0)
    torch.testing.assert_close(instance.g - torch.outer(instance.g @ v, v), full.g - torch.outer(full.g @ v, v),
                               rtol=0, atol=1e-15)
    assert math.isclose(float(torch.linalg.matrix_norm(full.g - torch.outer(full.g @ v, v))),
                        0.3 * float(norm(full.g @ v)), rel_tol=1e-14)
    assert instance.provenance["cut"] == cut and instance.provenance["signal"] == 0.1
    with pytest.raises(ValueError):
        near_rank_one_instance(7, 3, 8, 2, eps, 1.0, cut=8)


def test_cut_optimum_cuts_the_first_layer_only():
    """At the optimum of a cut instance the first layer's ReLU cuts the samples that point away from u:
    ||Z^s_1 - Z_1||^2 / ||Z_1||^2 > 0, every other ratio 0 to rounding (a single path)."""
    instance, _, _ = near_rank_one_instance(3170, 3, 8, 2, 0.05, 1.0, aligned=0.05, cut=2)
    found = solve_escape(instance.x, instance.g, instance.shapes(4, 3), restarts=8, steps=100, fine_steps=100)
    ratios = layer_ratios(found.weights, instance.x)
    assert ratios[0].nonlinearity > 1e3 * ratios[0].nonlinearity_tolerance
    assert all(r.weight <= r.weight_tolerance and r.activation <= r.activation_tolerance for r in ratios)
    assert all(r.nonlinearity <= r.nonlinearity_tolerance for r in ratios[1:-1])


def test_speed_upper_bound():
    instance = random_instance(11, 4, 9, 3)
    bound = speed_upper_bound(instance.x, instance.g)
    shapes = instance.shapes(3, 4)
    for theta in random_starts(64, shapes, seed=2):
        assert -float(localized_loss(unflatten(theta, shapes), instance.x, instance.g)) <= bound
    found = solve_escape(instance.x, instance.g, shapes, restarts=8, steps=100, fine_steps=50)
    assert found.speed <= bound
    assert t31_constant(instance.x, instance.g, bound) <= t31_constant(instance.x, instance.g, found.speed)
    # equality for rank-one X and G aligned with it: a single linear path reaches ||G||_F ||X||_op
    instance, u, v = near_rank_one_instance(4, 3, 6, 2, 0.0, 1.0, aligned=0.0)
    assert math.isclose(speed_upper_bound(instance.x, instance.g), float(norm(instance.g @ v)), rel_tol=1e-14)


def test_warm_steps_zero_keeps_a_deep_warm_start():
    """A depth-4 optimum deepened to depth 40: with ``warm_steps=0`` the warm start is refined where it is and
    the solver keeps its speed (s*(40) >= s*(4), Prop. 3.2)."""
    instance, _, _ = near_rank_one_instance(3170, 3, 8, 2, 0.01, 1.0, aligned=0.05, cut=2)
    shallow = solve_escape(instance.x, instance.g, instance.shapes(4, 3), restarts=8, steps=100, fine_steps=100)
    shapes = instance.shapes(40, 3)
    warm = deepened_start(shallow.rho, shallow.shapes, instance.x, instance.g, shapes)
    deep = solve_escape(instance.x, instance.g, shapes, restarts=4, steps=50, fine_steps=50, warm_starts=[warm],
                        warm_steps=0)
    assert deep.speed >= shallow.speed * (1 - 1e-12) and deep.warm_starts == 1 and deep.restarts == 5


def test_single_path_speed_climbs_a_kink_maximum():
    """A random instance whose optimum is a single path on 9 kinks: gradient steps stall on the ridge, the
    Nelder-Mead rounds reach the solver's speed (measured: 2.6e-4 relative below it without them)."""
    instance = random_instance(3130, 4, 10, 2)
    found = solve_escape(instance.x, instance.g, instance.shapes(4, 4), restarts=16)
    assert found.kinks
    stalled, _ = single_path_speed(instance.x, instance.g, simplex=0)
    speed, _ = single_path_speed(instance.x, instance.g)
    assert stalled < found.speed * (1 - 1e-6)
    assert math.isclose(speed, found.speed, rel_tol=1e-13)
