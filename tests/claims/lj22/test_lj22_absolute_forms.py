"""LJ22 Appendix B, the remark after the proof of Lemma 1 (LJ22.AB): "one can show all the results for Theorem 1,
Theorem 2 and Corollary 1 to the same matrix representation as presented in the paper but with the absolute signs
around them", read as the matrix representations with entrywise absolute values |W|.

- Theorem 1 (Eq. (6)) with |W|: the rate of [|W2|^T |W2| - |W1| |W1|^T]_active along gradient flow, on drawn
  networks of every case of Theorem 1 with every weight nonzero (the signs are then constant near the instant:
  Assumption 1 holds on an interval, and a nonzero rate contradicts Eq. (6) there). Its diagonal is Eq. (6)'s own
  (|w|^2 = w^2) and is conserved; its off-diagonal entries sum_a |w_au w_av| - sum_b |w_ub w_vb| are not when the
  signs of the products differ: a counterexample to the remark, recorded as an erratum.
- Theorem 2 (Eqs. (13)-(14)) and Corollary 1 (Eq. (15)) with |W|: they follow from the printed forms by
  inequalities true for every matrix, judged on drawn matrices: || |W| ||_F = ||W||_F and ||W||_2 <= || |W| ||_2
  (so Eq. (13)'s left side only decreases), 1 / rank |W| <= || |W| ||_2^2 / ||W||_F^2 <= 1 (Eq. (14)'s bounds
  with rank |W|), || |W| / ||W||_F - |u| |v|^T ||_F <= || W / ||W||_F - u v^T ||_F and |<v, u>| <= <|v|, |u|> <= 1
  (Eq. (15)). The control: the perturbed statement || |W| ||_2 <= ||W||_2 on matrices with mixed signs.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from claims import (
    check_conserved_rate, check_conserved_rate_rejected, check_inequality, check_inequality_rejected, declare_verdict,
    record_erratum, record_note,
)
from claims.lj22 import gram_balance, instantaneous_rate
from claims.models import EPS, LINEAR, active_neurons, theorem1_pair
from claims.strategies import THEOREM1_CASES, risk_instances, sequential_networks

AB = pytest.mark.claim("LJ22.AB")
CASES = sorted(THEOREM1_CASES)


def absolute_rate(risk, theta, case, absolute=True):
    """The rate of Eq. (6)'s [W2^T W2 - W1 W1^T]_active (``absolute``: of |W2|^T |W2| - |W1| |W1|^T)."""
    pair = theorem1_pair(risk.network, case)
    active = active_neurons(risk.network, pair.neurons, risk.with_preactivations(theta)[1])
    wrap = (lambda f: (lambda w: f(w).abs())) if absolute else (lambda f: f)
    balance = gram_balance(f"Eq. (6) {case}, |W|", wrap(pair.first), wrap(pair.second), active)
    return instantaneous_rate(risk, balance, theta), len(active)


@AB
@settings(max_examples=min(10, settings.default.max_examples))
@given(st.sampled_from(CASES), st.data())
def test_theorem1_with_absolute_values_is_refuted(case, data):
    """Linear layers (every neuron active), every weight nonzero: the diagonal of the |W| form is conserved
    (``check_conserved_rate``), its off-diagonal entries are not (``check_conserved_rate_rejected``: a
    counterexample to the remark for Theorem 1)."""
    risk, theta = data.draw(risk_instances(sequential_networks(case=case, slope=LINEAR)), label="instance")
    assume(bool((theta != 0).all()))
    rate, active = absolute_rate(risk, theta, case)
    assume(active >= 2)
    diagonal = torch.diagonal(rate.rate)
    check_conserved_rate(diagonal, torch.diagonal(rate.scale), rate.tolerance, case=case, part="diagonal",
                         loss=risk.loss)
    off = ~torch.eye(active, dtype=torch.bool)
    moving = float((rate.rate[off].abs() / rate.scale[off].clamp_min(1e-300)).max()) > 4 * rate.tolerance
    assume(moving)  # mixed signs: the products' signs differ (equal signs make the |W| form the printed one)
    check_conserved_rate_rejected(rate.rate[off], rate.scale[off], rate.tolerance, case=case,
                                  part="off-diagonal", loss=risk.loss)
    declare_verdict("refuted")
    record_erratum(
        "LJ22.AB-E1", severity="statement false as printed", location_kind="text",
        location="Appendix B, remark after the proof of Lemma 1",
        printed="one can show all the results for Theorem 1, Theorem 2 and Corollary 1 to the same matrix "
                "representation as presented in the paper but with the absolute signs around them",
        corrected="Theorem 1's |W| form holds on the diagonal (|w|^2 = w^2: Eq. (4)) but not off it: "
                  "sum_a |w_au w_av| - sum_b |w_ub w_vb| is conserved only where the signs of the products are "
                  "all equal; Theorem 2 and Corollary 1's |W| forms follow from the printed ones",
        counterexample={"case": case, "active neurons": active, "edges": risk.network.n_edges, "loss": risk.loss,
                        "max off-diagonal |dQ/dt| / summands":
                            float((rate.rate[off].abs() / rate.scale[off].clamp_min(1e-300)).max()),
                        "rounding bound": float(rate.tolerance)},
        size=risk.network.n_edges,
    )
    record_note("Theorem 1 with |W| on linear layers of every case, weights nonzero (signs constant near the instant): "
                "the diagonal is Eq. (4) and conserved; the off-diagonal rate is far above rounding whenever the "
                "signs of w_au w_av (or w_ub w_vb) differ.")


@st.composite
def mixed_matrices(draw):
    rows, cols = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    return torch.randn(rows, cols, generator=g, dtype=torch.float64)


def judge_absolute_norms(W, inequality, reversed_=False):
    """||W||_2 <= || |W| ||_2 (``reversed_``: the perturbed || |W| ||_2 <= ||W||_2)."""
    plain, absolute = float(torch.linalg.matrix_norm(W, 2)), float(torch.linalg.matrix_norm(W.abs(), 2))
    tolerance = 2 * max(W.shape) * EPS * float(torch.linalg.matrix_norm(W, "fro"))  # two SVDs' backward error
    lhs, rhs = (absolute, plain) if reversed_ else (plain, absolute)
    inequality(lhs, rhs, tolerance, statement="||W||_2 <= || |W| ||_2" if not reversed_ else "|| |W| ||_2 <= ||W||_2",
               shape=tuple(W.shape))


@AB
@settings(max_examples=min(50, settings.default.max_examples))
@given(mixed_matrices())
def test_theorem2_and_corollary1_absolute_forms_follow(W):
    fro = float(torch.linalg.matrix_norm(W, "fro"))
    tolerance = 4 * max(W.shape) * EPS * fro
    judge_absolute_norms(W, check_inequality)
    A = W.abs()
    s = torch.linalg.svdvals(A)
    rank = int(torch.linalg.matrix_rank(A))
    ratio = float(s[0] ** 2) / fro**2
    check_inequality(1 / rank, ratio, 4 * max(W.shape) * EPS, statement="1 / rank |W| <= || |W| ||_2^2 / ||W||_F^2")
    check_inequality(ratio, 1.0, 4 * max(W.shape) * EPS, statement="|| |W| ||_2^2 / ||W||_F^2 <= 1")
    U, S, Vh = torch.linalg.svd(W)
    u, v = U[:, 0], Vh[0]
    plain = float(torch.linalg.matrix_norm(W / fro - torch.outer(u, v), "fro"))
    absolute = float(torch.linalg.matrix_norm(A / fro - torch.outer(u.abs(), v.abs()), "fro"))
    check_inequality(absolute, plain, tolerance / fro,
                     statement="|| |W|/||W||_F - |u||v|^T ||_F <= || W/||W||_F - uv^T ||_F")
    other = W[:, 0] / W[:, 0].norm()
    check_inequality(abs(float(u @ other)), float(u.abs() @ other.abs()), 4 * W.shape[0] * EPS,
                     statement="|<v, u>| <= <|v|, |u|> (unit vectors)")
    record_note("Theorem 2 / Corollary 1 with |W|: on drawn 2-5 x 2-5 Gaussian matrices, ||W||_2 <= || |W| ||_2, "
                "1 / rank |W| <= || |W| ||_2^2 / ||W||_F^2 <= 1, the |W| form of Eq. (15)'s rank-one distance is at "
                "most the printed one, and |<v, u>| <= <|v|, |u|>: the |W| forms follow from the printed forms.")


@pytest.mark.claim("LJ22.AB", negative_control=True)
@settings(max_examples=min(30, settings.default.max_examples))
@given(mixed_matrices())
def test_reversed_norm_inequality_is_rejected(W):
    """The perturbed statement || |W| ||_2 <= ||W||_2 on matrices with mixed signs."""
    assume(bool((W > 0).any() and (W < 0).any()))
    plain, absolute = float(torch.linalg.matrix_norm(W, 2)), float(torch.linalg.matrix_norm(W.abs(), 2))
    assume(absolute - plain > 1e-6 * absolute)
    judge_absolute_norms(W, check_inequality_rejected, reversed_=True)
