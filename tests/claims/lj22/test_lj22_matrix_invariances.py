"""LJ22 Theorem 1 (matrix-wise invariances, Eq. (6), cases 1-7, one claim ID each) and Lemma 4
(noninvariance of ReLU layers): the instantaneous rate of [W2^T W2 - W1 W1^T]_active on drawn
architectures, and the drift of integrated trajectories as the step halves."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from claims import (
    check_conserved_rate,
    check_conserved_rate_rejected,
    check_convergence_order,
    check_nonzero_limit,
    check_nonzero_limit_rejected,
    check_nonzero_rate,
    check_nonzero_rate_rejected,
    declare_verdict,
    record_erratum,
    record_note,
)
from claims.checks import assert_judged, judge_order, richardson_limit
from claims.evidence import recorded_series, trajectory_factor
from claims.lj22 import (
    ORDER_PROTOCOL,
    Balance,
    drift_study,
    gram_balance,
    instantaneous_rate,
    order_studies,
    trajectory_instance,
)
from claims.models import (
    EULER,
    LINEAR,
    RELU,
    RK4,
    Block,
    Conv,
    Dense,
    GradientFlow,
    NetworkBuilder,
    active_neurons,
    dense_after_conv,
    reference_solution,
    sequential,
    theorem1_pair,
)
from claims.report import plot_drift_limits, record_drift_orders, record_figure
from claims.strategies import THEOREM1_CASES, risk_instances, sequential_networks

CASES = {f"LJ22.T1.{number}": [c for c, n in THEOREM1_CASES.items() if n == number] for number in range(1, 8)}
"""Claim ID -> the layer pairs of that case of Theorem 1 (case 7 has both orders)."""

CASE_6_CORRECTION = (
    "Theorem 1 case 6: W2 is the rearrangement (Definition 12's channel organization) of [Y; Z], the "
    "out-edges of the convolution's neurons into the ResNetFree block, not of [U Z]. [U Z] has no "
    "rearrangement over the convolution's channels (U's columns are the block's hidden neurons); its only "
    "part on those neurons, Z rearranged, is what is checked as the printed reading, and it fails. The "
    "proof in Appendix C itself says the matrix goes from V1 to V2 u V3, which is [Y; Z]."
)


def theorem1_balance(network, case, pre, printed=False):
    pair = theorem1_pair(network, case, printed)
    active = active_neurons(network, pair.neurons, pre)
    return gram_balance(f"Eq. (6) {case} ({pair.reading})", pair.first, pair.second, active), active, pair


def judge_theorem1(risk, theta, case, check, printed=False):
    """Eq. (6) for ``case`` at theta by its instantaneous rate, judged by ``check``; returns the
    number of active neurons (0: nothing to judge)."""
    pre = risk.with_preactivations(theta)[1]
    balance, active, pair = theorem1_balance(risk.network, case, pre, printed)
    if not active:
        return 0
    rate = instantaneous_rate(risk, balance, theta)
    check(rate.rate, rate.scale, rate.tolerance, case=case, reading=pair.reading, active=len(active),
          neurons=len(pair.neurons), loss=risk.loss)
    return len(active)


def theorem1_instances(claim):
    """Risks on drawn architectures of the claim's case(s)."""
    return risk_instances(st.sampled_from(CASES[claim]).flatmap(lambda case: sequential_networks(case=case)))


def case_of(network) -> str:
    """The Theorem-1 case of a ``sequential_networks`` draw, from its layer names."""
    names = set(network.matrices) | set(network.tensors)
    first = "conv" if "C1" in names else "block" if "B1.Y" in names else "dense"
    if first == "block" and not any(name.startswith("B2.") or name == "W2" for name in names):
        return "block"
    second = "conv" if "C2" in names else "block" if "B2.Y" in names else "dense"
    return f"{first}-{second}"


def instantaneous_test(claim):
    @pytest.mark.claim(claim)
    @given(theorem1_instances(claim))
    def test(instance):
        risk, theta = instance
        case = case_of(risk.network)
        assume(judge_theorem1(risk, theta, case, check_conserved_rate) > 0)
        record_note(
            f"Eq. (6) for {', '.join(CASES[claim])}: drawn 1-D and 2-D architectures (strides 1-2, padding "
            "0-1, 1-3 channels, linear or ReLU layers; blocks of every kind for case 3), all three losses; the "
            "submatrix on neurons (conv: output channels, every position) active on every example; dQ/dt "
            "entrywise against gamma(k + n_edges + 2) times the sum of its summands' magnitudes."
        )

    test.__name__ = f"test_theorem1_rate_is_zero_{claim.split('.')[-1].replace('.', '_')}"
    return test


test_case_1_rate = instantaneous_test("LJ22.T1.1")
test_case_2_rate = instantaneous_test("LJ22.T1.2")
test_case_3_rate = instantaneous_test("LJ22.T1.3")
test_case_4_rate = instantaneous_test("LJ22.T1.4")
test_case_5_rate = instantaneous_test("LJ22.T1.5")
test_case_6_rate = instantaneous_test("LJ22.T1.6")
test_case_7_rate = instantaneous_test("LJ22.T1.7")


@pytest.mark.claim("LJ22.T1.6")
@given(risk_instances(sequential_networks(case="conv-block", slope=LINEAR)))
def test_case_6_as_printed_is_rejected(instance):
    """Case 6 as printed (W2 from [U Z]: its Z part rearranged by channel) on linear layers: the rate
    of Eq. (6) is far above rounding; the counterexample behind the correction. Its rate is that of
    the block's Y part, so the instance needs Y's Gram to move (else no gradient reaches the block)."""
    risk, theta = instance
    network = risk.network
    channels = len(network.tensors["C1"][0][0])
    assume(moves(risk, theta, lambda w: dense_after_conv(network.weight_matrix("B2.Y", w), channels)))
    judge_theorem1(risk, theta, "conv-block", check_conserved_rate_rejected, printed=True)
    declare_verdict("verified-with-correction", correction=CASE_6_CORRECTION)
    balance, active, _ = theorem1_balance(network, "conv-block", risk.with_preactivations(theta)[1], printed=True)
    rate = instantaneous_rate(risk, balance, theta)
    record_erratum(
        "LJ22.T1.6-E1", severity="sign or typo", location_kind="statement", location="Theorem 1, case 6",
        printed="W2 is a rearrangement of [U Z] into an element of R^{d x c}, where r(x; U, Y, Z) is an adjacent "
                "ResNetFree block",
        corrected="W2 is a rearrangement of [Y; Z] (the out-edges of the convolution's neurons into the block, as in "
                  "case 7's second part and the proof's matrix from V1 to V2 u V3) into an element of R^{d x c}",
        counterexample={"channels": channels, "active neurons": len(active), "edges": network.n_edges,
                        "loss": risk.loss,
                        "max |dQ/dt| / summands": float((rate.rate.abs() / rate.scale.clamp_min(1e-300)).max()),
                        "rounding bound": float(rate.tolerance)},
        size=network.n_edges,
    )
    record_note("Case 6 as printed (Z of [U Z] rearranged by channel, the only part of [U Z] on the "
                "convolution's neurons) fails on every drawn linear network; see the correction.")


def moves(risk, theta, matrix) -> bool:
    """The Gram matrix of ``matrix(w)`` changes at this instant above its rounding bound (a gradient
    reaches it): the condition for a perturbed Eq. (6) to have anything to show."""
    gram = lambda w: matrix(w).T @ matrix(w)  # noqa: E731
    # The zero term as zeros_like, not 0 * gram: a product with a Python number costs ~1 ms under forward AD.
    rate = instantaneous_rate(risk, Balance("moving Gram", gram, lambda w: torch.zeros_like(gram(w))), theta)
    return float((rate.rate.abs() / rate.scale.clamp_min(1e-300)).max()) > rate.tolerance


def control(claim, case):
    @pytest.mark.claim(claim, negative_control=True)
    @given(risk_instances(sequential_networks(case=case, slope=LINEAR)))
    def test(instance):
        """The perturbed statement W2^T W2 + W1 W1^T (a sign flipped) on linear layers: its rate is the
        sum of the two terms' rates, nonzero (the same check rejects it)."""
        risk, theta = instance
        pre = risk.with_preactivations(theta)[1]
        balance, active, pair = theorem1_balance(risk.network, case, pre)
        assume(moves(risk, theta, lambda w: pair.first(w).T))  # the flipped rate is 2 d(W1 W1^T)/dt
        flipped = type(balance)(balance.name + " with + for -", lambda w: balance.plus(w) + balance.minus(w),
                                lambda w: torch.zeros_like(balance.minus(w)))
        rate = instantaneous_rate(risk, flipped, theta)
        check_conserved_rate_rejected(rate.rate, rate.scale, rate.tolerance, case=case, perturbed="W2^T W2 + W1 W1^T")

    test.__name__ = f"test_{case.replace('-', '_')}_with_a_sign_flipped_is_rejected"
    return test


test_case_1_control = control("LJ22.T1.1", "dense-dense")
test_case_2_control = control("LJ22.T1.2", "conv-conv")
test_case_3_control = control("LJ22.T1.3", "block")
test_case_4_control = control("LJ22.T1.4", "block-block")
test_case_5_control = control("LJ22.T1.5", "conv-dense")
test_case_6_control = control("LJ22.T1.6", "conv-block")
test_case_7_control = control("LJ22.T1.7", "block-dense")


# ---------------------------------------------------------------------------------------------
# Trajectories: the drift of Eq. (6) shrinks at the integrator's order
# ---------------------------------------------------------------------------------------------

TRAJECTORY_ARCHITECTURES = {
    "LJ22.T1.1": ("dense-dense", lambda: sequential((3,), [Dense(4, RELU), Dense(3, RELU)])),
    "LJ22.T1.2": ("conv-conv", lambda: sequential((2, 6), [Conv(2, 3, 1, 1), Conv(2, 2, 2, 0)])),
    "LJ22.T1.3": ("block", lambda: sequential((3,), [Block("diagonal", 3, slope=RELU)])),
    "LJ22.T1.4": ("block-block", lambda: sequential((3,), [Block("free", 2, 3, LINEAR), Block("free", 2, 2, RELU)])),
    "LJ22.T1.5": ("conv-dense", lambda: sequential((1, 3, 3), [Conv(2, 2, 1, 0), Dense(3, RELU)])),
    "LJ22.T1.6": ("conv-block", lambda: sequential((2, 5), [Conv(2, 2, 1, 0), Block("free", 2, 2, LINEAR)])),
    "LJ22.T1.7": ("block-dense", lambda: sequential((3,), [Block("free", 2, 3, LINEAR), Dense(3, RELU)])),
}
"""One architecture per case for trajectories: ReLU shared neurons (their active submatrix on two
examples) for cases 1 and 3, linear shared neurons (the whole matrix) where a convolution or a
block output would rarely be active at every position on every example."""


@pytest.mark.parametrize("claim", [pytest.param(c, marks=pytest.mark.claim(c))
                                   for c in sorted(TRAJECTORY_ARCHITECTURES)])
def test_theorem1_drift_shrinks_at_the_integrator_order(claim):
    case, build = TRAJECTORY_ARCHITECTURES[claim]
    network = build()
    pair_neurons = lambda network, case: theorem1_pair(network, case).neurons  # noqa: E731
    # Two examples for ReLU shared neurons: a neuron active on both is common; linear ones take three.
    relu = any(network.slopes[v] == RELU for group in pair_neurons(network, case) for v in group)
    risk, theta, flow = trajectory_instance(network, seed=17, batch=8 * trajectory_factor(),
                                            n_examples=2 if relu else 3)
    pair = theorem1_pair(network, case)
    full = gram_balance(f"Eq. (6) {case}", pair.first, pair.second)
    actives = [active_neurons(network, pair.neurons, risk.with_preactivations(t)[1]) for t in theta]
    studies = order_studies(flow, theta, [full])
    tally = judge_order(studies, full.name, check_convergence_order, keep=lambda i: actives[i],
                        include=lambda i: bool(actives[i]), case=case)
    assert_judged(tally)
    record_note(f"Trajectories ({case}, active submatrix of each, Euler and RK4): {tally}")
    record_drift_orders(recorded_series("drift against step size"), f"Eq. (6) {case}, active submatrix",
                        theta.shape[0], [(method.name, counts) for method, counts in ORDER_PROTOCOL])


# ---------------------------------------------------------------------------------------------
# Lemma 4: with a neuron active and another inactive on some example, Eq. (6) fails
# ---------------------------------------------------------------------------------------------

def residual_block_network(slope):
    """A ResNetFree block whose hidden neurons h have activation ``slope`` and whose output r is
    linear, then Fin: the pair (Y, U) of Theorem 1 case 3 with r always passing the signal on."""
    builder = NetworkBuilder(3)
    hidden = builder.layer(4, slope)
    builder.dense(builder.inputs, hidden, "B1.Y")
    r = builder.layer(3, LINEAR)
    builder.dense(hidden, r, "B1.U")
    builder.dense(builder.inputs, r, "B1.Z")
    builder.dense(r, builder.layer(1, LINEAR), "Fin")
    return builder.build()


L4_ARCHITECTURES = {
    "dense-dense": lambda slope: sequential((3,), [Dense(4, slope), Dense(3, LINEAR)]),
    "block": residual_block_network,
    "conv-dense": lambda slope: sequential((1, 4), [Conv(3, 3, 1, 0, slope), Dense(2, LINEAR)]),
}
NONZERO_FACTOR = 100.0
"""An instantaneous rate shows noninvariance when it is 100 times its rounding bound."""
LIMIT_FACTOR = 10.0
"""A drift's limit shows noninvariance when it is 10 times its Richardson error estimate (for Euler
that estimate is the whole last difference D(h/2) - D(h), a generous one)."""


def mixed_pair(network, pair, pre):
    """Indices (u, v) of the shared neurons with u active on every example and v active on some and
    inactive on others (Lemma 4's hypothesis), or None."""
    active = active_neurons(network, pair.neurons, pre)
    on = lambda i: torch.stack([pre[:, v] >= 0 for v in pair.neurons[i]], 1)  # noqa: E731
    mixed = [i for i in range(len(pair.neurons)) if bool(on(i).any()) and not bool(on(i).all())]
    return (active[0], mixed[0]) if active and mixed else None


def lemma4_rate(risk, theta, case, check, pair_indices=None):
    network = risk.network
    pre = risk.with_preactivations(theta)[1]
    pair = theorem1_pair(network, case)
    indices = pair_indices or mixed_pair(network, pair, pre)
    if indices is None:
        return None
    balance = gram_balance(f"Eq. (6) {case} on {indices}", pair.first, pair.second, list(indices))
    rate = instantaneous_rate(risk, balance, theta)
    check(rate.rate, rate.scale, rate.tolerance, NONZERO_FACTOR, case=case, pair=list(indices))
    return indices


@pytest.mark.claim("LJ22.L4")
@pytest.mark.parametrize("case", sorted(L4_ARCHITECTURES))
def test_eq6_rate_is_nonzero_with_mixed_patterns(case):
    # Most random ReLU instances have no pair (u active on every example, v on some only): the filter
    # is the lemma's hypothesis, and the judged cases are counted in the report. A ci run on a busy
    # machine hit Hypothesis's filter_too_much health check (7 kept of 57) where runs alone pass.
    @settings(suppress_health_check=[HealthCheck.filter_too_much])
    @given(risk_instances(st.just(L4_ARCHITECTURES[case](RELU))))
    def run(instance):
        risk, theta = instance
        assume(lemma4_rate(risk, theta, case, check_nonzero_rate) is not None)

    run()
    record_note(
        "Lemma 4: ReLU pairs of Theorem 1 (fully-connected, residual, convolutional), neurons u active on every "
        "example and v active on some only; the 2x2 block of d/dt(W2^T W2 - W1 W1^T) on {u, v} exceeds 100 "
        "times its rounding bound."
    )
    record_note(
        "Lemma 4, Eq. (12), reading encoded: d/dt (W2^T W2 - W1 W1^T) is in general NOT 0 (a nonzero-rate check). The "
        "pdf text extraction reads '% (W2(t)>W2(t)- W1(t)W1(t)>) =0, (12)' (the d/dt and the slash of the not-equal "
        "sign lost in extraction); the html text drops the formula entirely (only the title 'Lemma 4 (Noninvariance "
        "in ReLU layers).' remains). '= 0' would be Theorem 1's invariance, contradicting the lemma's title "
        "('Noninvariance'), the sentence before it ('show that it is not equal to its counterpart ... thus giving a "
        "negative result') and its proof ('the expression in 46 and 49 are not equal in general'), so '!= 0 in "
        "general' is the statement as printed, damaged by the extraction, not a correction."
    )


@pytest.mark.claim("LJ22.L4", negative_control=True)
@pytest.mark.parametrize("case", sorted(L4_ARCHITECTURES))
def test_eq6_rate_on_linear_layers_is_rejected(case):
    """Theorem 1 holds on linear layers: the same noninvariance check must fail to show it."""
    @given(risk_instances(st.just(L4_ARCHITECTURES[case](LINEAR))))
    def run(instance):
        risk, theta = instance
        lemma4_rate(risk, theta, case, check_nonzero_rate_rejected, pair_indices=(0, 1))

    run()


NEARLY_CONSERVED: dict[str, int] = {}
MIN_RELATIVE_RATE = 0.01
"""Lemma 4's trajectories: the (u, v) rate at the start is at least 1% of its summands' magnitudes."""


def substantially_noninvariant(risk, theta, balance, u, v):
    """Lemma 4 says the rate is nonzero 'in general'; a trajectory whose mixed neuron differs only on
    examples that carry almost no gradient is nearly conserved and shows its limit only at steps far
    smaller than the protocol's. Trajectories are judged where the (u, v) rate at the start is at least
    MIN_RELATIVE_RATE of its summands' magnitudes (how many are left out is in the note)."""
    rate = instantaneous_rate(risk, balance, theta)
    return float(rate.rate[u, v].abs() / rate.scale[u, v]) >= MIN_RELATIVE_RATE


LIMIT_PROTOCOL = ((EULER, (16, 32, 64, 128)), (RK4, (4, 8, 16, 32)))
"""Lemma 4's drifts: both integrators, four halving steps each, extrapolated at their own order."""


def lemma4_drifts(case, slope, seed=19, with_reference=True):
    """Euler and RK4 drifts of the {u, v} entry of Eq. (6) on smooth trajectories (pattern and signs
    unchanged in every run), each with its trajectory's DOP853 reference (``with_reference``; None
    without)."""
    network = L4_ARCHITECTURES[case](slope)
    # One example for a convolution: its positions are what a neuron is active or inactive on.
    risk, theta, flow = trajectory_instance(network, seed=seed, batch=8 * trajectory_factor(),
                                            n_examples=1 if case == "conv-dense" else 2)
    pair = theorem1_pair(network, case)
    full = gram_balance(f"Eq. (6) {case}", pair.first, pair.second)
    studies = [drift_study(flow, theta, [full], 1.0, counts, method) for method, counts in LIMIT_PROTOCOL]
    results = []
    for i in range(theta.shape[0]):
        pre = risk.with_preactivations(theta[i])[1]
        indices = mixed_pair(network, pair, pre) if slope == RELU else (0, 1)
        if indices is None or not all(bool(study.smooth[i]) for study in studies):
            continue
        u, v = indices
        if slope == RELU and not substantially_noninvariant(risk, theta[i], full, u, v):
            NEARLY_CONSERVED[case] = NEARLY_CONSERVED.get(case, 0) + 1
            continue
        # The adaptive reference, trajectory by trajectory, is a cross-check where it completes; it is
        # stopped (and its message kept) when its steps collapse, which signals a kink.
        reference = reference_solution(GradientFlow(risk, flow.time_scale[i:i + 1]), theta[i:i + 1], 1.0,
                                       max_evaluations=2_000) if with_reference else None
        q0 = full(network.edge_weights(theta[i]))[u, v]
        completed = reference is not None and reference.completed
        q_ref = full(network.edge_weights(reference.theta[0]))[u, v] if completed else None
        weights = network.edge_weights(theta[i])
        size = float(full.plus(weights).abs().max() + full.minus(weights).abs().max())
        for study in studies:
            results.append(dict(
                index=i, pair=[u, v], method=study.method, order=study.order,
                drifts=study.drifts(full.name, i, [u, v])[:, 0, 1].tolist(), step_sizes=study.step_sizes,
                floor=study.evidence(full.name, i, [u, v])["floors"][-1],
                reference=None if q_ref is None else float(q_ref - q0),
                reference_error=None if reference is None else reference.evaluations * reference.rtol * size,
                reference_status=None if reference is None else reference.message,
            ))
    return results


@pytest.mark.claim("LJ22.L4")
@pytest.mark.parametrize("case", sorted(L4_ARCHITECTURES))
def test_eq6_drift_has_a_nonzero_limit_with_mixed_patterns(case):
    results = lemma4_drifts(case, RELU)
    assert results, "no smooth trajectory with a mixed pair"
    for r in results:
        check_nonzero_limit(r["step_sizes"], r["drifts"], r["order"], LIMIT_FACTOR, r["floor"], r["reference"],
                            r["reference_error"], case=case, pair=r["pair"], trajectory=r["index"],
                            method=r["method"], reference_status=r["reference_status"])
    limits = sorted({round(r["drifts"][-1], 6) for r in results if r["method"] == "rk4"})
    record_note(
        f"{case}: {len(results) // 2} smooth trajectories with a mixed pair (pattern and signs monitored), the "
        "signed drift of the (u, v) entry with Euler (h = 1/16..1/128) and RK4 (h = 1/4..1/32) extrapolated "
        "(Richardson, each at its order) to a limit 10 times its error estimate, agreeing with DOP853 "
        f"(rtol 1e-12) where it completed ({sum(r['reference'] is not None for r in results) // 2} did); "
        f"RK4 drifts at the finest step: {limits}. Left out as nearly conserved (rate below 1% of its "
        f"summands at the start): {NEARLY_CONSERVED.get(case, 0)}."
        + (" The paper's convolutional layers are linear (Appendix C, before Definition 11); a ReLU "
           "convolution is the suite's extension of Lemma 4's setting." if case == "conv-dense" else "")
    )
    if case == "dense-dense":  # one figure for the claim
        limit_figure(case, results)


def limit_figure(case, results):
    """Each trajectory's signed drift over its Richardson limit (the check's own extrapolation)."""
    rows = []
    for r in results:
        _, numbers = richardson_limit(r["step_sizes"], r["drifts"], r["order"], LIMIT_FACTOR, r["floor"], None, None,
                                 "check_nonzero_limit")
        rows.append(dict(method=r["method"], step_sizes=r["step_sizes"], drifts=r["drifts"], limit=numbers["limit"],
                         limit_error=numbers["limit_error"]))
    protocol = ", ".join(f"{method.name} h = 1/{counts[0]}..1/{counts[-1]}" for method, counts in LIMIT_PROTOCOL)
    record_figure(
        plot_drift_limits(rows, title=f"Eq. (6) {case}: the (u, v) drift converges to a nonzero limit"),
        "drift limit",
        caption=(f"Lemma 4, {case} ReLU pair with u active on every example and v on some: the signed drift of the "
                 "(u, v) entry of W2^T W2 - W1 W1^T over its Richardson limit, against the step size; every trajectory "
                 "tends to 1 (the limit, shaded: its error estimate), far from 0 (an invariant)."),
        scale=f"{len(results) // len(LIMIT_PROTOCOL)} smooth trajectories with a mixed pair, {protocol} of each "
              "horizon",
    )


@pytest.mark.claim("LJ22.L4", negative_control=True)
@pytest.mark.parametrize("case", sorted(L4_ARCHITECTURES))
def test_eq6_drift_on_linear_layers_is_rejected(case):
    # check_nonzero_limit_rejected takes no reference (the control judges the extrapolated limit alone),
    # so the trajectories' DOP853 references, unread here, are not computed.
    for r in lemma4_drifts(case, LINEAR, with_reference=False):
        check_nonzero_limit_rejected(r["step_sizes"], r["drifts"], r["order"], LIMIT_FACTOR, r["floor"],
                                     case=case, pair=r["pair"], trajectory=r["index"], method=r["method"])
