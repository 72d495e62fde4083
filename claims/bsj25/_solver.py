"""Optimal escape directions of BSJ25 (Definition 2.1): the minimizer of L_0 on the sphere
||theta||^2 = L, found by search, polish and certificate.

Conventions are ``claims.bsj25._saddle``'s: X is d_in x N (one sample per column), W_l is n_l x n_{l-1},
Z_l = W_l Z^s_{l-1}, Z^s_l = relu(Z_l), Y_theta = Z_L, L_0(theta) = Tr[G^T Y_theta], theta the
weights concatenated row by row. An escape direction is rho with ||rho||^2 = L and
grad L_0(rho) = -s rho; by Euler's identity s = -L_0(rho).

**Solver** (``solve_escape``). L_0 is minimized on the radius-sqrt(L) sphere in four stages:

1. *Search* (``claims.bsj25._search``): normalized Riemannian gradient descent, all restarts as one
   batched tensor program, with step lengths decaying geometrically from 0.3 sqrt(L) to
   1e-4 sqrt(L), then on the best few candidates from 1e-4 sqrt(L) to 1e-10 sqrt(L). Random Gaussian
   starts, plus warm starts (e.g. ``deepened_start``: a depth-(L-1) optimum deepened by Appendix
   A.3's construction ``deepen``, so that s*(L) >= s*(L-1) is built in).
2. *Pattern* and 3. *Polish* (``claims.bsj25._polish``): the kink pattern at a candidate, frozen,
   and the KKT system of the frozen problem solved to rounding by Newton's method, with SLSQP on the
   sphere as fallback.
4. *Certificate* (``claims.bsj25._certificate``): s, the residual of grad L_0(rho) = -s rho with
   its float64 bound, the kinks, and local optimality by perturbation where rho sits on a kink.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from claims.bsj25._certificate import EscapeDirection, certify
from claims.bsj25._polish import polish, snap_vanished_units
from claims.bsj25._saddle import Shapes
from claims.bsj25._search import FINE_STEPS, Descent, descend_all, random_starts

F64 = torch.float64

AGREEMENT = 1e-3
"""A restart 'agrees' with the optimum when its search value is within this (relative) of it: the
search ends with steps of 1e-4 sqrt(L), which leaves first-order errors of that size at kinks."""


@dataclass(frozen=True)
class EscapeProblem:
    """The arguments of one ``solve_escape`` call (see there)."""

    x: torch.Tensor
    g: torch.Tensor
    shapes: Shapes
    restarts: int = 32
    steps: int = 200
    seed: int = 0
    warm_starts: tuple[torch.Tensor, ...] = ()
    candidates: int = 4
    fine_steps: int = 150
    warm_steps: int | None = None


def solve_escape(
    x: torch.Tensor, g: torch.Tensor, shapes: Shapes, restarts: int = 32, steps: int = 200, seed: int = 0,
    warm_starts: Sequence[torch.Tensor] = (), candidates: int = 4, fine_steps: int = 150,
    warm_steps: int | None = None,
) -> EscapeDirection:
    """An optimal escape direction (Definition 2.1: the minimizer of L_0 on ||theta||^2 = L) by the
    module's four stages: ``restarts`` Gaussian starts (seeded by ``seed``) and the ``warm_starts``
    searched for ``steps`` steps, the ``candidates`` best distinct results refined for ``fine_steps``,
    then polished in order of their value (a candidate more than ``AGREEMENT`` below a certified optimum
    is skipped; after the first certified one, Newton only) and the largest certified speed kept (an
    uncertified search point only if nothing is certified: ``kkt_residual`` NaN). ``values`` are the
    search's final L_0 of every start (sorted), ``agreeing`` how many are within ``AGREEMENT``
    (relative) of the kept optimum. ``warm_steps`` (default ``steps``) is the warm starts' share of the
    first search: 0 leaves them where they are for the refinement (on deep networks the first steps,
    0.3 sqrt(L) long, can throw a deepened optimum off its path, where every unit dies)."""
    problem = EscapeProblem(x, g, shapes, restarts, steps, seed, tuple(warm_starts), candidates, fine_steps,
                            warm_steps)
    return solve_escapes([problem])[0]


def solve_escapes(problems: Sequence[EscapeProblem]) -> list[EscapeDirection]:
    """``solve_escape`` of every problem, with the same results: the searches and refinements of problems of
    one shape and data size run as one batched program (``claims.bsj25._search.descend_all``, each row as
    in its problem's own batch), the polish problem by problem."""
    searches = []  # per problem: the search's Descents, warm ones first
    for p in problems:
        starts = random_starts(p.restarts, p.shapes, p.seed)
        warm = torch.stack([w.to(F64) for w in p.warm_starts]) if p.warm_starts else None
        if warm is not None and p.warm_steps is not None:
            searches.append([Descent(warm, p.shapes, p.x, p.g, p.warm_steps),
                             Descent(starts, p.shapes, p.x, p.g, p.steps)])
        else:
            both = starts if warm is None else torch.cat([warm, starts])
            searches.append([Descent(both, p.shapes, p.x, p.g, p.steps)])
    ends = iter(descend_all([d for parts in searches for d in parts]))
    found = [[next(ends) for _ in parts] for parts in searches]
    results = [(torch.cat([t for t, _ in parts]), torch.cat([v for _, v in parts])) for parts in found]
    picks = [_distinct_best(values, p.candidates) for p, (_, values) in zip(problems, results)]
    fine = descend_all([Descent(thetas[picked], p.shapes, p.x, p.g, p.fine_steps, FINE_STEPS)
                        for p, (thetas, _), picked in zip(problems, results, picks)])
    return [_polish_candidates(p, values, picked, *refined)
            for p, (_, values), picked, refined in zip(problems, results, picks, fine)]


def _distinct_best(values: torch.Tensor, candidates: int) -> list[int]:
    """The indices of the ``candidates`` best search values more than 1e-7 (relative) apart."""
    picked: list[int] = []
    for index in torch.argsort(values).tolist():
        if all(abs(float(values[index] - values[j])) > 1e-7 * abs(float(values[j])) for j in picked):
            picked.append(index)
        if len(picked) == candidates:
            break
    return picked


def _polish_candidates(problem: EscapeProblem, values: torch.Tensor, picked: list[int], fine: torch.Tensor,
                       fine_values: torch.Tensor) -> EscapeDirection:
    """The polish and certificate stages of ``solve_escape`` on the refined candidates."""
    x, g, shapes = problem.x, problem.g, problem.shapes
    best: EscapeDirection | None = None
    for index in torch.argsort(fine_values).tolist():
        if best is not None and math.isfinite(best.kkt_residual) and (
            -float(fine_values[index]) < best.speed * (1 - AGREEMENT)
        ):
            continue  # cannot beat the certified optimum by more than the search's accuracy
        certified = best is not None and math.isfinite(best.kkt_residual)
        rho, kkt, _ = polish(fine[index], shapes, x, g, fallback=not certified)
        rho = snap_vanished_units(rho, shapes) if math.isfinite(kkt) else rho
        if not bool(torch.isfinite(rho).all()):
            continue
        found = certify(rho, shapes, x, g, kkt)
        better = best is None or (math.isfinite(kkt), found.speed) > (math.isfinite(best.kkt_residual), best.speed)
        if better:
            best = found
    if best is None:
        raise ArithmeticError("no candidate survived the polish")
    warm_count = len(problem.warm_starts)
    best.values = sorted(float(v) for v in values)
    best.cold_values = sorted(float(v) for v in values[warm_count:])  # the warm starts come first
    best.restarts = len(best.values)
    best.agreeing = restarts_reaching(best, best.speed)
    best.warm_starts = warm_count
    best.polished = len(picked)
    if best.depth != len(shapes):  # pragma: no cover - shapes are kept
        raise AssertionError
    return best


def restarts_reaching(found: EscapeDirection, speed: float, cold: bool = False) -> int:
    """How many of ``found``'s restarts end in the basin of ``speed``: search value (``found.values``,
    the search's final L_0 of every start) within ``AGREEMENT`` (relative) of -``speed``. With
    ``found.speed`` it is ``found.agreeing``; with a speed known otherwise (a closed form, a warm
    chain's, a larger search's) it is the rule by which a search's power is judged over its restarts,
    not by which candidate the polish certified. ``cold``: the Gaussian restarts only
    (``found.cold_values``); a warm start that already sits in the basin says nothing of the search's power."""
    values = found.cold_values if cold else found.values
    return sum(abs(v + speed) <= AGREEMENT * abs(speed) for v in values)
