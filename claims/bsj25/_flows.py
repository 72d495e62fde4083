"""Gradient flow on BSJ25's localized loss L_0 and the closed forms of Section 2.2.

**Flow** (``localized_flow``): d theta/dt = -grad L_0(theta) with ``scipy.integrate.solve_ivp``
(DOP853, rtol 1e-12; the right-hand side ``value_and_gradient`` in numpy), optionally stopped when
||theta|| reaches a radius (the escape time t_1(r)); ``FlowSolution`` bounds the integration error
of ||theta(t)|| and of t_1(r).

**Closed forms**: Proposition 2.2 / A.2 and the escape-time approximation after it as printed, and as
the flow gives them (``*_exact``): d||theta||/dt = L^{1-L/2} s ||theta||^{L-1} on an escape
direction (Proposition A.1; ``radial_rate``); the output bound after Proposition 2.2,
||Y_theta||_F <= ||W_L||_op..||W_1||_op ||X||_F <= (||theta|| / sqrt(L))^L ||X||_F, with its rounding
bounds (``output_bound_terms``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from claims.bsj25._saddle import Shapes, absolute_forward, forward, rounding_depth, unflatten
from claims.models._numerics import gamma

norm = torch.linalg.vector_norm
frobenius = torch.linalg.matrix_norm


def numpy_forward(
    theta: np.ndarray, shapes: Shapes, x: np.ndarray,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The ReLU network's forward pass at one parameter vector, in numpy: its layers W_l (views of ``theta``), their
    inputs (X, then relu of each hidden preactivation) and their preactivations W_l h_{l-1}, l = 1..L."""
    weights, start = [], 0
    for rows, cols in shapes:
        weights.append(theta[start : start + rows * cols].reshape(rows, cols))
        start += rows * cols
    inputs, pre = [x], []
    for layer, w in enumerate(weights):
        z = w @ inputs[-1]
        pre.append(z)
        if layer < len(weights) - 1:
            inputs.append(np.maximum(z, 0.0))
    return weights, inputs, pre


def value_and_gradient(theta: np.ndarray, shapes: Shapes, x: np.ndarray, g: np.ndarray) -> tuple[float, np.ndarray]:
    """L_0 and its gradient at one parameter vector, in numpy (a tenth of torch's per-call overhead
    on these sizes; the flow's right-hand side)."""
    weights, inputs, pre = numpy_forward(theta, shapes, x)
    delta = g
    grads = [theta] * len(weights)
    for layer in range(len(weights) - 1, -1, -1):
        grads[layer] = (delta @ inputs[layer].T).reshape(-1)
        if layer > 0:
            delta = (weights[layer].T @ delta) * (pre[layer - 1] > 0)
    return float((g * pre[-1]).sum()), np.concatenate(grads)


class _EvaluationLimit(Exception):
    pass


@dataclass
class FlowSolution:
    """A DOP853 solution of d theta/dt = -grad L_0(theta): ``times`` and ``thetas`` (rows), the
    integrator's counts and tolerances, and ``event_time`` when stopped at ||theta|| = radius; ``crossing_times``:
    when ||theta|| first reached each of the ``crossings`` radii asked for (None where it did not)."""

    times: np.ndarray
    thetas: torch.Tensor
    evaluations: int
    steps: int
    rtol: float
    atol: float
    message: str
    success: bool
    event_time: float | None = None
    event_theta: torch.Tensor | None = None
    crossing_times: tuple[float | None, ...] = ()

    @property
    def norms(self) -> np.ndarray:
        return norm(self.thetas, dim=1).numpy()

    def local_error(self, start_norm: float) -> float:
        """A bound on the relative error one right-hand-side evaluation's step can commit: the
        controller keeps each step's local error below rtol ||theta|| + sqrt(P) atol (relative to
        ||theta|| >= ``start_norm`` on a growing trajectory), counted once per evaluation (the
        suite's convention for DOP853 references, ``claims.models._flow``: 12 or 13 evaluations per step)."""
        return self.rtol + math.sqrt(self.thetas.shape[1]) * self.atol / start_norm

    def relative_norm_tolerance(self, depth: int, start_norm: float, final_norm: float) -> float:
        """A bound, from the integration tolerance, on the relative error of ||theta(t)|| up to a time
        where the norm is ``final_norm``, on the ray of an escape direction: in u = R^{2-L} the radial
        equation is du/dt = const, so local errors (relative (L-2) delta in u) add up unamplified, and
        in R they are amplified by (R(t)/R(t_i))^{L-2} <= (final/start)^{L-2}; for L = 2 in log R,
        unamplified. Total: evaluations x ``local_error`` x (final/start)^{max(L-2, 0)}."""
        return max(self.evaluations, 1) * self.local_error(start_norm) * (final_norm / start_norm) ** max(depth - 2, 0)

    def escape_time_tolerance(self, depth: int, start_norm: float, radius: float) -> float:
        """A bound on the relative error of the event time t_1(r): in u = R^{2-L} (L > 2) the local
        errors add up to at most (L-2) E u_0 (E = evaluations x ``local_error``) and
        t_1 = (u_0 - u_r) / ((L-2) L c), so t_1 is within (L-2) E u_0 / (u_0 - u_r) relatively; for
        L = 2, u = log R and t_1 = (u_r - u_0) / (2c): within E / log(r / R_0)."""
        total = max(self.evaluations, 1) * self.local_error(start_norm)
        if depth == 2:
            return total / math.log(radius / start_norm)
        u0, ur = start_norm ** (2 - depth), radius ** (2 - depth)
        return (depth - 2) * total * u0 / (u0 - ur)


def localized_flow(
    theta0: torch.Tensor, shapes: Shapes, x: torch.Tensor, g: torch.Tensor, t_end: float,
    t_eval: Sequence[float] | None = None, rtol: float = 1e-12, atol: float | None = None,
    stop_norm: float | None = None, max_evaluations: int = 50_000, crossings: Sequence[float] = (),
) -> FlowSolution:
    """Gradient flow on L_0 from theta(0) = ``theta0`` with ``scipy.integrate.solve_ivp`` (DOP853,
    ``rtol``, ``atol`` default 1e-3 rtol ||theta0|| / sqrt(P)), reporting at ``t_eval``; with
    ``stop_norm`` a terminal event at ||theta|| = stop_norm (the escape time t_1(r)); ``crossings``: radii whose
    first crossing times are recorded on the way (events that do not stop it: the steps, and so every time, are
    those of the flow stopped at each radius, without integrating it once per radius). More than
    ``max_evaluations`` right-hand sides (steps collapsing at a kink) stop it: ``success`` False, no
    states."""
    from scipy.integrate import DOP853, solve_ivp

    if crossings and t_eval is not None:
        raise ValueError("crossings are recorded on flows without t_eval")
    count = [0]
    dense = []  # the right-hand sides each dense output (the interpolant of a step, for its events) evaluated
    atol = 1e-3 * rtol * float(norm(theta0)) / math.sqrt(len(theta0)) if atol is None else atol
    x_np, g_np = x.numpy(), g.numpy()

    def rhs(_t, y):
        count[0] += 1
        if count[0] > max_evaluations:
            raise _EvaluationLimit
        return -value_and_gradient(y, shapes, x_np, g_np)[1]

    class CountingDOP853(DOP853):
        def _dense_output_impl(self):
            before = count[0]
            try:
                return super()._dense_output_impl()
            finally:
                dense.append(count[0] - before)

    def reach_event(radius: float, terminal: bool):
        def reach(_t, y):
            return float(np.linalg.norm(y)) - radius
        reach.terminal, reach.direction = terminal, 1
        return reach

    events = [reach_event(stop_norm, True)] if stop_norm is not None else []
    events += [reach_event(radius, False) for radius in crossings]
    events = events or None
    try:
        solution = solve_ivp(rhs, (0.0, t_end), theta0.numpy().copy(), method=CountingDOP853, rtol=rtol, atol=atol,
                             t_eval=None if t_eval is None else np.asarray(t_eval, dtype=float), events=events)
    except _EvaluationLimit:
        return FlowSolution(np.zeros(0), theta0.new_zeros(0, len(theta0)), count[0] - 1, 0, rtol, atol,
                            f"stopped after {max_evaluations} evaluations", False)
    event_time = event_theta = None
    if stop_norm is not None and len(solution.t_events[0]):
        event_time = float(solution.t_events[0][0])
        event_theta = torch.from_numpy(solution.y_events[0][0].copy())
    crossing_times, evaluations = (), count[0]
    if crossings:
        crossing_times = tuple(float(times[0]) if len(times) else None
                               for times in solution.t_events[1 if stop_norm is not None else 0:])
        # the counts of the flow without the crossings: its only dense output is the stopping step's
        evaluations -= sum(dense[:-1] if event_time is not None else dense)
    return FlowSolution(
        times=solution.t, thetas=torch.from_numpy(solution.y.T.copy()), evaluations=evaluations,
        steps=int((getattr(solution, "nfev", count[0]) - count[0] + evaluations) // 12) or 1, rtol=rtol, atol=atol,
        message=solution.message, success=bool(solution.success), event_time=event_time, event_theta=event_theta,
        crossing_times=crossing_times,
    )


def p22_norm_printed(start_norm: float, depth: int, speed: float, t: np.ndarray | float) -> np.ndarray:
    """Proposition 2.2 / A.2 as printed: (R0^{2-L} + (2-L) L s t)^{1/(2-L)}, L != 2; R0 exp(2 s t), L = 2.
    NaN past its blow-up time."""
    t = np.asarray(t, dtype=float)
    if depth == 2:
        return start_norm * np.exp(2 * speed * t)
    base = start_norm ** (2 - depth) + (2 - depth) * depth * speed * t
    with np.errstate(invalid="ignore"):
        return np.where(base > 0, np.abs(base) ** (1.0 / (2 - depth)), np.nan)


def radial_rate(depth: int, speed: float) -> float:
    """c in d||theta||/dt = L c ||theta||^{L-1} on the ray of an escape direction rho
    (||rho||^2 = L, grad L_0(rho) = -s rho): c = -L_0(rho / ||rho||) = s L^{-L/2}, the speed on the
    unit sphere, since d||theta||/dt = -L ||theta||^{L-1} L_0(theta_bar) (Prop. A.1)."""
    return speed * depth ** (-depth / 2)


def p22_norm_exact(start_norm: float, depth: int, speed: float, t: np.ndarray | float) -> np.ndarray:
    """The flow's ||theta(t)|| from theta(0) on the ray of an escape direction of speed s:
    Proposition 2.2's form with s replaced by ``radial_rate`` = s L^{-L/2}."""
    return p22_norm_printed(start_norm, depth, radial_rate(depth, speed), t)


def blowup_time(start_norm: float, depth: int, rate: float) -> float:
    """When (R0^{2-L} + (2-L) L c t)^{1/(2-L)} blows up (L > 2): R0^{2-L} / ((L-2) L c)."""
    return math.inf if depth == 2 else start_norm ** (2 - depth) / ((depth - 2) * depth * rate)


def escape_time_printed(start_norm: float, radius: float, depth: int, speed: float) -> float:
    """The escape-time approximation after Proposition 2.2 as printed:
    [R0^{2-L} + r^{2-L}] / ((L-2) L s), L != 2; log(r / R0) / (2 s), L = 2."""
    if depth == 2:
        return math.log(radius / start_norm) / (2 * speed)
    return (start_norm ** (2 - depth) + radius ** (2 - depth)) / ((depth - 2) * depth * speed)


def escape_time_exact(start_norm: float, radius: float, depth: int, speed: float) -> float:
    """The time the flow takes from ||theta|| = R0 to r on the ray of an escape direction:
    Prop. 2.2's form solved for t with c = s L^{-L/2}: [R0^{2-L} - r^{2-L}] / ((L-2) L c), and
    log(r / R0) / (2 c) for L = 2."""
    rate = radial_rate(depth, speed)
    if depth == 2:
        return math.log(radius / start_norm) / (2 * rate)
    return (start_norm ** (2 - depth) - radius ** (2 - depth)) / ((depth - 2) * depth * rate)


def output_bound(radius: float, depth: int, x: torch.Tensor) -> float:
    """The bound after Proposition 2.2: ||Y_theta||_F <= (r / sqrt(L))^L ||X||_F on ||theta|| = r."""
    return (radius / math.sqrt(depth)) ** depth * float(frobenius(x))


def operator_norm_product(weights: Sequence[torch.Tensor], x: torch.Tensor) -> float:
    """||W_L||_op .. ||W_1||_op ||X||_F, the middle term of the output bound."""
    return math.prod(float(torch.linalg.matrix_norm(w, ord=2)) for w in weights) * float(frobenius(x))


@dataclass(frozen=True)
class OutputBound:
    """The chain after Proposition 2.2 at one theta: ||Y_theta||_F <= ||W_L||_op..||W_1||_op ||X||_F
    <= (||theta|| / sqrt(L))^L ||X||_F, each term with its float64 rounding bound: ||Y||_F within
    gamma_k || |W_L|..|W_1||X| ||_F (k the forward depth, + N n_L for the norm); each ||W_l||_op from a
    backward-stable SVD within gamma_{8 max(m,n)+8} relatively, so the product within
    L gamma_{8 max+8} + gamma_{N d_in}; ||theta|| within gamma_P, its L-th power within L gamma_P."""

    output: float
    output_error: float
    product: float
    product_error: float
    norm_term: float
    norm_term_error: float


def output_bound_terms(theta: torch.Tensor, shapes: Shapes, x: torch.Tensor) -> OutputBound:
    weights = unflatten(theta, shapes)
    depth = len(shapes)
    y = forward(weights, x)[0][-1]
    k = rounding_depth(shapes, x.shape[1]) + x.shape[1] * shapes[-1][0]
    output_error = gamma(k) * float(frobenius(absolute_forward(weights, x)[-1]))
    product = operator_norm_product(weights, x)
    widest = max(max(s) for s in shapes)
    product_error = (depth * gamma(8 * widest + 8) + gamma(x.numel())) * product
    norm_term = (float(norm(theta)) / math.sqrt(depth)) ** depth * float(frobenius(x))
    norm_term_error = (depth * gamma(len(theta) + 4) + gamma(x.numel())) * norm_term
    return OutputBound(float(frobenius(y)), output_error, product, product_error, norm_term, norm_term_error)
