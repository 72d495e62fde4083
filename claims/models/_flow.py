"""Gradient flow d theta/dt = -grad R(theta) (LJ22 Section 4.1), integrated with explicit
Runge-Kutta methods of known order, many initializations at once, with a DOP853 reference.

Every right-hand-side evaluation, Runge-Kutta stages included, also records the activation
pattern (the sign of every pre-activation of a non-linear vertex on every example) and the
weight signs, and compares them with those at the start: an order argument holds only where the
flow is smooth, and LJ22's Assumption 1 (stable signs) is a hypothesis of Lemmas 2-4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.integrate import solve_ivp
from torch.func import jvp, vmap

from claims.models._networks import LINEAR
from claims.models._risk import Risk


@dataclass(frozen=True)
class ExplicitRungeKutta:
    """An explicit Runge-Kutta method by its Butcher tableau (``a`` strictly lower triangular)."""

    name: str
    order: int
    a: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]

    @property
    def stages(self) -> int:
        return len(self.b)


EULER = ExplicitRungeKutta("euler", 1, ((),), (1.0,))
HEUN = ExplicitRungeKutta("heun", 2, ((), (1.0,)), (0.5, 0.5))
RK4 = ExplicitRungeKutta("rk4", 4, ((), (0.5,), (0.0, 0.5), (0.0, 0.0, 1.0)), (1 / 6, 1 / 3, 1 / 3, 1 / 6))
METHODS = {method.name: method for method in (EULER, HEUN, RK4)}
"""Explicit Euler (order 1), Heun (order 2) and classical RK4 (order 4)."""


@dataclass
class Monitor:
    """What the right-hand side saw along a batch of trajectories, per trajectory: whether any
    activation pattern or weight sign differed from the start, and the smallest pre-activation
    magnitude (of non-linear vertices) and parameter magnitude met."""

    pattern: torch.Tensor
    signs: torch.Tensor
    pattern_changed: torch.Tensor = field(init=False)
    signs_changed: torch.Tensor = field(init=False)
    pattern_margin: torch.Tensor = field(init=False)
    weight_margin: torch.Tensor = field(init=False)
    evaluations: int = 0

    def __post_init__(self) -> None:
        batch = self.signs.shape[0]
        self.pattern_changed = torch.zeros(batch, dtype=torch.bool)
        self.signs_changed = torch.zeros(batch, dtype=torch.bool)
        inf = torch.full((batch,), float("inf"), dtype=torch.float64)
        self.pattern_margin, self.weight_margin = inf.clone(), inf.clone()

    def observe(self, kinked: torch.Tensor, theta: torch.Tensor) -> None:
        """``kinked``: pre-activations of the non-linear vertices, (batch, n, k)."""
        self.evaluations += 1
        flat = kinked.reshape(kinked.shape[0], -1)
        self.pattern_changed |= ((flat >= 0) != self.pattern).any(dim=1)
        self.signs_changed |= ((theta > 0) != self.signs).any(dim=1)
        if flat.shape[1]:
            self.pattern_margin = torch.minimum(self.pattern_margin, flat.abs().min(dim=1).values)
        self.weight_margin = torch.minimum(self.weight_margin, theta.abs().min(dim=1).values)

    @property
    def smooth(self) -> torch.Tensor:
        """Per trajectory: no pattern and no weight sign changed at any evaluation."""
        return ~(self.pattern_changed | self.signs_changed)


class GradientFlow:
    """The vector field -grad R on parameters of shape (batch, n_parameters), one tensor program
    for the whole batch (``Risk.batched_gradient``: one forward and one reverse pass of every
    trajectory; ``torch.func.vmap`` over ``grad`` cost several times that per call on these small
    networks, and the integrators and the DOP853 reference make hundreds of calls per trajectory).

    ``time_scale`` (batch,) runs trajectory i at speed time_scale[i], d theta/ds = -c_i grad R: the
    same path, reached at s = t / c_i, so that one integration to s = 1 takes every trajectory to
    its own time c_i (``time_to_kink`` chooses those times)."""

    def __init__(self, risk: Risk, time_scale: torch.Tensor | None = None):
        self.risk = risk
        self.time_scale = time_scale
        network = risk.network
        self._kinked = torch.tensor(
            [v for v in range(network.n_inputs, network.n_vertices) if network.slopes[v] != LINEAR],
            dtype=torch.long,
        )

    def _velocity(self, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """grad R (batch, p) and the pre-activations of the non-linear vertices (batch, n, k)."""
        gradient, pre = self.risk.batched_gradient(theta)
        return gradient, pre[:, :, self._kinked]

    def _risk_and_kinks(self, theta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        value, pre = self.risk.with_preactivations(theta)
        return value, pre[:, self._kinked]

    def monitor(self, theta: torch.Tensor) -> Monitor:
        """A monitor whose reference pattern and signs are those at ``theta`` (batch, p)."""
        _, kinked = self._velocity(theta)
        return Monitor(kinked.reshape(theta.shape[0], -1) >= 0, theta > 0)

    def __call__(self, theta: torch.Tensor, monitor: Monitor | None = None) -> torch.Tensor:
        if self.time_scale is not None and self.time_scale.shape != theta.shape[:1]:
            raise ValueError(f"time_scale has shape {tuple(self.time_scale.shape)}, theta a batch of {theta.shape[0]}")
        gradient, kinked = self._velocity(theta)
        if monitor is not None:
            monitor.observe(kinked, theta)
        return -gradient if self.time_scale is None else -gradient * self.time_scale[:, None]

    def time_to_kink(self, theta: torch.Tensor, fraction: float = 0.25) -> torch.Tensor:
        """Per trajectory, ``fraction`` of the first-order time for a pre-activation of a non-linear
        vertex or a parameter to reach 0: min(|z| / |dz/dt|) over both at theta (batch, p). An
        estimate for choosing horizons; whether the pattern and signs really held is what the
        ``Monitor`` reports."""
        velocity = -self._velocity(theta)[0]

        def kinks(th: torch.Tensor) -> torch.Tensor:
            return self._risk_and_kinks(th)[1].reshape(-1)

        pre, rate = vmap(lambda th, v: jvp(kinks, (th,), (v,)))(theta, velocity)
        inf = torch.tensor(float("inf"), dtype=theta.dtype)
        until = lambda z, dz: torch.where(dz != 0, z.abs() / dz.abs(), inf).amin(dim=1)  # noqa: E731
        horizon = torch.minimum(until(theta, velocity), until(pre, rate) if pre.shape[1] else inf)
        return fraction * horizon


def integrate(
    flow: GradientFlow, theta: torch.Tensor, time: float, steps: int, method: ExplicitRungeKutta,
    monitor: Monitor | None = None,
) -> torch.Tensor:
    """theta(time) by ``steps`` steps of ``method`` from ``theta`` (batch, p), every evaluation
    observed by ``monitor``."""
    h = time / steps
    for _ in range(steps):
        slopes: list[torch.Tensor] = []
        for row in method.a:
            stage = theta
            for coefficient, slope in zip(row, slopes):
                if coefficient:
                    stage = stage + (h * coefficient) * slope
            slopes.append(flow(stage, monitor))
        theta = theta + h * sum(weight * slope for weight, slope in zip(method.b, slopes))
    return theta


class EvaluationLimit(Exception):
    """The reference solver asked for more right-hand-side evaluations than allowed."""


@dataclass(frozen=True)
class ReferenceSolution:
    """DOP853's theta(time), or how far it got: ``completed`` is False when it needed more than the
    allowed evaluations (steps shrinking at a kink, where the vector field is not smooth)."""

    theta: torch.Tensor | None
    completed: bool
    evaluations: int
    time_reached: float
    rtol: float
    message: str


def reference_solution(
    flow: GradientFlow, theta: torch.Tensor, time: float, rtol: float = 1e-12, atol: float = 1e-14,
    max_evaluations: int = 200_000,
) -> ReferenceSolution:
    """Integrate the batch (batch, p) as one system with ``scipy.integrate.solve_ivp`` (DOP853),
    stopped after ``max_evaluations`` right-hand-side evaluations."""
    shape = theta.shape
    count = [0]
    reached = [0.0]

    def rhs(t: float, y: np.ndarray) -> np.ndarray:
        count[0] += 1
        if count[0] > max_evaluations:
            raise EvaluationLimit
        reached[0] = max(reached[0], t)
        # numpy's reshape, not torch's: the same values, and torch's costs ~4 us a call, most of a small system's step
        return flow(torch.from_numpy(y.reshape(shape))).numpy().reshape(-1)

    try:
        solution = solve_ivp(rhs, (0.0, time), theta.reshape(-1).numpy(), method="DOP853", rtol=rtol, atol=atol)
    except EvaluationLimit:
        return ReferenceSolution(None, False, count[0] - 1, reached[0], rtol,
                                 f"stopped after {max_evaluations} evaluations at t = {reached[0]:.6g} of {time}")
    if not solution.success:
        return ReferenceSolution(None, False, count[0], reached[0], rtol, solution.message)
    final = torch.from_numpy(solution.y[:, -1].copy()).reshape(shape)
    return ReferenceSolution(final, True, count[0], time, rtol, solution.message)
