"""LJ22 Lemma 1 (with Lemmas 5-7 and Eq. (2)): nu = mu o h, mu a tree with sign weights."""

from __future__ import annotations

from fractions import Fraction
from math import prod

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st
from torch.func import grad, jacrev

from claims import (
    check_close,
    check_exact,
    check_property,
    check_rejected,
    count_paths,
    gamma,
    path_enumeration,
    pull_back,
    pull_back_order,
    record_note,
    rounding_depth,
    sign,
    tree_network,
    unrolled_tree,
)
from claims.models import decomposition_tolerance
from claims.strategies import dag_networks, feedforward_networks, input_batches, sign_patterns, weight_vectors

L1 = pytest.mark.claim("LJ22.L1")


@st.composite
def instances(draw, networks=feedforward_networks(), exact=False):
    network = draw(networks)
    weights = draw(weight_vectors(network, exact=exact))
    x = draw(input_batches(network.n_inputs, exact=exact, max_size=1 if exact else 8))
    return network, weights, x


def entrywise_relative(observed, expected, scale):
    """observed / S and expected / S for an entrywise scale S (zero entries of S clamped to the
    smallest normal): ``check_close(..., scale=1.0)`` then judges max |observed - expected| / S, an
    error relative to S entry by entry (per input row here), which a single scalar ``scale`` cannot state."""
    safe = scale.clamp_min(torch.finfo(torch.float64).tiny)
    return observed / safe, expected / safe


def decomposition_sides(network, paths, mu, weights, x):
    """Lemma 1's two sides nu(x) and mu(h(x)) per input row, the absolute path sum S = sum_p |h(x)_p|
    their error is relative to, and the tolerance on that relative error."""
    h = paths(weights, x)
    tolerance = decomposition_tolerance(network, mu.graph, max(map(len, paths.paths)))
    return network(weights, x), mu(h), h.abs().sum(dim=1), tolerance


@L1
@given(instances())
def test_nu_equals_mu_of_h(instance):
    network, weights, x = instance
    paths = path_enumeration(network)
    mu = tree_network(network, [sign(w) for w in weights.tolist()])
    nu, mu_of_h, scale, tolerance = decomposition_sides(network, paths, mu, weights, x)
    check_close(*entrywise_relative(nu, mu_of_h, scale), tolerance, scale=1.0,
                relative_to="sum_p |h_p| per input", identity="nu(x) = mu(h(x))", paths=len(paths.paths))
    record_note(
        "(a) nu(x) = mu(h(x)) in float64 on random DAGs (skip connections), MLPs and ResNet blocks; "
        "error relative to sum_p |h_p|, tolerance a forward rounding bound gamma_k of both sides."
    )


@L1
@given(instances(networks=dag_networks(max_hidden=4, max_paths=64), exact=True))
def test_nu_equals_mu_of_h_exactly(instance):
    network, weights, (x,) = instance
    paths = path_enumeration(network)
    mu = tree_network(network, [sign(w) for w in weights])
    check_exact([network.forward_exact(weights, x)], [mu.exact(paths.exact(weights, x))], identity="nu = mu o h")
    record_note("(b) nu(x) = mu(h(x)) exactly (error 0) with rational weights and inputs (Fractions).")


@st.composite
def sign_pattern_families(draw, networks=feedforward_networks(max_paths=128), size=3):
    """One architecture and sign pattern, with ``size`` weight vectors (magnitudes resampled)
    and input batches sharing that pattern. Everything is drawn before any check runs."""
    network = draw(networks)
    signs = draw(sign_patterns(network))
    weights = [draw(weight_vectors(network, signs=signs)) for _ in range(size)]
    inputs = [draw(input_batches(network.n_inputs)) for _ in range(size)]
    return network, signs, list(zip(weights, inputs))


@L1
@given(sign_pattern_families())
def test_mu_depends_only_on_the_sign_pattern(family):
    network, signs, members = family
    mu = tree_network(network, signs)
    paths = path_enumeration(network)
    for weights, x in members:
        nu, mu_of_h, scale, tolerance = decomposition_sides(network, paths, mu, weights, x)
        check_close(*entrywise_relative(nu, mu_of_h, scale), tolerance, scale=1.0,
                    relative_to="sum_p |h_p| per input",
                    identity="one mu per sign pattern, magnitudes resampled")
    record_note("(c) one mu, built once from a sign pattern, serves three weight vectors with that pattern.")


@L1
@given(instances(networks=dag_networks(max_hidden=4, max_paths=64), exact=True))
def test_unrolled_tree_and_pull_back(instance):
    """Lemma 6 (the unrolled tree computes nu), Lemma 7 (each pull-back keeps the function)
    and Lemma 5 (after all pull-backs: weights sgn(w), inputs x_p prod |w_e|), all exact."""
    network, weights, (x,) = instance
    paths = path_enumeration(network)
    unrolled = unrolled_tree(network, paths)
    tree = unrolled.tree
    leaves = [x[s] for s in paths.sources]
    nu = network.forward_exact(weights, x)
    check_property(tree.is_tree(), "the unrolled graph is a tree (Definition 10)")
    tree_weights, scale = unrolled.weights(weights), [Fraction(1)] * tree.n_inputs
    check_exact([tree.forward_exact(tree_weights, leaves)], [nu], identity="Lemma 6")
    for vertex in pull_back_order(tree):
        tree_weights, scale = pull_back(tree, tree_weights, scale, vertex)
        scaled = [s * leaf for s, leaf in zip(scale, leaves)]
        check_exact([tree.forward_exact(tree_weights, scaled)], [nu], identity="Lemma 7", vertex=vertex)
    check_exact(tree_weights, [sign(weights[e]) for e in unrolled.origin], identity="Lemma 5 weights")
    check_exact(scale, [prod((abs(weights[e]) for e in p), start=Fraction(1)) for p in paths.paths],
                identity="Lemma 5 h'")
    record_note("Lemmas 5-7 exactly: unrolled tree = nu; every pull-back step preserves nu; end state sgn(w), h'.")


@L1
@given(instances(networks=feedforward_networks(max_paths=128)))
def test_mu_is_a_sign_weighted_tree(instance):
    network, weights, _ = instance
    signs = [sign(w) for w in weights.tolist()]
    mu = tree_network(network, signs)
    check_property(mu.graph.is_tree(), "mu is a tree network (Definition 3)")
    check_property(set(mu.weights.tolist()) <= {-1.0, 1.0}, "mu's weights are in {-1, +1}")
    check_property(mu.graph.n_inputs == count_paths(network), "mu has one input per path")
    check_property(
        torch.equal(tree_network(network, signs).weights, mu.weights), "mu is determined by sgn(w) alone"
    )


def activation_margin(network, weights, x):
    """min |pre-activation| over vertices whose activation has a kink (not linear)."""
    pre, _ = network.vertex_values(weights, x)
    kinked = [v for v in range(network.n_inputs, network.n_vertices) if network.slopes[v] != 1.0]
    return pre[:, kinked].abs().min().item() if kinked else float("inf")


@L1
@given(instances(networks=feedforward_networks(max_paths=128)))
def test_eq2_partial_derivatives(instance):
    """Eq. (2): d nu / d w_e = sum_{p ni e} [grad mu(h)]_p x_p prod_{f in p, f != e} w_f."""
    network, weights, x = instance
    paths = path_enumeration(network)
    mu = tree_network(network, [sign(w) for w in weights.tolist()])
    h = paths(weights, x)
    scale = h.abs().sum().item()
    depth = rounding_depth(network) + rounding_depth(mu.graph) + max(map(len, paths.paths))
    assume(activation_margin(network, weights, x) > gamma(depth) * scale)  # differentiable, kink signs certain
    autograd = jacrev(lambda w: network(w, x))(weights)
    x_p = x[:, list(paths.sources)]
    eq2 = (grad(lambda hh: mu(hh).sum())(h) * x_p) @ paths.path_derivatives(weights)
    scales = x_p.abs() @ paths.path_derivatives(weights.abs())  # sum_{p ni e} |x_p| prod_{f != e} |w_f|
    tolerance = 2 * gamma(2 * depth + 2)
    check_close(*entrywise_relative(autograd, eq2, scales), tolerance, scale=1.0,
                relative_to="sum_{p ni e} |x_p| prod_{f != e} |w_f| entrywise",
                identity="Eq. (2) vs autograd")
    record_note("(d) Eq. (2) against autograd at differentiable points, error relative to sum_{p ni e} |x_p "
                "prod_{f!=e} w_f|.")


def flipped_tree_prediction(network, weights, x, edge):
    """What mu built with edge e = (u, v) flipped computes on h(x): in every unrolled copy of e
    the subtree below u sees negated leaves and e's sign is flipped, so e carries
    -post_u(-x) instead of post_u(x). Computed on G alone, independently of any tree."""
    source = network.edges[edge][0]
    negated_source = network.vertex_values(weights, -x)[1][:, source]
    return network.vertex_values(weights, x, edge_signals={edge: -negated_source})[1][:, network.output]


@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(instances(), st.data())
def test_mu_from_another_sign_pattern_is_rejected(instance, data):
    """mu built from the sign pattern with one edge flipped, on instances where it computes
    another function of x (flips of edges out of linear sub-networks are no change at all)."""
    network, weights, x = instance
    learnable = [e for e in range(network.n_edges) if network.learnable[e]]
    start = data.draw(st.integers(0, len(learnable) - 1))
    paths = path_enumeration(network)
    mu = tree_network(network, [sign(w) for w in weights.tolist()])
    nu, _, scale, tolerance = decomposition_sides(network, paths, mu, weights, x)

    def changes_the_function(edge):
        predicted = flipped_tree_prediction(network, weights, x, edge)
        return bool(((predicted - nu).abs() / scale).max() > 1e3 * tolerance)

    # the first edge from the drawn one on whose flip mu computes another function (filtering only
    # instances where no flip does, rather than every edge out of a linear sub-network)
    edge = next((e for e in learnable[start:] + learnable[:start] if changes_the_function(e)), None)
    assume(edge is not None)
    signs = [sign(w) for w in weights.tolist()]
    signs[edge] = -signs[edge]
    _, wrong, _, _ = decomposition_sides(network, paths, tree_network(network, signs), weights, x)
    check_rejected(*entrywise_relative(nu, wrong, scale), tolerance, scale=1.0,
                   relative_to="sum_p |h_p| per input", flipped_edge=edge)
    record_note(
        "Negative control: mu built from the sign pattern with one edge e = (u, v) flipped is rejected "
        "wherever it computes another function; it computes nu with e fed -post_u(-x) instead of "
        "post_u(x), so flips of edges leaving a linear sub-network (e.g. input edges) change nothing."
    )
