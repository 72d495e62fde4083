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
