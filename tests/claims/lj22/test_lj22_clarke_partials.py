"""LJ22 Lemma 8: the (Clarke) partial derivatives of the tree network mu of Lemma 1 with respect to two
same-length paths p1, p2 whose vertices share their activation patterns on every training example are
equal. mu is built from the sign pattern (``tree_network``) and differentiated by autograd at h(x) on each
example, at generic points (no pre-activation of a ReLU vertex on either path at 0 on that example: there mu
is differentiable in those coordinates and the Clarke subdifferential is the gradient). Each partial is a
product of +-1 tree weights and 0/1 slopes along a tree path (a tree has no sums in its backward pass), so it is
exact in float64 and the two are compared exactly (check_exact, error 0)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st
from torch.func import grad, vmap

from claims import check_exact, check_rejected, path_enumeration, record_note, sign, tree_network
from claims.models import LINEAR, RELU
from claims.strategies import feedforward_networks, input_batches, weight_vectors


@st.composite
def instances(draw):
    """ReLU and linear vertices only (the lemma's activation patterns are defined for these two), weights
    away from 0 (Assumption 1), 2-6 inputs with nonzero rows."""
    network = draw(feedforward_networks(max_paths=64).filter(lambda n: set(n.slopes) <= {RELU, LINEAR}))
    weights = draw(weight_vectors(network))
    x = draw(input_batches(network.n_inputs, min_size=2, max_size=6, nonzero_rows=True))
    return network, weights, x


def path_vertices(network, path) -> list[int]:
    return [network.edges[path[0]][0]] + [network.edges[e][1] for e in path]


def clarke_setting(network, weights, x):
    """Per example: the partials d mu / d h_p (autograd at h(x)), the activation pattern (1 for linear or
    pre >= 0, 0 for a ReLU vertex with pre < 0) and where a ReLU vertex sits exactly at its kink."""
    paths = path_enumeration(network)
    mu = tree_network(network, [sign(w) for w in weights.tolist()])
    h = paths(weights, x)
    partials = vmap(grad(lambda hh: mu(hh[None])[0]))(h)
    pre = network.vertex_values(weights, x)[0]
    linear = torch.tensor([s == LINEAR for s in network.slopes])
    pattern = (linear | (pre >= 0)).to(torch.int64)
    kink = (~linear) & (pre == 0)
    return paths.paths, partials, pattern, kink


def same_length_pairs(paths):
    return [(i, j) for i in range(len(paths)) for j in range(i + 1, len(paths)) if len(paths[i]) == len(paths[j])]


def judge_partials(partials, pi, pj, examples, check, **details):
    """Lemma 8's conclusion for paths pi, pj on ``examples``: the two partials equal, exactly."""
    observed = [Fraction(float(partials[n, pi])) for n in examples]
    expected = [Fraction(float(partials[n, pj])) for n in examples]
    if check is check_exact:
        check_exact(observed, expected, **details)
    else:
        check([float(v) for v in observed], [float(v) for v in expected], 0.0, **details)


@pytest.mark.claim("LJ22.L8")
@given(instances())
def test_partials_of_mu_agree_for_paths_with_equal_patterns(instance):
    network, weights, x = instance
    paths, partials, pattern, kink = clarke_setting(network, weights, x)
    judged = 0
    for i, j in same_length_pairs(paths):
        vi, vj = path_vertices(network, paths[i]), path_vertices(network, paths[j])
        if not bool((pattern[:, vi] == pattern[:, vj]).all()):
            continue
        generic = [n for n in range(x.shape[0]) if not bool(kink[n, vi].any() or kink[n, vj].any())]
        if generic:
            judge_partials(partials, i, j, generic, check_exact, paths=(i, j), length=len(paths[i]),
                           n_examples=len(generic), identity="d_p1 mu(h) = d_p2 mu(h)")
            judged += 1
    assume(judged)
    record_note(
        "Lemma 8 on random DAGs, fully-connected and residual networks with ReLU and linear vertices: every pair of "
        "same-length paths whose vertices (position by position) have the same activation pattern on every example; "
        "partials of mu at h(x) by autograd, compared exactly (error 0) on every example where no ReLU vertex of "
        "either path is at its kink. Kinks themselves (Clarke sets) are not judged."
    )


@pytest.mark.claim("LJ22.L8", negative_control=True)
@given(instances())
def test_partials_differ_for_paths_whose_patterns_differ(instance):
    """The same comparison for same-length paths whose patterns differ on an example where one path is active at
    every vertex and the other is not (so they differ in pattern there, the violated hypothesis): rejected."""
    network, weights, x = instance
    paths, partials, pattern, kink = clarke_setting(network, weights, x)
    judged = 0
    for i, j in same_length_pairs(paths):
        vi, vj = path_vertices(network, paths[i]), path_vertices(network, paths[j])
        one_active = (pattern[:, vi] == 1).all(1) != (pattern[:, vj] == 1).all(1)
        chosen = [n for n in range(x.shape[0])
                  if bool(one_active[n]) and not bool(kink[n, vi].any() or kink[n, vj].any())]
        if chosen:
            judge_partials(partials, i, j, chosen[:1], check_rejected, paths=(i, j), length=len(paths[i]))
            judged += 1
    assume(judged)
