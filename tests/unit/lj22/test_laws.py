"""LJ22's predicted laws: which statements give which laws, their independent count, their conservation as a
polynomial identity, and the quadratic laws beyond them."""

from __future__ import annotations

import sympy

from claims.lj22 import (
    convolution_invariants, count_laws, describe_law, layer_balances, missing_by_kind, missing_laws,
    not_conserved, predicted_laws, quadratic_laws, twin_balances, vertex_balances,
)
from claims.models import (
    LINEAR, RELU, Block, Conv, DagNetwork, GraphLayers, NetworkBuilder, mlp, resnet, sequential,
)
from claims.models._conservation import exact_rank, integer_point


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
    assert set(not_conserved(network, naive)) == ({law.name for law in naive}
                                                  - {law.name for law in vertex_balances(network)})


def test_shared_parameters_remove_the_vertex_balance_and_theorem_1_replaces_it():
    network = sequential((1, 5), [Conv(2, 2), Conv(2, 2)])
    assert vertex_balances(network) == []
    invariants = convolution_invariants(network)
    assert len(invariants) == 6 and not not_conserved(network, invariants)  # (C1, C2) and (C2, Fin): 3 entries each
    assert not_conserved(network, vertex_balances(network, naive=True))
    assert count_laws(network).certified


def test_the_chain_balance_across_an_identity_skip_is_found():
    """Two ReLU blocks, the second ResNetIdentity: the frozen skip removes Eq. (4) at r1 and r2, yet the sum of
    their balances is conserved per channel (rescale r1's neuron, carry the scale through the skip into r2's).
    Summed over the two channels (with Eq. (4) at the second block's hidden neuron) it is Lemma 3's balance of
    the layers [U1 D1] and Fin; per channel it is neither Lemma 2's nor Lemma 3's: one quadratic law is
    missing (either channel's, the other is their sum minus it)."""
    network = resnet(2, [("diagonal", 1, 2), ("identity", 1, 2)])
    without_lemma3 = count_laws(network, vertex_balances(network) + twin_balances(network))
    assert (without_lemma3.counted, without_lemma3.predicted) == (4, 2)
    assert len(missing_laws(network, without_lemma3)) == 2
    count = count_laws(network)
    assert (count.counted, count.predicted) == (4, 3) and not count.certified
    missing = missing_laws(network, count)
    assert len(missing) == 1 and not not_conserved(network, missing)
    assert "w(" in describe_law(network, missing[0])
    kinds = missing_by_kind(network, count, max_parameters=12)
    assert (kinds.total, kinds.quadratic, kinds.polynomial, kinds.other) == (1, 1, 0, 0)


def frozen_middle_layer() -> DagNetwork:
    """2 inputs -> W1 -> 2 ReLU -> a fixed 2 x 2 layer -> 2 ReLU -> W3 -> output: no hidden vertex has Eq. (4)
    (each touches a fixed edge), but W1 and W3 are two layers of learnable edges (both path cuts)."""
    builder = NetworkBuilder(2)
    first, second = builder.layer(2, RELU), builder.layer(2, RELU)
    builder.dense(builder.inputs, first, "W1")
    builder.fixed(first, second, [[1.0, -2.0], [3.0, 1.0]], "W2")
    output = builder.layer(1, LINEAR)
    builder.dense(second, output, "W3")
    return builder.build()


def lemma3_is_new(network: DagNetwork, law) -> bool:
    """``law``'s gradient is outside the span of Eq. (4)'s at a random point (exact ranks)."""
    D = network.n_parameters
    point = integer_point(D, 7)
    eq4 = [balance.gradient_at(point, D) for balance in vertex_balances(network)]
    return exact_rank(eq4 + [law.gradient_at(point, D)], D) > exact_rank(eq4, D)


def test_lemma3_balances_the_layers_around_a_frozen_layer():
    """|W1|^2 - |W3|^2 (Eq. (7), F = W1, F' = W3) is conserved, and Lemma 2 gives nothing there."""
    network = frozen_middle_layer()
    graph = GraphLayers(network)
    for name in ("W1", "W3"):
        assert graph.is_path_cut(frozenset(e for row in network.matrices[name] for e in row))
    (law,) = layer_balances(network)
    assert sorted(law.terms) == [(p, p, 1) for p in range(4)] + [(p, p, -1) for p in (4, 5)]
    assert vertex_balances(network) == []
    assert not not_conserved(network, [law]) and lemma3_is_new(network, law)
    count = count_laws(network)
    assert count.predicted == 1 and count.certified


def test_lemma3_across_an_identity_skip_is_not_a_sum_of_eq4():
    """The chain of blocks: Lemma 3's law around r1, the skip and r2 is conserved and new beside Eq. (4)."""
    network = resnet(2, [("diagonal", 1, 2), ("identity", 1, 2)])
    laws = layer_balances(network)
    assert laws and not not_conserved(network, laws)
    assert any(lemma3_is_new(network, law) for law in laws)
    assert not not_conserved(network, predicted_laws(network))


def test_lemma3_adds_nothing_where_every_edge_is_learnable():
    """Every class is one vertex: Lemma 3's laws are Eq. (4)'s, and the prediction is unchanged."""
    for network in (mlp([2, 2, 2, 1], RELU, bias=True), resnet(2, [("free", 2, 1), ("diagonal", 1, 1)])):
        laws = layer_balances(network)
        assert laws and not any(lemma3_is_new(network, law) for law in laws)
        assert predicted_laws(network) == vertex_balances(network) + twin_balances(network)


def test_lemma3_has_no_layer_pair_inside_a_single_identity_block():
    """r is joined to the input by the skip, the hidden neuron precedes r: the only layer of learnable edges
    is Fin, so Eq. (7) gives nothing (Eq. (4) at the hidden neuron is Lemma 2's)."""
    network = sequential((1,), [Block("identity", 1, None, LINEAR)])
    assert layer_balances(network) == []


def test_lemma3_counts_a_shared_kernel_once():
    """ReLU convolution, then a linear one: Eq. (4) is void (shared parameters) and Eq. (6) holds only after
    the linear convolution; Lemma 3 balances each ReLU channel's kernel (each parameter once, as the paper
    counts a flattened kernel) against the next kernel's entries reading it: conserved, closing the count."""
    network = sequential((1, 5), [Conv(2, 2, slope=RELU), Conv(1, 2)])
    laws = layer_balances(network)
    assert laws and not not_conserved(network, laws)
    lemma2_theorem1 = vertex_balances(network) + twin_balances(network) + convolution_invariants(network)
    without = count_laws(network, lemma2_theorem1)
    count = count_laws(network)
    assert (without.counted, without.predicted) == (3, 1) and count.predicted == 3 and count.certified


def test_a_one_input_linear_identity_block_has_a_logarithmic_law():
    """ResNetIdentity, one input, width 1, linear: nu = c (1 + a b) x, one scalar phi. Beside a^2 - b^2
    (Eq. (4) at the hidden neuron), c^2 - (a^2 + b^2)/2 - 2 log|a + b| is conserved (grad . grad phi = 0,
    symbolically); no polynomial law of degree <= 4 is missing, so the missing law is not quadratic."""
    network = sequential((1,), [Block("identity", 1, None, LINEAR)])
    count = count_laws(network)
    kinds = missing_by_kind(network, count)
    assert (count.counted, count.predicted) == (2, 1)
    assert (kinds.quadratic, kinds.polynomial, kinds.other) == (0, 0, 1)
    a, b, c = sympy.symbols("a b c", positive=True)
    phi = c * (1 + a * b)
    law = c**2 - (a**2 + b**2) / 2 - 2 * sympy.log(a + b)
    assert sympy.simplify(sum(sympy.diff(law, x) * sympy.diff(phi, x) for x in (a, b, c))) == 0
    assert sympy.simplify(sum(sympy.diff(a**2 - b**2, x) * sympy.diff(phi, x) for x in (a, b, c))) == 0


def test_quadratic_laws_span_the_predicted_ones():
    network = mlp([2, 2, 2, 1], LINEAR)
    count = count_laws(network)
    assert missing_laws(network, count) == [] and len(quadratic_laws(network)) >= count.predicted


def test_a_non_quadratic_law_is_counted_but_not_found():
    skip = DagNetwork(1, 3, ((0, 1), (0, 2), (1, 2)), (LINEAR, LINEAR, LINEAR))
    count = count_laws(skip)
    assert (count.counted, count.predicted) == (2, 1)
    assert missing_laws(skip, count) == []
