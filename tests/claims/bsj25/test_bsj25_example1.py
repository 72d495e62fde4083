"""BSJ25 Example 1 (Section 4, Eq. (2)) and Appendix C.1 (Eq. (6)): on the unit-circle data
x_j = (sin(2 pi j/8), cos(2 pi j/8)), j = 1..8, with G = ((-1)^j), a depth-3 bias-free ReLU MLP
on the sphere ||theta||^2 = 3 has best rank-one escape speed s1 = sqrt(2) - 1 (at phi = pi j/4)
and the printed rank-two weights of Eq. (2) give s2 = 1/2.

Conventions (Section 2): L_0(theta) = Tr[G^T Y_theta] with G = grad C(0); an escape direction
rho on the radius-sqrt(L) sphere has grad L_0(rho) = -s rho, so by Euler's theorem
(rho^T grad L_0 = L L_0) its speed is s = -L_0(rho). L_0 is 3-homogeneous, so a theta off the
sphere has speed -L_0(theta) (3 / ||theta||^2)^(3/2).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from claims import (
    check_close,
    check_exact,
    check_inequality,
    check_power,
    check_property,
    check_rejected,
    declare_verdict,
    record_erratum,
    gamma,
    mlp,
    record_case,
    record_note,
    rounding_depth,
)
from claims.strategies import signed_floats

EX1 = pytest.mark.claim("BSJ25.EX1")
EX1_CONTROL = pytest.mark.claim("BSJ25.EX1", negative_control=True)

N_POINTS = 8
PI = sp.pi
PHI = sp.Symbol("phi", real=True)
XI = sp.Symbol("xi", real=True)
S1 = sp.sqrt(2) - 1
S2 = sp.Rational(1, 2)

# x_j as columns of X (Section 2's d_in x N layout) and G_j = (-1)^j, both exact.
X_EXACT = sp.Matrix([[sp.sin(2 * PI * j / N_POINTS) for j in range(1, N_POINTS + 1)],
                     [sp.cos(2 * PI * j / N_POINTS) for j in range(1, N_POINTS + 1)]])
G_EXACT = [(-1) ** j for j in range(1, N_POINTS + 1)]
# Correctly rounded float64 data: every coordinate carries one rounding at most.
X_FLOAT = torch.tensor([[float(v) for v in X_EXACT.T.row(i)] for i in range(N_POINTS)], dtype=torch.float64)
G_FLOAT = torch.tensor(G_EXACT, dtype=torch.float64)


def printed_rank_two_weights() -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """Eq. (2) exactly as printed: the four active first-layer and one second-layer neuron."""
    w1 = sp.Rational(1, 2) * sp.Matrix([[1, 0], [0, 1], [-1, 0], [0, -1]])
    w2 = sp.Rational(1, 2) * sp.Matrix([[1, -1, 1, -1]])
    w3 = sp.Matrix([[1]])
    return w1, w2, w3


def rank_one_weights(phi, sign: int = 1) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """Section 4 / Appendix C.1: W1 = [cos phi, sin phi], W2 = [1], W3 = [+-1]."""
    return sp.Matrix([[sp.cos(phi), sp.sin(phi)]]), sp.Matrix([[1]]), sp.Matrix([[sign]])


def exact_relu(z):
    return sp.Max(0, z)


def exact_outputs(weights, relu=exact_relu) -> list:
    """Y_theta = W3 sigma(W2 sigma(W1 X)) on the eight points, in sympy."""
    w1, w2, w3 = weights
    hidden = (w1 * X_EXACT).applyfunc(relu)
    hidden = (w2 * hidden).applyfunc(relu)
    return list(w3 * hidden)


def exact_localized_loss(weights, relu=exact_relu):
    """L_0(theta) = Tr[G^T Y_theta] (Section 2)."""
    return sum(g * y for g, y in zip(G_EXACT, exact_outputs(weights, relu)))


def squared_norm(weights):
    return sum(sum(entry**2 for entry in w) for w in weights)


def exact_speed(weights, relu=exact_relu):
    """s = -L_0 after scaling theta onto the sphere ||theta||^2 = 3."""
    return -exact_localized_loss(weights, relu) * (3 / squared_norm(weights)) ** sp.Rational(3, 2)


def exact_rank_one_speed(phi):
    """The Appendix C.1 speed: max over W3 = +-1 of the sphere speed (simplified first, so that
    a zero speed, e.g. at phi = pi/8, compares exactly)."""
    return sp.Max(*(sp.simplify(exact_speed(rank_one_weights(phi, sign))) for sign in (1, -1)))


def eq6_inner(xi, last_sign=-1):
    """The expression inside |.| of Eq. (6); ``last_sign`` is the printed -1 of its last term (a
    negative control flips it)."""
    return sp.cos(xi + PI / 4) - sp.cos(xi) + sp.cos(xi - PI / 4) + last_sign * sp.cos(xi - PI / 2)


def eq6(phi, last_sign=-1):
    """Eq. (6) as printed: s = |...| at xi = phi mod (pi/4)."""
    return sp.Abs(eq6_inner(sp.Mod(phi, PI / 4), last_sign))


def eq6_high_precision(phi: float) -> float:
    """Eq. (6) at the float64 angle ``phi``, evaluated with 40 digits (one final rounding)."""
    with mpmath.workdps(40):
        xi = mpmath.fmod(mpmath.mpf(phi), mpmath.pi / 4)
        inner = (mpmath.cos(xi + mpmath.pi / 4) - mpmath.cos(xi) + mpmath.cos(xi - mpmath.pi / 4)
                 - mpmath.cos(xi - mpmath.pi / 2))
        return float(abs(inner))


def float64(value) -> torch.Tensor:
    """A sympy or Python number as a float64 tensor (one rounding)."""
    return torch.tensor(float(value), dtype=torch.float64)


def is_zero(expression) -> bool:
    return sp.simplify(sp.expand_trig(expression)) == 0


def as_fraction(value) -> Fraction:
    rational = sp.simplify(value)
    if not rational.is_Rational:
        raise ValueError(f"{value} is not rational")
    return Fraction(int(rational.p), int(rational.q))


# ---------------------------------------------------------------- float64 network (DagNetwork)


def embedded(matrices, n1: int, n2: int, rows1, rows2) -> dict[str, torch.Tensor]:
    """The active neurons of ``matrices`` placed at hidden units ``rows1``/``rows2`` of a
    [2, n1, n2, 1] MLP, every other incoming and outgoing weight zero (Section 4)."""
    w1, w2, w3 = (torch.as_tensor(m, dtype=torch.float64) for m in matrices)
    k1, k2 = w1.shape[0], w2.shape[0]
    r1, r2 = torch.tensor(rows1[:k1]), torch.tensor(rows2[:k2])
    big1 = torch.zeros(n1, 2, dtype=torch.float64).index_copy(0, r1, w1)
    big2 = torch.zeros(n2, n1, dtype=torch.float64)
    big2[r2[:, None], r1[None, :]] = w2
    big3 = torch.zeros(1, n2, dtype=torch.float64).index_copy(1, r2, w3)
    return {"W1": big1, "W2": big2, "W3": big3}


def edge_weights(network, matrices: dict[str, torch.Tensor]) -> torch.Tensor:
    weights = torch.zeros(network.n_edges, dtype=torch.float64)
    for name, matrix in matrices.items():
        weights[torch.tensor(network.matrices[name])] = matrix
    return weights


def float_localized_loss(network, weights: torch.Tensor) -> torch.Tensor:
    return (G_FLOAT * network(weights, X_FLOAT)).sum()


def loss_tolerance(network, matrices: dict[str, torch.Tensor], extra_roundings: int) -> float:
    """Bound on |float L_0 - exact L_0|: each output y_j is a sum over paths of x_p prod w_e
    through 1-Lipschitz ReLUs, so its error is at most gamma_k sum_p |x_p prod w_e|, with k the
    forward depth plus ``extra_roundings`` (data and weight roundings, the 8-term sum over j)."""
    path_sums = matrices["W3"].abs() @ matrices["W2"].abs() @ matrices["W1"].abs() @ X_FLOAT.abs().T
    return gamma(rounding_depth(network) + extra_roundings) * float(path_sums.sum())


@st.composite
def padded_widths(draw, min_width: int = 4, max_width: int = 8):
    """Hidden widths n1, n2 >= 4 and a random placement (permutation) of the hidden units."""
    n1, n2 = draw(st.integers(min_width, max_width)), draw(st.integers(min_width, max_width))
    return n1, n2, draw(st.permutations(range(n1))), draw(st.permutations(range(n2)))


def float_rank_one_speed(phi: float, n1: int, n2: int, rows1, rows2):
    """max over W3 = +-1 of -L_0 for the Appendix C.1 direction at angle ``phi``, in float64."""
    network = mlp([2, n1, n2, 1])
    w1 = torch.tensor([[math.cos(phi), math.sin(phi)]], dtype=torch.float64)
    speeds, tolerance = [], 0.0
    for sign in (1.0, -1.0):
        matrices = embedded((w1, [[1.0]], [[sign]]), n1, n2, rows1, rows2)
        speeds.append(-float_localized_loss(network, edge_weights(network, matrices)))
        # data 1, cos/sin 2 (glibc: < 1 ulp), the 8-term sum 8, the mpmath reference 1
        tolerance = max(tolerance, loss_tolerance(network, matrices, extra_roundings=12))
    return torch.stack(speeds).max(), tolerance


# ---------------------------------------------------------------- rank one: Eq. (6)


@EX1
def test_eq6_is_the_network_rank_one_speed_symbolically():
    """Appendix C.1: the speed max_{+-} -L_0 of W1 = [cos phi, sin phi], W2 = [1], W3 = [+-1]
    equals Eq. (6) for every phi. The first-layer pre-activations vanish only at multiples of
    pi/4 (sympy solveset), so on each piece [pi m/4, pi (m+1)/4) the ReLU pattern is the one at
    the midpoint; there the network's -L_0 is a trig polynomial and equals +-Eq. (6)'s inner
    expression at xi = phi - pi m/4 = phi mod pi/4 (sympy simplify to 0)."""
    w1, _, _ = rank_one_weights(PHI)
    zeros = set()
    for pre_activation in w1 * X_EXACT:
        zeros |= set(sp.solveset(pre_activation, PHI, sp.Interval.Ropen(0, 2 * PI)))
    on_grid = all((z / (PI / 4)).is_integer for z in zeros)
    check_property(on_grid, "layer-1 pre-activations vanish only at pi k/4")
    for m in range(8):
        midpoint = PI * sp.Rational(2 * m + 1, 8)

        def relu_on_piece(z, midpoint=midpoint):
            return z if sp.sign(z.subs(PHI, midpoint)) > 0 else sp.S.Zero

        network_inner = -exact_localized_loss(rank_one_weights(PHI), relu_on_piece)
        formula = eq6_inner(PHI - PI * m / 4)
        matches = [sign for sign in (1, -1) if is_zero(network_inner - sign * formula)]
        check_property(len(matches) == 1, "network -L_0 = +-Eq. (6) inner", piece=m, signs=matches)
    record_note(
        "Rank one, symbolic: on each of the 8 pieces [pi m/4, pi(m+1)/4) the network's -L_0 for "
        "W1 = [cos phi, sin phi], W2 = [1], W3 = [1] equals +-(Eq. (6) inner at xi = phi mod pi/4) "
        "identically (sympy), so max over W3 = +-1 is exactly Eq. (6)."
    )


@EX1
def test_eq6_at_rational_angles_exactly():
    """Eq. (6) as printed (with sympy's Mod) against the exact network forward (sympy Max) at
    phi = pi k/12, k = 0..23, and at the odd multiples of pi/8."""
    angles = [PI * sp.Rational(k, 12) for k in range(24)] + [PI * sp.Rational(2 * k + 1, 8) for k in range(8)]
    for phi in angles:
        network = exact_rank_one_speed(phi)
        check_property(is_zero(network - eq6(phi)), "network rank-one speed = Eq. (6)", phi=str(phi))
    record_note("Rank one, exact at 32 angles (pi k/12 and odd pi k/8): network speed = Eq. (6).")


@EX1
def test_eq6_maximum_and_argmax_exactly():
    """Eq. (6)'s inner expression is g(xi) = (sqrt(2) - 1) cos xi - sin xi = R cos(xi + 3 pi/8),
    R = sqrt(4 - 2 sqrt(2)). For xi in [0, pi/4], xi + 3 pi/8 lies in [3 pi/8, 5 pi/8], where cos
    is strictly decreasing (inside [0, pi]): g falls from sqrt(2) - 1 to 1 - sqrt(2), so
    |g| <= sqrt(2) - 1, with equality exactly at xi in {0, pi/4}; on xi = phi mod pi/4 in
    [0, pi/4) that is xi = 0, i.e. the argmax set is {phi = pi j/4}."""
    g = eq6_inner(XI)
    amplitude, shift = sp.sqrt(4 - 2 * sp.sqrt(2)), 3 * PI / 8
    check_property(is_zero(g - (S1 * sp.cos(XI) - sp.sin(XI))), "Eq. (6) inner = (sqrt2 - 1) cos xi - sin xi")
    check_property(is_zero(g - amplitude * sp.cos(XI + shift)), "Eq. (6) inner = R cos(xi + 3 pi/8)")
    check_property(
        bool(sp.is_strictly_decreasing(sp.cos(XI), sp.Interval.open(0, PI))),
        "cos strictly decreasing on (0, pi)",
    )
    check_property(is_zero(g.subs(XI, 0) - S1), "g(0) = sqrt(2) - 1")
    check_property(is_zero(g.subs(XI, PI / 4) + S1), "g(pi/4) = 1 - sqrt(2)")
    check_property(is_zero(g.subs(XI, PI / 8)), "g(pi/8) = 0, the minimum of |g|")
    argmax = sp.solveset(sp.cos(XI + shift) ** 2 - sp.cos(shift) ** 2, XI, sp.Interval(0, PI / 4))
    check_property(argmax == sp.FiniteSet(0, PI / 4), "|g| = sqrt(2) - 1 on [0, pi/4] only at 0, pi/4")
    for j in range(8):
        optimum = PI * j / 4
        check_property(is_zero(eq6(optimum) - S1), "Eq. (6) = sqrt(2) - 1 at phi = pi j/4", j=j)
        network = exact_rank_one_speed(optimum)
        check_property(is_zero(network - S1), "network rank-one speed = sqrt(2) - 1 at phi = pi j/4", j=j)
    record_note(
        "Rank one, exact: Eq. (6) inner = (sqrt2 - 1) cos xi - sin xi = sqrt(4 - 2 sqrt2) cos(xi + 3pi/8), "
        "strictly decreasing on [0, pi/4]; max |.| = sqrt(2) - 1 only at xi = 0, i.e. phi = pi j/4 (network "
        "speed there = sqrt(2) - 1 exactly, j = 0..7); |.| vanishes at xi = pi/8."
    )


@EX1
@given(st.floats(0, 2 * math.pi, exclude_max=True), padded_widths())
def test_rank_one_float_network_matches_eq6(phi, widths):
    """Float64 forward of the Appendix C.1 direction (one active unit per hidden layer at a
    random position, widths 4..8) against Eq. (6) at the same angle with 40 digits."""
    speed, tolerance = float_rank_one_speed(phi, *widths)
    expected = float64(eq6_high_precision(phi))
    check_close(speed, expected, tolerance, phi=phi, widths=widths[:2])
    record_note(
        "Rank one, float64: DagNetwork forward (random widths 4..8, unit placement) = Eq. (6) at random "
        "phi within a gamma_k path-sum rounding bound."
    )


@st.composite
def rank_one_directions(draw):
    """Rank-one W1 = a b^T (b = [cos phi, sin phi]), W2 = c d^T and any W3 = e^T, widths 4..8.
    Besides random factors: single units, and (a, d) = ((1, -1, ...), (1, 1, ...)) whose
    network computes p sigma(b^T x) + q sigma(-b^T x), e.g. |b^T x| / 2."""
    n1, n2 = draw(st.integers(4, 8)), draw(st.integers(4, 8))
    phi = draw(st.floats(0, 2 * math.pi, exclude_max=True))
    entries = signed_floats(1.0)

    def factor(n):
        unit = draw(st.integers(0, n - 1))
        other = (unit + 1) % n
        single = [1.0 if i == unit else 0.0 for i in range(n)]
        pair = [1.0 if i == unit else (-1.0 if i == other else 0.0) for i in range(n)]
        random = draw(st.lists(entries, min_size=n, max_size=n))
        return draw(st.sampled_from([single, pair, [abs(v) for v in pair], random]))

    a, d, c, e = factor(n1), factor(n1), factor(n2), factor(n2)
    return n1, n2, phi, [torch.tensor(v, dtype=torch.float64) for v in (a, d, c, e)]


@EX1
@given(rank_one_directions())
def test_no_rank_one_direction_beats_eq6(direction):
    """Every rank-one (W1, W2) on the sphere has speed <= Eq. (6) at the angle of W1's row
    space <= sqrt(2) - 1. Why: with t = b^T x the network is p sigma(t) + q sigma(-t) (not only
    the 'one neuron functions' of Section 4), G_{j+4} = G_j turns -L_0 into (p + q) S(phi), and
    |p + q| = |f(b) + f(-b)| <= ||W1|| ||W2|| ||W3|| <= 1 on the sphere (AM-GM)."""
    n1, n2, phi, (a, d, c, e) = direction
    assume(min(float(v.norm()) for v in (a, d, c, e)) > 1e-3)
    b = torch.tensor([math.cos(phi), math.sin(phi)], dtype=torch.float64)
    network = mlp([2, n1, n2, 1])
    matrices = {"W1": torch.outer(a, b), "W2": torch.outer(c, d), "W3": e[None, :]}
    size = sum(float((m**2).sum()) for m in matrices.values())
    # W3 -> -W3 flips the sign of L_0, so the better sign has speed |L_0| (Appendix C.1's +-)
    speed = abs(float(float_localized_loss(network, edge_weights(network, matrices))))
    bound = eq6_high_precision(phi) * (size / 3) ** 1.5  # 3-homogeneity: sphere speed times the scale
    n_weights = sum(m.numel() for m in matrices.values())
    # data 1, cos/sin 2, outer product 1, the 8-term sum 8; the bound's norm sum, root, power
    tolerance = loss_tolerance(network, matrices, extra_roundings=12) + gamma(n_weights + 8) * bound
    # Why a case can fail: the speed |L_0| is >= 0 with no fixed upper end (the weights are not normalized), so a
    # direction beating Eq. (6) fails; a speed at 0 to rounding (p + q = 0) tests no bound (``lhs_range``)
    check_inequality(speed, bound, tolerance, scale=bound, label="rank-one speed below Eq. (6)", phi=phi,
                     lhs_range=(0.0, math.inf))
    record_note(
        "Rank one, float64: random rank-one W1 = a b^T, W2 = c d^T, any W3 (widths 4..8, single-unit, "
        "paired and random factors) never exceed Eq. (6) at b's angle (so <= sqrt(2) - 1) on the sphere."
    )


@EX1
def test_rank_one_layers_reach_s1_with_a_two_sided_function():
    """Section 4 reduces rank-one layers to 'one neuron functions' u sigma(v^T x); but rank-one
    W1 = (1/sqrt2)(1, -1)^T e1^T, W2 = (1/sqrt2)(1, 1), W3 = [1] compute |x_1| / 2, which
    vanishes on no half-plane. Its speed is still exactly sqrt(2) - 1: s1 is unaffected."""
    w1 = sp.Matrix([[1], [-1]]) * sp.Matrix([[1, 0]]) / sp.sqrt(2)
    w2 = sp.Matrix([[1, 1]]) / sp.sqrt(2)
    weights = (w1, w2, sp.Matrix([[1]]))
    check_property(w1.rank() == 1 and w2.rank() == 1, "W1 and W2 have rank one")
    check_exact([as_fraction(squared_norm(weights))], [Fraction(3)], identity="||theta||^2 = 3")
    x1 = sp.Symbol("x1", real=True)
    two_sided = (w2 * (w1 * sp.Matrix([x1, 0])).applyfunc(exact_relu)).applyfunc(exact_relu)[0]
    at_e1, at_minus_e1 = two_sided.subs(x1, 1), two_sided.subs(x1, -1)
    values = [str(at_e1), str(at_minus_e1)]
    check_property(bool(at_e1 * at_minus_e1 > 0), "f(e1) f(-e1) > 0: not u sigma(v^T x)", f=values)
    check_property(is_zero(exact_speed(weights) - S1), "its speed is sqrt(2) - 1")
    record_note(
        "Finding (harmless): rank-one layers also compute p sigma(b^T x) + q sigma(-b^T x), e.g. |x_1|/2, "
        "not only the 'one neuron functions' of Section 4; -L_0 = (p + q) S(phi) with |p + q| <= 1 on the "
        "sphere, so s1 = sqrt(2) - 1 stands (|x_1|/2 attains it exactly)."
    )


# ---------------------------------------------------------------- rank two: Eq. (2)


@EX1
def test_printed_rank_two_weights_exactly():
    """Eq. (2) on the eight points: Y = (0, 1/4, 0, 0, 0, 1/4, 0, 0) = (|x_1| - |x_2|)_+ / 4,
    ||W_l||_F^2 = 1 each (on the sphere, scale factor 1), ranks (2, 1, 1); L_0 = Tr[G^T Y] = +1/2.
    So with G = ((-1)^j) as printed the speed -L_0 is -1/2; W3 = [-1] (equivalently the footnote's
    G = grad C(0) = -Y for the squared loss with targets Y = ((-1)^j)) gives s2 = 1/2."""
    w1, w2, w3 = printed = printed_rank_two_weights()
    outputs = [as_fraction(y) for y in exact_outputs(printed)]
    expected = [as_fraction(sp.Max(0, abs(X_EXACT[0, j]) - abs(X_EXACT[1, j])) / 4) for j in range(N_POINTS)]
    check_exact(outputs, expected, identity="Y = (|x1| - |x2|)_+ / 4 on the 8 points")
    check_exact(outputs, [Fraction(v, 4) for v in (0, 1, 0, 0, 0, 1, 0, 0)], identity="Y values")
    norms = [as_fraction(squared_norm([w])) for w in printed]
    check_exact(norms, [Fraction(1)] * 3, identity="||W_l||_F^2 = 1")
    check_exact([sum(norms)], [Fraction(3)], identity="||theta||^2 = 3 (on the sphere as printed)")
    check_property([w.rank() for w in printed] == [2, 1, 1], "ranks of (W1, W2, W3) = (2, 1, 1)")
    printed_speed = as_fraction(exact_speed(printed))
    printed_loss = as_fraction(exact_localized_loss(printed))
    check_exact([printed_loss], [Fraction(1, 2)], identity="L_0 of Eq. (2) = +1/2")
    check_rejected(
        float64(printed_speed), float64(S2), 0.0,
        statement="printed Eq. (2) with G = ((-1)^j) has speed -L_0 = 1/2", exact_speed=printed_speed,
    )
    corrected = (w1, w2, -w3)
    check_exact([as_fraction(exact_speed(corrected))], [Fraction(1, 2)], identity="s2 = 1/2 with W3 = [-1]")
    footnote_gradient_speed = -sum(-g * y for g, y in zip(G_EXACT, outputs))
    check_exact([footnote_gradient_speed], [Fraction(1, 2)], identity="s2 = 1/2 for G = -((-1)^j)")
    check_property(bool(S2 > S1), "s2 = 1/2 > s1 = sqrt(2) - 1 (exact)")
    declare_verdict(
        "verified-with-correction",
        correction=(
            "With G = ((-1)^j) and s = -L_0 = -Tr[G^T Y_theta] (Definition 2.1), the printed Eq. (2) weights "
            "give Y = (0, 1/4, 0, 0, 0, 1/4, 0, 0), L_0 = +1/2, i.e. speed -1/2. The rank-two direction of "
            "speed s2 = 1/2 is Eq. (2) with W3 = [-1] (or Eq. (2) as printed with G = ((-1)^(j+1)) = -Y, the "
            "gradient of the footnote's squared loss). s1 = sqrt(2) - 1 at phi = pi j/4 (Eq. (6)) holds as "
            "printed."
        ),
    )
    record_erratum(
        "BSJ25.EX1-E1", severity="sign or typo", location_kind="equation", location="Example 1, Eq. (2)",
        printed="W1 = (1/2) [[1, 0], [0, 1], [-1, 0], [0, -1]], W2 = (1/2) [1, -1, 1, -1], W3 = [1] (2). This gives a "
                "speed s2 = 1/2 (with G = ((-1)^j) and s = -Tr[G^T f_theta(X)])",
        corrected="W3 = [-1] (or, with Eq. (2) as printed, G = ((-1)^(j+1)) = -Y, the gradient of the footnote's "
                  "squared loss): with the printed signs L_0 = Tr[G^T Y] = +1/2, a speed of -1/2",
        counterexample={"Y": [str(y) for y in outputs], "L_0 as printed": str(printed_loss),
                        "speed -L_0 as printed": str(printed_speed),
                        "speed with W3 = [-1]": str(as_fraction(exact_speed(corrected)))},
    )
    record_note(
        "Eq. (2) exactly: Y = (|x1| - |x2|)_+/4 = (0, 1/4, 0, 0, 0, 1/4, 0, 0), ||W_l||_F^2 = 1 each "
        "(||theta||^2 = 3), ranks (2, 1, 1), L_0 = +1/2: as printed (G = ((-1)^j)) the speed is -1/2; "
        "sign slip: W3 = [-1] (or the footnote's G = -Y) gives s2 = 1/2 > sqrt(2) - 1 exactly."
    )


@EX1
@given(padded_widths())
def test_printed_rank_two_weights_float_padded_and_permuted(widths):
    """Eq. (2) embedded in a [2, n1, n2, 1] MLP (n1, n2 in 4..8, hidden units permuted, other
    weights zero) in float64: -L_0 = -1/2 as printed and 1/2 with W3 = [-1]; rank W1 = 2,
    rank W2 = 1 (torch.linalg.matrix_rank: sigma_i > max(shape) eps sigma_1)."""
    n1, n2, rows1, rows2 = widths
    network = mlp([2, n1, n2, 1])
    printed = [sp.matrix2numpy(w, dtype=float) for w in printed_rank_two_weights()]
    for sign, expected in ((1.0, -0.5), (-1.0, 0.5)):
        matrices = embedded((printed[0], printed[1], sign * printed[2]), n1, n2, rows1, rows2)
        weights = edge_weights(network, matrices)
        check_property(
            all(torch.equal(network.weight_matrix(n, weights), m) for n, m in matrices.items()),
            "DagNetwork.weight_matrix returns the embedded matrices",
        )
        size = Fraction(float(sum((m**2).sum() for m in matrices.values())))
        check_exact([size], [Fraction(3)], identity="||theta||^2 = 3")
        ranks = [int(torch.linalg.matrix_rank(matrices[n])) for n in ("W1", "W2")]
        check_property(ranks == [2, 1], "rank W1 = 2, rank W2 = 1", ranks=ranks)
        speed = -float_localized_loss(network, weights)
        tolerance = loss_tolerance(network, matrices, extra_roundings=9)  # data 1, the 8-term sum 8
        check_close(speed, float64(expected), tolerance, w3_sign=sign, widths=(n1, n2))
    record_note(
        "Eq. (2) in float64 (DagNetwork, widths 4..8, permuted hidden units): speed -1/2 as printed, "
        "1/2 with W3 = [-1], within a gamma_k path-sum bound; numerical ranks (2, 1)."
    )


# ---------------------------------------------------------------- negative controls


@EX1_CONTROL
@given(
    st.integers(0, 7),
    st.floats(math.pi / 64, math.pi / 4 - math.pi / 64),
    padded_widths(),
)
def test_off_optimal_angles_are_rejected(j, offset, widths):
    """phi at least pi/64 away from every pi j/4: the float network's rank-one speed must be
    rejected as equal to s1 = sqrt(2) - 1 by the same check and tolerance."""
    phi = math.pi * j / 4 + offset
    speed, tolerance = float_rank_one_speed(phi, *widths)
    check_rejected(speed, float64(S1), tolerance, phi=phi)
    record_note("Control: rank-one directions off phi = pi j/4 (by >= pi/64) rejected as reaching sqrt2 - 1.")


@EX1_CONTROL
def test_perturbed_statements_are_rejected():
    """Eq. (2) with one entry changed (W2[0, 0] = 1/2 -> 5/8, rescaled onto the sphere), and
    Eq. (6) with the sign of its last term flipped, each differ from what the network gives."""
    w1, w2, w3 = printed_rank_two_weights()
    w2 = w2.copy()
    w2[0, 0] = sp.Rational(5, 8)
    perturbed_speed = sp.simplify(exact_speed((w1, w2, -w3)))
    check_rejected(
        float64(perturbed_speed), float64(S2), 0.0, perturbed="W2[0,0] = 5/8",
        exact_speed=str(perturbed_speed),
    )
    phi = PI / 12
    network = exact_rank_one_speed(phi)
    wrong_eq6 = eq6(phi, last_sign=+1)
    check_rejected(
        float64(network), float64(wrong_eq6), gamma(64), perturbed="Eq. (6) sign",
        symbolic_difference_is_zero=is_zero(network - wrong_eq6),
    )
    record_note(
        f"Control: Eq. (2) with W2[0,0] = 5/8 (rescaled) has speed {float(perturbed_speed):.6f} != 1/2; "
        "Eq. (6) with its last sign flipped disagrees with the network at phi = pi/12."
    )


# ---------------------------------------------------------------- BSJ25.S13 (Section 1.3)

S13 = pytest.mark.claim("BSJ25.S13")
S13_CONTROL = pytest.mark.claim("BSJ25.S13", negative_control=True)
S13_PRINTED = (2, 2, 1)
"""Section 1.3 as printed for a depth-3 network: 'the first two weight matrices are rank 2, followed by rank 1'."""
S13_CORRECTED = (2, 1, 1)
"""Section 4's own words ('rank two in the first layer') and Eq. (2): W1 rank 2, then rank 1."""


def rank_pattern_check(ranks, pattern, check=check_exact, **details):
    """The ranks of (W_1, .., W_L) against a stated pattern, exactly (integers; a rejection needs a rank off by
    at least 1, so its tolerance is 1/2)."""
    if check is check_exact:
        return check([Fraction(r) for r in ranks], [Fraction(r) for r in pattern], **details)
    observed = torch.tensor([float(r) for r in ranks], dtype=torch.float64)
    return check(observed, torch.tensor([float(r) for r in pattern], dtype=torch.float64), 0.5, **details)


S13_RESTARTS = 2048
S13_BASIN = (math.sqrt(2) - 1 + 0.5) / 2
S13_REACHED = 4
"""The solver's power on Example 1 (``check_power``), fixed before the data: at least ``S13_REACHED`` of its
``S13_RESTARTS`` Gaussian restarts end in the basin of s2 = 1/2 (search speed above (s1 + s2)/2). Observed: 20
of 2048, under 1 and 2 threads and ATen's default kernels alike (1 of 32 and 6 of 512: too near the
threshold).
The solver's kept optimum is judged (s = 1/2, its ranks) only where it is s2 to its float64 error: which
candidate the polish certifies can hinge on rounding; elsewhere its checks are uninformative (``S13_NOT_S2``).
(At 512 and 1024 restarts the solver once kept a dead point, s = 0, that Newton had reached from a candidate:
the polish now never certifies a point without a live path.)"""
S13_NOT_S2 = "the solver's kept optimum is not s2 = 1/2 (the polish certified another candidate)"


def solver_optimum_ranks():
    """The solver's certified optimum of Example 1 at depth 3, width 4 (speed 1/2), its ranks
    (``numerical_rank``: sigma_i > max(shape) eps sigma_1), the float64 error of its speed and how many
    restarts end in the basin of s2."""
    from claims.bsj25 import example1_instance, numerical_rank, solve_escape, speed_error

    example = example1_instance()
    found = solve_escape(example.x, example.g, example.shapes(3, 4), restarts=S13_RESTARTS)
    reached = sum(-value > S13_BASIN for value in found.values)
    error = speed_error(found.rho, found.shapes, example.x, example.g)
    return found, [numerical_rank(w) for w in found.weights], error, reached


@S13
def test_section_1_3_ranks_of_the_example():
    """Section 1.3's 'first two weight matrices are rank 2, followed by rank 1' on the example it refers to
    (Example 1): Eq. (2) has ranks (2, 1, 1) exactly, and so has the solver's certified optimum (speed 1/2).
    The printed pattern (2, 2, 1) is rejected on both; Section 4's 'rank two in the first layer' holds."""
    printed = printed_rank_two_weights()
    exact_ranks = [w.rank() for w in printed]
    rank_pattern_check(exact_ranks, S13_PRINTED, check=check_rejected, printed="ranks (2, 2, 1)", weights="Eq. (2)")
    rank_pattern_check(exact_ranks, S13_CORRECTED, identity="ranks (2, 1, 1)", weights="Eq. (2)")
    found, ranks, error, reached = solver_optimum_ranks()
    check_power(reached >= S13_REACHED, f"at least {S13_REACHED} of {S13_RESTARTS} restarts end in the basin "
                "of s2 = 1/2 (search speed above (s1 + s2)/2)", reached=reached, restarts=found.restarts)
    # the float64 error of s = -L_0(rho) (gamma_k A(|rho|)); s is stationary at rho, so rho's own rounding is second
    # order
    judged = abs(found.speed - 0.5) <= error
    solver = {"solver optimum ranks": ranks, "solver optimum speed": found.speed} if judged else {}
    if judged:
        check_close(found.speed, 0.5, error, identity="the solver's optimum has s2 = 1/2",
                    kkt_residual=found.kkt_residual)
        rank_pattern_check(ranks, S13_PRINTED, check=check_rejected, printed="ranks (2, 2, 1)",
                           weights="solver optimum")
        rank_pattern_check(ranks, S13_CORRECTED, identity="ranks (2, 1, 1)", weights="solver optimum")
    else:
        record_case(abs(found.speed - 0.5), error, uninformative=S13_NOT_S2, check_kind="identity",
                    speed=found.speed, kkt_residual=found.kkt_residual, ranks=ranks)
    declare_verdict(
        "verified-with-correction",
        correction="Section 1.3 should read 'the first weight matrix is rank 2, followed by rank 1 matrices', as "
                   "Section 4 says ('rank two in the first layer') and Eq. (2) and the computed optimum show: ranks "
                   "(2, 1, 1)",
    )
    record_erratum(
        "BSJ25.S13-E1", severity="text inconsistency", location_kind="text", location="Section 1.3, contributions",
        printed="an example of a simple dataset whose optimal escape direction has the following structure: The "
                "first two weight matrices are rank 2, followed by rank 1 matrices",
        corrected="the first weight matrix is rank 2, followed by rank 1 matrices (Example 1, Eq. (2): ranks "
                  "(W1, W2, W3) = (2, 1, 1); Section 4: 'rank two in the first layer')",
        counterexample={"Eq. (2) ranks (exact)": exact_ranks, **solver},
    )
    record_note(
        f"Example 1: Eq. (2) ranks {exact_ranks} (sympy, exact); the solver's certified optimum at depth 3, width 4 "
        f"({found.restarts} restarts, {reached} in the basin of s2; s = {found.speed:.16g}) ranks {ranks}"
        + ("" if judged else f" ({S13_NOT_S2}: not judged)")
        + ". The printed 'first two weight matrices are rank 2' "
        "contradicts both and Section 4's own 'rank two in the first layer'. Not tried: whether some other optimum "
        "of the flat family has rank-2 W2 (an existence reading); deeper networks' optima found cold are local "
        "(depth 4: sqrt(2) - 1 only)."
    )


@S13_CONTROL
def test_rank_pattern_of_a_rank_two_second_layer_is_rejected():
    """The same rank-pattern check (corrected pattern (2, 1, 1)) on Eq. (2) with a second, independent row
    added to W2 (a direction whose W2 has rank 2, not the example's optimum): rejected."""
    w1, w2, w3 = printed_rank_two_weights()
    w2_two = w2.col_join(sp.Rational(1, 2) * sp.Matrix([[1, 1, -1, -1]]))
    w3_two = w3.row_join(sp.Matrix([[0]]))
    rank_pattern_check([w1.rank(), w2_two.rank(), w3_two.rank()], S13_CORRECTED, check=check_rejected,
                       weights="Eq. (2) with a rank-2 W2")
    record_note("Negative control: the rank-pattern check rejects Eq. (2) with an independent second row in W2.")
