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

import torch

from claims.bsj25._certificate import EscapeDirection, certify
from claims.bsj25._polish import polish, snap_vanished_units
from claims.bsj25._saddle import Shapes
from claims.bsj25._search import FINE_STEPS, projected_descent, random_starts

F64 = torch.float64

AGREEMENT = 1e-3
"""A restart 'agrees' with the optimum when its search value is within this (relative) of it: the
search ends with steps of 1e-4 sqrt(L), which leaves first-order errors of that size at kinks."""


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
    depth = len(shapes)
    starts = random_starts(restarts, shapes, seed)
    if warm_starts and warm_steps is not None:
        thetas, values = projected_descent(starts, shapes, x, g, steps)
        warm, warm_values = projected_descent(torch.stack([w.to(F64) for w in warm_starts]), shapes, x, g, warm_steps)
        thetas, values = torch.cat([warm, thetas]), torch.cat([warm_values, values])
    else:
        if warm_starts:
            starts = torch.cat([torch.stack([w.to(F64) for w in warm_starts]), starts])
        thetas, values = projected_descent(starts, shapes, x, g, steps)
    cold_values = values[len(warm_starts):]  # the warm starts come first
    order = torch.argsort(values)
    picked: list[int] = []
    for index in order.tolist():
        if all(abs(float(values[index] - values[j])) > 1e-7 * abs(float(values[j])) for j in picked):
            picked.append(index)
        if len(picked) == candidates:
            break
    fine, fine_values = projected_descent(thetas[picked], shapes, x, g, fine_steps, FINE_STEPS)
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
    all_values = sorted(float(v) for v in values)
    best.values = all_values
    best.cold_values = sorted(float(v) for v in cold_values)
    best.restarts = len(all_values)
    best.agreeing = restarts_reaching(best, best.speed)
    best.warm_starts = len(warm_starts)
    best.polished = len(picked)
    if best.depth != depth:  # pragma: no cover - shapes are kept
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
