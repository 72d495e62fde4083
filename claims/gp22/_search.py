"""The search for convergence points where GP22 Propositions 1 and 2 say there are none (Section
3.1): many random starts at once (one tensor program), a batched Levenberg-Marquardt minimization
(Gauss-Newton converges quadratically to a zero residual, so a convergence point is reached to
rounding level, where a first-order method or L-BFGS stalls far above it; optionally after Adam
steps) of one of ``_residuals``' scale-free stationarity residuals on a sphere, the Jacobians by
forward-mode differentiation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import torch
from torch.autograd import forward_ad

from claims.gp22._inputs import seeded_generator
from claims.gp22._residuals import (
    label_free_judgement, label_free_residual, loss_violation_residual, residual_tolerance,
    violation_residual,
)
from claims.gp22._settings import Setting

DTYPE = torch.float64


@dataclass
class SearchResult:
    """Endpoints of a search: ``theta`` (S, D), ``residual`` the judged measure at each endpoint
    (``label-free``: the sine of the sample that exceeds its rounding bound most,
    ``label_free_judgement``; otherwise the residual's norm), ``tolerance`` its rounding bound there
    (``residual_tolerance``), ``outputs`` f on the data (S, m), ``initial`` the largest per-sample
    sine (``label-free``) or the residual's norm at the starts, ``iterations`` (Adam, LM)."""

    kind: str
    theta: torch.Tensor
    residual: torch.Tensor
    tolerance: torch.Tensor
    outputs: torch.Tensor
    initial: torch.Tensor
    iterations: tuple[int, int]
    samples: torch.Tensor
    """The sample each start targets (``violation``: s mod m)."""

    @property
    def starts(self) -> int:
        return self.theta.shape[0]

    def found(self) -> torch.Tensor:
        """Endpoints whose residual is within its rounding bound (convergence points up to rounding)."""
        return self.residual <= self.tolerance


def _residual_function(kind: str, setting: Setting, x, fixed, y=None, loss=None, sample=0):
    if kind == "label-free":
        return lambda theta: label_free_residual(setting, x, fixed, theta).flatten(-2)
    if kind == "violation":
        return lambda theta: violation_residual(setting, x, fixed, theta, sample)
    if kind == "loss-violation":
        return lambda theta: loss_violation_residual(setting, x, y, loss, fixed, theta)
    raise ValueError(f"unknown residual {kind!r}")


def endpoint_measure(kind: str, residual: torch.Tensor, m: int) -> torch.Tensor:
    """The judged quantity from a residual vector (..., R): for ``label-free`` the largest
    per-sample sine, otherwise the norm."""
    if kind == "label-free":
        return torch.linalg.vector_norm(residual.unflatten(-1, (m, -1)), dim=-1).amax(-1)
    return torch.linalg.vector_norm(residual, dim=-1)


def residual_and_jacobian(
    residual: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """r(theta) (S, R) and its Jacobian (S, R, D) for every row of theta (S, D), by forward-mode
    differentiation of one evaluation on D copies of theta, copy k carrying the tangent e_k
    (``torch.autograd.forward_ad``: one tensor program, no per-start loop)."""
    starts, dimension = theta.shape
    primal = theta.expand(dimension, starts, dimension).clone()
    tangent = torch.eye(dimension, dtype=theta.dtype)[:, None, :].expand(dimension, starts, dimension).clone()
    with forward_ad.dual_level():
        out = residual(forward_ad.make_dual(primal, tangent))
        value, derivative = forward_ad.unpack_dual(out)
    return value[0], derivative.permute(1, 2, 0)


def levenberg_marquardt(
    residual: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor, iterations: int
) -> torch.Tensor:
    """Batched Levenberg-Marquardt on r(theta) for every row of theta (S, D) at once: the Jacobians
    by forward mode (``residual_and_jacobian``), the damped normal equations (J^T J + mu (diag J^T J
    + 1e-12 tr/D)) delta = -J^T r solved per start, mu divided by 3 on an accepted step (the cost
    decreased) and multiplied by 4 otherwise."""
    def evaluate(points):
        return residual_and_jacobian(residual, points)

    r, jac = evaluate(theta)
    cost = (r * r).sum(-1)
    mu = torch.full(cost.shape, 1e-3, dtype=DTYPE)
    for _ in range(iterations):
        normal = jac.mT @ jac
        diagonal = torch.diagonal(normal, dim1=-2, dim2=-1)
        floor = 1e-12 * diagonal.sum(-1, keepdim=True) / theta.shape[-1] + 1e-300
        damping = torch.diag_embed(diagonal + floor) * mu[:, None, None]
        step = torch.linalg.solve(normal + damping, -(jac.mT @ r[..., None]))[..., 0]
        candidate = theta + step
        r_new, jac_new = evaluate(candidate)
        cost_new = (r_new * r_new).sum(-1)
        accept = torch.isfinite(cost_new) & (cost_new < cost)
        theta = torch.where(accept[:, None], candidate, theta)
        r = torch.where(accept[:, None], r_new, r)
        jac = torch.where(accept[:, None, None], jac_new, jac)
        cost = torch.where(accept, cost_new, cost)
        mu = torch.where(accept, mu / 3, mu * 4).clamp(1e-15, 1e15)
    return theta


def random_starts(setting: Setting, starts: int, seed: int) -> torch.Tensor:
    """(S, D) starting points: each matrix's entries N(0, 1/d_q) (fan-in scaling)."""
    generator = seeded_generator(seed)
    blocks = [
        torch.randn(starts, rows * cols, generator=generator, dtype=DTYPE) / math.sqrt(cols)
        for rows, cols in setting.shapes
    ]
    return torch.cat(blocks, dim=1)


def search(
    kind: str,
    setting: Setting,
    x: torch.Tensor,
    fixed: Mapping[str, torch.Tensor] | None = None,
    starts: int = 32,
    seed: int = 0,
    y: torch.Tensor | None = None,
    loss: str | None = None,
    adam_steps: int = 0,
    lm_iterations: int = 30,
    learning_rate: float = 0.03,
    radius: float | None = None,
) -> SearchResult:
    """Minimize a stationarity residual (``kind``: ``label-free``, ``violation``, ``loss-violation``)
    over the trainable parameters on the sphere ||theta|| = ``radius`` (default sqrt(sum of the
    trainable matrices' row counts), the typical norm of a fan-in initialization) from ``starts``
    random points at once: optionally Adam on the summed squared residual (``adam_steps``, one
    reverse pass for all starts; off by default: from random starts Levenberg-Marquardt alone reached
    lower residuals in fewer evaluations), then ``levenberg_marquardt``. The sphere is one more residual entry,
    ||theta|| / radius - 1 (zero on it), so the search cannot drift off in scale (a ReLU chain's
    ``label-free`` and ``violation`` residuals are scale-invariant anyway; with skip connections or a
    loss like the logistic one the search covers that scale). For ``violation`` the start s targets
    sample s mod m. ``fixed`` holds the matrices not in E_T."""
    fixed = dict(fixed or {})
    m = x.shape[0]
    if radius is None:
        radius = math.sqrt(sum(rows for rows, _ in setting.shapes))
    theta = random_starts(setting, starts, seed)
    theta = theta * (radius / torch.linalg.vector_norm(theta, dim=1, keepdim=True))

    def on_sphere(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
        def augmented(points: torch.Tensor) -> torch.Tensor:
            norm = torch.linalg.vector_norm(points, dim=-1, keepdim=True)
            return torch.cat([fn(points), norm / radius - 1], dim=-1)

        return augmented

    targets = torch.arange(starts) % m
    batched = on_sphere(_residual_function(kind, setting, x, fixed, y=y, loss=loss, sample=targets))

    def measure(points: torch.Tensor) -> torch.Tensor:
        return endpoint_measure(kind, batched(points)[..., :-1], m)

    with torch.no_grad():
        initial = measure(theta)
    theta = theta.clone().requires_grad_()
    optimizer = torch.optim.Adam([theta], lr=learning_rate)
    for _ in range(adam_steps):
        optimizer.zero_grad()
        r = batched(theta)
        objective = torch.where(torch.isfinite(r), r, torch.zeros_like(r)).pow(2).sum()
        objective.backward()
        optimizer.step()
    theta = levenberg_marquardt(batched, theta.detach(), lm_iterations)
    with torch.no_grad():
        outputs = setting.network({**fixed, **setting.unflatten(theta)}, x)
        if kind == "label-free":
            final, tolerance = label_free_judgement(setting, x, fixed, theta)
        else:
            final = measure(theta)
            tolerance = residual_tolerance(kind, setting, x, fixed, theta, y=y, loss=loss, sample=targets)
    return SearchResult(kind, theta, final, tolerance, outputs, initial, (adam_steps, lm_iterations), targets)
