"""The builders (convolutions, weight sharing, biases, fixed diagonals, ``sequential``) and the
matrix views of LJ22 Theorem 1 (claims.models._representations), against torch and direct sums."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from claims import LINEAR, RELU, NetworkBuilder, mlp, resnet_block
from claims.models._builders import Block, Conv, Dense, sequential, with_bias_column
from claims.models._representations import concat_columns, dense_after_conv, kernel_columns, kernel_rows, stack_rows
from claims.strategies import THEOREM1_CASES, sequential_networks

CONVOLUTIONS = [
    ((2, 7), Conv(3, 3)),
    ((2, 7), Conv(2, 2, stride=2, padding=1, slope=RELU)),
    ((1, 6), Conv(3, 3, stride=2, padding=1, slope=0.25)),
    ((3, 5), Conv(1, 1, stride=2)),
    ((2, 5, 4), Conv(2, (2, 3), stride=(1, 2), padding=(1, 0), slope=RELU)),
    ((1, 4, 4), Conv(3, 2, stride=2, padding=1)),
    ((2, 3, 5), Conv(2, 3, stride=1, padding=1)),
]


def random_theta(network, seed: int = 0) -> torch.Tensor:
    return torch.randn(
        network.n_parameters, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )


def activation(z: torch.Tensor, slope: float) -> torch.Tensor:
    return torch.where(z >= 0, z, slope * z)


def torch_conv(network, w, name: str, spec: Conv, x: torch.Tensor) -> torch.Tensor:
    """torch's conv1d/conv2d with the network's kernel T (a, b, c) as weight (c, a, *kernel)."""
    T = network.weight_tensor(name, w)
    a, _, c = T.shape
    kernel = (spec.kernel_size,) * (x.dim() - 2) if isinstance(spec.kernel_size, int) else spec.kernel_size
    conv = F.conv1d if x.dim() == 3 else F.conv2d
    bias = (
        network.weight_matrix(f"{name}.b", w).reshape(c, -1)[:, 0]
        if network.bias_vertex is not None
        else None
    )
    return activation(
        conv(x, T.permute(2, 0, 1).reshape(c, a, *kernel), bias, spec.stride, spec.padding), spec.slope
    )


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("input_shape, conv", CONVOLUTIONS)
def test_convolution_then_dense_matches_torch(input_shape, conv, bias):
    network = sequential(input_shape, [conv, Dense(3, RELU)], bias)
    w = network.edge_weights(random_theta(network))
    x = torch.randn(4, *input_shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    h = torch_conv(network, w, "C1", conv, x).flatten(1)
    b = {name: network.weight_matrix(f"{name}.b", w)[:, 0] if bias else 0.0 for name in ("W2", "Fin")}
    h = torch.relu(h @ network.weight_matrix("W2", w).T + b["W2"])
    expected = (h @ network.weight_matrix("Fin", w).T)[:, 0] + b["Fin"]
    data = x.reshape(4, -1)
    torch.testing.assert_close(
        network(w, with_bias_column(data) if bias else data), expected, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize(
    "input_shape, first, second",
    [
        ((2, 8), Conv(3, 3, stride=2, padding=1, slope=RELU), Conv(2, 2, stride=1, padding=1)),
        ((2, 5, 5), Conv(2, 2, padding=1), Conv(3, (2, 1), stride=2, slope=RELU)),
    ],
)
def test_two_convolutions_match_torch(input_shape, first, second):
    network = sequential(input_shape, [first, second])
    w = network.edge_weights(random_theta(network))
    x = torch.randn(3, *input_shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    h = torch_conv(network, w, "C2", second, torch_conv(network, w, "C1", first, x)).flatten(1)
    expected = (h @ network.weight_matrix("Fin", w).T)[:, 0]
    torch.testing.assert_close(network(w, x.reshape(3, -1)), expected, rtol=0, atol=1e-12)


def test_kernel_entries_share_one_parameter():
    network = sequential((2, 3, 4), [Conv(3, (2, 2), stride=1, padding=1), Dense(2)])
    a, b, c = 2, 4, 3
    positions = 4 * 5
    assert network.n_parameters == a * b * c + 2 * c * positions + 2
    # per (input, output) channel: 6 (rows) x 8 (columns) (output position, offset) pairs in range;
    # each of the 4 offsets is used at 3 x 4 of the 4 x 5 positions.
    assert network.n_edges == 6 * 8 * a * c + 2 * c * positions + 2
    assert network.multiplicity == 3 * 4
    theta = random_theta(network)
    w = network.edge_weights(theta)
    T = network.weight_tensor("C1", w)
    assert T.shape == (a, b, c) and torch.equal(T, theta[: a * b * c].reshape(a, b, c))
    for e, p in enumerate(network.parameters):
        assert w[e] == theta[p]
    kernel_edges = {e for e, (u, _) in enumerate(network.edges) if u < network.n_inputs}
    assert {network.parameters[e] for e in kernel_edges} == set(range(a * b * c))
    assert torch.equal(network.parameters_of(w), theta)
    assert [len(group) for group in network.neurons["C1"]] == [positions] * c
    assert network.neurons["W2"] == tuple((v,) for v in network.matrix_vertices("W2")[0])


def test_sequential_names_layers_and_resnet_blocks_keep_their_graph():
    network = sequential((2, 6), [Conv(2, 3), Dense(3), Block("free", 2, 2), Block("diagonal", 1)])
    assert set(network.tensors) == {"C1"}
    assert set(network.matrices) == {"W2", "B3.Y", "B3.U", "B3.Z", "B4.Y", "B4.U", "B4.D", "Fin"}
    assert network.matrix_vertices("W2")[1] == list(sum(network.neurons["C1"], ()))
    builder = NetworkBuilder(3)
    r = resnet_block(builder, builder.inputs, "free", 2, 2, name="B1.")
    builder.dense(r, builder.layer(1, LINEAR), "Fin")
    assert builder.build() == sequential((3,), [Block("free", 2, 2)])
    with pytest.raises(ValueError, match="grid"):
        sequential((4,), [Conv(1, 1)])
    with pytest.raises(ValueError, match="grid"):
        sequential((1, 4), [Dense(2), Conv(1, 1)])


def test_bias_vertex_carries_one():
    network = mlp([2, 3, 1], RELU, bias=True)
    assert (network.n_inputs, network.bias_vertex) == (3, 2)
    assert network.matrix_vertices("W1")[1] == [0, 1]
    assert network.matrix_vertices("W1.b")[1] == network.matrix_vertices("W2.b")[1] == [2]
    x = torch.tensor([[0.5, -1.0], [2.0, 0.0]], dtype=torch.float64)
    assert torch.equal(
        with_bias_column(x), torch.tensor([[0.5, -1.0, 1.0], [2.0, 0.0, 1.0]], dtype=torch.float64)
    )
    w = network.edge_weights(random_theta(network))
    W1, b1, W2, b2 = (network.weight_matrix(name, w) for name in ("W1", "W1.b", "W2", "W2.b"))
    expected = (torch.relu(x @ W1.T + b1.T) @ W2.T + b2.T)[:, 0]
    torch.testing.assert_close(network(w, with_bias_column(x)), expected, rtol=0, atol=1e-14)
    builder = NetworkBuilder(2)
    with pytest.raises(ValueError, match="bias vertex"):
        builder.bias(builder.layer(1), "b")


def test_convolution_bias_is_one_parameter_per_channel():
    network = sequential((1, 5), [Conv(2, 2)], bias=True)
    assert network.bias_vertex == 5 and network.matrix_vertices("C1.b")[1] == [5]
    edges = [row[0] for row in network.matrices["C1.b"]]
    assert [network.parameters[e] for e in edges] == [4, 4, 4, 4, 5, 5, 5, 5]
    assert network.n_parameters == 1 * 2 * 2 + 2 + 8 + 1


@pytest.mark.parametrize("learnable", [True, False])
def test_diagonal_is_learnable_or_fixed(learnable):
    values = (0.5, -2.0)
    network = sequential(
        (2,), [Block("diagonal", 3, learnable_diagonal=learnable, diagonal=None if learnable else values)]
    )
    theta = random_theta(network)
    D = network.weight_matrix("B1.D", network.edge_weights(theta))
    assert D[0, 1] == D[1, 0] == 0
    diagonal_edges = [network.matrices["B1.D"][i][i] for i in range(2)]
    assert all(network.learnable[e] is learnable for e in diagonal_edges)
    assert network.n_parameters == 2 * 3 + 3 * 2 + 2 * learnable + 2
    if learnable:
        assert D.diagonal().tolist() == [theta[network.parameters[e]].item() for e in diagonal_edges]
    else:
        assert D.diagonal().tolist() == list(values)
        assert all(network.parameters[e] == -1 for e in diagonal_edges)
    with pytest.raises(ValueError, match="values"):
        NetworkBuilder(1).diagonal([0], [0], "D", values=[1.0])


def test_a_fixed_dense_layer_is_frozen_at_its_values():
    builder = NetworkBuilder(2)
    hidden = builder.layer(3, LINEAR)
    values = [[1.0, -2.0], [0.5, 0.0], [3.0, 4.0]]
    builder.fixed(builder.inputs, hidden, values, "F")
    out = builder.layer(1, LINEAR)
    builder.dense(hidden, out, "W")
    network = builder.build()
    theta = random_theta(network)
    assert network.n_parameters == 3
    assert network.weight_matrix("F", network.edge_weights(theta)).tolist() == values
    x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
    W = network.weight_matrix("W", network.edge_weights(theta))
    expected = W @ torch.tensor(values, dtype=torch.float64) @ x[0]
    assert torch.allclose(network(network.edge_weights(theta), x), expected)
    with pytest.raises(ValueError, match="one row per target"):
        NetworkBuilder(2).fixed([0, 1], [2], [[1.0]], "G")


@pytest.mark.parametrize(
    "grid_shape, kernel, stride, padding, message",
    [
        ((1, 1), 3, 1, 1, "kernel offsets"),
        ((1, 2), 3, 1, 0, "does not fit"),
        ((1, 3), 1, 1, 1, "no in-edge"),
        ((1, 3, 3), (3, 1), 1, (0, 1), "no in-edge"),
        ((1, 3, 3), (2, 2, 2), 1, 0, "entries each"),
    ],
)
def test_convolutions_reject_kernel_entries_or_neurons_without_edges(
    grid_shape, kernel, stride, padding, message
):
    builder = NetworkBuilder(torch.Size(grid_shape).numel())
    grid = torch.tensor(builder.inputs).reshape(grid_shape)
    with pytest.raises(ValueError, match=message):
        builder.conv(grid, 1, kernel, stride, padding)


def test_representations_on_explicit_tensors():
    T = torch.arange(2 * 3 * 4).reshape(2, 3, 4)
    W1 = kernel_rows(T)
    assert W1.shape == (4, 6) and all(
        W1[k, i * 3 + j] == T[i, j, k] for i in range(2) for j in range(3) for k in range(4)
    )
    W2 = kernel_columns(T)
    assert W2.shape == (12, 2) and all(
        W2[j * 4 + k, i] == T[i, j, k] for i in range(2) for j in range(3) for k in range(4)
    )
    W = torch.tensor([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]])  # 2 rows, 2 channels x 3 positions
    assert dense_after_conv(W, 2).tolist() == [[1, 4], [2, 5], [3, 6], [7, 10], [8, 11], [9, 12]]
    with pytest.raises(ValueError, match="channels"):
        dense_after_conv(W, 4)
    U, Z = torch.ones(2, 3), torch.zeros(2, 1)
    assert concat_columns(U, Z).tolist() == [[1, 1, 1, 0], [1, 1, 1, 0]]
    assert stack_rows(U.T, Z.T).tolist() == [[1, 1], [1, 1], [1, 1], [0, 0]]
    batch = torch.arange(2 * 24).reshape(2, 2, 3, 4)
    assert torch.equal(kernel_rows(batch)[1], kernel_rows(batch[1]))
    assert torch.equal(kernel_columns(batch)[1], kernel_columns(batch[1]))
    assert torch.equal(
        dense_after_conv(batch.reshape(2, 4, 6), 3)[0], dense_after_conv(batch[0].reshape(4, 6), 3)
    )


def shared_gram(network, theta: torch.Tensor, groups, out: bool) -> torch.Tensor:
    """Lemma 9's sum over the weight pairs w_OUT(V) (``out``) or w_IN(V) of every two neuron groups
    (channels) k, k': the distinct parameter pairs (w, w') of edges from (into) the neurons of k
    and k' at one position to (from) one common vertex. Without weight sharing, the sum over
    positions of the out-edge (in-edge) inner products."""
    end, edges_of = (1, network.out_edges) if out else (0, network.in_edges)
    gram = torch.zeros(len(groups), len(groups), dtype=theta.dtype)
    for k, first in enumerate(groups):
        for k2, second in enumerate(groups):
            pairs = set()
            for u, u2 in zip(first, second):
                by_end = {network.edges[e][end]: network.parameters[e] for e in edges_of[u]}
                pairs |= {
                    (by_end[network.edges[e][end]], network.parameters[e])
                    for e in edges_of[u2]
                    if network.edges[e][end] in by_end
                }
            gram[k, k2] = sum(theta[p] * theta[q] for p, q in pairs)
    return gram


def next_layer(network, w, case: str) -> torch.Tensor:
    """The weights out of C1's neurons as the builder names them: C2's kernel, W2, or [Y; Z] of B2."""
    if case == "conv-conv":
        return network.weight_tensor("C2", w)
    if case == "conv-dense":
        return network.weight_matrix("W2", w)
    return stack_rows(network.weight_matrix("B2.Y", w), network.weight_matrix("B2.Z", w))


def out_matrix(network, w, case: str, channels: int) -> torch.Tensor:
    """W2 of Theorem 1 cases 2, 5, 6: the out-matrix of the channels of C1."""
    weights = next_layer(network, w, case)
    return kernel_columns(weights) if case == "conv-conv" else dense_after_conv(weights, channels)


CONV_CASES = ["conv-conv", "conv-dense", "conv-block"]


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(CONV_CASES).flatmap(lambda case: st.tuples(st.just(case), sequential_networks(case))),
    st.integers(0, 2**32 - 1),
)
def test_rearrangements_give_lemma_9_grams(case_network, seed):
    """W2^T W2 and W1 W1^T of Theorem 1 cases 2, 5, 6 are Lemma 9's sums over w_OUT(V), w_IN(V)."""
    case, network = case_network
    theta = random_theta(network, seed)
    w = network.edge_weights(theta)
    channels = network.neurons["C1"]
    W2 = out_matrix(network, w, case, len(channels))
    torch.testing.assert_close(
        W2.T @ W2, shared_gram(network, theta, channels, out=True), rtol=1e-12, atol=1e-12
    )
    W1 = kernel_rows(network.weight_tensor("C1", w))
    torch.testing.assert_close(
        W1 @ W1.T, shared_gram(network, theta, channels, out=False), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("case", CONV_CASES)
def test_rearrangements_balance_under_gradient_flow(case):
    """Theorem 1 (cases 2, 5, 6) with linear convolution neurons: along -grad of any loss,
    d/dt W2^T W2 = d/dt W1 W1^T for the rearranged matrices (a wrong rearrangement breaks it)."""
    second = {
        "conv-conv": Conv(2, 2, stride=2, padding=1, slope=RELU),
        "conv-dense": Dense(3),
        "conv-block": Block("free", 2, 3),
    }[case]
    network = sequential((2, 4, 5), [Conv(3, 2, padding=1), second])
    theta = random_theta(network).requires_grad_()
    x = torch.randn(5, network.n_inputs, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    torch.exp(-network(network.edge_weights(theta), x)).sum().backward()
    w, velocity = network.edge_weights(theta.detach()), network.edge_weights(-theta.grad)
    W1, dW1 = (kernel_rows(network.weight_tensor("C1", v)) for v in (w, velocity))
    W2, dW2 = (out_matrix(network, v, case, 3) for v in (w, velocity))
    torch.testing.assert_close(dW2.T @ W2 + W2.T @ dW2, dW1 @ W1.T + W1 @ dW1.T, rtol=1e-10, atol=1e-12)
    naive, dnaive = (next_layer(network, v, case).reshape(-1, 3) for v in (w, velocity))
    assert not torch.allclose(dnaive.T @ naive + naive.T @ dnaive, dW1 @ W1.T + W1 @ dW1.T)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(sorted(THEOREM1_CASES)), st.booleans(), st.data())
def test_sequential_networks_draw_the_case(case, bias, data):
    network = data.draw(sequential_networks(case, bias=bias))
    assert (network.bias_vertex is not None) == bias
    prefix = {"conv": "C", "dense": "W", "block": "B"}
    for i, kind in enumerate(case.split("-"), start=1):
        names = network.tensors if kind == "conv" else network.matrices
        assert any(name.startswith(f"{prefix[kind]}{i}") for name in names)
    assert network.n_edges <= 300 and "Fin" in network.matrices
