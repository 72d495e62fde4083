"""Unit tests of claims.lj22._limits (paths sampled at doublings of arc length, the series Theorem 2's and
Corollary 1's limits are judged on, the networks of those tests) and of the batched flow they rest on
(``descent_directions``, ``DagNetwork.batched_vertex_values``)."""

from __future__ import annotations

import math

import pytest
import torch

from claims.lj22._alignment import descent_direction, descent_directions, normalized_flow, separable_data
from claims.lj22._limits import (
    appendix_e_drifts,
    appendix_e_terms,
    corollary1_start,
    doubling_lengths,
    follow_doublings,
    growth_exponents,
    layer_series,
    linearly_separable,
    pair_alignments,
    theorem2_network_dense_tail,
    theorem2_network_through_frozen_layer,
    unseparable_data,
)
from claims.lj22._alignment import corollary1_network, theorem2_network_with_convolutions
from claims.models._builders import with_bias_column
from claims.models._networks import LINEAR, RELU
from claims.models._risk import Risk


def dense_tail_risk(relu=()):
    network = theorem2_network_dense_tail(3, 5, (4, 3), relu=relu)
    x, y = separable_data(12, 3, 0.3, 0)
    return Risk(network, with_bias_column(x), y)


def starts(network, runs: int, scale: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    return scale * torch.randn(runs, network.n_parameters, generator=g, dtype=torch.float64)


@pytest.mark.parametrize("network, bias", [
    (corollary1_network([3, 5, 4, 3, 1], 1), False),
    (theorem2_network_with_convolutions(3, 3, 5, ((8, 3), (1, 2))), True),
])
def test_batched_vertex_values_and_directions_are_the_single_run_computations(network, bias):
    x, y = separable_data(10, 3, 0.3, 1)
    x = with_bias_column(x) if bias else x
    thetas = starts(network, 4, 3.0)
    pre, post = network.batched_vertex_values(network.edge_weights(thetas), x)
    for i in range(4):
        single_pre, single_post = network.vertex_values(network.edge_weights(thetas[i]), x)
        assert torch.equal(pre[i], single_pre) and torch.equal(post[i], single_post)
    risk = Risk(network, x, y)
    directions, log_norms = descent_directions(risk, thetas)
    for i in range(4):
        direction, log_norm = descent_direction(risk, thetas[i])
        assert torch.equal(directions[i], direction) and float(log_norms[i]) == log_norm


def test_a_row_whose_heaviest_example_has_no_gradient_takes_the_single_fallback():
    """Row 0 has every ReLU neuron dead (all first-layer weights negative on positive inputs, biases negative):
    no margin has a gradient there, so it raises as ``descent_direction`` does; a batch without it is fine."""
    risk = dense_tail_risk()
    network = risk.network
    thetas = starts(network, 2)
    w = network.edge_weights(thetas[0])
    w[torch.tensor(network.matrices["W1"]).flatten()] = 0.0
    w[torch.tensor(network.matrices["W1.b"]).flatten()] = -1.0
    thetas[0] = network.parameters_of(w)
    with pytest.raises(ArithmeticError, match="no margin has a gradient"):
        descent_directions(risk, thetas)
    directions, _ = descent_directions(risk, thetas[1:])
    assert torch.equal(directions[0], descent_direction(risk, thetas[1])[0])


def test_follow_doublings_samples_each_path_at_its_doublings_fine_and_coarse():
    risk = dense_tail_risk()
    thetas = starts(risk.network, 2)
    paths = follow_doublings(risk, thetas, 1.0, 3, 4)
    assert [p.s for p in paths] == [(1.0, 2.0, 4.0)] * 2
    alone = follow_doublings(risk, thetas[1], 1.0, 3, 4)  # the rows do not interact (equal to rounding: the
    # arithmetic of a batch is vectorized differently from that of one row)
    assert all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(alone.thetas, paths[1].thetas))
    # the fine samples are the normalized flow's at h = 1/4, the coarse ones at h = 1/2
    close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-12)  # noqa: E731
    _, log_t, snaps = normalized_flow(risk, thetas[:1].clone(), torch.tensor([4.0], dtype=torch.float64), 16, 1)
    assert close(snaps[7][2][0], paths[0].thetas[1]) and close(snaps[15][2][0], paths[0].thetas[2])
    assert paths[0].log10_t[-1] == pytest.approx(float(log_t[0]) / math.log(10))
    _, _, coarse = normalized_flow(risk, thetas[:1].clone(), torch.tensor([4.0], dtype=torch.float64), 8, 1)
    assert close(coarse[7][2][0], paths[0].coarse_thetas[2])
    assert not torch.equal(paths[0].coarse_thetas[2], paths[0].thetas[2])
    with pytest.raises(ValueError, match="even"):
        follow_doublings(risk, thetas[0], 1.0, 3, 3)
    with pytest.raises(ValueError, match="multiples"):
        follow_doublings(risk, thetas[0], 0.3, 3, 4)


def test_series_ratio_variable_and_growth_exponents():
    assert doubling_lengths(4.0, 3) == [4.0, 8.0, 16.0]
    assert growth_exponents([1.0, 2.0, 2.0, 1.0]) == [1.0, 0.0, -1.0]
    risk = dense_tail_risk()
    path = follow_doublings(risk, starts(risk.network, 1)[0], 1.0, 3, 2)
    network = risk.network

    def matrices(theta):
        w = network.edge_weights(theta)
        return {k: network.weight_matrix(k, w) for k in ("W2", "W3", "Fin")}

    series = layer_series(path, matrices)
    W2 = matrices(path.thetas[-1])["W2"]
    sv = torch.linalg.svdvals(W2)
    assert series["W2"]["ratio"][-1] == pytest.approx(float(sv[0] ** 2 / (sv**2).sum()), rel=1e-12)
    assert series["W2"]["x"][-1] == pytest.approx(1 / float((sv**2).sum()), rel=1e-12)
    assert len(series["W2"]["exponent"]) == 2 and series["Fin"]["ratio"] == pytest.approx([1.0] * 3, abs=1e-15)
    aligned = pair_alignments(path, matrices, [("W3", "Fin")], coarse=True)[("W3", "Fin")]
    assert len(aligned) == 3 and all(0 <= a <= 1 + 1e-12 for a in aligned)


def test_the_dense_tail_network_and_its_relu_variant():
    linear, relu = dense_tail_risk().network, dense_tail_risk(relu=(2,)).network
    w2 = lambda n: n.slopes[n.neurons["W2"][0][0]]  # noqa: E731
    assert (w2(linear), w2(relu)) == (LINEAR, RELU)
    assert linear.slopes[linear.neurons["W1"][0][0]] == RELU and "W1.b" in linear.matrices
    assert tuple(linear.weight_matrix("Fin", linear.edge_weights(starts(linear, 1)[0])).shape) == (1, 3)


def test_a_frozen_layer_has_no_gradient_and_keeps_its_values():
    frozen = 1.5 * torch.eye(4, 5, dtype=torch.float64)
    network = theorem2_network_through_frozen_layer(3, 5, 2, 1, frozen)
    x, y = separable_data(12, 3, 0.3, 0)
    risk = Risk(network, with_bias_column(x), y)
    theta = starts(network, 1)[0]
    assert torch.equal(network.weight_matrix("W2", network.edge_weights(theta)), frozen)
    (path,) = follow_doublings(risk, theta[None], 1.0, 2, 2)
    assert torch.equal(network.weight_matrix("W2", network.edge_weights(path.thetas[-1])), frozen)


def test_separability_and_the_start_hypothesis():
    x, y = separable_data(20, 3, 0.3, 0)
    assert linearly_separable(x, y)
    xu, yu = unseparable_data(10, 3, 0)
    assert not linearly_separable(xu, yu)
    assert torch.equal(xu[:10], xu[10:]) and torch.equal(yu[:10], -yu[10:])
    risk = Risk(corollary1_network([3, 5, 4, 3, 1], 1), x, y)
    theta, seed = corollary1_start(risk, 0.6, 0)
    assert float(risk(theta)) < math.log(2) and seed >= 1
    g = torch.Generator().manual_seed(seed)
    assert torch.equal(theta, 0.6 * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64))


def test_appendix_e_terms_and_their_drift_along_the_follower():
    """L ||W_L||_F^2 and ||w||^2 (every parameter is an entry of some W_j here); the drift of their difference,
    conserved by the flow, shrinks as the follower's step halves."""
    x, y = separable_data(12, 3, 0.3, 7)
    risk = Risk(corollary1_network([3, 5, 4, 3, 1], 1), x, y)
    names = ["W1", "W2", "W3", "W4"]
    theta, _ = corollary1_start(risk, 0.6, 0)
    last, total = appendix_e_terms(risk.network, theta, names)
    W4 = risk.network.weight_matrix("W4", risk.network.edge_weights(theta))
    assert last == pytest.approx(4 * float((W4**2).sum()), rel=1e-14)
    assert total == pytest.approx(float((theta**2).sum()), rel=1e-14)
    (row,) = appendix_e_drifts(risk, theta[None], names, 2.0, (2, 4, 8, 16))
    drifts = [abs(d) for d in row["drifts"]]
    assert drifts[-1] < drifts[0] / 4 and row["term_change"] > 100 * drifts[-1]
    assert all(0 < f < 1e-12 for f in row["floors"])
