"""The shared Hypothesis strategies keep the claims' hypotheses."""

from __future__ import annotations

import torch
from hypothesis import find, given, settings
from hypothesis import strategies as st

from claims import count_paths, path_enumeration
from claims.strategies import (
    dag_networks, datasets, feedforward_networks, input_batches, linear_search_cases, s_time_starts, sign_patterns,
    weight_vectors,
)


def on_input_output_path(network) -> bool:
    from_input = set(range(network.n_inputs))
    for u, v in sorted(network.edges, key=lambda e: e[1]):
        if u in from_input:
            from_input.add(v)
    to_output = {network.output}
    for u, v in sorted(network.edges, key=lambda e: -e[0]):
        if v in to_output:
            to_output.add(u)
    return from_input == to_output == set(range(network.n_vertices))


@given(dag_networks(max_paths=32))
def test_dag_networks_put_every_vertex_on_a_path_and_bound_paths(network):
    assert on_input_output_path(network)
    assert count_paths(network) == len(path_enumeration(network).paths) <= 32


def test_dag_networks_include_skip_connections_and_shrink_to_one_edge():
    def has_skip(network):
        depth = {v: i for i, level in enumerate(network.levels, start=1) for v in level}
        return any(depth.get(v, 0) - depth.get(u, 0) > 1 for u, v in network.edges)

    assert has_skip(find(dag_networks(), has_skip))
    smallest = find(dag_networks(), lambda network: True)
    assert (smallest.n_inputs, smallest.n_vertices, smallest.edges) == (1, 2, ((0, 1),))


@given(feedforward_networks(), st.data())
def test_weights_follow_the_requested_sign_pattern(network, data):
    signs = data.draw(sign_patterns(network))
    w = data.draw(weight_vectors(network, signs=signs))
    assert torch.sign(w).tolist() == [float(s) for s in signs]
    assert all(w[e].item() == c for e, c in network.constants.items())


@given(st.integers(1, 4).flatmap(lambda d: st.tuples(st.just(d), datasets(d))))
def test_datasets_lie_in_the_unit_ball_with_signed_labels(args):
    d, (x, y) = args
    assert x.shape[1] == d and x.dtype == torch.float64
    assert (x.norm(dim=1) <= 1 + 1e-15).all()
    assert set(y.tolist()) <= {-1.0, 1.0}


@given(st.integers(1, 4).flatmap(lambda d: input_batches(d, exact=True)))
def test_exact_inputs_lie_in_the_unit_l1_ball(rows):
    assert all(sum(abs(c) for c in row) <= 1 for row in rows)


@settings(max_examples=20)
@given(linear_search_cases())
def test_linear_search_cases_keep_a_spectral_gap(case):
    instance, depth, width, _ = case
    singular_values = torch.linalg.svdvals(instance.g @ instance.x.T)
    assert len(singular_values) < 2 or singular_values[1] <= singular_values[0] / 2
    assert 2 <= depth <= 5 and 2 <= width <= 5


@settings(max_examples=20)
@given(s_time_starts())
def test_s_time_starts_are_deep_enough_for_s_to_differ_from_t(case):
    instance, depth, width, _ = case
    assert 3 <= depth <= 4 and 2 <= width <= 5 and instance.g.shape[0] <= 2
