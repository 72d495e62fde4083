"""References for the optimality of a computed escape direction (BSJ25 Definition 2.1; Theorem 3.1
and Proposition 3.3 speak of the *optimal* one): the best single path by an exhaustive search of its
first-layer direction, and a summary of how the solver's restarts found the kept optimum.

A single path is a network with one unit carrying weight per hidden layer: W_1 = t_1 e_1 q^T (||q|| = 1),
W_l = t_l e_1 e_1^T for 1 < l < L, W_L = t_L w e_1^T (||w|| = 1). Its output is prod_l t_l w relu(q^T X)
(a positive scalar times a nonnegative row passes every later ReLU unchanged), and on ||theta||^2 = L
the product is at most 1 (AM-GM), with equality when every t_l = 1. Its best speed, over w and t, is
therefore ||G relu(X^T q)||, whatever the depth L >= 2; over q it is ``single_path_speed``: a lower
bound of s*(L) for every L >= 2, equal to it where the optimum is a single path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from claims.bsj25._certificate import EscapeDirection

F64 = torch.float64
norm = torch.linalg.vector_norm


def path_speeds(x: torch.Tensor, g: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """||G relu(X^T q)|| for each row q of ``directions`` (R, d_in), unit or not (the speed of the
    single path through q / ||q||, times ||q||)."""
    return norm(g @ torch.relu(x.T @ directions.T), dim=0)


SIMPLEX_SCALES = (1e-2, 1e-4, 1e-6)
"""Initial simplex sizes of the Nelder-Mead rounds that finish ``single_path_speed`` (one after the other,
each from the previous round's point)."""


def _simplex_refine(x: torch.Tensor, g: torch.Tensor, q: torch.Tensor) -> tuple[float, torch.Tensor]:
    """Nelder-Mead rounds (``SIMPLEX_SCALES``) on q(z) = (q + B z) / ||q + B z||, B an orthonormal basis of
    the complement of q: derivative-free, so it also climbs a maximum on a kink (a ridge of
    ||G relu(X^T q)||), where gradient steps stall."""
    from scipy.optimize import minimize

    xs, gs, point = x.numpy(), g.numpy(), q.numpy().copy()
    dims = len(point) - 1

    def at(base, basis, z):
        moved = base + basis @ z
        return moved / np.linalg.norm(moved)

    for scale in SIMPLEX_SCALES:
        basis = np.linalg.svd(np.eye(len(point)) - np.outer(point, point))[0][:, :dims]

        def negative_speed(z, base=point, basis=basis):
            return -np.linalg.norm(gs @ np.maximum(xs.T @ at(base, basis, z), 0.0))

        simplex = np.vstack([np.zeros(dims), scale * np.eye(dims)])
        result = minimize(negative_speed, np.zeros(dims), method="Nelder-Mead",
                          options=dict(xatol=1e-15, fatol=1e-17, maxiter=200 * dims * dims + 2000,
                                       initial_simplex=simplex))
        point = at(point, basis, result.x)
    refined = torch.from_numpy(point)
    return float(path_speeds(x, g, refined[None])[0]), refined


def single_path_speed(
    x: torch.Tensor, g: torch.Tensor, samples: int = 4000, keep: int = 16, steps: int = 150, seed: int = 0,
    simplex: int = 2,
) -> tuple[float, torch.Tensor]:
    """The best single path's speed, max over unit q of ||G relu(X^T q)||, and its q: ``samples``
    Gaussian directions on the unit sphere of R^{d_in} (a net whose spacing is about
    (4 pi / samples)^{1/2} on S^2), then the best ``keep`` refined by normalized gradient ascent on the
    sphere, steps geometric from 1e-2 to 1e-10 (the function is piecewise smooth: a step across a kink is
    only kept if it does not lower the value), and the best ``simplex`` of those by Nelder-Mead rounds
    (``_simplex_refine``; only for d_in <= 8, where they are cheap). Exhaustive for small d_in; in high
    dimension a lower bound only."""
    gen = torch.Generator().manual_seed(seed)
    points = torch.randn(samples, x.shape[0], generator=gen, dtype=F64)
    points = points / norm(points, dim=1, keepdim=True)
    values = path_speeds(x, g, points)
    order = torch.argsort(values, descending=True)[:keep]
    best, best_values = points[order].clone(), values[order].clone()
    for length in torch.logspace(-2, -10, steps, dtype=F64).tolist():
        q = best.clone().requires_grad_(True)
        (gradient,) = torch.autograd.grad(path_speeds(x, g, q).sum(), q)
        with torch.no_grad():
            tangent = gradient - (gradient * best).sum(dim=1, keepdim=True) * best
            moved = best + length * tangent / norm(tangent, dim=1, keepdim=True).clamp_min(1e-300)
            moved = moved / norm(moved, dim=1, keepdim=True)
            moved_values = path_speeds(x, g, moved)
            better = moved_values > best_values
            best = torch.where(better[:, None], moved, best)
            best_values = torch.where(better, moved_values, best_values)
    if x.shape[0] <= 8 and simplex:
        for index in torch.argsort(best_values, descending=True)[:simplex].tolist():
            value, point = _simplex_refine(x, g, best[index])
            if value > float(best_values[index]):
                best[index], best_values[index] = point, value
    index = int(torch.argmax(best_values))
    return float(best_values[index]), best[index]


def search_spread(found: EscapeDirection, best: int = 5) -> dict[str, Any]:
    """How the solver's restarts found the kept optimum: how many starts there were (``restarts``, warm
    ones included), how many ended their search within the solver's agreement of it (``agreeing``), the
    speeds -L_0 of the ``best`` best search results, and their spread (largest minus smallest, relative
    to the kept speed; 0 when every one of them agrees)."""
    speeds = [-v for v in sorted(found.values)[:best]]
    spread = (max(speeds) - min(speeds)) / found.speed if speeds and found.speed > 0 else math.nan
    return dict(restarts=found.restarts, agreeing=found.agreeing, warm_starts=found.warm_starts,
                best_speeds=speeds, spread=spread)
