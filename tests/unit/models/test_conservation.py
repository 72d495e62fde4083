"""The conservation-law counter: phi factors the network (same outputs for two thetas with equal phi, and
nu = c(x) . phi(theta) on every activation pattern), exact ranks, and Marcotte et al.'s reference counts."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.models import (
    LINEAR, RELU, DagNetwork, exact_rank, integer_point, lie_rank, mlp, reparametrization, resnet, with_bias_column,
)
from claims.strategies import input_batches, law_architectures

FEW = settings(max_examples=30, deadline=None, derandomize=True, database=None)


@FEW
@given(law_architectures(), st.integers(0, 2**16), st.data())
def test_the_network_is_its_coefficients_times_phi(drawn, seed, data):
    """nu(x; theta) = sum_g x_{s_g} prod_{v in g} sigma_v'(pre_v) phi_g(theta) on every input."""
    _, network = drawn
    phi = reparametrization(network)
    theta = torch.randn(network.n_parameters, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    bias = network.bias_vertex is not None
    x = data.draw(input_batches(network.n_inputs - bias, 1, 6))
    x = with_bias_column(x) if bias else x
    pre, post = network.vertex_values(network.edge_weights(theta), x)
    expected = phi.coefficients(x, pre) @ phi(theta)
    assert torch.allclose(post[:, network.output], expected, rtol=1e-12, atol=1e-12)


def test_two_thetas_with_equal_phi_give_the_same_network():
    """A ReLU vertex rescaled by c > 0, and a linear layer pair W1 -> A W1, W2 -> W2 A^-1: the individual path
    products change, phi (aggregated over the linear vertices) does not, nor does the function."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(16, 3, generator=generator, dtype=torch.float64)
    linear = mlp([3, 2, 1], LINEAR)
    w1, w2 = (torch.randn(2, 3, generator=generator, dtype=torch.float64),
              torch.randn(1, 2, generator=generator, dtype=torch.float64))
    a = torch.tensor([[2.0, 1.0], [0.5, -1.0]], dtype=torch.float64)
    theta = torch.cat([w1.flatten(), w2.flatten()])
    moved = torch.cat([(a @ w1).flatten(), (w2 @ torch.linalg.inv(a)).flatten()])
    phi = reparametrization(linear)
    assert phi.size == 3  # one coordinate per input: the entries of W2 W1
    assert torch.allclose(phi(theta), phi(moved)) and not torch.allclose(theta, moved)
    assert torch.allclose(linear(linear.edge_weights(theta), x), linear(linear.edge_weights(moved), x))
    relu = mlp([3, 2, 1], RELU)
    scaled = theta.clone()
    scaled[[0, 1, 2]] *= 3.0  # vertex 3's in-edges
    scaled[6] /= 3.0  # its out-edge
    assert torch.allclose(reparametrization(relu)(theta), reparametrization(relu)(scaled))
    assert torch.allclose(relu(relu.edge_weights(theta), x), relu(relu.edge_weights(scaled), x))


def test_linear_segments_are_aggregated_and_relu_vertices_are_not():
    skip = DagNetwork(1, 3, ((0, 1), (0, 2), (1, 2)), (LINEAR, LINEAR, LINEAR))
    assert reparametrization(skip).size == 1  # a b + c
    gated = DagNetwork(1, 3, ((0, 1), (0, 2), (1, 2)), (LINEAR, RELU, LINEAR))
    assert reparametrization(gated).size == 2  # a b through the ReLU vertex, c apart


def test_exact_rank_is_exact():
    assert exact_rank([[1, 2], [2, 4]], 2) == 1
    assert exact_rank([[1, 2], [2, 4 + 10**-30 * 0 + 1]], 2) == 2
    assert exact_rank([], 3) == 0
    big = 2**80
    assert exact_rank([[big, big + 1], [big - 1, big]], 2) == 2  # determinant 1: float64 sees 0


def test_reference_counts():
    """Two-layer ReLU: one law per hidden neuron; two-layer linear with r <= d: r(r+1)/2 (the gradients span
    d directions, one bracket level adds the rest)."""
    for d, n in ((1, 3), (3, 4)):
        network = mlp([d, n, 1], RELU)
        assert network.n_parameters - lie_rank(network, integer_point(network.n_parameters, 1)).rank == n
    for d, r in ((2, 2), (3, 3), (4, 3)):
        network = mlp([d, r, 1], LINEAR)
        lie = lie_rank(network, integer_point(network.n_parameters, 1))
        assert network.n_parameters - lie.rank == r * (r + 1) // 2
        assert lie.ranks_by_level[0] == d and len(lie.ranks_by_level) >= 2


def test_a_single_coordinate_leaves_d_minus_one_laws():
    """nu = (a b + c) x: Lie{grad phi} is one-dimensional, 2 laws (a^2 - b^2, and (a + b) exp(-c))."""
    skip = DagNetwork(1, 3, ((0, 1), (0, 2), (1, 2)), (LINEAR, LINEAR, LINEAR))
    lie = lie_rank(skip, integer_point(3, 0))
    assert lie.rank == 1 and lie.stopped == "no growth"


def test_the_cap_stops_the_growth():
    network = mlp([3, 3, 1], LINEAR)
    assert lie_rank(network, integer_point(12, 0), cap=4).rank == 4
    assert lie_rank(network, integer_point(12, 0), cap=4).stopped == "reached the cap"


def test_fixed_edges_enter_as_constants():
    network = resnet(2, [("identity", 2, 2)])
    phi = reparametrization(network)
    theta = torch.randn(network.n_parameters, dtype=torch.float64)
    assert phi(theta).shape == (phi.size,)
    assert network.n_parameters - lie_rank(network, integer_point(network.n_parameters, 2)).rank == 2
