"""LJ22's predicted laws: which statements give which laws, their independent count, their conservation as a
polynomial identity, and the quadratic laws beyond them."""

from __future__ import annotations

from claims.lj22 import (
    convolution_invariants, count_laws, describe_law, missing_laws, not_conserved, predicted_laws, quadratic_laws,
    twin_balances, vertex_balances,
)
from claims.models import LINEAR, RELU, Conv, DagNetwork, mlp, resnet, sequential


def test_two_layer_linear_prediction_is_theorem_1():
    """Eq. (4) at the r hidden vertices and Eq. (5) at their r(r-1)/2 pairs: r(r+1)/2 independent laws."""
    network = mlp([3, 3, 1], LINEAR)
    laws = predicted_laws(network)
    assert len(vertex_balances(network)) == 3 and len(twin_balances(network)) == 3
    assert count_laws(network).predicted == 6 and not not_conserved(network, laws)


def test_relu_vertices_have_no_twin_balance():
    assert twin_balances(mlp([3, 3, 1], RELU)) == []
    assert len(vertex_balances(mlp([3, 3, 1], RELU))) == 3


def test_dependent_laws_are_counted_once():
    """A linear 2-4-1 network: 4 + 6 entries of W2^T W2 - W1 W1^T, of which 9 are independent."""
    count = count_laws(mlp([2, 4, 1], LINEAR))
    assert len(count.laws) == 10 and count.predicted == 9 and count.certified


def test_a_frozen_edge_removes_the_vertex_balance():
    network = resnet(2, [("identity", 2, 2)])
    assert len(vertex_balances(network)) == 2  # the hidden neurons, not r
    naive = vertex_balances(network, naive=True)
    assert len(naive) == 4
    assert set(not_conserved(network, naive)) == {law.name for law in naive} - {law.name for law in vertex_balances(network)}


def test_shared_parameters_remove_the_vertex_balance_and_theorem_1_replaces_it():
    network = sequential((1, 5), [Conv(2, 2), Conv(2, 2)])
    assert vertex_balances(network) == []
    invariants = convolution_invariants(network)
    assert len(invariants) == 6 and not not_conserved(network, invariants)  # (C1, C2) and (C2, Fin): 3 entries each
    assert not_conserved(network, vertex_balances(network, naive=True))
    assert count_laws(network).certified


def test_the_chain_balance_across_an_identity_skip_is_found():
    """Two ReLU blocks, the second ResNetIdentity: the frozen skip removes Eq. (4) at r1 and r2, yet the sum of
    their balances is conserved (rescale r1, carry the scale through the skip into r2)."""
    network = resnet(2, [("diagonal", 1, 2), ("identity", 1, 2)])
    count = count_laws(network)
    assert (count.counted, count.predicted) == (4, 2) and not count.certified
    missing = missing_laws(network, count)
    assert len(missing) == 2 and not not_conserved(network, missing)
    assert "w(" in describe_law(network, missing[0])


def test_quadratic_laws_span_the_predicted_ones():
    network = mlp([2, 2, 2, 1], LINEAR)
    count = count_laws(network)
    assert missing_laws(network, count) == [] and len(quadratic_laws(network)) >= count.predicted


def test_a_non_quadratic_law_is_counted_but_not_found():
    skip = DagNetwork(1, 3, ((0, 1), (0, 2), (1, 2)), (LINEAR, LINEAR, LINEAR))
    count = count_laws(skip)
    assert (count.counted, count.predicted) == (2, 1)
    assert missing_laws(skip, count) == []
