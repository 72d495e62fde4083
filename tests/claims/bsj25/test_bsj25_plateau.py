"""BSJ25 Section 5, conjecture (2)'s last paragraph (BSJ25.S5P): 'if s*(L) = s*(L_0) for all L >= L_0, then
Proposition 3.2 already implies that there is an optimal escape direction where all layers l >= L_0 are rank 1.
Conversely, if there is an optimal escape direction with only rank 1 layers after the L_0-th layer, then
s*(L) = s*(L_0) for all L >= L_0.'

What each direction means (``claims.bsj25._tails``'s module docstring has the derivations):

- Forward: at a depth L > L_0, Appendix A.3's construction (``deepened_start``) applied to a depth-L_0 optimum
  has rank-one layers l >= L_0 - 1 and speed at least s*(L_0); it is optimal at depth L exactly when
  s*(L) = s*(L_0). Evidence: data where cold-started optima show the plateau (BSJ25.P32's cold-start data,
  s* = 0.48695 at every depth 2-5); the extension is judged against the cold-started depth-L optimum.
- Converse: a rank-one layer W_l = a b^T followed by a ReLU gives relu(a r^T) = a+ r+^T + a- r-^T, so a rank-one
  tail computes a kinked scalar map of r that no depth-L_0 network has after its last ReLU; Example 1's Eq. (2)
  (W_2, W_3 rank one, Z_2 = (|x_1| - |x_2|) / 4 of both signs) has speed 1/2 > s*(2) = sqrt(2) - 1. What holds
  is the converse with the tail's ReLUs acting as the identity (Z_l = Z^s_l for L_0 <= l < L, as in A.3's
  construction): then s*(L') = s*(L_0) for L_0 <= L' <= L.

Optimality: a depth-L optimum counts as s*(L) only where its restarts support it (at least ``SUPPORT`` of the
solver's restarts end within its agreement of it); s*(2) is the best single path's speed (exhaustive search of
its first-layer direction, d_in <= 4; ``claims.bsj25._tails``: depth-2 optima are single units); Example 1's
depth-3 optimum 1/2 is BSJ25.FN2's (256-restart searches at widths 4-6 find nothing faster) and the paper's own
(Section 1.3: 'whose optimal escape direction').
"""

from __future__ import annotations

import functools

import pytest
import torch

from claims import (
    check_close,
    check_inequality,
    check_inequality_rejected,
    check_power,
    check_property,
    check_rejected,
    declare_verdict,
    finding,
    gamma,
    record_case,
    record_erratum,
    record_note,
    record_series,
)
from claims.bsj25 import (
    deepened_start,
    example1_instance,
    layer_ratios,
    linear_tail,
    localized_loss,
    random_instance,
    rank_one_tail,
    restarts_reaching,
    single_path_direction,
    single_path_speed,
    solve_escape,
    speed_error,
    speed_upper_bound,
    unflatten,
)
from claims.evidence import count_cases_as, one_case, trajectory_factor

S5P = pytest.mark.claim("BSJ25.S5P")
S5P_CONTROL = pytest.mark.claim("BSJ25.S5P", negative_control=True)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F64 = torch.float64

PLATEAU_SEED = 2100
PLATEAU_DATA = {"d_in": 4, "n_samples": 10, "d_out": 2}
"""BSJ25.P32's cold-start data (``random_instance``: X 4 x 10 standard normal, G 2 x 10 standard normal / N)."""
PLATEAU_WIDTHS = (3, 6)
RESTARTS = 32
"""Gaussian restarts per (width, depth), seed 100 + L: the cold starts of BSJ25.P32."""
SUPPORT = 2
"""A cold-started optimum counts as s*(L) when at least this many restarts end within the solver's agreement
(1e-3 relative) of it: it is not one restart's accident. The cold searches' power (``check_power``), fixed
before the data: every optimum is supported so, and at depth 2 at least this many restarts end in the basin
of the exhaustive single path's speed s*(2) (``restarts_reaching``). Observed: at least 15 of 32 at depths
2-5 (9 at depths 6-8, the cold starts of BSJ25.P32), under 1 and 2 threads and ATen's default kernels alike.
A pair (L_0, L) with an unsupported optimum, or where the plateau s*(L) = s*(L_0) is not observed to the
speeds' float64 errors (the statement's hypothesis, or a search that kept another basin), is uninformative
(``NO_PLATEAU``)."""
NO_PLATEAU = "the plateau s*(L) = s*(L_0) is not observed on supported optima at this pair (hypothesis unmet)"


def plateau_depths() -> tuple[int, ...]:
    return tuple(range(2, 9)) if trajectory_factor() > 1 else (2, 3, 4, 5)


@functools.cache
def plateau_optima():
    """(instance, {(width, depth): cold-started optimum}, (s*(2), its float64 error)): the solver from
    ``RESTARTS`` Gaussian restarts only at every depth and width; s*(2) from the exhaustive single path."""
    instance = random_instance(PLATEAU_SEED, **PLATEAU_DATA)
    optima = {(width, depth): solve_escape(instance.x, instance.g, instance.shapes(depth, width), restarts=RESTARTS,
                                           seed=100 + depth)
              for width in PLATEAU_WIDTHS for depth in plateau_depths()}
    return instance, optima, single_path_reference(instance)


def single_path_reference(instance) -> tuple[float, float, torch.Tensor]:
    """(s*(2) = max_q ||G relu(X^T q)||, its float64 error gamma_{d_in + N + 4} ||X||_F ||G||_F, q)."""
    speed, q = single_path_speed(instance.x, instance.g)
    x = instance.x
    return speed, gamma(x.shape[0] + x.shape[1] + 4) * instance.data_norm, q


def speed_of(rho, shapes, instance) -> float:
    return -float(localized_loss(unflatten(rho, shapes), instance.x, instance.g))


def supported(found) -> bool:
    return found.agreeing >= SUPPORT


# ---------------------------------------------------------------- forward: plateau => rank-one optimal direction


def extension_check(shallow_rho, shallow_shapes, deep_speed, deep_error, deep_shapes, instance, check=check_inequality,
                    **details):
    """The forward direction at one (L_0, L): Appendix A.3's extension of the depth-L_0 direction to depth L
    (``deepened_start``: the construction, rescaled to the radius-sqrt(L) sphere) has rank-one layers l >= L_0
    (``rank_one_tail`` <= L_0; a property, judged in the evidence test only) and is optimal at depth L: the
    best speed found at depth L is at most its speed, s(L) <= s(extension), within the float64 errors of both
    speeds (``speed_error``). lhs_range: a speed lies in [0, ||G||_F ||X||_op] (``speed_upper_bound``), so a
    case fails wherever the depth-L search found a faster direction. Returns (the extension's speed, its tail)."""
    x, g = instance.x, instance.g
    depth0 = len(shallow_shapes)
    rho = deepened_start(shallow_rho, shallow_shapes, x, g, deep_shapes)
    speed = speed_of(rho, deep_shapes, instance)
    tail = rank_one_tail(unflatten(rho, deep_shapes))
    if check is check_inequality:
        check_property(tail <= depth0, "the extension's layers l >= L_0 are rank one", rank_one_from=tail,
                       **details)
    tolerance = speed_error(rho, deep_shapes, x, g) + deep_error
    check(deep_speed, speed, tolerance, lhs_range=(0.0, speed_upper_bound(x, g)),
          statement="s*(L) <= s(A.3 extension of the depth-L_0 optimum)", extension_speed=speed, **details)
    return speed, tail


@S5P
def test_plateau_gives_an_optimal_direction_with_rank_one_tail():
    """Forward direction on data where s* plateaus (BSJ25.P32's cold-start data): for every pair L_0 < L of depths
    2-5 (2-8 under nightly) and widths 3 and 6 where the plateau s*(L) = s*(L_0) is observed (checked, within
    the speeds' float64 errors, on optima the restarts support), A.3's extension of the depth-L_0 optimum has
    rank-one layers l >= L_0 and no cold-started depth-L optimum is faster. Also recorded: whether the
    cold-started depth-L optimum itself has rank-one layers from L_0 on (more than 'there is')."""
    instance, optima, (path, path_error, _) = plateau_optima()
    count_cases_as("checks")
    rows, cold_tails = [], []
    power = [found.agreeing for found in optima.values()]
    power += [restarts_reaching(found, path) for (_, depth), found in optima.items() if depth == 2]
    check_power(min(power) >= SUPPORT, f"at least {SUPPORT} restarts agree with every cold optimum, and at "
                "depth 2 with the exhaustive single path's speed s*(2)", fewest=min(power), restarts=RESTARTS)
    for (width, depth), found in optima.items():
        error = speed_error(found.rho, found.shapes, instance.x, instance.g)
        if depth == 2 and supported(found) and restarts_reaching(found, path) >= SUPPORT:
            with finding("the supported depth-2 optima are the best single path"):
                check_close(found.speed, path, error + path_error, identity="s*(2) = max_q ||G relu(X^T q)||",
                            width=width)
        rows.append({"width": width, "depth": depth, "speed": found.speed, "agreeing": found.agreeing,
                         "restarts": found.restarts, "rank_one_from": rank_one_tail(found.weights),
                         "linear_from": linear_tail(found.weights, instance.x)})
    for width in PLATEAU_WIDTHS:
        depths = plateau_depths()
        for depth0 in depths:
            shallow = optima[(width, depth0)]
            for depth in (d for d in depths if d > depth0):
                deep = optima[(width, depth)]
                deep_error = speed_error(deep.rho, deep.shapes, instance.x, instance.g)
                shallow_error = speed_error(shallow.rho, shallow.shapes, instance.x, instance.g)
                plateau = abs(deep.speed - shallow.speed) <= deep_error + shallow_error  # to their errors
                if not (plateau and supported(shallow) and supported(deep)):
                    with one_case():
                        record_case(abs(deep.speed - shallow.speed), deep_error + shallow_error,
                                    uninformative=NO_PLATEAU, check_kind="inequality", width=width, L0=depth0,
                                    L=depth)
                    continue
                with one_case():
                    extension_check(shallow.rho, shallow.shapes, deep.speed, deep_error, deep.shapes, instance,
                                    width=width, L0=depth0, L=depth)
                cold_tails.append(rank_one_tail(deep.weights) <= depth0)
    record_series("S5P plateau data: cold-started optima by depth", rows=rows)
    record_note(
        f"Plateau data ({instance.name}, widths {list(PLATEAU_WIDTHS)}, depths {list(plateau_depths())}, {RESTARTS} "
        f"cold restarts each): s* = {min(r['speed'] for r in rows):.15g}..{max(r['speed'] for r in rows):.15g} at "
        f"every depth (the exhaustive single path: {path:.15g}), so the plateau holds from L_0 = 2; restarts agreeing "
        f"with the optimum {min(r['agreeing'] for r in rows)}-{max(r['agreeing'] for r in rows)} of {RESTARTS}. The "
        f"A.3 extension of every depth-L_0 optimum is rank one from L_0 on and as fast as the cold-started depth-L "
        f"optimum. The cold-started optima themselves: rank one from layer "
        f"{sorted({r['rank_one_from'] for r in rows})} on, ReLU the identity from layer "
        f"{sorted({r['linear_from'] for r in rows})} on (single paths); {sum(cold_tails)} of {len(cold_tails)} "
        "(L_0, L) pairs have a cold optimum with rank-one layers l >= L_0."
    )


def example1_depth_two(instance):
    """Example 1's depth-2 optimum, the best single path (width 4): (rho, shapes, s*(2) = sqrt(2) - 1)."""
    speed, _, q = single_path_reference(instance)
    shapes = instance.shapes(2, 4)
    return single_path_direction(q, instance.x, instance.g, shapes), shapes, speed


def eq2_direction() -> tuple[torch.Tensor, tuple]:
    """Example 1's Eq. (2) (W_1 = (e_1, e_2, -e_1, -e_2)^T / 2, W_2 = (1, -1, 1, -1) / 2) with W_3 = -1, the sign
    that BSJ25.EX1-E1 corrects (as printed, W_3 = 1 gives L_0 = +1/2 with G = ((-1)^j)): ||theta||^2 = 3, speed 1/2,
    output -(|x_1| - |x_2|)_+ / 4."""
    w1 = 0.5 * torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], dtype=F64)
    w2 = 0.5 * torch.tensor([[1.0, -1.0, 1.0, -1.0]], dtype=F64)
    w3 = -torch.ones(1, 1, dtype=F64)
    return torch.cat([w.reshape(-1) for w in (w1, w2, w3)]), ((4, 2), (1, 4), (1, 1))


@functools.cache
def example1_depth_three():
    """Example 1 at depth 3: [(label, rho, shapes, speed)] for Eq. (2) (W_3 = -1) and the solver's optimum (width 4, 32
    restarts, seed 0: BSJ25.S13's)."""
    instance = example1_instance()
    rho, shapes = eq2_direction()
    found = solve_escape(instance.x, instance.g, instance.shapes(3, 4), restarts=32)
    return [("Eq. (2), W_3 = -1", rho, shapes, speed_of(rho, shapes, instance)),
            ("solver optimum", found.rho, found.shapes, found.speed)]


@S5P_CONTROL
def test_extension_where_s_star_increases_is_rejected():
    """Control: the same extension check where the plateau hypothesis fails, on Example 1 from L_0 = 2:
    s*(2) = sqrt(2) - 1 (the best single path) < s*(3) = 1/2 (Eq. (2) and the solver's optimum), so A.3's
    extension of the depth-2 optimum, speed sqrt(2) - 1, is beaten at depth 3: rejected."""
    instance = example1_instance()
    count_cases_as("checks")
    shallow_rho, shallow_shapes, shallow_speed = example1_depth_two(instance)
    for label, rho, shapes, speed in example1_depth_three():
        extension_check(shallow_rho, shallow_shapes, speed, speed_error(rho, shapes, instance.x, instance.g), shapes,
                        instance, check=check_inequality_rejected, direction=label, L0=2, L=3,
                        perturbed="no plateau: s*(3) > s*(2)")
    record_note(f"Negative control: Example 1, s*(2) = {shallow_speed:.16g} < s*(3) = 1/2: the A.3 extension of the "
                "depth-2 optimum is slower than Eq. (2) and the solver's depth-3 optimum, rejected.")


# ---------------------------------------------------------------- converse: rank-one tail => plateau


def plateau_check(deep_speed, shallow_speed, tolerance, check=check_close, **details):
    """The converse's conclusion at one (L_0, L): s*(L) = s*(L_0), relative to s*(L_0), within the float64
    errors of both speeds (``tolerance``, absolute, divided here)."""
    return check(deep_speed, shallow_speed, tolerance / shallow_speed, scale=shallow_speed,
                 identity="s*(L) = s*(L_0)", **details)


CORRECTION = (
    "the converse needs the tail's ReLUs to act as the identity: if an optimal depth-L direction has Z_l = Z^s_l "
    "for L_0 <= l < L (as A.3's construction has), then s*(L') = s*(L_0) for L_0 <= L' <= L (for all L' >= L_0 if "
    "there is one at every depth); rank-one layers alone do not suffice, since relu(a r^T) = a+ r+^T + a- r-^T lets a "
    "rank-one tail compute a kinked scalar map of r (Example 1: W_2, W_3 rank one, s*(3) = 1/2 > s*(2) = sqrt(2) - 1)"
)


@S5P
def test_rank_one_tail_gives_plateau_only_with_identity_relus():
    """The converse. As printed it fails on the paper's own Example 1: Eq. (2) and the solver's depth-3 optimum
    (speed 1/2, optimal by BSJ25.FN2's search and by Section 1.3) have rank-one layers from L_0 = 2 on, yet
    s*(3) = 1/2 differs from s*(2) = sqrt(2) - 1 (the best single path): a counterexample. The corrected
    converse (the ReLUs of layers L_0..L-1 act as the identity; ``linear_tail``) holds at every cold-started
    optimum of the plateau data whose restarts support it: s*(L) = s*(L_0) for every L_0 >= 2 from which its tail is
    linear. Layers where the ReLU cuts are reported (Eq. (2): Z_2 = (|x_1| - |x_2|) / 4)."""
    example = example1_instance()
    s2, s2_error, _ = single_path_reference(example)
    count_cases_as("checks")
    counterexample = None
    for label, rho, shapes, speed in example1_depth_three():
        weights = unflatten(rho, shapes)
        rank_from, linear_from = rank_one_tail(weights), linear_tail(weights, example.x)
        check_property(rank_from <= 2, "the printed hypothesis: layers l >= L_0 = 2 rank one", direction=label,
                       rank_one_from=rank_from)
        error = s2_error + speed_error(rho, shapes, example.x, example.g)
        plateau_check(speed, s2, error, check=check_rejected, printed="s*(3) = s*(2)", direction=label, L0=2, L=3,
                      rank_one_from=rank_from, linear_from=linear_from)
        counterexample = counterexample or {
            "data": "Example 1 (unit circle, 8 points)", "direction": label, "depth L": 3, "L_0": 2,
            "ranks of W_1, W_2, W_3": [int(torch.linalg.matrix_rank(w)) for w in weights],
            "s (the depth-3 optimum)": speed, "s*(2) (best single path)": s2,
            "||Z^s_2 - Z_2||^2 / ||Z_2||^2": layer_ratios(weights, example.x)[1].nonlinearity,
            "optimal at depth 3": "BSJ25.FN2 (256-restart searches at widths 4-6: nothing faster than 1/2) and Section "
                                  "1.3 ('whose optimal escape direction'); s*(3) >= 1/2 > s*(2) whatever the optimum"}
    instance, optima, _ = plateau_optima()
    held, lines = 0, []
    for (width, depth), found in optima.items():
        if depth == min(plateau_depths()) or not supported(found):
            continue
        linear_from = linear_tail(found.weights, instance.x)
        for depth0 in range(max(linear_from, 2), depth):
            shallow = optima[(width, depth0)]
            if not supported(shallow):
                continue
            error = speed_error(found.rho, found.shapes, instance.x, instance.g) + speed_error(
                shallow.rho, shallow.shapes, instance.x, instance.g)
            with one_case():
                plateau_check(found.speed, shallow.speed, error, width=width, L0=depth0, L=depth,
                              linear_from=linear_from)
            held += 1
        lines.append(f"width {width} L = {depth}: ReLU the identity from layer {linear_from}")
    assert held, "no optimum of the plateau data with a linear tail from some L_0 >= 2"
    declare_verdict("verified-with-correction", correction="Section 5's converse: " + CORRECTION)
    record_erratum(
        "BSJ25.S5P-E1", severity="hypothesis missing", location_kind="hypothesis",
        location="Section 5, conjecture (2), the paragraph after it ('Conversely, ...')",
        printed="if there is an optimal escape directions with only rank 1 layers after the L_0-th layer, then "
                "s*(L) = s*(L_0) for all L >= L_0",
        corrected="if there is an optimal depth-L escape direction whose ReLUs act as the identity after layer L_0 - 1 "
                  "(Z_l = Z^sigma_l for L_0 <= l < L, as in Proposition 3.2's construction), then s*(L') = s*(L_0) for "
                  "L_0 <= L' <= L: its output is W_L..W_{L_0} Z^sigma_{L_0-1}, a depth-L_0 network's with no larger "
                  "product of layer norms; rank one alone does not suffice, since relu(a r^T) = a+ r+^T + a- r-^T",
        counterexample=counterexample,
    )
    record_note(
        f"Converse as printed: Example 1 at depth 3 (Eq. (2) and the solver's optimum, s = 1/2; ranks (2, 1, 1)) has "
        f"rank-one layers from L_0 = 2 on, but s*(2) = {s2:.16g} (the best single path, exhaustive over q in S^1) < "
        "1/2: the ReLU of layer 2 cuts (Z_2 = (|x_1| - |x_2|) / 4 has both signs), and the rank-one tail computes "
        "relu(r) of a depth-2 network's output r. Corrected converse (ReLUs the identity from L_0 on): "
        f"{held} (optimum, L_0) cases on the plateau data hold ({'; '.join(lines)})."
    )


@S5P_CONTROL
def test_rank_one_tail_whose_relu_cuts_is_rejected():
    """Control for the corrected converse: the same plateau check where its added hypothesis fails (a ReLU of the
    tail cuts), with only rank one left: Example 1's depth-3 optima from L_0 = 2 (Z_2 has both signs), and the
    plateau data's single paths from L_0 = 1 (rank one from layer 1 on, Z_1 cut; s*(1) = ||G X^T||_F, the linear
    depth-1 network W_1 X on ||W_1||_F = 1): s*(L) = s*(L_0) rejected."""
    count_cases_as("checks")
    example = example1_instance()
    s2, s2_error, _ = single_path_reference(example)
    for label, rho, shapes, speed in example1_depth_three():
        error = s2_error + speed_error(rho, shapes, example.x, example.g)
        plateau_check(speed, s2, error, check=check_rejected, direction=label, L0=2, L=3,
                      perturbed="the ReLU of layer 2 cuts")
    instance, optima, _ = plateau_optima()
    x, g = instance.x, instance.g
    s1 = float(torch.linalg.matrix_norm(g @ x.T))
    s1_error = gamma(x.shape[1] + 4) * float(torch.linalg.matrix_norm(g.abs() @ x.abs().T))
    rejected = []
    for (width, depth), found in optima.items():
        if rank_one_tail(found.weights) > 1 or linear_tail(found.weights, x) <= 1:
            continue
        plateau_check(found.speed, s1, s1_error + speed_error(found.rho, found.shapes, x, g), check=check_rejected,
                      width=width, L0=1, L=depth, perturbed="the ReLU of layer 1 cuts")
        rejected.append(depth)
    record_note(f"Negative control: Example 1's depth-3 optima against s*(2) = {s2:.16g}, and {len(rejected)} "
                f"single-path optima of the plateau data (rank one from layer 1) against s*(1) = ||G X^T||_F = "
                f"{s1:.6g}: rejected.")
