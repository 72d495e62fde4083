"""The conserved quantities of ``claims.lj22._invariants`` (LJ22 Eqs. (4)-(7)) and their two kinds of
evidence: the instantaneous rate dQ/dt against its rounding bound (conserved balances within it,
perturbed ones far above it) and the drift study (halving steps, the documented evidence)."""

from __future__ import annotations

import dataclasses
from itertools import pairwise

import pytest
import torch

from claims.models._builders import Conv, mlp, sequential, with_bias_column
from claims.evidence._record import collecting
from claims.models._flow import EULER, HEUN, GradientFlow, integrate
from claims.lj22._invariants import (
    Balance,
    drift_study,
    gram_balance,
    instantaneous_rate,
    layer_balance,
    layer_rates,
    organization_pairs,
    random_parameters,
    shared_balance,
    twin_balance,
    vertex_balance,
)
from claims.models._networks import LINEAR, RELU, DagNetwork
from claims.models._numerics import gamma
from claims.models._risk import Risk
from claims.checks import check_convergence_order, check_nonzero_limit

F64 = torch.float64


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see tests/conftest.py


def _risk(network, seed: int, n: int = 6) -> Risk:
    generator = torch.Generator().manual_seed(seed)
    bias = network.bias_vertex is not None
    x = torch.randn(n, network.n_inputs - bias, generator=generator, dtype=F64)
    y = torch.where(torch.rand(n, generator=generator) < 0.5, -1.0, 1.0).to(F64)
    return Risk(network, with_bias_column(x) if bias else x, y)


def _theta(network, seed: int) -> torch.Tensor:
    return torch.randn(network.n_parameters, generator=torch.Generator().manual_seed(100 + seed), dtype=F64)


def _hidden(network) -> range:
    return range(network.n_inputs, network.output)


def _within_bound(rate) -> bool:
    return bool((rate.rate.abs() <= rate.tolerance * rate.scale).all())


def _matrix(network, name):
    return lambda w: network.weight_matrix(name, w)


# --- the balances as functions of w ------------------------------------------------------------------


def test_balance_is_plus_minus_minus():
    balance = Balance("q", lambda w: w[0] * 3, lambda w: w[1] ** 2)
    assert float(balance(torch.tensor([2.0, 5.0], dtype=F64))) == 6.0 - 25.0


def test_vertex_balance_terms_are_the_squares_of_in_and_out_edges():
    network = mlp([2, 3, 1], RELU, bias=True)
    w = torch.arange(1.0, network.n_edges + 1, dtype=F64)
    for v in _hidden(network):
        balance = vertex_balance(network, v)
        inward, outward = network.in_edges[v], network.out_edges[v]
        assert len(inward) == 3 and any(network.edges[e][0] == network.bias_vertex for e in inward)
        assert float(balance.plus(w)) == sum(float(w[e]) ** 2 for e in inward)
        assert float(balance.minus(w)) == sum(float(w[e]) ** 2 for e in outward)
        bias_edge = next(e for e in inward if network.edges[e][0] == network.bias_vertex)
        left = vertex_balance(network, v, left_out=[bias_edge])
        assert float(left.plus(w)) == float(balance.plus(w)) - float(w[bias_edge]) ** 2
        assert float(left.minus(w)) == float(balance.minus(w))


def test_twin_balance_terms_are_the_shared_in_and_out_products():
    network = mlp([2, 3, 1], RELU)  # hidden 2, 3, 4 share IN = {0, 1} and OUT = {5}
    w = torch.arange(1.0, network.n_edges + 1, dtype=F64)
    edge = {pair: e for e, pair in enumerate(network.edges)}
    balance = twin_balance(network, 2, 4)
    assert float(balance.plus(w)) == sum(float(w[edge[a, 2]] * w[edge[a, 4]]) for a in (0, 1))
    assert float(balance.minus(w)) == float(w[edge[2, 5]] * w[edge[4, 5]])


@pytest.mark.parametrize(
    "widths, u, v",
    [([2, 3, 1], 2, 5), ([2, 3, 1], 0, 2), ([2, 2, 2, 1], 2, 4), ([2, 2, 2, 1], 3, 5)],
    ids=["hidden-and-output", "input-and-hidden", "different-layers", "different-layers-2"],
)
def test_twin_balance_raises_for_vertices_with_different_in_or_out(widths, u, v):
    with pytest.raises(ValueError, match="same IN and OUT"):
        twin_balance(mlp(widths, RELU), u, v)


def test_twin_balance_needs_both_the_same_in_and_the_same_out_sets():
    # 1 and 2 share IN = {0}, but 1 also feeds the output: OUT {3, 4} vs {3}
    same_in = DagNetwork(1, 5, ((0, 1), (0, 2), (1, 3), (2, 3), (1, 4), (3, 4)), (LINEAR, RELU, RELU, RELU, LINEAR))
    with pytest.raises(ValueError, match="^vertices 1 and 2 do not have the same IN and OUT sets$"):
        twin_balance(same_in, 1, 2)
    # 2 and 3 share OUT = {4}, but IN {0, 1} vs {0}
    same_out = DagNetwork(2, 5, ((0, 2), (1, 2), (0, 3), (2, 4), (3, 4)), (LINEAR, LINEAR, RELU, RELU, LINEAR))
    with pytest.raises(ValueError, match="^vertices 2 and 3 do not have the same IN and OUT sets$"):
        twin_balance(same_out, 2, 3)


def test_twin_balance_raises_when_only_one_vertex_has_a_bias():
    network = mlp([2, 3, 1], RELU, bias=True)
    assert {network.edges[e][0] for e in network.in_edges[3]} == {0, 1, 2}  # 2 is the bias vertex
    twin_balance(network, 3, 4)  # both have the bias: twins
    with pytest.raises(ValueError, match="same IN and OUT"):
        twin_balance(network, 3, 6)


def test_gram_balance_is_w2t_w2_minus_w1_w1t_and_restricts_to_active():
    network = mlp([2, 3, 1], LINEAR)
    w = _theta(network, 0)
    W1, W2 = network.weight_matrix("W1", w), network.weight_matrix("W2", w)
    balance = gram_balance("Eq. (6)", _matrix(network, "W1"), _matrix(network, "W2"))
    torch.testing.assert_close(balance(w), W2.T @ W2 - W1 @ W1.T, rtol=0.0, atol=0.0)
    active = gram_balance("Eq. (6) on {0, 2}", _matrix(network, "W1"), _matrix(network, "W2"), active=[0, 2])
    assert active(w).shape == (2, 2)
    torch.testing.assert_close(active(w), balance(w)[[0, 2]][:, [0, 2]], rtol=0.0, atol=0.0)


def test_layer_balance_is_the_difference_of_sums_of_squares():
    w = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64)
    balance = layer_balance([0, 3], [1])
    assert float(balance(w)) == 1.0 + 16.0 - 4.0
    assert "F=(0, 3)" in balance.name and "F'=(1,)" in balance.name


# --- instantaneous rates ---------------------------------------------------------------------------


@pytest.mark.parametrize("slope", [RELU, 0.3], ids=["relu", "leaky"])
@pytest.mark.parametrize("seed", range(3))
def test_vertex_balance_with_bias_is_conserved_within_the_rounding_bound(slope, seed):
    network = mlp([2, 3, 2, 1], slope, bias=True)
    risk, theta = _risk(network, seed), _theta(network, seed)
    for v in _hidden(network):
        rate = instantaneous_rate(risk, vertex_balance(network, v), theta)
        assert rate.rate.shape == () and float(rate.scale) >= 0
        assert _within_bound(rate), (v, float(rate.rate), rate.tolerance * float(rate.scale))


def test_the_rounding_bound_is_gamma_of_the_gradient_depth_plus_the_edges():
    network = mlp([2, 3, 1], RELU, bias=True)
    risk, theta = _risk(network, 0), _theta(network, 0)
    rate = instantaneous_rate(risk, vertex_balance(network, 3), theta)
    assert rate.tolerance == gamma(risk.gradient_rounding_depth() + network.n_edges + 2)
    assert 0 < rate.tolerance < 1e-13


def test_the_scale_is_the_sum_of_the_magnitudes_of_the_summands():
    """Eq. (4) at v: dA/dt + dB/dt in magnitude is sum over IN and OUT of 2 |w_e| G_e."""
    network = mlp([2, 3, 1], RELU, bias=True)
    risk, theta = _risk(network, 1), _theta(network, 1)
    G = risk.absolute_gradient(theta)
    for v in _hidden(network):
        edges = network.in_edges[v] + network.out_edges[v]
        expected = sum(
            2 * abs(float(theta[network.parameters[e]])) * float(G[network.parameters[e]]) for e in edges
        )
        rate = instantaneous_rate(risk, vertex_balance(network, v), theta)
        assert float(rate.scale) == pytest.approx(expected, rel=1e-13)


def test_leaving_the_bias_edge_out_gives_a_rate_far_above_the_bound():
    checked = 0
    for seed in range(3):
        network = mlp([2, 3, 1], RELU, bias=True)
        risk, theta = _risk(network, seed), _theta(network, seed)
        _, pre = risk.with_preactivations(theta)
        for v in _hidden(network):
            if not bool((pre[:, v] > 0).any()):
                continue  # a dead neuron: nothing moves, the perturbed balance is trivially conserved
            bias_edge = [e for e in network.in_edges[v] if network.edges[e][0] == network.bias_vertex]
            rate = instantaneous_rate(risk, vertex_balance(network, v, left_out=bias_edge), theta)
            assert abs(float(rate.rate)) > 1e6 * rate.tolerance * float(rate.scale), (seed, v)
            checked += 1
    assert checked >= 5


def test_twin_balance_is_conserved_on_a_linear_network():
    network = mlp([2, 3, 1], LINEAR)
    for seed in range(3):
        risk, theta = _risk(network, seed), _theta(network, seed)
        for u, v in [(2, 3), (2, 4), (3, 4)]:
            rate = instantaneous_rate(risk, twin_balance(network, u, v), theta)
            assert _within_bound(rate) and float(rate.scale) > 0


@pytest.mark.parametrize("slope", [LINEAR, RELU], ids=["linear", "relu"])
def test_layer_balance_of_consecutive_layers_is_conserved(slope):
    network = mlp([3, 4, 1], slope)
    first, second = sum(network.matrices["W1"], ()), sum(network.matrices["W2"], ())
    for seed in range(3):
        risk, theta = _risk(network, seed), _theta(network, seed)
        assert _within_bound(instantaneous_rate(risk, layer_balance(first, second), theta))
        # one edge short of the layer: not conserved
        broken = instantaneous_rate(risk, layer_balance(first[1:], second), theta)
        assert abs(float(broken.rate)) > 1e6 * broken.tolerance * float(broken.scale)


def test_layer_rates_agree_with_instantaneous_rate_of_layer_balance():
    network = mlp([2, 3, 2, 1], RELU, bias=True)
    risk, theta = _risk(network, 2), _theta(network, 2)
    layers = [sum(network.matrices[name], ()) for name in ("W1", "W2", "W3", "W2.b")]
    reference = sum(network.matrices["W3"], ())
    for layer, rate in zip(layers, layer_rates(risk, theta, layers, reference)):
        if set(layer) == set(reference):
            assert float(rate.rate) == 0.0 and float(rate.scale) == 0.0
            continue
        direct = instantaneous_rate(risk, layer_balance(layer, reference), theta)
        assert rate.tolerance == direct.tolerance
        assert float(rate.scale) == pytest.approx(float(direct.scale), rel=1e-13)
        assert abs(float(rate.rate) - float(direct.rate)) <= 2 * direct.tolerance * float(direct.scale)


def test_gram_balance_on_a_linear_network_is_conserved_entrywise():
    network = mlp([2, 3, 1], LINEAR)
    balance = gram_balance("Eq. (6)", _matrix(network, "W1"), _matrix(network, "W2"))
    for seed in range(3):
        risk, theta = _risk(network, seed), _theta(network, seed)
        rate = instantaneous_rate(risk, balance, theta)
        assert rate.rate.shape == rate.scale.shape == (3, 3)
        assert _within_bound(rate) and bool((rate.scale > 0).all())
        # the transposed pairing W1^T W1 - W2 W2^T (2 x 2 vs 1 x 1) is no balance at all
        swapped = Balance(
            "swapped",
            lambda w: network.weight_matrix("W1", w).T @ network.weight_matrix("W1", w),
            lambda w: (network.weight_matrix("W2", w) ** 2).sum(),
        )
        assert not _within_bound(instantaneous_rate(risk, swapped, theta))


# --- drift studies --------------------------------------------------------------------------------


def _linear_problem(batch: int = 3):
    network = mlp([2, 3, 1], LINEAR)
    risk = _risk(network, 0)
    theta = random_parameters(network, batch, seed=0)
    flow = GradientFlow(
        risk, GradientFlow(risk).time_to_kink(theta, 0.5)
    )  # each to half its time to a zero weight
    return network, risk, theta, flow


@pytest.mark.parametrize("counts", [[4, 8, 12], [4], [], [8, 4, 2], [4, 8, 16, 30], [3, 6, 13]])
def test_drift_study_rejects_step_counts_that_do_not_double(counts):
    network, _, theta, flow = _linear_problem()
    with pytest.raises(ValueError, match="must double"):
        drift_study(flow, theta, [vertex_balance(network, 2)], 1.0, counts, EULER)


@pytest.fixture(scope="module")
def euler_study():
    network, _, theta, flow = _linear_problem()
    balances = [
        gram_balance("gram", _matrix(network, "W1"), _matrix(network, "W2")),
        vertex_balance(network, 2),
        dataclasses.replace(vertex_balance(network, 3, left_out=[network.in_edges[3][0]]), name="perturbed"),
    ]
    study = drift_study(flow, theta, balances, 1.0, [16, 32, 64, 128], EULER)
    return network, theta, flow, balances, study


def test_drift_study_records_the_runs(euler_study):
    study = euler_study[-1]
    assert (study.method, study.order, study.time) == ("euler", 1, 1.0)
    assert study.step_counts == [16, 32, 64, 128] and study.step_sizes == [1 / 16, 1 / 32, 1 / 64, 1 / 128]
    assert study.evaluations == 16 + 32 + 64 + 128 + 4  # every stage, and each run's endpoint
    assert study.smooth.tolist() == [True, True, True]
    assert torch.isinf(study.pattern_margin).all()  # a linear network has no kink
    assert bool((study.weight_margin > 0).all())
    assert study.drifts("gram", 0).shape == (4, 3, 3) and study.drifts("Eq. (4) at vertex 2", 1).shape == (4,)
    assert study.drifts("gram", 2, keep=[0, 2]).shape == (4, 2, 2)


def test_drift_study_drift_is_q_at_the_end_minus_q_at_the_start(euler_study):
    network, theta, flow, balances, study = euler_study
    for k, steps in enumerate(study.step_counts):
        final = integrate(flow, theta, 1.0, steps, EULER)
        for balance in balances:
            for i in range(theta.shape[0]):
                expected = balance(network.edge_weights(final[i])) - balance(network.edge_weights(theta[i]))
                torch.testing.assert_close(study.drifts(balance.name, i)[k], expected, rtol=1e-12, atol=1e-15)


def test_euler_drift_of_conserved_balances_halves_with_the_step(euler_study):
    _, theta, _, _, study = euler_study
    for name in ("gram", "Eq. (4) at vertex 2"):
        for i in range(theta.shape[0]):
            drifts = study.evidence(name, i)["drifts"]
            ratios = [a / b for a, b in pairwise(drifts)]
            assert all(1.8 < r < 2.2 for r in ratios), (name, i, ratios)


def test_drift_study_evidence_has_the_documented_numbers(euler_study):
    study = euler_study[-1]
    evidence = study.evidence("gram", 1)
    documented = {
        "method",
        "order",
        "time",
        "step_sizes",
        "drifts",
        "floors",
        "term_change",
        "smooth",
        "pattern_margin",
        "weight_margin",
    }
    assert documented <= set(evidence)
    assert (evidence["method"], evidence["order"], evidence["time"]) == ("euler", 1, 1.0)
    assert evidence["step_sizes"] == study.step_sizes and evidence["smooth"] is True
    norms = study.drifts("gram", 1).reshape(4, -1).norm(dim=1).tolist()
    assert evidence["drifts"] == pytest.approx(norms, rel=1e-15)
    assert len(evidence["floors"]) == 4 and all(0 < f < 1e-11 for f in evidence["floors"])
    assert all(d > 100 * f for d, f in zip(evidence["drifts"], evidence["floors"]))
    assert evidence["term_change"] > 100 * evidence["drifts"][-1]
    restricted = study.evidence("gram", 1, keep=[1])
    assert restricted["drifts"] == pytest.approx(study.drifts("gram", 1)[:, 1, 1].abs().tolist(), rel=1e-15)


def test_drift_study_evidence_passes_the_convergence_order_check(euler_study):
    _, theta, _, _, study = euler_study
    with collecting() as evidence:
        for name in ("gram", "Eq. (4) at vertex 2"):
            for i in range(theta.shape[0]):
                numbers = study.evidence(name, i)
                check_convergence_order(
                    numbers["step_sizes"],
                    numbers["drifts"],
                    numbers["order"],
                    0.3,
                    numbers["term_change"],
                    1e-2,
                    numbers["floors"],
                )
    assert evidence.cases == 6 and evidence.violating is None


def test_perturbed_balance_drifts_to_the_reference_limit(euler_study):
    network, theta, flow, _, study = euler_study
    from claims.models._flow import reference_solution

    reference = reference_solution(flow, theta, 1.0)
    assert reference.completed
    perturbed = next(b for b in euler_study[3] if b.name == "perturbed")
    with collecting() as evidence:
        for i in range(theta.shape[0]):
            exact = perturbed(network.edge_weights(reference.theta[i])) - perturbed(
                network.edge_weights(theta[i])
            )
            check_nonzero_limit(
                study.step_sizes,
                study.drifts("perturbed", i),
                1,
                10.0,
                reference=float(exact),
                reference_error=1e-9,
            )
    assert evidence.cases == 3 and evidence.violating is None


def test_heun_drift_of_a_quadratic_invariant_is_third_order():
    """Heun's local error is h^3 (f''(f, f) / 12 - f'f'f / 6) up to sign, and for any quadratic Q with
    Q'f = 0 both Q' f''(f, f) = -4 f^T S f'f and Q' f'f'f = -2 f^T S f'f, so Q' of the h^3 term
    vanishes: the drift of every balance of LJ22 (all quadratic) is O(h^3), one order above
    Heun's order 2 (Euler's and RK4's are their orders, 1 and 4)."""
    network, _, theta, flow = _linear_problem()
    study = drift_study(flow, theta, [vertex_balance(network, 2)], 1.0, [8, 16, 32, 64], HEUN)
    assert study.order == 2 and study.evaluations == 2 * (8 + 16 + 32 + 64) + 4  # stages and endpoints
    for i in range(3):
        drifts = study.evidence("Eq. (4) at vertex 2", i)["drifts"]
        ratios = [a / b for a, b in pairwise(drifts)]
        assert all(6.5 < r < 10.0 for r in ratios) and 2**2.75 < ratios[-1] < 2**3.25, ratios


# --- defects found and fixed -----------------------------------------------------------------------


def test_a_perturbed_vertex_balance_has_its_own_name():
    network = mlp([2, 3, 1], RELU, bias=True)
    assert (
        vertex_balance(network, 3).name != vertex_balance(network, 3, left_out=[network.in_edges[3][0]]).name
    )


def test_drift_study_refuses_two_balances_with_one_name():
    network, _, theta, flow = _linear_problem(batch=1)
    conserved = vertex_balance(network, 2)
    perturbed = dataclasses.replace(conserved, minus=lambda w: torch.zeros((), dtype=w.dtype))  # same name
    with pytest.raises(ValueError):
        drift_study(flow, theta, [conserved, perturbed], 1.0, [2, 4], EULER)


# --- exact small cases: names, messages, rates and scales pinned to their formulas -----------------------

ONE_NEURON = mlp([1, 1, 1], RELU)  # theta = (a, b): z = a x, nu = b relu(z)
TWO_INPUTS = mlp([2, 1, 1], RELU)  # theta = (a1, a2, b): z = a1 x1 + a2 x2, nu = b relu(z)


def _squared(network, x) -> Risk:
    """Squared loss and label 1 on one example: dR/dnu = -(1 - nu), so the rates are dyadic."""
    return Risk(network, torch.tensor([x], dtype=F64), torch.tensor([1.0], dtype=F64), loss="squared")


def test_balance_names_say_which_equation_and_which_edges():
    network = mlp([2, 3, 1], RELU)
    assert vertex_balance(network, 3).name == "Eq. (4) at vertex 3"
    assert vertex_balance(network, 3, left_out=[9, 1]).name == "Eq. (4) at vertex 3 without edges (1, 9)"
    assert twin_balance(network, 2, 4).name == "Eq. (5) at vertices (2, 4)"
    assert layer_balance([0, 3], [1]).name == "Eq. (7) F=(0, 3) F'=(1,)"
    with pytest.raises(ValueError, match=r"^vertices 2 and 5 do not have the same IN and OUT sets$"):
        twin_balance(network, 2, 5)


def test_vertex_balance_leaves_out_inward_and_outward_edges_alike():
    network = mlp([2, 3, 1], RELU)  # vertex 2: in-edges 0 (from 0) and 1 (from 1), out-edge 6 (to 5)
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.5, 8.0, 9.0], dtype=F64)
    assert float(vertex_balance(network, 2)(w)) == 1.0 + 4.0 - 0.25
    assert float(vertex_balance(network, 2, left_out=[6])(w)) == 1.0 + 4.0
    assert float(vertex_balance(network, 2, left_out=[0]).plus(w)) == 4.0


def test_gram_balance_terms_are_the_two_grams_restricted_alike():
    network = mlp([2, 2, 1], LINEAR)  # W1 (2 x 2) from edges 0..3, W2 (1 x 2) from edges 4, 5
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 0.5, -1.0], dtype=F64)
    balance = gram_balance("g", _matrix(network, "W1"), _matrix(network, "W2"))
    assert balance.name == "g"
    assert balance.plus(w).tolist() == [[0.25, -0.5], [-0.5, 1.0]]  # W2^T W2
    assert balance.minus(w).tolist() == [[5.0, 11.0], [11.0, 25.0]]  # W1 W1^T
    second = gram_balance("g1", _matrix(network, "W1"), _matrix(network, "W2"), active=[1])
    assert second.plus(w).tolist() == [[1.0]] and second.minus(w).tolist() == [[25.0]]
    # no active neuron (Definition 6's active set can be empty): an empty 0 x 0 balance, not an error
    assert gram_balance("none", _matrix(network, "W1"), _matrix(network, "W2"), active=[])(w).shape == (0, 0)


def test_the_rate_is_along_minus_the_gradient_and_the_scale_on_magnitudes():
    """One ReLU neuron, x = 1, squared loss, (a, b) = (2, -0.25): 1 - nu = 1.5, da/dt = 1.5 b = -0.375,
    db/dt = 1.5 a = 3, G = |grad| = (0.375, 3) (every path: |b| |x| and |a| |x|). d(a^2)/dt = 2 a da/dt
    = -1.5 with scale 2 |a| G_a = 1.5; d(b^2)/dt = -1.5, scale 1.5; Eq. (4) at the neuron: 0, scale 3."""
    risk = _squared(ONE_NEURON, [1.0])
    theta = torch.tensor([2.0, -0.25], dtype=F64)
    tolerance = gamma(risk.gradient_rounding_depth() + ONE_NEURON.n_edges + 2)
    for balance, rate, scale in [
        (layer_balance([0], []), -1.5, 1.5),
        (layer_balance([1], []), -1.5, 1.5),
        (layer_balance([], [1]), 1.5, 1.5),
        (vertex_balance(ONE_NEURON, 1), 0.0, 3.0),
    ]:
        result = instantaneous_rate(risk, balance, theta)
        assert (float(result.rate), float(result.scale), result.tolerance) == (rate, scale, tolerance), balance.name


def test_layer_rates_exact_on_two_inputs_with_a_layer_overlapping_the_reference():
    """x = (1, 0.5), (a1, a2, b) = (1, -1, 0.25): z = 0.5, 1 - nu = 0.875, rates (0.21875, 0.109375, 0.4375)
    and G = (0.21875, 0.109375, 0.875 * (|a1| + 0.5 |a2|)) = (.., .., 1.3125). Against F' = {b}:
    F = {a1}: 2 a1 da1 - 2 b db = 0.4375 - 0.21875, scale 0.4375 + 0.65625; F = {a2}: -0.21875 - 0.21875,
    scale 0.21875 + 0.65625; F = {a1, b}: b cancels (membership 0), 0.4375 with scale 0.4375; F = F': 0."""
    risk = _squared(TWO_INPUTS, [1.0, 0.5])
    theta = torch.tensor([1.0, -1.0, 0.25], dtype=F64)
    rates = layer_rates(risk, theta, [[0], [1], [0, 2], [2]], [2])
    assert [(float(r.rate), float(r.scale)) for r in rates] == [
        (0.21875, 1.09375), (-0.4375, 0.875), (0.4375, 0.4375), (0.0, 0.0)
    ]
    tolerance = gamma(risk.gradient_rounding_depth() + TWO_INPUTS.n_edges + 2)
    assert all(r.tolerance == tolerance for r in rates)
    assert [float(r.rate) for r in layer_rates(risk, theta, [[0], [1]], [])] == [0.4375, -0.21875]


def test_organization_pairs_of_two_convolution_channels_each_parameter_pair_once():
    """A 1-D convolution of 1 input channel of length 3, kernel 2, 2 output channels: the neuron pairs
    (3, 5) and (4, 6) (channels 0 and 1 at positions 0 and 1) share the kernel pairs (0, 1) and (2, 3),
    kept once with their first edges (0, 4) and (1, 5); the output weights are not shared: two pairs."""
    network = sequential((1, 3), [Conv(2, 2)])
    organization = list(zip(*network.neurons["C1"]))
    assert organization == [(3, 5), (4, 6)]
    assert organization_pairs(network, organization) == ([(0, 4), (1, 5)], [(8, 10), (9, 11)])
    assert organization_pairs(network, organization[::-1]) == ([(2, 6), (3, 7)], [(9, 11), (8, 10)])
    # theta = (k0 off0, k1 off0, k0 off1, k1 off1, out 3, out 4, out 5, out 6)
    weights = network.edge_weights(torch.tensor([1.0, -2.0, 3.0, 0.5, 2.0, -1.0, 0.25, 4.0], dtype=F64))
    printed, unsigned = shared_balance(network, organization), shared_balance(network, organization, absolute=False)
    assert printed.name == "Eq. (54) (|w w'| as printed) on 2 neuron pairs"
    assert unsigned.name == "Eq. (54) (w w' without absolute values) on 2 neuron pairs"
    assert (float(printed.plus(weights)), float(printed.minus(weights))) == (2.0 + 1.5, 0.5 + 4.0)
    assert (float(unsigned.plus(weights)), float(unsigned.minus(weights))) == (-2.0 + 1.5, 0.5 - 4.0)


def test_organization_pairs_skip_fixed_edges():
    """Vertices 1 and 2 share the source 0, but edge 0 -> 1 is fixed (no parameter): no IN pair."""
    network = DagNetwork(
        n_inputs=1, n_vertices=4, edges=((0, 1), (0, 2), (1, 3), (2, 3)), slopes=(LINEAR, RELU, RELU, LINEAR),
        learnable=(False, True, True, True), constants={0: 1.0},
    )
    assert organization_pairs(network, [(1, 2)]) == ([], [(2, 3)])
    assert organization_pairs(network, [(2, 1)]) == ([], [(3, 2)])
    # no pair on one side is a zero term (an empty sum, indexed with an empty index tensor)
    weights = torch.tensor([1.0, 3.0, -0.5, 4.0], dtype=F64)
    for absolute, out_term in [(True, 2.0), (False, -2.0)]:
        balance = shared_balance(network, [(1, 2)], absolute)
        assert (float(balance.plus(weights)), float(balance.minus(weights))) == (0.0, out_term)
