"""LJ22 Lemma 11, its sharpest constant: the largest c with ||B||_2^2 >= c ||A||_2^2 - D' (A = [U Z],
B = [Y; Z], D' = ||U^T U - Y Y^T||_2 the invariant's spectral norm). On balanced blocks (U^T U = Y Y^T,
D' = 0) the ratio ||B||_2^2 / ||A||_2^2 is searched by scipy.optimize, and the minimum the search finds
(1/2) is then built exactly in rational arithmetic (sympy's exact eigenvalues). The proof's chain
(||B||^2 >= max(||Y||^2, ||Z||^2) >= (||U||^2 + ||Z||^2 - D')/2 >= (||A||^2 - D')/2) gives 1/2, so 1/2 is the
sharp constant and the printed 1/8 is loose by 4."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from scipy.optimize import minimize

from claims import (
    check_exact, check_inequality, check_inequality_rejected, check_power, check_property, finding,
    record_note,
)
from claims.evidence import active_profile, count_cases_as, one_case
from claims.models import sides_rounding

SEARCH_SHAPES = {"dev": [(2, 1, 1), (3, 1, 2), (2, 2, 2)], "ci": [(2, 1, 1), (3, 1, 2), (2, 2, 2)],
                 "nightly": [(2, 1, 1), (3, 1, 2), (2, 2, 2), (3, 2, 3), (4, 3, 3)]}
"""(a, b, c) of Y (b x a), U (c x b), Z (c x a) per profile; balanced U = O (Y Y^T)^(1/2) needs c >= b."""
RESTARTS = {"dev": 3, "ci": 3, "nightly": 8}
SHARP = 0.5 + 1e-6
"""The search's power (``check_power``), fixed before the data: some restart, over all the shapes, ends with a
ratio at most 1/2 + 1e-6 (the search reaches the sharp constant, so it could have found a smaller one).
Observed: 5 of 9 restarts (3 of 3 at (2, 1, 1), 1 of 3 at each other shape), the same under 1 and 2 threads
and ATen's default kernels; judged over the restarts, not on the best one a shape's minimum rests on."""


def printed_lhs(a_sq: float, offset: float) -> float:
    """Lemma 11's left side as printed: (1/8)||A||_2^2 - D'."""
    return a_sq / 8 - offset


def balanced_block(x: np.ndarray, a: int, b: int, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(U, Y, Z) with U^T U = Y Y^T up to rounding: Y and Z free, U = O (Y Y^T)^(1/2) with O (c x b) the
    orthonormal Q factor of a free matrix."""
    Y = x[: a * b].reshape(b, a)
    Z = x[a * b : a * b + a * c].reshape(c, a)
    O, _ = np.linalg.qr(x[a * b + a * c :].reshape(c, b))
    vals, vecs = np.linalg.eigh(Y @ Y.T)
    U = O @ (vecs * np.sqrt(np.clip(vals, 0.0, None))) @ vecs.T
    return U, Y, Z


def squared_norms(U, Y, Z) -> tuple[float, float]:
    """(||A||_2^2, ||B||_2^2) for A = [U Z], B = [Y; Z]."""
    return float(np.linalg.norm(np.hstack([U, Z]), 2) ** 2), float(np.linalg.norm(np.vstack([Y, Z]), 2) ** 2)


def sides(U, Y, Z) -> tuple[float, float, float]:
    """(||A||_2^2, ||B||_2^2, D' = ||U^T U - Y Y^T||_2)."""
    return (*squared_norms(U, Y, Z), float(np.linalg.norm(U.T @ U - Y @ Y.T, 2)))


def smallest_ratio(shape: tuple[int, int, int], seed: int) -> tuple[float, np.ndarray, list[float]]:
    """(the smallest ratio found, its point, every restart's final ratio)."""
    a, b, c = shape
    rng = np.random.default_rng(seed)
    best, finals = (np.inf, None), []
    for _ in range(RESTARTS[active_profile()]):
        x0 = rng.standard_normal(a * b + a * c + c * b)

        def ratio(x):  # the objective needs the two norms only (D' is an SVD more per evaluation)
            a_sq, b_sq = squared_norms(*balanced_block(x / np.linalg.norm(x), a, b, c))
            return b_sq / a_sq

        res = minimize(ratio, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 3000})
        best = min(best, (float(res.fun), res.x / np.linalg.norm(res.x)), key=lambda r: r[0])
        finals.append(float(res.fun))
    return (*best, finals)


@pytest.mark.claim("LJ22.L11")
def test_lemma11_sharpest_constant_by_search():
    """scipy.optimize (Nelder-Mead, 3 restarts per shape, 8 and two more shapes under nightly) minimizes ||B||^2/||A||^2
    over balanced blocks: every optimum is >= 1/2 (the statement with c = 1/2 and D' = 0 at the optimum, an informative
    case: the ratio reaches its bound) and the minima found over shapes with a >= 2 reach 1/2: the search's power,
    judged over its restarts (``SHARP``)."""
    count_cases_as("optima")
    found, finals = {}, {}
    for i, shape in enumerate(SEARCH_SHAPES[active_profile()]):
        ratio, x, finals[shape] = smallest_ratio(shape, seed=i)
        U, Y, Z = balanced_block(x, *shape)
        a_sq, b_sq, offset = sides(U, Y, Z)
        with one_case():
            # the chain's form: (1/2)||A||^2 - D'/2 <= ||B||^2; lhs ranges over [-D'/2, oo)
            lhs = a_sq / 2 - offset / 2
            check_inequality(lhs, b_sq, sides_rounding(lhs, b_sq) + offset, shape=shape, ratio=ratio, D_prime=offset,
                             reading="c = 1/2 on a balanced optimum", lhs_range=(-offset / 2, np.inf))
            check_inequality(printed_lhs(a_sq, offset), b_sq, sides_rounding(a_sq, b_sq) + offset, shape=shape,
                             ratio=ratio, D_prime=offset, reading="printed c = 1/8", lhs_range=(-offset, np.inf))
        found[shape] = ratio
    reached = {str(shape): sum(value <= SHARP for value in values) for shape, values in finals.items()}
    check_power(sum(reached.values()) >= 1, "some restart ends with a ratio at most 1/2 + 1e-6 (the search "
                "reaches the sharp constant)", reached=reached, restarts=sum(map(len, finals.values())),
                ratios={str(k): round(v, 10) for k, v in found.items()})
    record_note(
        "Sharpest constant, search: over balanced blocks (U^T U = Y Y^T, D' = 0) scipy.optimize's smallest "
        "||B||_2^2/||A||_2^2 per shape (a, b, c) is "
        + ", ".join(f"{k}: {v:.10f}" for k, v in found.items())
        + " (shapes with a = 1 cannot go below 1: B is a column, ||B||^2 = ||Y||_F^2 + ||Z||_F^2 >= ||A||^2). "
        "Random and targeted flow paths only saw 1.0 because the extremal blocks need Y's and Z's row spaces "
        "orthogonal while U's and Z's column spaces coincide."
    )


def exact_spectral_sq(M: sympy.Matrix) -> sympy.Rational:
    return max(sympy.Matrix(M.T * M).eigenvals())


@pytest.mark.claim("LJ22.L11")
def test_lemma11_sharpest_constant_exact_construction():
    """The exact construction: Y = [t 0] (1 x 2), U = [t] (1 x 1), Z = [0 t] (1 x 2), t rational. Balanced
    (U^T U = Y Y^T = t^2, D' = 0), A = [t 0 t] with ||A||^2 = 2t^2, B = t I_2 with ||B||^2 = t^2: the ratio is
    exactly 1/2. Lemma 11 as printed holds there (t^2 >= t^2/4); any c > 1/2 fails with D' = 0, and since
    scaling t keeps D' = 0, no D' fixed by the invariant rescues c > 1/2 (a finding: 1/2 is sharp)."""
    count_cases_as("instances")
    for t in (Fraction(1), Fraction(3, 7), Fraction(5, 2)):
        T = sympy.Rational(t.numerator, t.denominator)
        Y, U, Z = sympy.Matrix([[T, 0]]), sympy.Matrix([[T]]), sympy.Matrix([[0, T]])
        invariant = U.T * U - Y * Y.T
        A, B = U.row_join(Z), Y.col_join(Z)
        a_sq, b_sq = exact_spectral_sq(A), exact_spectral_sq(B)
        with one_case():
            check_exact([Fraction(str(v)) for v in invariant], [Fraction(0)], identity="U^T U - Y Y^T = 0 (D' = 0)",
                        t=str(t))
            check_exact([Fraction(str(a_sq)), Fraction(str(b_sq))], [2 * t * t, t * t],
                        identity="||A||^2 = 2t^2, ||B||^2 = t^2", t=str(t))
            check_exact([Fraction(str(b_sq / a_sq))], [Fraction(1, 2)], identity="ratio ||B||^2/||A||^2 = 1/2",
                        t=str(t))
            lhs = Fraction(str(a_sq)) / 8
            check_inequality(float(lhs), float(b_sq), 0.0, t=str(t), reading="printed: (1/8)||A||^2 - 0 <= ||B||^2",
                             lhs_range=(0.0, np.inf))
        with finding("Lemma 11's sharpest constant is 1/2: c = 1/2 + 1/64 fails on the exact construction"):
            c = Fraction(1, 2) + Fraction(1, 64)
            check_inequality_rejected(float(c * Fraction(str(a_sq))), float(b_sq), 0.0, t=str(t),
                                      reading="c = 33/64, D' = 0", lhs_range=(0.0, np.inf))
            check_property(Fraction(str(b_sq)) == Fraction(1, 2) * Fraction(str(a_sq)),
                           "the chain's bound (1/2)||A||^2 - D'/2 is attained with equality", t=str(t))
    record_note(
        "Sharpest constant, construction: Y = [t 0], U = [t], Z = [0 t] (a = 2, b = c = 1, any rational t != 0) is "
        "balanced (D' = 0) with ||A||_2^2 = 2t^2 and ||B||_2^2 = t^2 exactly (sympy, rationals): the ratio is 1/2, so "
        "the sharpest constant is c = 1/2 (with D'/2, as the proof's chain gives it); the printed 1/8 holds but is "
        "loose by a factor 4, and the chain ||B||^2 >= max(||Y||^2, ||Z||^2) >= (||A||^2 - D')/2 is tight."
    )
