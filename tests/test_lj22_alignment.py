"""LJ22 Section 5: Lemma 11 (the two matrix views of a linear ResNetFree block keep comparable spectral
norms), Theorem 2 (Eq. (13) along paths; Eq. (14)/(15) as trends in arc length) and Corollary 1 (Eq. (15)
for the linear tail of a ReLU network, as a trend), on gradient-flow paths followed at unit speed in arc
length (claims._alignment.normalized_flow, shown to be the plain flow's path in tests/test_alignment.py)."""

from __future__ import annotations

import sys

import pytest
import torch

from claims import (
    check_inequality,
    check_inequality_rejected,
    check_trend,
    check_trend_rejected,
    finding,
    record_note,
    record_series,
)
from claims._alignment import alignment as layer_alignment
from claims._alignment import (
    block_matrices,
    corollary1_network,
    eq13_offset,
    frobenius_sq,
    lemma11_offset,
    lemma11_sides,
    norm_ratio,
    normalized_flow,
    separable_data,
    spectral_sq,
    theorem2_network,
)
from claims._builders import NetworkBuilder, resnet_block, with_bias_column
from claims._networks import LINEAR
from claims._profiles import trajectory_factor
from claims._risk import Risk
from claims._trend import TrendRule, permuted_levels

EPS = sys.float_info.epsilon
PRINTED_CONSTANT = 1 / 8


def block_risk(a: int, b: int, c: int, seed: int) -> Risk:
    """A linear ResNetFree block B1 (Y: b x a, U: c x b, Z: c x a) then Fin, logistic loss, separable data."""
    builder = NetworkBuilder(a)
    r = resnet_block(builder, builder.inputs, "free", b, c, slope=LINEAR, name="B1.")
    o = builder.layer(1, LINEAR)
    builder.dense(r, o, "Fin")
    x, y = separable_data(16, a, 0.3, seed)
    return Risk(builder.build(), x, y)


def trajectory(risk: Risk, theta0: torch.Tensor, length: float, steps: int):
    """(s, t, U, Y, Z) at every step of the normalized flow from theta0."""
    _, _, snaps = normalized_flow(
        risk, theta0[None].clone(), torch.tensor([length], dtype=torch.float64), steps, 1
    )
    start = block_matrices(risk.network, theta0, "B1.")
    out = [(0.0, 0.0, start)]
    for s, t, th in snaps:
        out.append((float(s[0]), float(t[0]), block_matrices(risk.network, th[0], "B1.")))
    return out


def lemma11_tolerance(m, m0, lhs, rhs) -> float:
    """Rounding of two spectral norms (a few hundred ulps of the sides) plus the numerical drift of the
    invariant U^T U - Y Y^T that the proof uses (the bound holds for the exact flow; the RK4 path
    keeps the invariant only up to this drift, which enters D' one for one)."""
    drift = float(
        torch.linalg.matrix_norm(
            (m["U"].T @ m["U"] - m["Y"] @ m["Y"].T) - (m0["U"].T @ m0["U"] - m0["Y"] @ m0["Y"].T), ord=2
        )
    )
    return 256 * EPS * (abs(lhs) + abs(rhs)) + drift


SHAPES = [(2, 3, 5), (3, 4, 3), (4, 2, 6)]
"""(a, b, c): input, hidden and output widths of the block."""


def lemma11_runs(scales):
    for i, (a, b, c) in enumerate(SHAPES * trajectory_factor()):
        for j, scale in enumerate(scales):
            risk = block_risk(a, b, c, seed=i)
            g = torch.Generator().manual_seed(100 * i + j)
            theta0 = scale * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
            yield (a, b, c), scale, risk, theta0


@pytest.mark.claim("LJ22.L11")
def test_lemma11_along_trajectories():
    record_note(
        "Lemma 11 read as ||[Y; Z]||_2^2 >= (1/8)||[U Z]||_2^2 - D' with D' = ||U(0)^T U(0) - Y(0) Y(0)^T||_2, the "
        "D of Ji & Telgarsky (2019) B.2 that the proof invokes (Eq. (74)); the pdf prints that norm squared, "
        "which is not scale-consistent (it compares weight^4 with weight^2), so the unsquared norm is encoded. "
        "The proof's chain ||B||^2 >= max(||Y||^2, ||Z||^2) >= max(||U||^2 - D', ||Z||^2) and "
        "||A||^2 <= ||U||^2 + ||Z||^2 in fact gives ||B||^2 >= (1/2)||A||^2 - D'/2, so 1/8 is loose."
    )
    smallest, tightest = float("inf"), float("inf")
    for shape, scale, risk, theta0 in lemma11_runs((0.3, 1.0)):
        path = trajectory(risk, theta0, length=6.0, steps=60)
        m0 = path[0][2]
        offset = lemma11_offset(m0["U"], m0["Y"])
        rows = []
        for s, t, m in path:
            a_sq, b_sq = lemma11_sides(m["U"], m["Y"], m["Z"])
            lhs, rhs = PRINTED_CONSTANT * a_sq - offset, b_sq
            slack = check_inequality(
                lhs,
                rhs,
                lemma11_tolerance(m, m0, lhs, rhs),
                shape=shape,
                scale=scale,
                s=s,
                t=t,
                offset=offset,
            )
            with finding("the pdf's printed form, D' squared"):
                squared = PRINTED_CONSTANT * a_sq - offset**2
                check_inequality(squared, rhs, lemma11_tolerance(m, m0, squared, rhs), shape=shape, scale=scale, s=s)
            smallest = min(smallest, slack)
            tightest = min(tightest, (b_sq + offset) / a_sq)
            rows.append((s, t, a_sq, b_sq, slack))
        record_series(
            "LJ22.L11 trajectory",
            shape=list(shape),
            init_scale=scale,
            D_prime=offset,
            s=[r[0] for r in rows],
            t=[r[1] for r in rows],
            A_spectral_sq=[r[2] for r in rows],
            B_spectral_sq=[r[3] for r in rows],
            slack=[r[4] for r in rows],
        )
    record_note(
        f"Smallest slack ||B||^2 - ((1/8)||A||^2 - D') over all steps: {smallest:.4g}. Tightest constant c with "
        f"||B||^2 >= c||A||^2 - D' on every step of these paths: min (||B||^2 + D')/||A||^2 = {tightest:.4g} "
        f"(printed 1/8 = 0.125)."
    )
    assert tightest >= PRINTED_CONSTANT


@pytest.mark.claim("LJ22.L11", negative_control=True)
def test_lemma11_with_offset_from_another_initialization():
    """The same check with D' taken from a different (small, nearly balanced) initialization, at the initialization
    of an unbalanced start (U x6, Y and Z x0.2): there (1/8)||A||^2 - D'_other exceeds ||B||^2, so D' must be the path's own."""
    rejected = 0
    for shape, scale, risk, theta0 in lemma11_runs((1.0,)):
        w = risk.network.edge_weights(theta0)
        names = {n: risk.network.weight_matrix(n, w) for n in ("B1.U", "B1.Y", "B1.Z")}
        U, Y, Z = 6 * names["B1.U"], 0.2 * names["B1.Y"], 0.2 * names["B1.Z"]
        other = block_risk(*shape, seed=99)
        g = torch.Generator().manual_seed(12345)
        m_other = block_matrices(
            other.network,
            0.05 * torch.randn(other.network.n_parameters, generator=g, dtype=torch.float64),
            "B1.",
        )
        offset_other = lemma11_offset(m_other["U"], m_other["Y"])
        a_sq, b_sq = lemma11_sides(U, Y, Z)
        lhs, rhs = PRINTED_CONSTANT * a_sq - offset_other, b_sq
        check_inequality_rejected(
            lhs,
            rhs,
            256 * EPS * (abs(lhs) + abs(rhs)),
            shape=shape,
            offset_other=offset_other,
            own_offset=lemma11_offset(U, Y),
        )
        rejected += 1
    assert rejected


# ---------------------------------------------------------------------------------------------------
# LJ22.CO1: Eq. (15) for the last K linear layers of a fully-connected ReLU network, as a trend in the
# arc length s of the gradient-flow path (one independent initialization per run).
# ---------------------------------------------------------------------------------------------------


CO1_RULE = TrendRule("increasing", alpha=0.05, min_effect=0.3)
"""Fixed before the data: alignment |<v_{j+1}, u_j>| of the last linear layers increases with s."""
CO1_WIDTHS = [3, 5, 4, 3, 1]  # W1 ReLU; W2, W3, W4 linear (K = 3)
CO1_LEVELS = [0.5, 2.0, 4.0, 8.0]
LOG2 = float(torch.log(torch.tensor(2.0)))


def co1_runs():
    """Per level, two independent initializations satisfying R(w(0)) < l(0) (rejection-sampled, as the
    hypothesis is printed), each followed to arc length s = level; returns rows of numbers."""
    network = corollary1_network(CO1_WIDTHS, relu_layers=1)
    x, y = separable_data(16, CO1_WIDTHS[0], 0.3, seed=7)
    risk = Risk(network, x, y)
    rows, seed = [], 0
    for level in CO1_LEVELS:
        for _ in range(2 * trajectory_factor()):
            while True:
                seed += 1
                g = torch.Generator().manual_seed(seed)
                theta0 = 0.6 * torch.randn(network.n_parameters, generator=g, dtype=torch.float64)
                if float(risk(theta0)) < LOG2:
                    break
            margins0 = y * network(network.edge_weights(theta0), x)
            steps = max(10, int(10 * level))
            theta, t, _ = normalized_flow(
                risk, theta0[None].clone(), torch.tensor([level], dtype=torch.float64), steps
            )
            w = network.edge_weights(theta[0])
            W = [network.weight_matrix(f"W{k}", w) for k in range(1, 5)]
            rows.append(
                {
                    "s": level,
                    "t": float(t[0]),
                    "seed": seed,
                    "risk0": float(risk(theta0)),
                    "risk": float(risk(theta[0])),
                    "positive_margins0": int((margins0 > 0).sum()),
                    "n": len(y),
                    "align_12": layer_alignment(W[0], W[1]),
                    "align_23": layer_alignment(W[1], W[2]),
                    "align_34": layer_alignment(W[2], W[3]),
                }
            )
    return rows


@pytest.fixture(scope="module")
def co1_data():
    return co1_runs()


@pytest.mark.claim("LJ22.CO1")
def test_corollary1_tail_alignment_trend(co1_data):
    for row in co1_data:
        record_series("LJ22.CO1 run", **row)
    worst = min(co1_data, key=lambda r: r["positive_margins0"])
    record_note(
        f"Hypothesis R(w(0)) < l(0) = log 2 enforced by rejection sampling; it guarantees only that some example "
        f"has a positive margin at t = 0 (fewest seen: {worst['positive_margins0']} of {worst['n']}), not that the "
        "network separates the data (Lyu & Li's condition, for the mean risk, is R < l(0)/n). The limit direction's "
        "'no zero entries' is not checked. Levels are arc lengths s of the path, one independent initialization per run."
    )
    levels = [r["s"] for r in co1_data]
    response = [min(r["align_23"], r["align_34"]) for r in co1_data]
    check_trend(
        levels,
        response,
        CO1_RULE,
        "alignment of the linear tail (min over W2-W3, W3-W4) increases along the path",
    )
    best = max(co1_data, key=lambda r: r["s"])
    record_note(
        f"At s = {best['s']}: t = {best['t']:.3g}, alignments W2-W3 {best['align_23']:.4f}, W3-W4 {best['align_34']:.4f}."
    )


@pytest.mark.claim("LJ22.CO1", negative_control=True)
def test_corollary1_trend_with_permuted_levels(co1_data):
    levels = permuted_levels([r["s"] for r in co1_data], seed=3)
    response = [min(r["align_23"], r["align_34"]) for r in co1_data]
    check_trend_rejected(levels, response, CO1_RULE, "same alignments against permuted arc lengths")


# ---------------------------------------------------------------------------------------------------
# LJ22.T2: eta = ReLU layer with biases, K = 0 convolutions, M = 1 linear ResNetFree block, Fin.
# ---------------------------------------------------------------------------------------------------


T2_SHAPE = (3, 5, 4, 3)  # d, front width, block hidden b, block out c
T2_LEVELS = [0.5, 2.0, 4.0, 8.0]


def t2_risk(seed):
    network = theorem2_network(*T2_SHAPE)
    x, y = separable_data(16, T2_SHAPE[0], 0.3, seed)
    return Risk(network, with_bias_column(x), y)


def t2_matrices(network, theta):
    w = network.edge_weights(theta)
    A = torch.cat([network.weight_matrix("B2.U", w), network.weight_matrix("B2.Z", w)], 1)
    return A, network.weight_matrix("Fin", w)


def t2_tolerance(A, F, A0, F0, lhs, rhs):
    """Rounding of the norms, plus the numerical drift of the invariant Fin^T Fin - A A^T (Theorem 1 case 7)
    that Eq. (83) (its trace: nuclear norm) and Eq. (84) (spectral norm) use."""
    drift = (F.T @ F - A @ A.T) - (F0.T @ F0 - A0 @ A0.T)
    return (
        256 * EPS * (abs(lhs) + abs(rhs))
        + float(torch.linalg.matrix_norm(drift, ord="nuc"))
        + float(torch.linalg.matrix_norm(drift, ord=2))
    )


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq13_along_trajectories():
    c = T2_SHAPE[3]
    record_note(
        "Eq. (13) for j = the ResNetFree block (M = 1, K = 0): N_r = 0 and, as printed, V_c = max dim W[M+1] = max "
        f"dim Fin = c = {c}, so (1/V_c)||A||_F^2 <= ||A||_2^2 (rank A <= c) and Eq. (13) holds with any D >= 0: "
        "as printed it is vacuous here. The proof's chain (Eq. (83) and Eq. (84) with C = 1 since Fin has rank one) "
        "gives the stronger ||A||_F^2 - ||A||_2^2 <= D with D = ||A(0)||_F^2 - ||Fin(0)||_F^2 + "
        "||Fin(0)^T Fin(0) - A(0) A(0)^T||_2; both forms are checked on every step, with that D."
    )
    smallest = {"printed": float("inf"), "proof": float("inf")}
    at_zero = []
    for seed in range(3 * trajectory_factor()):
        risk = t2_risk(seed)
        g = torch.Generator().manual_seed(500 + seed)
        theta0 = torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
        A0, F0 = t2_matrices(risk.network, theta0)
        D = eq13_offset(A0, F0)
        _, _, snaps = normalized_flow(
            risk, theta0[None].clone(), torch.tensor([6.0], dtype=torch.float64), 60, 1
        )
        rows = []
        for s, t, th in [(torch.zeros(1), torch.zeros(1), theta0[None])] + snaps:
            A, F = t2_matrices(risk.network, th[0])
            for form, vc in (("printed", c), ("proof", 1)):
                lhs = frobenius_sq(A) / vc - spectral_sq(A)
                slack = check_inequality(
                    lhs, D, t2_tolerance(A, F, A0, F0, lhs, D), form=form, seed=seed, s=float(s[0])
                )
                smallest[form] = min(smallest[form], slack)
                if float(s[0]) == 0 and form == "proof":
                    at_zero.append(slack)
            rows.append((float(s[0]), float(t[0]), frobenius_sq(A), spectral_sq(A), norm_ratio(A)))
        record_series(
            "LJ22.T2 Eq. (13) trajectory",
            seed=seed,
            D=D,
            s=[r[0] for r in rows],
            t=[r[1] for r in rows],
            A_frobenius_sq=[r[2] for r in rows],
            A_spectral_sq=[r[3] for r in rows],
            ratio=[r[4] for r in rows],
        )
    record_note(
        f"Smallest Eq. (13) slacks: printed form {smallest['printed']:.4g}, proof's form {smallest['proof']:.4g}; "
        f"at t = 0 the proof's form has slack {min(at_zero):.4g} >= 0, so this D makes Eq. (13) hold from t = 0 on."
    )


def t2_trend_runs():
    rows = []
    for i, level in enumerate(T2_LEVELS):
        for k in range(2 * trajectory_factor()):
            risk = t2_risk(seed=0)
            g = torch.Generator().manual_seed(900 + 10 * i + k)
            theta0 = torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
            theta, t, _ = normalized_flow(
                risk,
                theta0[None].clone(),
                torch.tensor([level], dtype=torch.float64),
                max(10, int(10 * level)),
            )
            A, F = t2_matrices(risk.network, theta[0])
            rows.append(
                {
                    "s": level,
                    "t": float(t[0]),
                    "ratio": norm_ratio(A),
                    "align": layer_alignment(A, F),
                    "A_frobenius_sq": frobenius_sq(A),
                    "risk": float(risk(theta[0])),
                }
            )
    return rows


@pytest.fixture(scope="module")
def t2_data():
    return t2_trend_runs()


T2_RULE = TrendRule("increasing", alpha=0.05, min_effect=0.3)
"""Fixed before the data: ||A||_2^2/||A||_F^2 (Eq. (14)) and |<v_Fin, u_A>| (Eq. (15)) increase with s."""


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq14_eq15_trends(t2_data):
    for row in t2_data:
        record_series("LJ22.T2 trend run", **row)
    levels = [r["s"] for r in t2_data]
    check_trend(
        levels,
        [r["ratio"] for r in t2_data],
        T2_RULE,
        "Eq. (14): ||A||_2^2/||A||_F^2 increases along the path",
    )
    check_trend(
        levels, [r["align"] for r in t2_data], T2_RULE, "Eq. (15): |<v_Fin, u_A>| increases along the path"
    )
    last = [r for r in t2_data if r["s"] == max(levels)]
    ratios = [round(r["ratio"], 4) for r in last]
    aligns = [round(r["align"], 4) for r in last]
    times = [f"{r['t']:.3g}" for r in last]
    norms = [round(r["A_frobenius_sq"], 2) for r in last]
    record_note(
        f"At s = {max(levels):g}: ratios {ratios}, alignments {aligns}, t {times}, ||A||_F^2 {norms}."
    )


@pytest.mark.claim("LJ22.T2", negative_control=True)
def test_theorem2_eq13_with_offset_from_another_initialization():
    """The proof's form of Eq. (13) with D from a different, small initialization: fails at t = 0."""
    risk = t2_risk(0)
    g = torch.Generator().manual_seed(4242)
    theta0 = torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
    A, F = t2_matrices(risk.network, theta0)
    other = 0.05 * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
    D_other = eq13_offset(*t2_matrices(risk.network, other))
    lhs = frobenius_sq(A) - spectral_sq(A)
    check_inequality_rejected(
        lhs, D_other, 256 * EPS * (abs(lhs) + D_other), D_other=D_other, D_own=eq13_offset(A, F)
    )
