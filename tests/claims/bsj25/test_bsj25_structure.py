"""BSJ25 statements without an ID before issue 37: Section 5's weak/strong balancedness of ReLU networks
(BSJ25.S5W), Section 4's one-neuron functions of rank-one layers (BSJ25.EX1R) and Section 2.2's finite-time
divergence of the localized flow (BSJ25.S22B)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import pytest
import sympy as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from claims import (
    check_conserved_rate, check_conserved_rate_rejected, check_convergence_order, check_exact,
    check_property, check_rejected, check_settled_limit, check_settled_limit_rejected,
    count_cases_as, declare_verdict, record_erratum, record_note,
)
from claims.bsj25 import (
    balance_drift, balance_rate, blowup_time, exact_network, localized_flow, one_neuron_value, radial_rate,
    random_instance, solve_escape, two_sided_form,
)
from claims.lj22 import DRIFT_RATIOS, SLOPE_BAND

pytestmark = pytest.mark.usefixtures("one_torch_thread")

S5W = pytest.mark.claim("BSJ25.S5W")
S5W_CONTROL = pytest.mark.claim("BSJ25.S5W", negative_control=True)
EX1R = pytest.mark.claim("BSJ25.EX1R")
EX1R_CONTROL = pytest.mark.claim("BSJ25.EX1R", negative_control=True)
S22B = pytest.mark.claim("BSJ25.S22B")
S22B_CONTROL = pytest.mark.claim("BSJ25.S22B", negative_control=True)

# ---------------------------------------------------------------- BSJ25.S5W (Section 5, conjecture (3))

S5W_SEEDS = (0, 1, 2)
S5W_TIME = 0.02
S5W_STEPS = (4, 8, 16, 32, 64)
ROUNDING_MARGIN = 10.0
FIT_POINTS = 3


def s5w_network(seed):
    """X > 0 (3 x 6), W_1 > 0 (so Z_1 > 0: the pair (W_1, W_2) is over nonnegative pre-activations), W_2, W_3
    (4 x 4) and W_4 (2 x 4) Gaussian (Z_2, Z_3 of mixed sign), G Gaussian / N."""
    gen = torch.Generator().manual_seed(3700 + seed)
    x = torch.rand(3, 6, generator=gen, dtype=torch.float64) + 0.5
    g = torch.randn(2, 6, generator=gen, dtype=torch.float64) / 6
    weights = [torch.rand(4, 3, generator=gen, dtype=torch.float64) + 0.2]
    weights += [torch.randn(4, 4, generator=gen, dtype=torch.float64) for _ in range(2)]
    weights += [torch.randn(2, 4, generator=gen, dtype=torch.float64)]
    return x, g, weights


def judge_rate(check, x, g, weights, layer, diagonal, **details):
    rate = balance_rate(weights, x, g, layer, diagonal)
    return check(rate.rate, rate.scale, rate.tolerance, layer=layer, diagonal=diagonal,
                 nonnegative_preactivations=rate.nonnegative, margin=rate.margin, **details)


@S5W
def test_weak_and_strong_balancedness_rates_and_drift():
    """Rates: diag(D_l) at l = 2, 3, 4 and the full D_2 (Z_1 > 0) zero to rounding; drifts of the same under RK4
    shrink at order 4 (trajectories whose ReLU pattern changed are not usable)."""
    count_cases_as("checks")
    judged = 0
    for seed in S5W_SEEDS:
        x, g, weights = s5w_network(seed)
        for layer, diagonal in ((2, True), (3, True), (4, True), (2, False)):
            judge_rate(check_conserved_rate, x, g, weights, layer, diagonal, seed=seed)
        for layer, diagonal in ((2, False), (3, True)):
            drift = balance_drift(weights, x, g, layer, diagonal, S5W_TIME, S5W_STEPS)
            if sum(drift.smooth) < FIT_POINTS:
                continue
            check_convergence_order(drift.step_sizes, drift.drifts, order=4, band=SLOPE_BAND,
                                    term_change=drift.term_change, ratio=DRIFT_RATIOS["rk4"],
                                    floor=[ROUNDING_MARGIN * f for f in drift.floors], fit_points=FIT_POINTS,
                                    usable=drift.smooth, seed=seed, layer=layer, diagonal=diagonal)
            judged += 1
    assert judged, "no trajectory kept its ReLU pattern"
    record_note(f"Weak balancedness at every layer and strong balancedness over Z_1 > 0: rates zero to rounding "
                f"({len(S5W_SEEDS)} networks), {judged} RK4 drift studies at order 4 (T = {S5W_TIME}, steps "
                f"{list(S5W_STEPS)}).")


@S5W_CONTROL
def test_strong_balancedness_over_mixed_sign_preactivations_is_rejected():
    """The same rate check on the full D_3 where its neurons' Z_2 has entries of both signs (the control's
    hypothesis: a network whose Z_2 is all negative, a dead layer, has no rate at all and is left out): the rate
    is not zero."""
    count_cases_as("checks")
    judged = 0
    for seed in S5W_SEEDS:
        x, g, weights = s5w_network(seed)
        z2 = weights[1] @ torch.relu(weights[0] @ x)
        if not ((z2 > 0).any() and (z2 < 0).any()):
            continue
        judged += 1
        judge_rate(check_conserved_rate_rejected, x, g, weights, 3, False, seed=seed)
    assert judged
    record_note(f"Negative control: full W_3^T W_3 - W_2 W_2^T over mixed-sign Z_2 has a nonzero rate ({judged} "
                "networks).")


# ---------------------------------------------------------------- BSJ25.EX1R (Section 4 / Appendix C.1)

small = st.fractions(min_value=-3, max_value=3, max_denominator=7)


@st.composite
def rank_one_first_layer(draw):
    depth = draw(st.integers(2, 6))
    widths = [2] + [draw(st.integers(1, 4)) for _ in range(depth - 1)] + [draw(st.integers(1, 2))]
    a = draw(st.lists(small, min_size=widths[1], max_size=widths[1]))
    v = draw(st.lists(small, min_size=2, max_size=2))
    later = [[draw(st.lists(small, min_size=widths[k], max_size=widths[k])) for _ in range(widths[k + 1])]
             for k in range(1, depth)]
    xs = draw(st.lists(st.lists(small, min_size=2, max_size=2), min_size=1, max_size=4))
    return a, v, later, xs


def abs_network(depth):
    """W_1 = (1, -1)^T e_1^T / 2, W_2 = (1, 1) / 2 (rank one), then W_l = [1]: f(x) = |x_1| / 4... at depth 2
    f = |x_1| / 4; deeper, the same through identity layers."""
    half = Fraction(1, 2)
    return [[[half, Fraction(0)], [-half, Fraction(0)]], [[half, half]]] + [[[Fraction(1)]]] * (depth - 2)


@EX1R
@settings(max_examples=30, deadline=None)
@given(rank_one_first_layer())
def test_rank_one_networks_compute_two_sided_one_neuron_functions(case):
    """Corrected statement, exactly: with W_1 = a v^T, f(x) = u sigma(v^T x) + w sigma(-v^T x) for all x."""
    a, v, later, xs = case
    weights = [[[ai * vj for vj in v] for ai in a]] + later
    u, w = two_sided_form(a, later)
    for x in xs:
        check_exact(exact_network(weights, x), one_neuron_value(u, w, v, x), identity="f = u s(v.x) + w s(-v.x)",
                    depth=len(weights))


@EX1R
def test_one_neuron_form_fails_and_width_one_optima():
    """The printed 'f = u sigma(v^T x)' vanishes on a half-space (f(x) f(-x) = 0): the rank-one network |x_1|/4
    has f(e_1) f(-e_1) = 1/16 at every depth. The width-one problem at depths 3-6: speed sqrt(2) - 1 at
    phi = pi j / 4 (sympy, exact)."""
    e1, minus = [Fraction(1), Fraction(0)], [Fraction(-1), Fraction(0)]
    products = []
    for depth in range(2, 6):
        net = abs_network(depth)
        product = exact_network(net, e1)[0] * exact_network(net, minus)[0]
        check_rejected(torch.tensor(float(product), dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64), 0.0,
                       statement="f(e1) f(-e1) = 0 (one neuron function)", depth=depth)
        products.append(str(product))
    xs = [(sp.sin(2 * sp.pi * j / 8), sp.cos(2 * sp.pi * j / 8)) for j in range(1, 9)]
    for depth in (3, 4, 5, 6):
        for j in range(8):
            phi = sp.pi * j / 4
            out = [sp.Max(0, sp.cos(phi) * x0 + sp.sin(phi) * x1) for x0, x1 in xs]
            loss = sum((-1) ** k * y for k, y in zip(range(1, 9), out))
            speed = sp.Abs(loss)  # ||theta||^2 = 1 + (L - 2) + 1 = L: on the sphere, W_L = [+-1] picks the sign
            check_property(sp.simplify(speed - (sp.sqrt(2) - 1)) == 0, "speed sqrt(2) - 1 at phi = pi j/4",
                           depth=depth, j=j)
    declare_verdict("verified-with-correction", correction=(
        "Networks with rank-one layers (indeed any network whose first layer is rank one) represent "
        "f(x) = u sigma(v^T x) + w sigma(-v^T x), independently of depth; the one-neuron functions are w = 0. "
        "Example 1's conclusion s_1 = sqrt(2) - 1 (at phi = pi j/4) stands (see BSJ25.EX1)."))
    record_erratum(
        "BSJ25.EX1R-E1", severity="statement false as printed", location_kind="text",
        location="Section 4, proof sketch of Example 1 (parenthesis)",
        printed="a network with only rank 1 layers can only represent 'one neuron functions': f_theta(x) = "
                "u sigma(v^T x) for some vectors u, v, independently of depth",
        corrected="f_theta(x) = u sigma(v^T x) + w sigma(-v^T x) for some vectors u, w, v",
        counterexample={"W_1": "(1/2) (1, -1)^T e_1^T", "W_2": "(1/2) (1, 1)", "f(x)": "|x_1| / 4",
                        "f(e_1) f(-e_1) at depths 2-5": products},
    )
    record_note("Rank-one layers compute u s(v.x) + w s(-v.x) exactly (30 drawn networks, depths 2-6); the printed "
                "one-neuron form fails on |x_1|/4 (f(e1) f(-e1) = 1/16); width-one optima at phi = pi j/4 reach "
                "sqrt(2) - 1 at depths 3-6.")


@EX1R_CONTROL
@settings(max_examples=10, deadline=None)
@given(rank_one_first_layer())
def test_dropping_the_second_side_is_rejected(case):
    """The same identity with w dropped (the printed one-neuron form) where a has entries of both signs and the
    later layers keep both sides: rejected at x = v or x = -v."""
    a, v, later, _ = case
    a = [Fraction(1), Fraction(-1)] + list(a)
    later = [[[Fraction(1), Fraction(1)] + [Fraction(0)] * (len(a) - 2)]]
    v = [Fraction(1), Fraction(0)] if not any(v) else v
    weights = [[[ai * vj for vj in v] for ai in a]] + later
    u, w = two_sided_form(a, later)
    x = [-vj for vj in v]
    observed = exact_network(weights, x)
    check_rejected(torch.tensor([float(o) for o in observed], dtype=torch.float64),
                   torch.tensor([float(o) for o in one_neuron_value(u, [Fraction(0)] * len(w), v, x)],
                                dtype=torch.float64), 0.0, statement="f = u sigma(v^T x)")


# ---------------------------------------------------------------- BSJ25.S22B (Section 2.2)

S22B_DEPTHS = (3, 4, 5)
S22B_DOUBLINGS = 6


@functools.lru_cache(maxsize=None)
def s22b_directions():
    out = []
    for depth in S22B_DEPTHS:
        instance = random_instance(2200 + 10 * depth, 4, 10, 2, positive=True)
        out.append((instance, solve_escape(instance.x, instance.g, instance.shapes(depth, 4), restarts=8, seed=0)))
    return out


@functools.lru_cache(maxsize=None)
def blowup_cases():
    """``blowup_case`` of every ``s22b_directions`` optimum (the claim and its control judge the same flows)."""
    return [(instance, found, blowup_case(instance, found)) for instance, found in s22b_directions()]


def blowup_case(instance, found):
    """Times t(R) at which DOP853 reaches ||theta|| = R = 2^k R_0, k = 1..6, from theta(0) = rho (one flow, stopped
    at the last radius, the others' first crossings recorded on the way), and the closed form's blow-up time."""
    depth = found.depth
    theta0 = found.rho.clone()
    r0 = float(theta0.norm())
    t_star = blowup_time(r0, depth, radial_rate(depth, found.speed))
    radii = [r0 * 2.0**k for k in range(1, S22B_DOUBLINGS + 1)]
    solution = localized_flow(theta0, found.shapes, instance.x, instance.g, 2 * t_star, stop_norm=radii[-1],
                              crossings=radii[:-1])
    reached = [t if t is not None else math.inf for t in (*solution.crossing_times, solution.event_time)]
    return radii, reached, t_star, solution


@S22B
def test_localized_flow_blows_up_at_the_closed_form_time():
    count_cases_as("trajectories")
    rows = []
    for instance, found, (radii, reached, t_star, solution) in blowup_cases():
        depth = found.depth
        check_property(solution.event_time is not None and solution.event_time < t_star,
                       "||theta|| exceeds 2^6 R_0 before the closed-form blow-up time", depth=depth)
        tolerance = solution.escape_time_tolerance(depth, radii[0] / 2, radii[-1]) * t_star
        check_settled_limit([r ** (2 - depth) for r in radii], reached, t_star, t_star,
                            tolerance=tolerance, resolution=1e-6 * t_star, depth=depth, t_star=t_star)
        rows.append((depth, t_star, reached[-1]))
    record_note("Localized GF from optimal escape directions (DOP853): t(R) for R = 2^k R_0 settles on the closed-form "
                "blow-up time R_0^{2-L} / ((L-2) L^{1-L/2} s): " + ", ".join(f"L={d}: t* {t:.6g}, t(64 R_0) {r:.6g}"
                                                                         for d, t, r in rows))


@S22B_CONTROL
def test_blow_up_at_the_printed_rate_is_rejected():
    """The same limit check against the blow-up time of Proposition 2.2 as printed (rate s instead of s L^{-L/2}):
    the settled limit misses it."""
    count_cases_as("trajectories")
    for instance, found, (radii, reached, t_star, solution) in blowup_cases():
        depth = found.depth
        printed = blowup_time(radii[0] / 2, depth, found.speed)
        tolerance = solution.escape_time_tolerance(depth, radii[0] / 2, radii[-1]) * t_star
        check_settled_limit_rejected([r ** (2 - depth) for r in radii], reached, printed, printed,
                                     tolerance=tolerance, resolution=1e-6 * t_star, depth=depth)
