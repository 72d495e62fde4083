"""Unit tests of claims.bsj25's s-time flows (Section 2.1-2.2): the normalized flow's stop at a ReLU kink."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from claims.bsj25 import KinkCrossed, hidden_preactivations, random_instance, sphere_flow, unflatten

S_EVAL = (0.5, 1.0, 2.0, 4.0, 10.0, 20.0, 50.0, 100.0)


def start(instance, depth, width, seed):
    shapes = instance.shapes(depth, width)
    theta = torch.randn(sum(r * c for r, c in shapes), generator=torch.Generator().manual_seed(seed),
                        dtype=torch.float64)
    return shapes, theta / torch.linalg.vector_norm(theta)


def test_hidden_preactivations_are_the_hidden_layers_w_h():
    instance = random_instance(2, 3, 5, 1)
    shapes, theta = start(instance, 3, 4, 0)
    w1, w2, _ = unflatten(theta, shapes)
    z1 = w1 @ instance.x
    z2 = w2 @ torch.relu(z1)
    expected = torch.cat([z1.reshape(-1), z2.reshape(-1)]).numpy()
    assert np.allclose(hidden_preactivations(theta.numpy(), shapes, instance.x.numpy()), expected, rtol=1e-14)


def test_a_path_that_meets_a_kink_stops_there_and_one_that_does_not_is_unchanged():
    # the start this test used before the draws: it crosses a kink at s = 0.75 (DOP853 goes on through it)
    instance = random_instance(0, 3, 6, 1)
    shapes, theta = start(instance, 3, 4, 100)
    through = sphere_flow(theta, shapes, instance.x, instance.g, S_EVAL)
    with pytest.raises(KinkCrossed) as crossing:
        sphere_flow(theta, shapes, instance.x, instance.g, S_EVAL, stop_at_kink=True)
    assert 0.5 < crossing.value.s < 1.0
    signs = [np.sign(hidden_preactivations(d.numpy(), shapes, instance.x.numpy())) for d in through.directions[:2]]
    assert (signs[0] != signs[1]).any()  # the pattern did change between s = 0.5 and s = 1
    # a start whose path keeps its pattern (found among Hypothesis's small draws): same path with and without the stop
    instance = random_instance(0, 2, 2, 1)
    shapes, theta = start(instance, 3, 2, 0)
    plain = sphere_flow(theta, shapes, instance.x, instance.g, S_EVAL)
    watched = sphere_flow(theta, shapes, instance.x, instance.g, S_EVAL, stop_at_kink=True)
    assert torch.equal(plain.directions, watched.directions)
