"""DagNetwork and the builders, against direct matrix computations."""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from claims import LINEAR, RELU, DagNetwork, mlp, resnet
from claims.strategies import dag_networks, input_batches, mlp_networks, resnet_networks, weight_vectors

relu = torch.relu


def test_rejects_graphs_that_are_not_topologically_ordered():
    with pytest.raises(ValueError, match="topological"):
        DagNetwork(1, 3, ((0, 2), (2, 1)), (LINEAR, RELU, LINEAR))
    with pytest.raises(ValueError, match="no in-edge"):
        DagNetwork(1, 3, ((0, 2),), (LINEAR, RELU, LINEAR))
    with pytest.raises(ValueError, match="constant"):
        DagNetwork(1, 2, ((0, 1),), (LINEAR, LINEAR), learnable=(False,))


def test_relu_derivative_at_zero_is_one():
    """Pre-activation x_0 - x_1 = 0 at x = (1, 1): autodiff's ReLU'(0) = 1 (LJ22 Remark 1)."""
    network = DagNetwork(2, 4, ((0, 2), (1, 2), (2, 3)), (LINEAR, LINEAR, RELU, LINEAR))
    w = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64, requires_grad=True)
    network(w, torch.ones(1, 2, dtype=torch.float64)).sum().backward()
    assert w.grad.tolist() == [1.0, 1.0, 0.0]


@given(mlp_networks(slope=RELU), st.data())
def test_mlp_matches_matrix_products(network, data):
    w = data.draw(weight_vectors(network))
    x = data.draw(input_batches(network.n_inputs))
    names = sorted(network.matrices, key=lambda n: int(n[1:]))
    z = x.T
    for k, name in enumerate(names):
        z = network.weight_matrix(name, w) @ z
        z = z if k == len(names) - 1 else relu(z)
    torch.testing.assert_close(network(w, x), z[0], rtol=1e-13, atol=1e-13)


@given(resnet_networks(), st.data())
def test_resnet_blocks_match_definition_5(network, data):
    w = data.draw(weight_vectors(network))
    x = data.draw(input_batches(network.n_inputs))
    z = x.T
    blocks = sorted({name.split(".")[0] for name in network.matrices if name != "Fin"})
    for block in blocks:
        matrix = lambda part: network.weight_matrix(f"{block}.{part}", w)  # noqa: E731
        if f"{block}.Z" in network.matrices:
            skip = matrix("Z") @ z
        elif f"{block}.D" in network.matrices:
            skip = matrix("D") @ z
        else:
            skip = z
        z = relu(matrix("U") @ relu(matrix("Y") @ z) + skip)
    torch.testing.assert_close(network(w, x), (network.weight_matrix("Fin", w) @ z)[0], rtol=1e-13, atol=1e-13)


def test_identity_skip_is_fixed_at_one():
    network = resnet(2, [("identity", 3, 2)])
    assert network.constants == {e: 1.0 for e, free in enumerate(network.learnable) if not free}
    assert sum(not free for free in network.learnable) == 2
    with pytest.raises(ValueError, match="keeps the width"):
        resnet(2, [("diagonal", 3, 4)])


@given(dag_networks(max_paths=64), st.data())
def test_exact_evaluation_agrees_with_float(network, data):
    w = data.draw(weight_vectors(network, exact=True))
    (x,) = data.draw(input_batches(network.n_inputs, max_size=1, exact=True))
    exact = network.forward_exact(w, x)
    as_float = network(torch.tensor([float(v) for v in w], dtype=torch.float64),
                       torch.tensor([[float(c) for c in x]], dtype=torch.float64))
    assert isinstance(exact, Fraction)
    assert abs(float(exact) - as_float.item()) <= 1e-12 * (1 + abs(float(exact)))


def test_mlp_shapes_and_tree_check():
    network = mlp([3, 4, 2, 1])
    assert network.weight_matrix("W1", torch.zeros(network.n_edges)).shape == (4, 3)
    assert not network.is_tree()
    assert mlp([1, 1, 1]).is_tree()


def _vertex_by_vertex(network: DagNetwork, w: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Pre- and post-activations vertex by vertex in index order, each pre-activation summed over its in-edges
    in edge order from 0 (the order ``index_add`` adds in), each activation as ``homogeneous_activation``."""
    pre = [x[:, v] for v in range(network.n_inputs)]
    post = list(pre)
    for v in range(network.n_inputs, network.n_vertices):
        z = torch.zeros(x.shape[0], dtype=x.dtype)
        for e in network.in_edges[v]:
            z = z + post[network.edges[e][0]] * w[e]
        pre.append(z)
        post.append(torch.where(z >= 0, z, network.slopes[v] * z))
    return torch.stack(pre, 1), torch.stack(post, 1)


SKIPPING_DAG = DagNetwork(2, 6, ((0, 2), (2, 3), (1, 4), (0, 4), (3, 5), (4, 5), (1, 5)),
                          (LINEAR, LINEAR, RELU, 0.25, RELU, LINEAR))
"""Levels (2, 4), (3,), (5,): vertex 4 is computed before vertex 3, so the levels' layout is not the vertex
order, and the output level is linear while the others are not."""


@pytest.mark.parametrize("network", [SKIPPING_DAG, mlp([3, 4, 2, 1], RELU, bias=True), resnet(2, [("identity", 3, 2)])],
                         ids=["skipping DAG", "mlp with biases", "identity block"])
def test_vertex_values_are_the_vertex_by_vertex_sums_bitwise(network):
    """``vertex_values`` and ``batched_vertex_values`` (level by level, blocks concatenated, linear levels not
    passed through the activation) give the numbers of the plain vertex-by-vertex recursion, bitwise, in vertex
    order."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(5, network.n_inputs, generator=generator, dtype=torch.float64)
    ws = torch.randn(3, network.n_edges, generator=generator, dtype=torch.float64)
    batched = network.batched_vertex_values(ws, x)
    for run, w in enumerate(ws):
        expected = _vertex_by_vertex(network, w, x)
        for got, want, rows in zip(network.vertex_values(w, x), expected, batched):
            torch.testing.assert_close(got, want, rtol=0.0, atol=0.0)
            torch.testing.assert_close(rows[run], want, rtol=0.0, atol=0.0)
    assert SKIPPING_DAG.levels == ((2, 4), (3,), (5,))
