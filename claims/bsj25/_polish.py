"""The pattern and polish stages of BSJ25's escape-direction solver (Definition 2.1; the stages are
listed in ``claims.bsj25._solver``).

*Pattern* (``identify_pattern``): at a search result every hidden pre-activation Z_l[i, n] is
classified by its margin |Z_l[i, n]| / (|W_l| .. |W_1| |X|)[i, n]: active, inactive, or on a kink
(margin below ``KINK_THRESHOLD``, on a live input column); a unit with a negligible share, or on a
kink for every live sample, is dropped (weights set to zero: a unit that contributes nothing only
costs norm). Kink constraints are reduced to an independent set (``independent_kinks``).

*Polish* (``polish``): with the pattern frozen, L_0 is a polynomial, and the optimum solves the KKT
system of min L_0 on ||theta||^2 = L subject to Z_l[i, n] = 0 at the kinks (``FrozenKKT``:
gradients by a hand-written batched backward pass, the Jacobian by the complex step). Newton's
method (``newton_kkt``) solves it to rounding; when it does not converge from the search result,
``scipy.optimize.minimize`` (SLSQP) on the sphere with the kink constraints comes first
(``sphere_minimize``). Without kinks the KKT system is the Riemannian critical-point equation
grad L_0 + s rho = 0. A point whose real L_0 disagrees with the frozen one has left the pattern's
region and is not accepted. Units the polish drove to zero are set exactly to zero
(``snap_vanished_units``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from claims.bsj25._saddle import (
    Shapes,
    absolute_forward,
    forward,
    localized_loss,
    parameter_count,
    unflatten,
)
from claims.bsj25._search import split_batch
from claims.models._numerics import EPS

F64 = torch.float64
norm = torch.linalg.vector_norm

KINK_THRESHOLD = 1e-6
"""A hidden pre-activation whose margin |Z_l[i, n]| / (|W_l|..|W_1||X|)[i, n] is below this after the
search (steps down to 1e-10 sqrt(L)) is taken as on a kink for the polish. Measured on random
instances: kink margins end at 1e-13..1e-10, the others above 1e-3. A solver setting, not a
tolerance of any claim: the certificate is judged on the polished point."""

NEWTON_CUTOFF = 1e-9
"""Singular values of the KKT Jacobian below this times the largest are treated as zero in the
polish's Newton steps (measured: a flat family gives singular values of the order of the residual,
1e-12 and below; the others are above 1e-6 of the largest)."""

DROP_SHARE = 1e-3
"""A hidden unit whose share ||row|| ||column|| is below this times its layer's largest after the
search is dropped for the polish (a solver setting; the certificate judges the result)."""

CONVERGED = 1e-12
"""The polish accepts a point whose KKT residual is below this times s sqrt(L) (the gradient's scale)."""


@dataclass(frozen=True)
class Pattern:
    """A frozen activation pattern of the hidden layers: ``masks[l-1]`` (n_l x N, float 0/1) says
    which Z_l entries pass the ReLU; ``kinks`` lists (l, i, n) held at Z_l[i, n] = 0; ``dropped``
    lists hidden units (l, i) treated as carrying no weight."""

    masks: tuple[torch.Tensor, ...]
    kinks: tuple[tuple[int, int, int], ...]
    dropped: tuple[tuple[int, int], ...]


def identify_pattern(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, threshold: float = KINK_THRESHOLD,
                     share: float = DROP_SHARE) -> Pattern:
    """The pattern at ``rho``: a hidden unit is dropped (mask 0; the polish sets its weights to zero)
    when its share ||row of W_l|| ||column of W_{l+1}|| is below ``share`` times the largest of its
    layer (the search shrinks units that contribute nothing only slowly) or it is on a kink for all
    its live samples. Otherwise margins |Z_l| / (|W_l|..|W_1||X|) below ``threshold`` on a live input
    column (Z^s_{l-1}[:, n] not identically 0) are kinks; everything else keeps its sign."""
    weights = unflatten(rho, shapes)
    pre, post = forward(weights, x)
    scale = absolute_forward(weights, x)
    masks, kinks, dropped = [], [], []
    for layer in range(1, len(shapes)):
        live = (post[layer - 1] != 0).any(dim=0)
        margin = pre[layer].abs() / scale[layer].clamp_min(1e-300)
        near = (margin < threshold) & live
        mask = (pre[layer] > 0) & ~near
        shares = norm(weights[layer - 1], dim=1) * norm(weights[layer], dim=0)
        for unit in range(pre[layer].shape[0]):
            if not bool(live.any()):
                continue
            if float(shares[unit]) < share * float(shares.max()) or bool(near[unit][live].all()):
                dropped.append((layer, unit))
                mask[unit] = False
            else:
                kinks.extend((layer, unit, int(n)) for n in torch.nonzero(near[unit]).flatten())
        masks.append(mask.to(F64))
    return Pattern(tuple(masks), tuple(kinks), tuple(dropped))


class FrozenKKT:
    """The KKT system of min L_0^f on ||theta||^2 = L subject to c(theta) = 0, for the frozen-pattern
    loss L_0^f (ReLU replaced by the pattern's masks: a polynomial in theta) and the kink values
    c_k = Z_l[i, n], in y = (theta, lambda, mu):
    F(y) = (grad L_0^f - lambda theta - J^T mu, (||theta||^2 - L) / 2, c(theta)).

    Gradients come from a batched hand-written backward pass (the kink multipliers enter as
    injections -mu_k at Z_l[i, n]); the Jacobian of F by the complex step (theta + i h e_j,
    h = 1e-30): L_0^f and c are polynomials with real coefficients, so Im F(theta + i h e_j) / h is
    their derivative to rounding, with no cancellation, all P directions as one batch."""

    STEP = 1e-30

    def __init__(self, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern, chunk: int = 256):
        self.shapes, self.x, self.g, self.pattern, self.chunk = shapes, x, g, pattern, chunk
        self.depth, self.count = len(shapes), parameter_count(shapes)
        self.layers = torch.tensor([k[0] for k in pattern.kinks], dtype=torch.long)
        self.units = torch.tensor([k[1] for k in pattern.kinks], dtype=torch.long)
        self.samples = torch.tensor([k[2] for k in pattern.kinks], dtype=torch.long)
        self.kink_depth = max((k[0] for k in pattern.kinks), default=0)
        """The deepest layer with a kink: c(theta) depends on W_1 .. W_{kink_depth} only."""
        self.kink_parameters = sum(rows * cols for rows, cols in shapes[: self.kink_depth])
        self._data = {x.dtype: x}

    @property
    def size(self) -> int:
        return self.count + 1 + len(self.pattern.kinks)

    def _forward(self, thetas: torch.Tensor, layers: int | None = None
                 ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """(inputs, pre) of the frozen network for a batch, through its first ``layers`` layers (all by default)."""
        weights = split_batch(thetas, self.shapes)[:layers]
        x = self._data.get(thetas.dtype)
        if x is None:
            x = self._data[thetas.dtype] = self.x.to(thetas.dtype)
        inputs, pre = [x], []
        for layer, w in enumerate(weights):
            z = torch.matmul(w, inputs[-1])
            pre.append(z)
            if layer < self.depth - 1:
                inputs.append(z * self.pattern.masks[layer])
        return inputs, pre

    def constraints(self, thetas: torch.Tensor, forward=None) -> torch.Tensor:
        """c(theta) for a batch (R, P): (R, m). ``forward``: this batch's ``_forward`` (at least through the
        deepest kink's layer), when the caller has it."""
        if not self.pattern.kinks:
            return thetas.new_zeros(thetas.shape[0], 0)
        _, pre = self._forward(thetas, self.kink_depth) if forward is None else forward
        return torch.stack([pre[l - 1][:, i, n] for l, i, n in self.pattern.kinks], dim=1)

    def lagrangian_gradient(self, thetas: torch.Tensor, mu: torch.Tensor, forward=None) -> torch.Tensor:
        """grad (L_0^f - mu . c) for a batch (R, P) (``forward``: this batch's ``_forward``, when the caller has it)."""
        weights = split_batch(thetas, self.shapes)
        inputs, pre = self._forward(thetas) if forward is None else forward
        batch = thetas.shape[0]
        delta = self.g.to(thetas.dtype).expand_as(pre[-1])
        grads: list[torch.Tensor] = [thetas] * self.depth
        for layer in range(self.depth - 1, -1, -1):
            grads[layer] = torch.matmul(delta, inputs[layer].transpose(-1, -2)).reshape(batch, -1)
            if layer > 0:
                delta = torch.matmul(weights[layer].transpose(1, 2), delta) * self.pattern.masks[layer - 1]
                chosen = self.layers == layer
                if bool(chosen.any()):
                    injection = torch.zeros(delta.shape[1:], dtype=thetas.dtype)
                    injection.index_put_((self.units[chosen], self.samples[chosen]), -mu[chosen].to(thetas.dtype),
                                         accumulate=True)
                    delta = delta + injection
        return torch.cat(grads, dim=1)

    def residual(self, y: torch.Tensor) -> torch.Tensor:
        theta, lam, mu = y[: self.count], y[self.count], y[self.count + 1 :]
        forward = self._forward(theta[None])
        stationarity = self.lagrangian_gradient(theta[None], mu, forward)[0] - lam * theta
        sphere = ((theta @ theta) - self.depth) / 2
        return torch.cat([stationarity, sphere.reshape(1), self.constraints(theta[None], forward)[0]])

    def value_and_gradient(self, theta: torch.Tensor) -> tuple[float, torch.Tensor]:
        """L_0^f(theta) and its gradient."""
        forward = self._forward(theta[None])
        no_multipliers = torch.zeros(len(self.pattern.kinks), dtype=F64)
        return float((self.g * forward[1][-1][0]).sum()), self.lagrangian_gradient(theta[None], no_multipliers,
                                                                                   forward)[0]

    def _probes(self, theta: torch.Tensor, start: int, stop: int) -> torch.Tensor:
        """theta + i h e_j for j = start .. stop - 1 (complex, one row each)."""
        rows = torch.arange(start, stop)
        probe = theta.to(torch.complex128).expand(len(rows), -1).clone()
        probe[torch.arange(len(rows)), rows] += 1j * self.STEP
        return probe

    def constraint_jacobian(self, theta: torch.Tensor) -> torch.Tensor:
        """dc/dtheta (m, P) by the complex step on the forward pass, through the deepest kink's layer; the
        columns of deeper layers' weights are 0 (c does not depend on them), and a chunk of probes made only of
        such columns is not computed."""
        parts = []
        for start in range(0, self.count, self.chunk):
            stop = min(start + self.chunk, self.count)
            if start >= self.kink_parameters:
                parts.append(theta.new_zeros(stop - start, len(self.pattern.kinks)))
                continue
            parts.append(self.constraints(self._probes(theta, start, stop)).imag / self.STEP)
        return torch.cat(parts).T

    def jacobian(self, y: torch.Tensor) -> torch.Tensor:
        theta, lam, mu = y[: self.count], y[self.count], y[self.count + 1 :]
        hessian, constraint = [], []
        for start in range(0, self.count, self.chunk):
            probe = self._probes(theta, start, min(start + self.chunk, self.count))
            forward = self._forward(probe)
            hessian.append(self.lagrangian_gradient(probe, mu, forward).imag / self.STEP)
            constraint.append(self.constraints(probe, forward).imag / self.STEP)
        h = torch.cat(hessian)  # symmetric: row j = d grad / d theta_j
        j = torch.cat(constraint).T  # (m, P)
        m = len(self.pattern.kinks)
        out = torch.zeros(self.size, self.size, dtype=F64)
        out[: self.count, : self.count] = h.T - lam * torch.eye(self.count, dtype=F64)
        out[: self.count, self.count] = -theta
        out[: self.count, self.count + 1 :] = -j.T
        out[self.count, : self.count] = theta
        if m:
            out[self.count + 1 :, : self.count] = j
        return out


def independent_kinks(pattern: Pattern, theta: torch.Tensor, shapes: Shapes, x: torch.Tensor,
                      g: torch.Tensor) -> Pattern:
    """The pattern with its kink constraints reduced to a linearly independent set at ``theta``
    (pivoted QR of the constraint Jacobian, columns with |R_jj| > 1e-8 |R_11| kept): samples on one
    line through the origin (x and -x) give the same constraint twice, which SLSQP cannot take."""
    from scipy.linalg import qr

    if not pattern.kinks:
        return pattern
    jac = FrozenKKT(shapes, x, g, pattern).constraint_jacobian(theta).numpy()
    _, r, pivots = qr(jac.T, pivoting=True, mode="economic")
    diagonal = np.abs(np.diag(r))
    rank = int((diagonal > 1e-8 * diagonal[0]).sum()) if diagonal.size and diagonal[0] > 0 else 0
    keep = sorted(int(p) for p in pivots[:rank])
    return Pattern(pattern.masks, tuple(pattern.kinks[i] for i in keep), pattern.dropped)


def _zero_units(theta: torch.Tensor, shapes: Shapes, units: Sequence[tuple[int, int]]) -> torch.Tensor:
    theta = theta.clone()
    for layer, unit in units:
        incoming, outgoing = _unit_offsets(shapes, layer, unit)
        theta[incoming] = 0.0
        theta[outgoing] = 0.0
    return math.sqrt(len(shapes)) * theta / norm(theta)


def sphere_minimize(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
                    iterations: int = 60) -> torch.Tensor:
    """``scipy.optimize.minimize`` (SLSQP) of the frozen-pattern L_0^f on ||theta||^2 = L subject to
    the kink constraints c(theta) = 0, from ``theta``: the smooth problem the kinks leave, solved to
    SLSQP's accuracy (ftol 1e-16)."""
    from scipy.optimize import minimize

    system = FrozenKKT(shapes, x, g, pattern)
    depth = len(shapes)

    def objective(values):
        value, gradient = system.value_and_gradient(torch.from_numpy(values))
        return value, gradient.numpy()

    def constraints(values):
        t = torch.from_numpy(values)
        return np.concatenate([[float(t @ t) - depth], system.constraints(t[None])[0].numpy()])

    def constraints_jacobian(values):
        t = torch.from_numpy(values)
        return np.vstack([2 * values[None], system.constraint_jacobian(t).numpy()])

    result = minimize(objective, theta.numpy().copy(), jac=True, method="SLSQP",
                      constraints=[dict(type="eq", fun=constraints, jac=constraints_jacobian)],
                      options=dict(maxiter=iterations, ftol=1e-16))
    out = torch.from_numpy(np.array(result.x))
    return math.sqrt(depth) * out / norm(out) if bool(torch.isfinite(out).all()) else theta


def _lstsq(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The minimum-norm least-squares solution of a z = b, singular values below NEWTON_CUTOFF s_1
    dropped (LAPACK gelsd)."""
    return torch.linalg.lstsq(a, b[:, None], rcond=NEWTON_CUTOFF, driver="gelsd").solution[:, 0]


def newton_kkt(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern,
               newton_steps: int = 12) -> tuple[torch.Tensor, float]:
    """Newton's method on the frozen-pattern KKT system (``FrozenKKT``) from ``rho``. Each step: the
    multipliers (lambda, mu) reset to the minimum-norm least-squares solution of
    grad L_0^f = lambda theta + J^T mu; then the minimum-norm solution of Jac dy = -F
    (LAPACK gelsd, ``torch.linalg.lstsq``) with singular values below ``NEWTON_CUTOFF`` s_1 dropped
    (optima come in flat families, e.g. mass shared among parallel units, where Jac is singular); a
    step is kept while ||F|| decreases. Returns rho rescaled onto the sphere and the final KKT
    residual norm."""
    system = FrozenKKT(shapes, x, g, pattern)
    count = system.count
    y = torch.cat([rho, torch.zeros(1 + len(pattern.kinks), dtype=F64)])

    def reset_multipliers(y: torch.Tensor) -> torch.Tensor:
        theta = y[:count]
        basis = torch.cat([theta[:, None], system.constraint_jacobian(theta).T], dim=1)
        _, target = system.value_and_gradient(theta)
        y = y.clone()
        y[count:] = _lstsq(basis, target)
        return y

    y = reset_multipliers(y)
    residual_vector = system.residual(y)
    residual = float(norm(residual_vector))
    for _ in range(newton_steps):
        trial = reset_multipliers(y + _lstsq(system.jacobian(y), -residual_vector))
        trial_vector = system.residual(trial)
        trial_residual = float(norm(trial_vector))
        if not trial_residual < residual:
            break
        y, residual, residual_vector = trial, trial_residual, trial_vector
        if residual <= 8 * EPS * abs(float(y[count])) * math.sqrt(len(shapes)):
            break  # rounding level of the gradient's scale |lambda| sqrt(L)
    theta = y[:count]
    return math.sqrt(len(shapes)) * theta / norm(theta), residual


def _consistent(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, pattern: Pattern) -> bool:
    """Whether the real network's L_0 at ``theta`` equals the frozen pattern's (to 1e-12 relative):
    otherwise the point has left the pattern's region."""
    frozen, _ = FrozenKKT(shapes, x, g, pattern).value_and_gradient(theta)
    real = float(localized_loss(unflatten(theta, shapes), x, g))
    return abs(real - frozen) <= 1e-12 * abs(real)


def _escapes(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> bool:
    """Whether ``theta`` has a positive speed s = -L_0(theta). Newton can end on a dead point (every path
    through the network inactive: L_0 = 0, gradient 0), which solves the KKT system with s = 0 exactly
    but is no escape direction (measured: Example 1 at depth 3, width 4, 512 restarts)."""
    return float(localized_loss(unflatten(theta, shapes), x, g)) < 0


def polish(rho: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, rounds: int = 2,
           fallback: bool = True) -> tuple[torch.Tensor, float, Pattern | None]:
    """From a search result: identify the pattern (``identify_pattern``, kinks reduced by
    ``independent_kinks``) and solve the frozen problem's KKT system by ``newton_kkt``; when that does
    not converge (residual above ``CONVERGED`` s sqrt(L)) or leaves the pattern's region, minimize the
    frozen problem on the sphere first (``sphere_minimize``, SLSQP) and finish with Newton; at most
    ``rounds`` times, each from the last point (without ``fallback``: Newton only). Returns (rho, KKT residual norm, the
    pattern) of the first converged, consistent point, else the search result itself (residual NaN, no pattern)."""
    theta = rho
    for _ in range(rounds):
        pattern = identify_pattern(theta, shapes, x)
        start = _zero_units(theta, shapes, pattern.dropped)
        if not bool(torch.isfinite(start).all()):
            break
        pattern = independent_kinks(pattern, start, shapes, x, g)
        scale = abs(float(localized_loss(unflatten(start, shapes), x, g))) * math.sqrt(len(shapes))
        for minimize_first in (False, True) if fallback else (False,):
            point = sphere_minimize(start, shapes, x, g, pattern) if minimize_first else start
            point, residual = newton_kkt(point, shapes, x, g, pattern)
            if residual <= CONVERGED * scale and _escapes(point, shapes, x, g) and \
                    _consistent(point, shapes, x, g, pattern):
                return point, residual, pattern
        theta = point
    return rho, math.nan, None


def _unit_offsets(shapes: Shapes, layer: int, unit: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices in theta of hidden unit ``unit`` of layer ``layer``: its row of W_l and its column of
    W_{l+1}."""
    starts = [0, *itertools.accumulate(r * c for r, c in shapes)]
    rows, cols = shapes[layer - 1]
    incoming = starts[layer - 1] + unit * cols + torch.arange(cols)
    out_rows, out_cols = shapes[layer]
    outgoing = starts[layer] + torch.arange(out_rows) * out_cols + unit
    return incoming, outgoing


def snap_vanished_units(rho: torch.Tensor, shapes: Shapes) -> torch.Tensor:
    """Hidden units whose row and column are below rounding of the sphere's radius set exactly to
    zero (the polish drives a unit that contributes nothing to zero, to within rounding)."""
    rho = rho.clone()
    floor = 4 * EPS * math.sqrt(len(shapes))
    for layer in range(1, len(shapes)):
        for unit in range(shapes[layer - 1][0]):
            incoming, outgoing = _unit_offsets(shapes, layer, unit)
            if float(rho[incoming].abs().max()) <= floor and float(rho[outgoing].abs().max()) <= floor:
                rho[incoming] = 0.0
                rho[outgoing] = 0.0
    return math.sqrt(len(shapes)) * rho / norm(rho)
