"""LJ22 Section 5: Lemma 11 (the two matrix views of a linear ResNetFree block keep comparable spectral
norms), Theorem 2 (Eq. (13) along paths; Eq. (14)/(15) as trends in arc length) and Corollary 1 (Eq. (15)
for the linear tail of a ReLU network, as a trend), on gradient-flow paths followed at unit speed in arc
length (claims.lj22.normalized_flow, shown to be the plain flow's path in tests/unit/lj22/test_alignment.py)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import Phase, given, settings, target
from hypothesis import strategies as st

from claims import (
    check_inequality,
    check_inequality_rejected,
    check_trend,
    check_trend_rejected,
    declare_verdict,
    finding,
    record_erratum,
    record_note,
    record_series,
)
from claims.evidence import (
    TrendRule,
    active_profile,
    count_cases_as,
    one_case,
    permuted_levels,
    training_length_factor,
    trajectory_factor,
)
from claims.lj22 import alignment as layer_alignment
from claims.lj22 import (
    THEOREM2_BLOCK_SHAPE,
    THEOREM2_CONV_CHAIN,
    block_matrices,
    convolution_chain,
    convolution_chain_invariants,
    corollary1_network,
    definition8_matrix,
    eq13_offset,
    eq13_offset_through_block,
    eq13_offset_through_convolutions,
    eq13_vc_convolutions,
    frobenius_sq,
    lemma11_offset,
    lemma11_sides,
    norm_ratio,
    normalized_flow,
    separable_data,
    spectral_sq,
    theorem2_block_sides,
    theorem2_block_start,
    theorem2_convolution_start,
    theorem2_through_block_matrices,
    theorem2_through_block_start,
)
from claims.models import LINEAR, NetworkBuilder, Risk, kernel_rows, resnet_block, sides_rounding
from claims.report import plot_panels_over_time, record_figure

LN10 = math.log(10)
PRINTED_CONSTANT = 1 / 8


def doubling_levels(first: float, count: int) -> list[float]:
    """first, 2 first, 4 first, ...: ``count`` arc lengths, and two more under ``nightly``, whose longer
    horizons follow the path 4 times farther (``TRAINING_LENGTH_FACTOR``)."""
    extra = {1: 0, 4: 2}[training_length_factor()]
    return [first * 2**k for k in range(count + extra)]


def block_risk(a: int, b: int, c: int, seed: int) -> Risk:
    """A linear ResNetFree block B1 (Y: b x a, U: c x b, Z: c x a) then Fin, logistic loss, separable data."""
    builder = NetworkBuilder(a)
    r = resnet_block(builder, builder.inputs, "free", b, c, slope=LINEAR, name="B1.")
    o = builder.layer(1, LINEAR)
    builder.dense(r, o, "Fin")
    x, y = separable_data(16, a, 0.3, seed)
    return Risk(builder.build(), x, y)


def path_points(risk: Risk, theta0: torch.Tensor, length: float, steps: int) -> list[tuple[float, float, torch.Tensor]]:
    """(s, log10 t, theta) at the start and after every step of the normalized flow from theta0 to arc
    length ``length``."""
    _, _, snaps = normalized_flow(risk, theta0[None].clone(), torch.tensor([length], dtype=torch.float64), steps, 1)
    return [(0.0, -math.inf, theta0)] + [(float(s[0]), float(log_t[0]) / LN10, th[0]) for s, log_t, th in snaps]


L11_TOLERANCE = "256 ulps of the sides plus the RK4 path's drift of U^T U - Y Y^T (enters D' one for one)"


def lemma11_tolerance(m, m0, lhs, rhs) -> float:
    """Rounding of two spectral norms (a few hundred ulps of the sides) plus the numerical drift of the
    invariant U^T U - Y Y^T that the proof uses (the bound holds for the exact flow; the RK4 path
    keeps the invariant only up to this drift, which enters D' one for one)."""
    drift = float(
        torch.linalg.matrix_norm(
            (m["U"].T @ m["U"] - m["Y"] @ m["Y"].T) - (m0["U"].T @ m0["U"] - m0["Y"] @ m0["Y"].T), ord=2
        )
    )
    return sides_rounding(lhs, rhs) + drift


SHAPES = [(2, 3, 5), (3, 4, 3), (4, 2, 6)]
"""(a, b, c): input, hidden and output widths of the block."""


def lemma11_runs(scales):
    for i, (a, b, c) in enumerate(SHAPES * trajectory_factor()):
        for j, scale in enumerate(scales):
            risk = block_risk(a, b, c, seed=i)
            g = torch.Generator().manual_seed(100 * i + j)
            theta0 = scale * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
            yield (a, b, c), scale, risk, theta0


L11_READING = (
    "Lemma 11 states ||B||_2^2 >= (1/8)||A||_2^2 - D' for *some* D' >= 0 fixed at initialization (A = [U Z], "
    "B = [Y; Z]); the verdict is about that statement, verified by exhibiting one D' valid at every time of every "
    "path: D' = ||U(0)^T U(0) - Y(0) Y(0)^T||_2, the spectral norm of Theorem 1 case 3's invariant (the D of Ji & "
    "Telgarsky (2019) B.2). With it the statement is provable: ||Y||^2 >= ||U||^2 - D' by the invariant, and "
    "||B||^2 >= max(||Y||^2, ||Z||^2), ||A||^2 <= ||U||^2 + ||Z||^2 give ||B||^2 >= (1/2)||A||^2 - D'/2. "
    "The proof's Eq. (74) prints D with the norm squared, which fails where D < 1: a finding about the proof "
    "(LJ22.L11-E1, test_lemma11_proof_eq74_squared_offset_finding), not the statement's verdict. The sharpest "
    "constant (test_lj22_lemma11_constant.py) is 1/2, attained exactly on a balanced block; 1/8 is loose. Printed "
    "form: the pdf text reads 'kBk2 >= 1 kAk2 - D0' (the 8 of 1/8 and any exponents lost in extraction; the 8 is "
    "restored from the lemma's title 'up to multiple by 8' and Theorem 2's proof 'C = 1/8'), the html text drops "
    "the formula; the proof works with squared norms (Eqs. (74)-(82)) and Theorem 2 uses them, so the squared "
    "reading is the statement judged; the unsquared reading ||B||_2 >= (1/8)||A||_2 - D'' is checked beside it "
    "with D'' = sqrt(D') (it follows from the squared chain)."
)


def lemma11_path(shape, scale, risk, theta0, length, steps, **labels):
    """Lemma 11 (D' unsquared) at every step of one path; records the path's
    series and returns (smallest relative slack, smallest slack, tightest constant
    min (||B||^2 + D')/||A||^2 on the path).

    The checks at the points of one path are one case (the test's cases count paths). Why a case can fail:
    the left side (1/8)||A||^2 - D' ranges over [-D', oo) (||A||^2 >= 0), so any ||B||^2 below it fails; at
    its floor -D' (A = 0 to rounding) it would test nothing (``check_inequality``'s ``lhs_range``). Points
    where it is negative are implied by ||B||^2 >= 0: the right side's floor, which ``lhs_range`` does not
    state."""
    path = [(s, log10_t, block_matrices(risk.network, th, "B1.")) for s, log10_t, th in
            path_points(risk, theta0, length, steps)]
    m0 = path[0][2]
    offset = lemma11_offset(m0["U"], m0["Y"])
    rows = []
    count_cases_as("paths")
    with one_case():
        for s, log10_t, m in path:
            a_sq, b_sq = lemma11_sides(m["U"], m["Y"], m["Z"])
            lhs, rhs = PRINTED_CONSTANT * a_sq - offset, b_sq
            slack = check_inequality(
                lhs, rhs, lemma11_tolerance(m, m0, lhs, rhs), shape=shape, init_scale=scale, s=s, log10_t=log10_t,
                offset=offset, lhs_range=(-offset, math.inf), tolerance_source=L11_TOLERANCE, **labels,
            )
            # the pdf's extraction shows no exponent on either norm ("kBk2 >= 1 kAk2 - D0"): the unsquared reading
            # ||B||_2 >= (1/8)||A||_2 - D'' holds with D'' = sqrt(D') (from ||B||^2 >= (||A||^2 - D')/2); its D''
            # takes the invariant's drift under the square root
            lhs1, rhs1 = PRINTED_CONSTANT * math.sqrt(a_sq) - math.sqrt(offset), math.sqrt(b_sq)
            tol1 = sides_rounding(lhs1, rhs1) + math.sqrt(max(0.0, lemma11_tolerance(m, m0, lhs, rhs)))
            check_inequality(lhs1, rhs1, tol1, label="slack (norms unsquared)", shape=shape, scale=scale, s=s,
                             offset=math.sqrt(offset), reading="norms unsquared, D'' = sqrt(D')",
                             lhs_range=(-math.sqrt(offset), math.inf), **labels)
            rows.append((s, log10_t, a_sq, b_sq, slack, slack / (abs(lhs) + abs(rhs)), (b_sq + offset) / a_sq))
    record_series(
        "LJ22.L11 trajectory",
        shape=list(shape),
        init_scale=scale,
        D_prime=offset,
        **labels,
        s=[r[0] for r in rows],
        log10_t=[r[1] for r in rows],
        A_spectral_sq=[r[2] for r in rows],
        B_spectral_sq=[r[3] for r in rows],
        slack=[r[4] for r in rows],
    )
    return min(r[5] for r in rows), min(r[4] for r in rows), min(r[6] for r in rows)


@pytest.mark.claim("LJ22.L11")
def test_lemma11_along_trajectories():
    record_note(L11_READING)
    relative, smallest, tightest = float("inf"), float("inf"), float("inf")
    for shape, scale, risk, theta0 in lemma11_runs((0.3, 1.0)):
        path_relative, path_smallest, path_tightest = lemma11_path(shape, scale, risk, theta0, 6.0, 60)
        relative = min(relative, path_relative)
        smallest, tightest = min(smallest, path_smallest), min(tightest, path_tightest)
    record_note(
        f"Smallest slack ||B||^2 - ((1/8)||A||^2 - D') over all steps of the fixed paths: {smallest:.4g} (relative to "
        f"|lhs| + |rhs|, as the tables give slacks: {relative:.4g}). Tightest "
        f"constant c with ||B||^2 >= c||A||^2 - D' on every step of these paths: min (||B||^2 + D')/||A||^2 = "
        f"{tightest:.4g} (printed 1/8 = 0.125)."
    )
    assert tightest >= PRINTED_CONSTANT


L11_SEARCH_EXAMPLES = {"dev": 15, "ci": 15, "nightly": 300}
"""Examples of the targeted search; each follows one path (20 RK4 steps to arc length 3)."""


def unbalanced_start(risk: Risk, scale: float, log2_factors: dict[str, float], seed: int) -> torch.Tensor:
    """N(0, scale^2) weights with each of the block's matrices U, Y, Z multiplied by 2^factor: unbalanced
    starts (D' large against the weights) are where the lemma's additive constant matters."""
    network = risk.network
    g = torch.Generator().manual_seed(seed)
    w = network.edge_weights(scale * torch.randn(network.n_parameters, generator=g, dtype=torch.float64))
    for name, factor in log2_factors.items():
        edges = torch.tensor(network.matrices[f"B1.{name}"]).flatten()
        edges = edges[edges < network.n_edges]
        w[edges] = w[edges] * 2.0**factor
    return network.parameters_of(w)


@pytest.mark.claim("LJ22.L11")
def test_lemma11_targeted_search_for_the_smallest_slack():
    """Hypothesis searches shapes, scales and unbalanced starts, its targeting phase driving toward the
    smallest relative slack of the path and, separately, toward the smallest (||B||^2 + D')/||A||^2: the
    tightest constant that held on every path seen is reported beside the printed 1/8."""
    record_note(L11_READING)
    found = {"slack": (float("inf"), None), "constant": (float("inf"), None)}
    factors = st.floats(-3.0, 3.0, allow_nan=False)

    @settings(max_examples=L11_SEARCH_EXAMPLES[active_profile()], phases=tuple(Phase))  # targeting is the point
    @given(
        shape=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 6)),
        scale=st.floats(0.05, 3.0, allow_nan=False),
        log2_factors=st.fixed_dictionaries({"U": factors, "Y": factors, "Z": factors}),
        seed=st.integers(0, 2**16),
    )
    def search(shape, scale, log2_factors, seed):
        risk = block_risk(*shape, seed=seed % 8)
        theta0 = unbalanced_start(risk, scale, log2_factors, seed)
        relative, smallest, constant = lemma11_path(
            shape, scale, risk, theta0, 3.0, 20, log2_factors=log2_factors, seed=seed
        )
        target(-relative, label="smallest relative slack on the path")
        target(-constant, label="tightest constant on the path")
        where = dict(shape=shape, scale=round(scale, 4), log2_factors={k: round(v, 3) for k, v in log2_factors.items()},
                     seed=seed)
        found["slack"] = min(found["slack"], (relative, where), key=lambda x: x[0])
        found["constant"] = min(found["constant"], (constant, where), key=lambda x: x[0])

    search()
    (relative, at_slack), (constant, at_constant) = found["slack"], found["constant"]
    record_note(
        f"Targeted search ({L11_SEARCH_EXAMPLES[active_profile()]} paths, profile {active_profile()}): smallest "
        f"relative slack (||B||^2 - (1/8)||A||^2 + D')/(|lhs| + |rhs|) = {relative:.4g} at {at_slack}; tightest "
        f"constant c with ||B||^2 >= c||A||^2 - D' on every step of every path seen: {constant:.4g} at {at_constant} "
        "(printed 1/8 = 0.125; the proof's chain gives 1/2 with D'/2)."
    )
    assert constant >= PRINTED_CONSTANT


@pytest.mark.claim("LJ22.L11")
def test_lemma11_proof_eq74_squared_offset_finding():
    """A finding about the proof: Eq. (74) with D = ||U(0)^T U(0) - Y(0) Y(0)^T||_2^2 as the pdf prints it; below
    1 the square makes D smaller than the unsquared D of Ji & Telgarsky's B.2, and the bound built from it fails. (a) At
    t = 0 of small starts whose U dominates (N(0, 0.01^2) weights, U x 8) on the three fixed shapes: (1/8)||A||^2 - D'^2
    > ||B||^2 there while ||U||_2^2 < 1/8. (b) On the path where the nightly targeted search found it (1 x 1 x 1 block,
    scale 1.5, U x 2^2.25, Y x 2^-2.25, Z x 2, seed 621; 20 RK4 steps to s = 3), at its worst step. The same points hold
    with D' unsquared (checked here too, the statement's cases). The lemma's statement does not fix D', so this is the
    erratum "proof step wrong, statement holds", with no verdict change."""
    record_note(L11_READING)
    cases = []
    for i, shape in enumerate(SHAPES):
        risk = block_risk(*shape, seed=i)
        m = block_matrices(risk.network, unbalanced_start(risk, 0.01, {"U": 3.0, "Y": 0.0, "Z": 0.0}, 40 + i), "B1.")
        cases.append((shape, 0.0, m, m))
    risk = block_risk(1, 1, 1, seed=621 % 8)
    theta0 = unbalanced_start(risk, 1.5, {"U": 2.25, "Y": -2.25, "Z": 1.0}, 621)
    path = [(s, block_matrices(risk.network, th, "B1.")) for s, _, th in path_points(risk, theta0, 3.0, 20)]
    m0 = path[0][1]
    offset0 = lemma11_offset(m0["U"], m0["Y"])

    def excess(m):
        a_sq, b_sq = lemma11_sides(m["U"], m["Y"], m["Z"])
        return PRINTED_CONSTANT * a_sq - offset0**2 - b_sq

    s_worst, m_worst = max(path, key=lambda point: excess(point[1]))
    cases.append(((1, 1, 1), s_worst, m_worst, m0))
    rows, numbers = [], []
    for shape, s, m, start in cases:
        offset = lemma11_offset(start["U"], start["Y"])
        a_sq, b_sq = lemma11_sides(m["U"], m["Y"], m["Z"])
        printed, corrected = PRINTED_CONSTANT * a_sq - offset**2, PRINTED_CONSTANT * a_sq - offset
        numbers.append((math.prod(shape), {"shape (a, b, c)": list(shape), "s": s, "D'": offset, "D'^2": offset**2,
                                           "(1/8)||A||^2 - D'^2": printed, "||B||^2": b_sq,
                                           "(1/8)||A||^2 - D'": corrected}))
        # the left sides range over [-D'^2, oo) and [-D', oo) (||A||^2 >= 0), as in ``lemma11_path``
        with finding("Lemma 11's proof, Eq. (74) as printed (D squared): the chain's bound fails"):
            check_inequality_rejected(printed, b_sq, lemma11_tolerance(m, start, printed, b_sq), shape=shape, s=s,
                                      D_prime=offset, D_prime_printed=offset**2, reading="Eq. (74): D squared",
                                      lhs_range=(-offset**2, math.inf))
        check_inequality(corrected, b_sq, lemma11_tolerance(m, start, corrected, b_sq), shape=shape, s=s,
                         D_prime=offset, reading="D' unsquared", lhs_range=(-offset, math.inf),
                         tolerance_source=L11_TOLERANCE)
        rows.append(f"{shape} at s = {s:g}: (1/8)||A||^2 - D'^2 = {printed:.3g} > ||B||^2 = {b_sq:.3g} (D' = "
                    f"{offset:.3g})")
    record_note("Finding (proof, Eq. (74)): the chain with D squared fails: " + "; ".join(rows) + ".")
    record_erratum(
        "LJ22.L11-E1", severity="proof step wrong, statement holds", location_kind="proof step",
        location="Lemma 11, proof, Eq. (74)",
        printed="By line B.2 in Ji & Telgarsky (2019), ||Y||_2^2 >= ||U||_2^2 - D, where D = ||U^T(0) U(0) - "
                "Y(0) Y^T(0)||_2^2 is fixed at initialization (and D' of the statement built from it)",
        corrected="D = ||U^T(0) U(0) - Y(0) Y^T(0)||_2, not squared, as in Ji & Telgarsky's B.2: with the square the "
                  "chain fails wherever D < 1 (small weights). Lemma 11 itself states only 'some D' >= 0 fixed at "
                  "initialization', and holds with the unsquared D",
        counterexample=min(numbers, key=lambda n: n[0])[1],
    )


@pytest.mark.claim("LJ22.L11", negative_control=True)
def test_lemma11_with_offset_from_another_initialization():
    """The same check with D' taken from a different (small, nearly balanced) initialization, at the initialization
    of an unbalanced start (U x6, Y and Z x0.2): there (1/8)||A||^2 - D'_other exceeds ||B||^2, so D' must be the path's
    own."""
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
        # the left side ranges over [-D'_other, oo); the bound ||B||^2 >= 0 is never below that floor (informative)
        check_inequality_rejected(
            lhs,
            rhs,
            sides_rounding(lhs, rhs),
            lhs_range=(-offset_other, math.inf),
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


CO1_RULE = TrendRule("increasing", alpha=0.05, min_effect=0.3, ceiling=1.0, saturation_band=1e-12)
"""Fixed before the data: alignment |<v_{j+1}, u_j>| of the last linear layers increases with s. The
alignment is at most 1: runs already aligned to rounding at every s could show no rise."""
CO1_WIDTHS = [3, 5, 4, 3, 1]  # W1 ReLU; W2, W3, W4 linear (K = 3)
CO1_LEVELS = [0.5] + doubling_levels(2.0, 3)
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
            theta, log_t, _ = normalized_flow(
                risk, theta0[None].clone(), torch.tensor([level], dtype=torch.float64), steps
            )
            w = network.edge_weights(theta[0])
            W = [network.weight_matrix(f"W{k}", w) for k in range(1, 5)]
            rows.append(
                {
                    "s": level,
                    "log10_t": float(log_t[0]) / LN10,
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


def record_levels_figure(rows: list[dict], panels: dict[str, str], name: str, caption: str, scale: str) -> None:
    """One panel per quantity (key -> label): min, median and max over the runs at each arc length s,
    against s, with the limit 1 the theorem predicts."""
    levels = sorted({r["s"] for r in rows})
    spread = {}
    for key in panels:
        values = [sorted(r[key] for r in rows if r["s"] == s) for s in levels]
        spread[key] = {
            "min": [v[0] for v in values],
            "median": [v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2 for v in values],
            "max": [v[-1] for v in values],
        }
    figure = plot_panels_over_time(
        [dict(x=levels, ys=spread[key], xlabel="arc length s of the gradient-flow path", ylabel=label, logx=True,
              reference=("limit 1", 1.0)) for key, label in panels.items()],
        title=caption,
    )
    record_figure(figure, name, caption=caption, scale=scale)


def time_to_alignment(rows: list[dict], keys: list[str], level: float = 0.99) -> str:
    """The first arc length at which every run's alignments (``keys``) exceed ``level``, with its flow times."""
    for s in sorted({r["s"] for r in rows}):
        at = [r for r in rows if r["s"] == s]
        if all(r[k] > level for r in at for k in keys):
            times = ", ".join(f"10^{r['log10_t']:.1f}" for r in at)
            return f"Alignment above {level} in every run first at arc length s = {s:g} (flow time t = {times})."
    return f"No level reached alignment above {level} in every run (longest s = {max(r['s'] for r in rows):g})."


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
        "'no zero entries' is not checked. Levels are arc lengths s of the path, one independent initialization per "
        "run."
    )
    levels = [r["s"] for r in co1_data]
    response = [min(r["align_23"], r["align_34"]) for r in co1_data]
    check_trend(
        levels,
        response,
        CO1_RULE,
        "alignment of the linear tail (min over W2-W3, W3-W4) increases along the path",
    )
    record_note(time_to_alignment(co1_data, ["align_23", "align_34"]))
    record_levels_figure(
        co1_data, {"align_23": "|<v_3, u_2>| (W2-W3)", "align_34": "|<v_4, u_3>| (W3-W4)"}, "tail-alignment",
        "alignment of the linear tail along the path",
        f"{len(co1_data)} runs, widths {CO1_WIDTHS}, s = {CO1_LEVELS}, RK4 10 steps per unit of s",
    )
    best = max(co1_data, key=lambda r: r["s"])
    record_note(
        f"At s = {best['s']}: flow time t = 10^{best['log10_t']:.2f}, alignments W2-W3 {best['align_23']:.4f}, W3-W4 "
        f"{best['align_34']:.4f}."
    )


@pytest.mark.claim("LJ22.CO1", negative_control=True)
def test_corollary1_trend_with_permuted_levels(co1_data):
    levels = permuted_levels([r["s"] for r in co1_data], seed=3)
    response = [min(r["align_23"], r["align_34"]) for r in co1_data]
    check_trend_rejected(levels, response, CO1_RULE, "same alignments against permuted arc lengths")


# ---------------------------------------------------------------------------------------------------
# LJ22.T2: eta = ReLU layer with biases, K = 0 convolutions, M = 1 linear ResNetFree block, Fin.
# ---------------------------------------------------------------------------------------------------


T2_LEVELS = doubling_levels(4.0, 4)


def t2_risk(seed):
    return theorem2_block_start(seed)[0]


T2_TOLERANCE = ("256 ulps of the sides plus the RK4 path's drift of the invariant Fin^T Fin - A A^T (nuclear and "
                "spectral norms: it enters D through Eqs. (83) and (84))")


def t2_tolerance(A, F, A0, F0, lhs, rhs):
    """Rounding of the norms, plus the numerical drift of the invariant Fin^T Fin - A A^T (Theorem 1 case 7)
    that Eq. (83) (its trace: nuclear norm) and Eq. (84) (spectral norm) use."""
    drift = (F.T @ F - A @ A.T) - (F0.T @ F0 - A0 @ A0.T)
    return (
        sides_rounding(lhs, rhs)
        + float(torch.linalg.matrix_norm(drift, ord="nuc"))
        + float(torch.linalg.matrix_norm(drift, ord=2))
    )


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq13_along_trajectories():
    c = THEOREM2_BLOCK_SHAPE[3]
    record_note(
        "Eq. (13) for j = the ResNetFree block (M = 1, K = 0): N_r = 0. The pdf prints V_c(j) = max dim W[M+1] "
        "prod_{j<k<=M} min(a_k, b_k) if j <= M, 1 otherwise; the proof's chain has the factor max dim W[M+1] on the "
        "step out of the last convolution, so M there is the count of convolutions, K in the statement. Read so "
        "(claims.lj22.eq13_vc_convolutions), j <= K never holds here and V_c = 1: Eq. (13) is ||A||_F^2 - "
        "||A||_2^2 <= D, with D = ||A(0)||_F^2 - ||Fin(0)||_F^2 + ||Fin(0)^T Fin(0) - A(0) A(0)^T||_2 from Eq. (83) "
        "and Eq. (84) (C = 1 since Fin has rank one). Read literally (j = 1 <= M = 1: V_c = max dim Fin = "
        f"c = {c}), (1/V_c)||A||_F^2 <= ||A||_2^2 since rank A <= c, so it holds with any D >= 0: vacuous. Both "
        "readings are checked on every step, with that D."
    )
    smallest = {"literal M": float("inf"), "K for M": float("inf")}
    largest_literal_lhs = -math.inf
    at_zero = []
    # Why a case can fail. A has c rows, so ||A||_2^2 <= ||A||_F^2 <= c ||A||_2^2: with V_c = 1 the left side
    # ||A||_F^2 - ||A||_2^2 lies in [0, oo) (at 0 to rounding, a rank-one A, it tests no D); literally (V_c = c)
    # it lies in (-oo, 0], so D >= 0 holds whatever A is: those checks are uninformative, as the note says.
    # One case per path (the checks at its points): the test's cases count paths.
    ranges = {"literal M": (-math.inf, 0.0), "K for M": (0.0, math.inf)}
    count_cases_as("paths")
    for seed in range(3 * trajectory_factor()):
        risk, theta0 = theorem2_block_start(seed)
        A0, F0 = theorem2_block_sides(risk.network, theta0)
        D = eq13_offset(A0, F0)
        rows = []
        with one_case():
            for s, log10_t, th in path_points(risk, theta0, 6.0, 60):
                A, F = theorem2_block_sides(risk.network, th)
                for form, vc in (("literal M", c), ("K for M", 1)):
                    lhs = frobenius_sq(A) / vc - spectral_sq(A)
                    slack = check_inequality(
                        lhs, D, t2_tolerance(A, F, A0, F0, lhs, D), lhs_range=ranges[form], form=form, seed=seed, s=s,
                        tolerance_source=T2_TOLERANCE
                    )
                    smallest[form] = min(smallest[form], slack)
                    if form == "literal M":
                        largest_literal_lhs = max(largest_literal_lhs, lhs)
                    if s == 0 and form == "K for M":
                        at_zero.append(slack)
                rows.append((s, log10_t, frobenius_sq(A), spectral_sq(A), norm_ratio(A)))
        record_series(
            "LJ22.T2 Eq. (13) trajectory",
            seed=seed,
            D=D,
            s=[r[0] for r in rows],
            log10_t=[r[1] for r in rows],
            A_frobenius_sq=[r[2] for r in rows],
            A_spectral_sq=[r[3] for r in rows],
            ratio=[r[4] for r in rows],
        )
    record_note(
        f"Smallest Eq. (13) slacks D - lhs (absolute; the tables give slacks relative to |lhs| + |rhs|): V_c read with "
        f"K for M (V_c = 1) {smallest['K for M']:.4g}, literal M (V_c = {c}) {smallest['literal M']:.4g}; at t = 0 the "
        f"first has slack {min(at_zero):.4g} >= 0, so this D makes Eq. (13) "
        "hold from t = 0 on."
    )
    record_erratum(
        "LJ22.T2-E2", severity="sign or typo", location_kind="statement",
        location="Theorem 2, V_c(j) in Eqs. (13)-(14)",
        printed="V_c(j) := max dim W[M+1] prod_{j < k <= M} min(a_k, b_k) if j <= M and 1 otherwise",
        corrected="V_c(j) := max dim W[K+1] prod_{j < k <= K} min(a_k, b_k) if j <= K and 1 otherwise (K, the number "
                  "of convolutions: a_k, b_k exist only for k <= K, and the proof's Eq. (84) puts the factor max dim "
                  "W[.+1] on the step out of the last convolution). Read literally, V_c of a block or fully-connected "
                  "layer is max dim of the next layer, and Eq. (13) for it holds with any D >= 0 (vacuous)",
        # no violation exists to show: read literally, Eq. (13) at a block is true for every A and says nothing
        counterexample=(
            f"none (the printed V_c makes Eq. (13) vacuous, not false): at the ResNetFree block (K = 0, M = 1) the "
            f"printed V_c = {c} = max dim of the next layer, and ||A||_F^2 / {c} - ||A||_2^2 <= 0 for every A with "
            f"{c} rows, so the bound holds with any D >= 0 (largest left side along the paths "
            f"{largest_literal_lhs:.6g}, smallest slack {smallest['literal M']:.6g}); with K for M (V_c = 1) the "
            f"left side is ||A||_F^2 - ||A||_2^2 >= 0 and the bound is tested (smallest slack "
            f"{smallest['K for M']:.6g})"),
    )


def t2_block_tolerance(m, m0, lhs, rhs) -> float:
    """Rounding of the norms plus the numerical drift of the three invariants the chain uses (the block's
    input side B^T B - W W^T, Lemma 11's U^T U - Y Y^T, Fin^T Fin - A A^T), each entering D one for one
    (the last with weight 1/8)."""
    def drift(f):
        return float(torch.linalg.matrix_norm(f(m) - f(m0), ord="nuc"))
    B = lambda k: torch.cat([k["B3.Y"], k["B3.Z"]], 0)  # noqa: E731
    A = lambda k: torch.cat([k["B3.U"], k["B3.Z"]], 1)  # noqa: E731
    return (
        sides_rounding(lhs, rhs)
        + drift(lambda k: B(k).T @ B(k) - k["W2"] @ k["W2"].T)
        + drift(lambda k: k["B3.U"].T @ k["B3.U"] - k["B3.Y"] @ k["B3.Y"].T)
        + drift(lambda k: k["Fin"].T @ k["Fin"] - A(k) @ A(k).T)
    )


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq13_through_a_block():
    record_note(
        "Eq. (13) for j = a linear fully-connected layer W2 followed by a linear ResNetFree block and Fin (M = 2, "
        "K = 0): N_r(W2) = 1, and V_c(W2) = 1 under both readings of V_c (K for M: j > K = 0; literally: max dim "
        "W[M+1] = max dim Fin = 1 here, c = 1, and no convolutional dimensions), so Eq. (13) reads (1/8)||W2||_F^2 - "
        "||W2||_2^2 <= D. D is telescoped from the proof's pieces at t = 0 (claims.lj22.eq13_offset_through_block: Eq. "
        "(83), the block's input-side invariance, Lemma 11 with its factor 8, Eq. (84)). W2 starts orthogonal (a flat "
        "spectrum, left side > 0); random starts make the left side negative from t = 0, where Eq. (13) says nothing."
    )
    smallest, at_zero, informative = float("inf"), [], 0
    # Why a case can fail: W2 is 10 x 10, so the left side (1/8)||W2||_F^2 - ||W2||_2^2 lies in
    # [-(7/8), 1/4] ||W2||_2^2, no fixed range (no ``lhs_range``): it fails where it exceeds D, possible only
    # where it is positive (the flat start makes it so at t = 0; the note counts those steps). One case per
    # path (the checks at its points): the test's cases count paths.
    count_cases_as("paths")
    for seed in range(3 * trajectory_factor()):
        risk, theta0 = theorem2_through_block_start(seed)
        m0 = theorem2_through_block_matrices(risk.network, theta0)
        D = eq13_offset_through_block(m0["W2"], m0["B3.Y"], m0["B3.U"], m0["B3.Z"], m0["Fin"])
        rows = []
        with one_case():
            for s, log10_t, th in path_points(risk, theta0, 6.0, 40):
                m = theorem2_through_block_matrices(risk.network, th)
                lhs = frobenius_sq(m["W2"]) / 8 - spectral_sq(m["W2"])
                slack = check_inequality(lhs, D, t2_block_tolerance(m, m0, lhs, D), seed=seed, s=s, layer="W2",
                                         tolerance_source="256 ulps of the sides plus the RK4 path's drift of the "
                                         "three invariants the chain uses (each enters D one for one)")
                informative += lhs > 0
                smallest = min(smallest, slack)
                if s == 0:
                    at_zero.append(slack)
                rows.append((s, log10_t, frobenius_sq(m["W2"]), spectral_sq(m["W2"]), lhs))
        record_series(
            "LJ22.T2 Eq. (13) through a block",
            seed=seed,
            D=D,
            s=[r[0] for r in rows],
            log10_t=[r[1] for r in rows],
            W2_frobenius_sq=[r[2] for r in rows],
            W2_spectral_sq=[r[3] for r in rows],
            lhs=[r[4] for r in rows],
        )
    record_note(
        f"Through a block: smallest Eq. (13) slack D - lhs {smallest:.4g} (absolute); at t = 0 the smallest slack is "
        f"{min(at_zero):.4g} >= 0, so the telescoped D makes Eq. (13) hold from t = 0 on; {informative} steps had a "
        f"positive left side "
        "(the rest are implied by D >= 0)."
    )


@pytest.mark.claim("LJ22.T2", negative_control=True)
def test_theorem2_eq13_through_a_block_with_offset_from_another_initialization():
    """The same check with D telescoped from a different, small initialization: fails at t = 0."""
    risk, theta0 = theorem2_through_block_start(0)
    m = theorem2_through_block_matrices(risk.network, theta0)
    g = torch.Generator().manual_seed(4343)
    other = theorem2_through_block_matrices(
        risk.network, 0.05 * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64))
    D_other = eq13_offset_through_block(other["W2"], other["B3.Y"], other["B3.U"], other["B3.Z"], other["Fin"])
    lhs = frobenius_sq(m["W2"]) / 8 - spectral_sq(m["W2"])
    # no fixed range of the left side (see the main test); D_other >= 0 could have accepted it
    check_inequality_rejected(lhs, D_other, sides_rounding(lhs, D_other), D_other=D_other, layer="W2")


# K >= 1 linear convolutions (M = 0): eta = ReLU layer with biases read as a 1-D grid, convolutions, Fin.


T2_CONV_WHOLE_INPUT = (3, 4, 4, ((1, 4),))
"""One convolution whose kernel spans the grid (a = b = 4, c = 1, n = 1), Fin 1 x 1: V_c = max dim Fin = 1."""


def t2_conv_tolerance(kernels, F, start_invariants, lhs, rhs) -> float:
    """Rounding of the norms plus the numerical drift of the chain's invariants Q_l (Theorem 1 cases 2 and 5;
    ``start_invariants`` at t = 0): each enters D at most once through Eq. (84) (spectral norm) and once through
    Eq. (83) (its trace)."""
    drift = sum(
        float(torch.linalg.matrix_norm(q - q0, ord="nuc"))
        for q, q0 in zip(convolution_chain_invariants(kernels, F), start_invariants)
    )
    return sides_rounding(lhs, rhs) + 2 * drift


def t2_conv_eq13_lhs(kernels, F, j: int, representation) -> tuple[float, float]:
    """(left side of Eq. (13), V_c) for the convolution j (0-based) with W[j] = ``representation``(T_j); D is
    ``eq13_offset_through_convolutions`` of the initialization."""
    vc = eq13_vc_convolutions(kernels, F, j)
    return frobenius_sq(kernels[j]) / vc - spectral_sq(representation(kernels[j])), vc


CONV_CORRECTION = (
    "For a convolutional layer j, W[j] in Eq. (13)/(14) is the flattening the proof's chain uses, T1 in "
    "R^{c x (a b)} (rows = output kernels: Lemma 10's T1, Theorem 1 case 2's W1), not Definition 8's R^{a x (b c)} "
    "(rows = input kernels); and V_c(j) = max dim W[K+1] prod_{j < k <= K} min(a_k, b_k) for j <= K, 1 otherwise "
    "(K, the number of convolutions, where the pdf prints M). With Definition 8's flattening the chain would need "
    "Lemma 10's factor min(a_j, b_j) for k = j as well."
)


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq13_through_convolutions():
    d, channels, length, convolutions = THEOREM2_CONV_CHAIN
    record_note(
        "Eq. (13) with K = 2 linear convolutions and M = 0 (eta = ReLU layer with biases read as a grid of "
        f"{channels} channels x {length} positions; kernels (c, b) = {list(convolutions)}, stride 1, no padding; Fin "
        "on the last grid). W[j] = T1_j in R^{c x (a b)}, the flattening the proof's chain pairs with the next layer; "
        "V_c read with K for the printed M (claims.lj22.eq13_vc_convolutions); D telescoped from the proof's "
        "pieces at t = 0 (claims.lj22.eq13_offset_through_convolutions: Theorem 1 cases 2 and 5 by Weyl, "
        "Lemma 10's 1/min(a_2, b_2), the rearranged Fin's rank, Eq. (83)). For j = 1, V_c = 4 against rank T1_1 <= 8; "
        "for j = 2 (the last convolution) V_c = max dim Fin >= c_2 >= rank T1_2, so Eq. (13) holds with any D >= 0 "
        "(vacuous: not checked, counted). The first kernel starts with a flat spectrum (left side > 0 at t = 0)."
    )
    smallest, at_zero, informative, vacuous = float("inf"), [], 0, 0
    # Why a case can fail: for C2, ||T||_F^2 / 4 - ||T1||_2^2 with rank T1 <= 8 lies in [-(3/4), 1] ||T1||_2^2, no
    # fixed range (no ``lhs_range``): it fails where it exceeds D, possible only where it is positive (the flat
    # first kernel makes it so at t = 0). The vacuous last convolution (V_c >= rank) is not checked. One case
    # per path (the checks at its points): the test's cases count paths.
    count_cases_as("paths")
    for seed in range(3 * trajectory_factor()):
        risk, theta0 = theorem2_convolution_start(THEOREM2_CONV_CHAIN, seed, flat_first_kernel=True)
        kernels0, F0 = convolution_chain(risk.network, theta0)
        start_invariants = convolution_chain_invariants(kernels0, F0)
        offsets = [eq13_offset_through_convolutions(kernels0, F0, j) for j in range(len(kernels0))]
        rows = []
        with one_case():
            for s, log10_t, th in path_points(risk, theta0, 8.0, 40):
                kernels, F = convolution_chain(risk.network, th)
                row = [s, log10_t]
                for j, D in enumerate(offsets):
                    lhs, vc = t2_conv_eq13_lhs(kernels, F, j, kernel_rows)
                    if vc >= min(kernel_rows(kernels[j]).shape):
                        vacuous += 1  # V_c >= rank: true for any D >= 0, not counted as evidence
                        continue
                    slack = check_inequality(
                        lhs, D, t2_conv_tolerance(kernels, F, start_invariants, lhs, D), seed=seed, s=s,
                        tolerance_source="256 ulps of the sides plus twice the RK4 path's drift of the chain's "
                        "invariants (Theorem 1 cases 2 and 5)",
                        layer=f"C{j + 2}", V_c=vc,
                    )
                    informative += lhs > 0
                    smallest = min(smallest, slack)
                    if s == 0:
                        at_zero.append(slack)
                    row += [lhs, D, norm_ratio(kernel_rows(kernels[j]))]
                rows.append(row)
        record_series(
            "LJ22.T2 Eq. (13) through convolutions",
            seed=seed,
            s=[r[0] for r in rows],
            log10_t=[r[1] for r in rows],
            C2_lhs=[r[2] for r in rows],
            C2_D=rows[0][3],
            C2_ratio=[r[4] for r in rows],
        )
    record_note(
        f"Through convolutions: smallest Eq. (13) slack D - lhs for C2 (j = 1) {smallest:.4g} (absolute); at t = 0 the "
        f"smallest slack is {min(at_zero):.4g} >= 0, so the telescoped D makes Eq. (13) hold from t = 0 on; "
        f"{informative} steps had a positive left side; at {vacuous} points the last convolution's Eq. (13) was "
        f"vacuous (V_c >= its rank)."
    )


@pytest.mark.claim("LJ22.T2", negative_control=True)
def test_theorem2_eq13_through_convolutions_with_offset_from_another_initialization():
    """The same check with D telescoped from a different, small initialization: fails at t = 0."""
    risk, theta0 = theorem2_convolution_start(THEOREM2_CONV_CHAIN, 0, flat_first_kernel=True)
    kernels, F = convolution_chain(risk.network, theta0)
    g = torch.Generator().manual_seed(4444)
    other = convolution_chain(risk.network,
                              0.05 * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64))
    lhs, vc = t2_conv_eq13_lhs(kernels, F, 0, kernel_rows)
    D_other = eq13_offset_through_convolutions(*other, 0)
    # no fixed range of the left side (see the main test); D_other >= 0 could have accepted it
    check_inequality_rejected(lhs, D_other, sides_rounding(lhs, D_other), D_other=D_other, layer="C2", V_c=vc)


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq13_for_a_convolution_with_definition8_flattening_is_rejected():
    """Eq. (13) as printed for a convolution, W[j] = Definition 8's R^{a x (b c)}, on one convolution whose kernel
    spans the grid (c = 1, n = 1: V_c = max dim Fin = 1, so Eq. (13) asks ||W||_F^2 - ||W||_2^2 <= D, i.e. W of
    rank one up to D): the same check fails far along the path; the counterexample behind the correction. With
    T1 in R^{c x (a b)} (one row here, c = 1) Eq. (13) holds trivially at these points."""
    counterexamples, ratios, numbers = [], [], []
    for seed in range(3):
        risk, theta0 = theorem2_convolution_start(T2_CONV_WHOLE_INPUT, seed, scale=0.3)
        kernels0, F0 = convolution_chain(risk.network, theta0)
        points = path_points(risk, theta0, 16.0, 64)
        for s, log10_t, th in points[16::16]:
            kernels, F = convolution_chain(risk.network, th)
            ratios.append((seed, s, norm_ratio(definition8_matrix(kernels[0])), frobenius_sq(kernels[0])))
        record_series(
            "LJ22.T2 Definition 8 flattening",
            seed=seed,
            s=[r[1] for r in ratios if r[0] == seed],
            ratio=[r[2] for r in ratios if r[0] == seed],
            T_frobenius_sq=[r[3] for r in ratios if r[0] == seed],
        )
        lhs, vc = t2_conv_eq13_lhs(kernels, F, 0, definition8_matrix)
        D = eq13_offset_through_convolutions(kernels0, F0, 0)
        start_invariants = convolution_chain_invariants(kernels0, F0)
        # with V_c = 1 the left side ||W||_F^2 - ||W||_2^2 is >= 0 (||W||_F = ||T||_F for any flattening)
        check_inequality_rejected(lhs, D, t2_conv_tolerance(kernels, F, start_invariants, lhs, D), seed=seed, s=s,
                                  flattening="Definition 8 (a x bc)", V_c=vc, log10_t=log10_t,
                                  lhs_range=(0.0, math.inf) if vc == 1 else None)
        counterexamples.append((seed, lhs, D))
        numbers.append({"a, b, c": list(kernels[0].shape), "seed": seed, "s": s, "log10 t": log10_t, "V_c": vc,
                        "||W||_F^2 - ||W||_2^2 (Definition 8's W)": lhs, "D": D,
                        "||W||_2^2 / ||W||_F^2": norm_ratio(definition8_matrix(kernels[0]))})
    declare_verdict("verified-with-correction", correction=CONV_CORRECTION)
    record_erratum(
        "LJ22.T2-E1", severity="statement false as printed", location_kind="statement",
        location="Theorem 2, Eqs. (13)-(14) for a convolutional layer (W[j] from Definition 8)",
        printed="W[j] the matrix representation of the j-th layer (Definition 8: for a convolutional tensor T in "
                "R^{a x b x c}, the flattening to an element of R^{a x (b x c)})",
        corrected="for a convolutional layer, W[j] is the flattening T1 in R^{c x (a b)} (rows = output kernels: Lemma "
                  "10's T1, Theorem 1 case 2's W1), the one the proof's chain pairs with the next layer; with "
                  "Definition 8's R^{a x (b c)} the chain would need Lemma 10's factor min(a_j, b_j) for k = j as well",
        counterexample=numbers[0],
    )
    record_note(
        "Definition 8's flattening in Eq. (13) (one convolution, a = b = 4, c = 1, kernel spanning the grid, N(0, "
        "0.3^2) start, 64 RK4 steps to s = 16): left side vs D at s = 16: "
        + ", ".join(f"seed {seed}: {lhs:.3g} vs {D:.3g}" for seed, lhs, D in counterexamples)
        + ". ||W||_2^2/||W||_F^2 of that flattening along the path (seed, s, ratio, ||T||_F^2): "
        + ", ".join(f"({seed}, {s:g}, {r:.3f}, {f:.3g})" for seed, s, r, f in ratios)
        + ": the ratio stays well below 1 = 1/min(rank, V_c) (Eq. (14) as printed) while the norm grows, so no "
        "constant D makes Eq. (13) hold with this flattening."
    )


T2_STEPS_PER_UNIT = 4
"""RK4 steps per unit of arc length for the trend runs (h = 1/4)."""


def t2_trend_row(risk: Risk, theta0: torch.Tensor, level: float, steps_per_unit: int) -> dict:
    theta, log_t, _ = normalized_flow(
        risk, theta0[None].clone(), torch.tensor([level], dtype=torch.float64), max(8, int(steps_per_unit * level))
    )
    A, F = theorem2_block_sides(risk.network, theta[0])
    return {
        "s": level,
        "log10_t": float(log_t[0]) / LN10,
        "ratio": norm_ratio(A),
        "align": layer_alignment(A, F),
        "A_frobenius_sq": frobenius_sq(A),
        "log_risk": float(torch.log(risk(theta[0]))),
    }


def t2_start(i: int, k: int) -> tuple[Risk, torch.Tensor]:
    risk = t2_risk(seed=0)
    g = torch.Generator().manual_seed(900 + 10 * i + k)
    return risk, torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)


def t2_trend_runs():
    """Per arc length, 2 independent initializations (8 under nightly), each followed to s = level; the
    path is followed in log space (claims.lj22._alignment.descent_direction), so it goes on where the logistic
    gradient underflows in float64 (s of about 10 and beyond here, flow times t beyond 10^300)."""
    return [
        t2_trend_row(*t2_start(i, k), level, T2_STEPS_PER_UNIT)
        for i, level in enumerate(T2_LEVELS)
        for k in range(2 * trajectory_factor())
    ]


@pytest.fixture(scope="module")
def t2_data():
    return t2_trend_runs()


T2_RULE = TrendRule("increasing", alpha=0.05, min_effect=0.3, ceiling=1.0, saturation_band=1e-12)
"""Fixed before the data: ||A||_2^2/||A||_F^2 (Eq. (14)) and |<v_Fin, u_A>| (Eq. (15)) increase with s; both
are at most 1, and runs at 1 to rounding everywhere could show no rise."""


@pytest.mark.claim("LJ22.T2")
def test_theorem2_eq14_eq15_trends(t2_data):
    for row in t2_data:
        record_series("LJ22.T2 trend run", **row)
    levels = [r["s"] for r in t2_data]
    with one_case():  # two statements on the same runs: the runs are counted once
        check_trend(
            levels,
            [r["ratio"] for r in t2_data],
            T2_RULE,
            "Eq. (14): ||A||_2^2/||A||_F^2 increases along the path",
        )
        check_trend(
            levels, [r["align"] for r in t2_data], T2_RULE, "Eq. (15): |<v_Fin, u_A>| increases along the path"
        )
    for level in sorted(set(levels)):
        at = [r for r in t2_data if r["s"] == level]
        record_note(
            f"At s = {level:g}: ratios {[round(r['ratio'], 4) for r in at]}, alignments "
            f"{[round(r['align'], 4) for r in at]}, flow time log10 t {[round(r['log10_t'], 1) for r in at]}, "
            f"||A||_F^2 {[round(r['A_frobenius_sq'], 1) for r in at]}."
        )
    record_note(time_to_alignment(t2_data, ["align"]))
    record_levels_figure(
        t2_data, {"ratio": "||A||_2^2 / ||A||_F^2 (Eq. (14))", "align": "|<v_Fin, u_A>| (Eq. (15))"}, "ratio-alignment",
        "norm ratio and alignment of the ResNetFree block along the path",
        f"{len(t2_data)} runs, shape {THEOREM2_BLOCK_SHAPE}, s = {T2_LEVELS}, RK4 h = 1/{T2_STEPS_PER_UNIT}",
    )
    with finding("the values at the longest arc length do not hinge on the step"):
        # Far along the path the per-example weights e^{-z_i} differ by many orders, so the direction turns
        # sharply where the smallest margin changes hands: the follower resolves that only to its step. The
        # trend's numbers must not rest on the step: half the step moves them by less than the trend's span.
        risk, theta0 = t2_start(len(T2_LEVELS) - 1, 0)
        coarse = t2_trend_row(risk, theta0, max(levels), T2_STEPS_PER_UNIT)
        fine = t2_trend_row(risk, theta0, max(levels), 2 * T2_STEPS_PER_UNIT)
        first = [r for r in t2_data if r["s"] == min(levels)]
        for key in ("ratio", "align"):
            span = min(r[key] for r in [coarse, fine]) - max(r[key] for r in first)
            # the ratio and the alignment lie in [0, 1], so their difference |fine - coarse| does too
            check_inequality(abs(fine[key] - coarse[key]), span, 0.0, lhs_range=(0.0, 1.0), quantity=key,
                             h=1 / T2_STEPS_PER_UNIT,
                             coarse=coarse[key], fine=fine[key], first_level_max=max(r[key] for r in first))
        record_note(
            f"Step sensitivity at s = {max(levels):g}: h = 1/{T2_STEPS_PER_UNIT} vs 1/{2 * T2_STEPS_PER_UNIT} gives "
            f"ratio {coarse['ratio']:.4f} vs {fine['ratio']:.4f}, alignment {coarse['align']:.5f} vs "
            f"{fine['align']:.5f}, log10 t {coarse['log10_t']:.1f} vs {fine['log10_t']:.1f}. The follower equals the "
            f"plain flow (DOP853) "
            "where that can be integrated (tests/unit/lj22/test_alignment.py); beyond, the values carry this step "
            "dependence."
        )


@pytest.mark.claim("LJ22.T2", negative_control=True)
def test_theorem2_eq13_with_offset_from_another_initialization():
    """The proof's form of Eq. (13) with D from a different, small initialization: fails at t = 0."""
    risk = t2_risk(0)
    g = torch.Generator().manual_seed(4242)
    theta0 = torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
    A, F = theorem2_block_sides(risk.network, theta0)
    other = 0.05 * torch.randn(risk.network.n_parameters, generator=g, dtype=torch.float64)
    D_other = eq13_offset(*theorem2_block_sides(risk.network, other))
    lhs = frobenius_sq(A) - spectral_sq(A)
    # ||A||_F^2 - ||A||_2^2 >= 0: a D_other below 0 would reject trivially (it is >= 0 here)
    check_inequality_rejected(
        lhs, D_other, sides_rounding(lhs, D_other), lhs_range=(0.0, math.inf), D_other=D_other,
        D_own=eq13_offset(A, F)
    )
