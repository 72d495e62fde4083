"""Stationarity of BSJ25's escape directions on ReLU kinks (Definition 2.1 where L_0 has no gradient).

At a direction rho where hidden pre-activations Z_l[i, n] are 0 on live inputs (kinks), L_0 is not
differentiable and Definition 2.1's grad L_0(rho) = -s rho has no gradient to hold for. What holds at
a local minimum on the sphere is the Clarke (chain-rule) form of the condition: the generalized
gradient of the backward pass with relu'(Z_l[i, n]) = t_k in the ReLU's Clarke hull [0, 1] at each
kink k (1 where Z > 0, 0 where Z < 0) satisfies

    grad_t L_0(rho) = -s rho   for some t in [0, 1]^K,   s = -L_0(rho).

This is the KKT system of the polish (``claims.bsj25._polish``: min L_0 on the sphere subject to
Z_l[i, n] = 0 at the kinks, pattern frozen) with the kink multipliers mu_k = -t_k b_k, b_k the
backward signal arriving at the kink's post-activation (from the layers above, their kinks' slopes
included); the sphere's multiplier is -s by Euler's identity. grad_t is multilinear in t (linear in
each t_k), so ``clarke_stationarity`` finds t by bounded least squares (``scipy.optimize.least_squares``,
trust-region reflective on [0, 1]^K, exact Jacobian columns grad_{t + e_k} - grad_t) and reports the
residual with its float64 bound: each entry of grad_t is a sum over paths of products with |t_k| <= 1,
so the backward pass on |theta|, |X|, |G| with every mask 1 (the absolute loss's gradient,
``claims.bsj25._saddle.absolute_loss``) bounds its terms' magnitudes; s rho as in
``claims.bsj25._certificate.gradient_residual`` (``claims.models._numerics``: gamma_k, k the
certificate's depth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from claims.bsj25._certificate import certificate_depth
from claims.bsj25._polish import KINK_THRESHOLD, FrozenKKT, Pattern, identify_pattern
from claims.bsj25._saddle import Shapes, absolute_forward, forward, unflatten
from claims.bsj25._search import batched_value_and_gradient
from claims.models._numerics import gamma

F64 = torch.float64
norm = torch.linalg.vector_norm


@dataclass(frozen=True)
class ClarkeStationarity:
    """The Clarke form at a direction rho (see the module docstring). ``kinks`` (l, i, n) with their
    ``slopes`` t_k in [0, 1], ``signals`` b_k and ``multipliers`` mu_k = -t_k b_k (the KKT multipliers
    of the kink constraints Z_l[i, n] = 0); ``residual`` grad_t L_0(rho) + s rho (entrywise) and
    ``bound`` its float64 bound; ``scale`` s sqrt(L). ``gradient_residual`` is grad L_0 + s rho for the
    network's own gradient (relu'(0) = 0, torch's convention): the printed condition as computable.
    ``one_sided_residual`` is grad_1 L_0 + s rho (relu'(0) = 1 at every kink): the other one-sided
    selection."""

    speed: float
    kinks: tuple[tuple[int, int, int], ...]
    slopes: torch.Tensor
    signals: torch.Tensor
    multipliers: torch.Tensor
    residual: torch.Tensor
    bound: torch.Tensor
    scale: float
    gradient_residual: torch.Tensor
    one_sided_residual: torch.Tensor

    @property
    def relative_residual(self) -> float:
        """max_i |grad_t L_0 + s rho|_i / (s sqrt(L))."""
        return float(self.residual.abs().max()) / self.scale

    @property
    def relative_bound(self) -> float:
        return float(self.bound.max()) / self.scale


def _with_slopes(pattern: Pattern, slopes: np.ndarray) -> Pattern:
    masks = [mask.clone() for mask in pattern.masks]
    for (layer, unit, sample), t in zip(pattern.kinks, slopes, strict=True):
        masks[layer - 1][unit, sample] = float(t)
    return Pattern(tuple(masks), (), pattern.dropped)


def _signals(pattern: Pattern, rho: torch.Tensor, shapes: Shapes, g: torch.Tensor) -> torch.Tensor:
    """b_k: the backward signal (W_{l+1}^T delta_{l+1})[i, n] arriving at each kink, with ``pattern``'s
    masks (the slopes at the kinks above in place)."""
    weights = unflatten(rho, shapes)
    delta, arriving = g, {}
    for layer in range(len(shapes) - 1, 0, -1):
        arriving[layer] = weights[layer].T @ delta
        delta = arriving[layer] * pattern.masks[layer - 1]
    return torch.tensor([float(arriving[layer][unit, sample]) for layer, unit, sample in pattern.kinks], dtype=F64)


def clarke_pattern(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor) -> Pattern:
    """The polish's pattern at ``rho`` (``identify_pattern``: masks, kinks on live input columns, dropped
    units) plus, for each sample n with a kink, the kept units' Z_l[i, n] = 0 above it whose input
    column Z^s_{l-1}[:, n] is 0 (not live): the ReLU is at its kink there too, and its slope is what
    carries the backward signal down to the kink below."""
    pattern = identify_pattern(rho, shapes, x)
    weights = unflatten(rho, shapes)
    pre, _ = forward(weights, x)
    scale = absolute_forward(weights, x)
    dropped = set(pattern.dropped)
    kinks = list(pattern.kinks)
    for sample in sorted({n for _, _, n in pattern.kinks}):
        lowest = min(l for l, _, n in pattern.kinks if n == sample)
        for layer in range(lowest + 1, len(shapes)):
            margin = pre[layer][:, sample].abs() / scale[layer][:, sample].clamp_min(1e-300)
            for unit in range(pre[layer].shape[0]):
                entry = (layer, unit, sample)
                if (layer, unit) not in dropped and entry not in kinks and float(margin[unit]) < KINK_THRESHOLD:
                    kinks.append(entry)
    return Pattern(pattern.masks, tuple(sorted(kinks)), pattern.dropped)


def generalized_gradient(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
                         slopes) -> torch.Tensor:
    """grad_t L_0(rho): the backward pass with the pattern's masks and relu' = t_k at its kinks."""
    system = FrozenKKT(shapes, x, g, _with_slopes(pattern, np.asarray(slopes, dtype=float)))
    return system.value_and_gradient(rho)[1]


def clarke_stationarity(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor,
                        pattern: Pattern | None = None, starts: int = 2, seed: int = 0) -> ClarkeStationarity:
    """The slopes t in [0, 1]^K that bring grad_t L_0(rho) closest to -s rho (s = -L_0(rho) on the
    real network), for ``pattern`` (default: ``clarke_pattern``),
    with the residual, its bound, the signals and multipliers (see ``ClarkeStationarity``)."""
    from scipy.optimize import least_squares

    if pattern is None:
        pattern = clarke_pattern(rho, shapes, x)
    value, plain_gradient = batched_value_and_gradient(rho[None], shapes, x, g)
    speed = -float(value[0])
    target = speed * rho
    count = len(pattern.kinks)

    def residual(t):
        return (generalized_gradient(rho, shapes, x, g, pattern, t) + target).numpy()

    def jacobian(t):
        base = residual(t)
        columns = []
        for k in range(count):
            moved = np.array(t, dtype=float)
            moved[k] += 1.0
            columns.append(residual(moved) - base)
        return np.stack(columns, axis=1)

    if count:
        best = None
        for start in (np.full(count, 0.5), *np.random.default_rng(seed).uniform(0, 1, (starts, count))):
            fit = least_squares(residual, start, jac=jacobian, bounds=(0.0, 1.0), method="trf",
                                xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=100)
            candidate = np.clip(fit.x, 0.0, 1.0)
            size = float(np.abs(residual(candidate)).max())
            if best is None or size < best[0]:
                best = (size, candidate)
            if size <= 1e-15 * float(np.abs(target.numpy()).max()):
                break
        slopes = best[1]
    else:
        slopes = np.zeros(0)
    final = _with_slopes(pattern, slopes)
    signals = _signals(Pattern(final.masks, pattern.kinks, ()), rho, shapes, g) if count else torch.zeros(0, dtype=F64)
    slopes_tensor = torch.tensor(slopes, dtype=F64)
    k = certificate_depth(shapes, x.shape[1])
    absolute_value, absolute_gradient = batched_value_and_gradient(rho.abs()[None], shapes, x.abs(), g.abs(),
                                                                   linear=True)
    bound = gamma(k) * (absolute_gradient[0] + float(absolute_value[0]) * rho.abs())
    return ClarkeStationarity(
        speed=speed, kinks=pattern.kinks, slopes=slopes_tensor, signals=signals,
        multipliers=-slopes_tensor * signals,
        residual=generalized_gradient(rho, shapes, x, g, pattern, slopes) + target,
        bound=bound, scale=abs(speed) * math.sqrt(len(shapes)), gradient_residual=plain_gradient[0] + target,
        one_sided_residual=generalized_gradient(rho, shapes, x, g, pattern, np.ones(count)) + target,
    )


def kink_tangent_step(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
                      size: float, seed: int = 0) -> torch.Tensor:
    """A point of the radius-sqrt(L) sphere ``size`` sqrt(L) from ``rho`` along a random tangent
    direction orthogonal to rho and to the gradients of ``pattern``'s kink values (so the kinks stay at
    0 to second order in ``size``), supported on the weights rho carries: a non-stationary point with
    the same kinks."""
    depth = len(shapes)
    direction = torch.randn(len(rho), generator=torch.Generator().manual_seed(seed), dtype=F64) * (rho != 0)
    basis = [rho]
    if pattern.kinks:
        basis += list(FrozenKKT(shapes, x, g, pattern).constraint_jacobian(rho))
    q, _ = torch.linalg.qr(torch.stack(basis, dim=1))
    direction = direction - q @ (q.T @ direction)
    point = rho + size * math.sqrt(depth) * direction / norm(direction)
    return math.sqrt(depth) * point / norm(point)
