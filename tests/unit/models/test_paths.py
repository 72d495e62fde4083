"""Path tools: h, its derivatives, and the tree constructions' shapes."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.func import jacrev

from claims import count_paths, mlp, path_enumeration, sign, tree_network, unrolled_tree
from claims.strategies import feedforward_networks, input_batches, weight_vectors


def test_fully_connected_path_count_is_the_product_of_widths():
    assert count_paths(mlp([3, 4, 2, 1])) == 3 * 4 * 2


@given(feedforward_networks(max_paths=64), st.data())
def test_path_derivatives_match_autograd(network, data):
    paths = path_enumeration(network)
    w = data.draw(weight_vectors(network))
    torch.testing.assert_close(paths.path_derivatives(w), jacrev(paths.path_products)(w), rtol=1e-14, atol=1e-14)


@given(feedforward_networks(max_paths=64), st.data())
def test_absolute_path_enumeration_drops_signs(network, data):
    paths = path_enumeration(network)
    w = data.draw(weight_vectors(network))
    x = data.draw(input_batches(network.n_inputs))
    torch.testing.assert_close(paths(w, x, absolute=True), paths(w.abs(), x))


def test_tree_sizes_for_a_one_hidden_layer_network():
    network = mlp([2, 3, 1])
    unrolled = unrolled_tree(network)
    assert unrolled.tree.n_inputs == 6 and unrolled.tree.n_vertices == 6 + 3 + 1
    mu = tree_network(network, [1] * network.n_edges)
    assert mu.graph.n_vertices == unrolled.tree.n_vertices + 6
    assert sign(-0.5) == -1 and sign(0) == 0
