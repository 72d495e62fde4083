"""BSJ25 Section 2.1-2.2 in s-time: gradient flow on L_0 with the reparametrized time s of Section 2.1,
ds/dt = ||theta||^{L-2} (t(s) = int_0^s ||theta(s_1)||^{2-L} ds_1), and the normalized dynamics on the
unit sphere, d theta_bar/ds = -(I - theta_bar theta_bar^T) grad L_0(theta_bar).

``s_time_flow`` integrates d(theta, s)/dt = (-grad L_0(theta), ||theta||^{L-2}) in t (the real gradient
flow, ``scipy.integrate.solve_ivp`` DOP853) and records theta where s crosses each target (events);
``sphere_flow`` integrates the normalized dynamics in s directly. Both report their right-hand-side
evaluations and the local error bound per evaluation (``claims.bsj25._flows.FlowSolution.local_error``'s
convention): the integrator's tolerance on theta_bar is evaluations x (rtol + sqrt(P) atol / ||theta||).
``residual_lipschitz`` and ``residual_rounding`` turn an error on theta_bar into one on the tangential residual.

**Kinks.** Both tolerances assume a smooth right-hand side: DOP853's local error estimate is no bound where a
hidden preactivation changes sign (a ReLU kink: grad L_0 jumps), and its steps collapse there.
``sphere_flow(stop_at_kink=True)`` follows a path only while every hidden preactivation keeps its sign at the start
(a terminal event on the smallest signed preactivation, ``hidden_preactivations``) and raises ``KinkCrossed`` at the
first change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from claims.bsj25._flows import numpy_forward, value_and_gradient
from claims.bsj25._saddle import Shapes, loss_of_theta


@dataclass(frozen=True)
class STimeSolution:
    """theta at each target s (rows, in the order of ``s_targets``), the t at which s reached it, the
    right-hand-side evaluations, and the integrator's relative tolerance on theta_bar (``direction_tolerance``)."""

    s_targets: tuple[float, ...]
    thetas: torch.Tensor
    times: np.ndarray
    evaluations: int
    direction_tolerance: float


def s_time_flow(
    theta0: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, s_targets: Sequence[float],
    t_end: float, rtol: float = 1e-12, max_evaluations: int = 20_000,
) -> STimeSolution:
    """Gradient flow on L_0 from ``theta0`` with s-time alongside (ds/dt = ||theta||^{L-2}, s(0) = 0),
    theta recorded where s crosses each of ``s_targets`` (before ``t_end``; a target not reached is an
    error). atol: 1e-3 rtol ||theta0|| / sqrt(P) on theta, rtol 1e-3 on s."""
    from scipy.integrate import solve_ivp

    depth, size = len(shapes), len(theta0)
    x_np, g_np = x.numpy(), g.numpy()
    count = [0]
    start_norm = float(torch.linalg.vector_norm(theta0))
    atol = np.full(size + 1, 1e-3 * rtol * start_norm / math.sqrt(size))
    atol[-1] = 1e-3 * rtol

    def rhs(_t, y):
        count[0] += 1
        if count[0] > max_evaluations:
            raise ArithmeticError(f"more than {max_evaluations} evaluations (steps collapsing at a kink)")
        theta = y[:-1]
        return np.concatenate([-value_and_gradient(theta, shapes, x_np, g_np)[1],
                               [float(np.linalg.norm(theta)) ** (depth - 2)]])

    events = []
    for target in s_targets:
        def crossing(_t, y, target=target):
            return y[-1] - target
        crossing.direction = 1
        events.append(crossing)
    last = events[int(np.argmax(s_targets))]
    last.terminal = True
    y0 = np.concatenate([theta0.numpy(), [0.0]])
    solution = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=atol, events=events)
    if any(len(t) == 0 for t in solution.t_events):
        raise ArithmeticError(f"s did not reach {max(s_targets)} by t = {t_end}: {solution.message}")
    thetas = torch.from_numpy(np.stack([solution.y_events[k][0][:-1] for k in range(len(s_targets))]))
    times = np.array([solution.t_events[k][0] for k in range(len(s_targets))])
    tolerance = count[0] * (rtol + math.sqrt(size) * 1e-3 * rtol)
    return STimeSolution(tuple(float(s) for s in s_targets), thetas, times, count[0], tolerance)


class KinkCrossed(ArithmeticError):
    """The normalized path reached a ReLU kink (a hidden preactivation changed sign) at s-time ``s``."""

    def __init__(self, s: float):
        super().__init__(f"a hidden preactivation changed sign at s = {s:.6g} (a ReLU kink)")
        self.s = s


def hidden_preactivations(theta: np.ndarray, shapes: Shapes, x: np.ndarray) -> np.ndarray:
    """Every hidden preactivation (W_l h_{l-1})_{i n}, l = 1..L-1, of every sample, flattened: the functions whose
    sign changes are the ReLU kinks of L_0 along a path."""
    return np.concatenate([z.reshape(-1) for z in numpy_forward(theta, shapes, x)[2][:-1]])


@dataclass(frozen=True)
class SphereFlow:
    """The normalized dynamics' theta_bar at each s of ``s_eval`` (rows), the tangential residual
    ||(I - theta_bar theta_bar^T) grad L_0(theta_bar)|| / ||grad L_0(theta_bar)|| there, evaluations and
    the integrator's relative tolerance on theta_bar."""

    s_eval: np.ndarray
    directions: torch.Tensor
    residuals: np.ndarray
    evaluations: int
    direction_tolerance: float


def tangential_residual(direction: np.ndarray, shapes: Shapes, x: np.ndarray, g: np.ndarray) -> float:
    gradient = value_and_gradient(direction, shapes, x, g)[1]
    tangent = gradient - (gradient @ direction) / (direction @ direction) * direction
    return float(np.linalg.norm(tangent) / np.linalg.norm(gradient))


def sphere_flow(
    direction0: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, s_eval: Sequence[float],
    rtol: float = 1e-12, max_evaluations: int = 20_000, stop_at_kink: bool = False,
) -> SphereFlow:
    """d theta_bar/ds = -(I - theta_bar theta_bar^T) grad L_0(theta_bar) from ``direction0`` / ||direction0||
    (Section 2.1's normalized dynamics; DOP853, atol 1e-3 rtol / sqrt(P)), reported at ``s_eval``. With
    ``stop_at_kink``: ``KinkCrossed`` at the first s where a hidden preactivation changes sign (a terminal event on
    min_k sign_k(0) z_k(s) over the preactivations nonzero at the start, positive while the start's activation
    pattern holds; an exact 0 is a sample whose layer input is 0, and stays 0 until an earlier one changes sign)."""
    from scipy.integrate import solve_ivp

    x_np, g_np = x.numpy(), g.numpy()
    size = len(direction0)
    count = [0]

    def rhs(_s, y):
        count[0] += 1
        if count[0] > max_evaluations:
            raise ArithmeticError(f"more than {max_evaluations} evaluations (steps collapsing at a kink)")
        gradient = value_and_gradient(y, shapes, x_np, g_np)[1]
        return -(gradient - (gradient @ y) / (y @ y) * y)

    y0 = (direction0 / torch.linalg.vector_norm(direction0)).numpy().copy()
    atol = 1e-3 * rtol / math.sqrt(size)
    s_eval = np.asarray(s_eval, dtype=float)
    events = None
    if stop_at_kink:
        signs = np.sign(hidden_preactivations(y0, shapes, x_np))
        watched = signs != 0

        def pattern_kept(_s, y):
            return float(np.min((signs * hidden_preactivations(y, shapes, x_np))[watched], initial=np.inf))
        pattern_kept.terminal = True
        events = [pattern_kept]
    solution = solve_ivp(rhs, (0.0, float(s_eval[-1])), y0, method="DOP853", rtol=rtol, atol=atol, t_eval=s_eval,
                         events=events)
    if stop_at_kink and len(solution.t_events[0]):
        raise KinkCrossed(float(solution.t_events[0][0]))
    directions = solution.y.T.copy()
    residuals = np.array([tangential_residual(d, shapes, x_np, g_np) for d in directions])
    tolerance = count[0] * (rtol + math.sqrt(size) * atol)
    return SphereFlow(s_eval, torch.from_numpy(directions), residuals, count[0], tolerance)


def residual_lipschitz(direction: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """How far the tangential residual r(theta) = ||P grad L_0(theta)|| / ||grad L_0(theta)|| (P = I - theta theta^T
    / ||theta||^2; ``tangential_residual``) can move per unit of perturbation of the unit direction theta, to first
    order: |r(theta + delta) - r(theta)| <= K ||delta|| + O(||delta||^2) with

        K = ||P (H - lambda I) P||_op / ||grad L_0|| + r(theta),   lambda = theta^T grad L_0(theta) = L L_0(theta),

    H the Hessian of L_0 at theta (``torch.func.hessian``; relu'(0) = 0 on a kink, the piece torch picks).
    Derivation: r is scale invariant (grad L_0 is (L-1)-homogeneous, P is not changed by scaling), so only the
    tangential part delta_T (||delta_T|| <= ||delta||) counts; along it, d(P grad) = P H delta_T - delta_T lambda -
    theta (delta_T^T grad) and |delta_T^T grad| = |delta_T^T P grad| <= ||delta_T|| r ||grad||; the denominator
    ||grad|| moves by O(||delta||) and multiplies r, a term of the same form. At an escape direction K is the
    Riemannian Hessian's norm over the speed; this is what turns an integrator's error on theta_bar into an error on
    the residual (BSJ25.S22's convergence check)."""
    theta = (direction / torch.linalg.vector_norm(direction)).to(torch.float64)
    loss = loss_of_theta(shapes, x, g)
    gradient = torch.func.grad(loss)(theta)
    hessian = torch.func.hessian(loss)(theta)
    eigenvalue = float(gradient @ theta)
    projector = torch.eye(len(theta), dtype=torch.float64) - torch.outer(theta, theta)
    riemannian = projector @ (hessian - eigenvalue * torch.eye(len(theta), dtype=torch.float64)) @ projector
    size = float(torch.linalg.vector_norm(gradient))
    residual = float(torch.linalg.vector_norm(projector @ gradient)) / size
    return float(torch.linalg.matrix_norm(riemannian, ord=2)) / size + residual


def residual_rounding(direction: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> float:
    """The float64 error of ``tangential_residual`` at a unit direction: each gradient entry is within gamma_k
    (grad A(|theta|))_i (A the absolute loss, k = ``certificate_depth``: ``claims.bsj25._certificate``), so the
    numerator ||P grad|| and the denominator ||grad|| each move by at most gamma_k ||grad A(|theta|)||; the
    ratio (<= 1) by at most twice that over ||grad L_0||."""
    from claims.bsj25._certificate import certificate_depth
    from claims.bsj25._search import batched_value_and_gradient
    from claims.models._numerics import gamma

    theta = (direction / torch.linalg.vector_norm(direction)).to(torch.float64)
    _, gradient = batched_value_and_gradient(theta[None], shapes, x, g)
    _, absolute = batched_value_and_gradient(theta.abs()[None], shapes, x.abs(), g.abs(), linear=True)
    k = certificate_depth(shapes, x.shape[1])
    return 2 * gamma(k) * float(torch.linalg.vector_norm(absolute[0])) / float(torch.linalg.vector_norm(gradient[0]))
