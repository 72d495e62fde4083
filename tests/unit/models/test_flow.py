"""The gradient-flow machinery of ``claims.models._flow``: the Butcher tableaux and the observed order of
the explicit Runge-Kutta methods on toy fields, the DOP853 reference (smooth and kinked fields),
and ``GradientFlow`` with its ``Monitor`` on real ReLU and linear networks: pattern and weight-sign
changes constructed deliberately, ``time_to_kink`` against finite differences, and ``time_scale``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from claims.models._builders import mlp
from claims.models._flow import (
    EULER,
    HEUN,
    METHODS,
    RK4,
    ExplicitRungeKutta,
    GradientFlow,
    Monitor,
    integrate,
    reference_solution,
)
from claims.models._networks import LINEAR, RELU
from claims.models._risk import Risk

F64 = torch.float64


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see tests/conftest.py
Y0 = torch.tensor([[1.0, 0.0], [0.5, -2.0]], dtype=F64)  # a batch of 2 initial values
ROTATION = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=F64)


def decay(theta: torch.Tensor, monitor=None) -> torch.Tensor:
    """dy/dt = -y."""
    return -theta


def rotation(theta: torch.Tensor, monitor=None) -> torch.Tensor:
    """dy/dt = A y with A the rotation generator: y1' = y2, y2' = -y1."""
    return theta @ ROTATION.T


def exact_decay(t: float) -> torch.Tensor:
    return Y0 * math.exp(-t)


def exact_rotation(t: float) -> torch.Tensor:
    c, s = math.cos(t), math.sin(t)
    return Y0 @ torch.tensor([[c, s], [-s, c]], dtype=F64).T


def cubic_decay(theta: torch.Tensor, monitor=None) -> torch.Tensor:
    """dy/dt = -y^3 (non-linear, so a method's nodes c matter, not only the powers of its A)."""
    return -theta**3


def exact_cubic_decay(t: float) -> torch.Tensor:
    return Y0 / torch.sqrt(1 + 2 * Y0**2 * t)


FIELDS = {"decay": (decay, exact_decay), "rotation": (rotation, exact_rotation)}

KUTTA3 = ExplicitRungeKutta("kutta3", 3, ((), (0.5,), (-1.0, 2.0)), (1 / 6, 2 / 3, 1 / 6))
"""Kutta's third-order method: its last row has two nonzero entries, so a stage that kept only one
slope (or the last) is wrong on it, while EULER, HEUN and RK4 (one nonzero entry per row) hide that."""


# --- Butcher tableaux ----------------------------------------------------------------------------


def _rational(value: float) -> Fraction:
    """The small-denominator rational that ``value`` is the float of (asserted: not merely near)."""
    fraction = Fraction(value).limit_denominator(1000)
    assert float(fraction) == value, f"{value!r} is not the float of a simple rational"
    return fraction


def _tableau(method):
    """(A as a full lower-triangular Fraction matrix, b, c = row sums of A), exact."""
    s = method.stages
    a = [[Fraction(0)] * s for _ in range(s)]
    for i, row in enumerate(method.a):
        for j, value in enumerate(row):
            a[i][j] = _rational(value)
    b = [_rational(value) for value in method.b]
    c = [sum(row) for row in a]
    return a, b, c


def _order_conditions(method) -> dict[int, list[tuple[Fraction, Fraction]]]:
    """(sum, required) for every rooted tree of order <= 4 (Butcher's order conditions)."""
    a, b, c = _tableau(method)

    def dot(u, v):
        return sum(x * y for x, y in zip(u, v))

    def times(m, v):
        return [dot(row, v) for row in m]

    ac = times(a, c)
    return {
        1: [(sum(b), Fraction(1))],
        2: [(dot(b, c), Fraction(1, 2))],
        3: [(dot(b, [x * x for x in c]), Fraction(1, 3)), (dot(b, ac), Fraction(1, 6))],
        4: [
            (dot(b, [x**3 for x in c]), Fraction(1, 4)),
            (dot(b, [x * y for x, y in zip(c, ac)]), Fraction(1, 8)),
            (dot(b, times(a, [x * x for x in c])), Fraction(1, 12)),
            (dot(b, times(a, ac)), Fraction(1, 24)),
        ],
    }


@pytest.mark.parametrize(
    "method, c",
    [(EULER, [0]), (HEUN, [0, 1]), (RK4, [0, Fraction(1, 2), Fraction(1, 2), 1])],
    ids=["euler", "heun", "rk4"],
)
def test_butcher_tableau_is_explicit_and_consistent(method, c):
    assert method.stages == len(method.b) == len(method.a)
    assert [len(row) for row in method.a] == list(range(method.stages))  # strictly lower triangular
    assert math.fsum(method.b) == pytest.approx(1.0, abs=1e-15)
    # the nodes the autonomous integrate() leaves implicit: c_i = sum_j a_ij
    assert _tableau(method)[2] == c


@pytest.mark.parametrize("method", [EULER, HEUN, RK4], ids=lambda m: m.name)
def test_tableau_satisfies_exactly_the_order_conditions_of_its_order(method):
    conditions = _order_conditions(method)
    for order in range(1, method.order + 1):
        for value, required in conditions[order]:
            assert value == required, (method.name, order)
    if method.order < 4:  # the next order fails: the stated order is the method's order
        assert any(value != required for value, required in conditions[method.order + 1])


def test_kutta3_tableau_has_a_full_row_and_exactly_order_three():
    assert KUTTA3.a[2] == (-1.0, 2.0)  # the integrator's general path: two slopes in one stage
    conditions = _order_conditions(KUTTA3)
    assert all(value == required for order in (1, 2, 3) for value, required in conditions[order])
    assert any(value != required for value, required in conditions[4])
    assert _tableau(KUTTA3)[2] == [0, Fraction(1, 2), 1]


def test_one_kutta3_step_combines_every_slope_of_a_full_row():
    h = 0.25
    k1 = cubic_decay(Y0)
    k2 = cubic_decay(Y0 + (h * 0.5) * k1)
    k3 = cubic_decay(Y0 - h * k1 + (2 * h) * k2)
    expected = Y0 + h * (k1 / 6 + 2 * k2 / 3 + k3 / 6)
    torch.testing.assert_close(integrate(cubic_decay, Y0, h, 1, KUTTA3), expected, rtol=1e-15, atol=0.0)
    # on dy/dt = -y one step is the cubic stability polynomial
    torch.testing.assert_close(integrate(decay, Y0, h, 1, KUTTA3), Y0 * (1 - h + h**2 / 2 - h**3 / 6),
                               rtol=1e-15, atol=0.0)


@pytest.mark.parametrize("field", ["decay", "rotation", "cubic"])
def test_kutta3_global_error_converges_at_order_three(field):
    vector_field, exact = {**FIELDS, "cubic": (cubic_decay, exact_cubic_decay)}[field]
    # y' = -y^3 from y = -2 has a Jacobian of -12 at the start: its asymptotic regime starts later
    steps = [64, 128, 256, 512] if field == "cubic" else [8, 16, 32, 64]
    errors = [float((integrate(vector_field, Y0, 1.0, n, KUTTA3) - exact(1.0)).abs().max()) for n in steps]
    assert min(errors) > 1e-12
    slope = np.polyfit(np.log([1.0 / n for n in steps]), np.log(errors), 1)[0]
    assert abs(slope - 3) < 0.15, (errors, slope)


def test_methods_are_indexed_by_name():
    assert METHODS == {"euler": EULER, "heun": HEUN, "rk4": RK4}
    assert [m.order for m in (EULER, HEUN, RK4)] == [1, 2, 4]


# --- integrate() -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, amplification",
    [
        (EULER, lambda h: 1 - h),
        (HEUN, lambda h: 1 - h + h**2 / 2),
        (RK4, lambda h: 1 - h + h**2 / 2 - h**3 / 6 + h**4 / 24),
    ],
    ids=["euler", "heun", "rk4"],
)
def test_one_step_on_decay_is_the_stability_polynomial(method, amplification):
    for h in (0.5, 0.125):
        stepped = integrate(decay, Y0, h, 1, method)
        torch.testing.assert_close(stepped, Y0 * amplification(h), rtol=1e-15, atol=0.0)
    # steps compose: 3 steps of h is the polynomial cubed
    torch.testing.assert_close(
        integrate(decay, Y0, 0.75, 3, method), Y0 * amplification(0.25) ** 3, rtol=1e-14, atol=0.0
    )


@pytest.mark.parametrize("field", FIELDS, ids=FIELDS.keys())
@pytest.mark.parametrize(
    "method, steps",
    [(EULER, [8, 16, 32, 64]), (HEUN, [8, 16, 32, 64]), (RK4, [4, 8, 16, 32])],
    ids=["euler", "heun", "rk4"],
)
def test_global_error_at_t1_converges_at_the_method_order(field, method, steps):
    vector_field, exact = FIELDS[field]
    errors = [float((integrate(vector_field, Y0, 1.0, n, method) - exact(1.0)).abs().max()) for n in steps]
    assert min(errors) > 1e-12, "errors at rounding level: the fit would measure rounding, not truncation"
    slope = np.polyfit(np.log([1.0 / n for n in steps]), np.log(errors), 1)[0]
    assert abs(slope - method.order) < 0.15, (errors, slope)
    ratio = errors[-2] / errors[-1]
    assert 2 ** (method.order - 0.25) < ratio < 2 ** (method.order + 0.25), ratio


@pytest.mark.parametrize("method", [EULER, HEUN, RK4], ids=lambda m: m.name)
def test_every_stage_evaluation_is_passed_the_monitor(method):
    seen: list[torch.Tensor] = []

    def field(theta, monitor):
        monitor.append(theta.clone())
        return -theta

    integrate(field, Y0, 1.0, 3, method, seen)
    assert len(seen) == 3 * method.stages
    torch.testing.assert_close(seen[0], Y0, rtol=0.0, atol=0.0)  # the first stage is the start


def test_integrate_without_steps_of_time_zero_returns_the_start():
    torch.testing.assert_close(integrate(rotation, Y0, 0.0, 4, RK4), Y0, rtol=0.0, atol=0.0)


# --- reference_solution ------------------------------------------------------------------------------


class Decay:
    """A GradientFlow-like smooth field: reference_solution calls it with a (batch, p) tensor."""

    def __call__(self, theta: torch.Tensor, monitor=None) -> torch.Tensor:
        return -theta


class SignField:
    """dy/dt = -sign(y): reaches 0 at t = y0 and chatters there (not Lipschitz at 0)."""

    def __call__(self, theta: torch.Tensor, monitor=None) -> torch.Tensor:
        return -torch.sign(theta)


def test_reference_solution_on_a_smooth_field_reaches_exp_minus_one():
    solution = reference_solution(Decay(), Y0, 1.0)
    assert solution.completed and solution.time_reached == 1.0
    assert solution.theta.shape == Y0.shape and solution.theta.dtype == F64
    assert float((solution.theta - exact_decay(1.0)).abs().max()) < 1e-10
    assert 0 < solution.evaluations < 10_000 and solution.rtol == 1e-12


def test_reference_solution_of_the_rotation_batch_is_accurate():
    solution = reference_solution(rotation, Y0, 1.0)
    assert solution.completed
    assert float((solution.theta - exact_rotation(1.0)).abs().max()) < 1e-10


def test_reference_solution_at_a_kink_stops_at_the_evaluation_limit():
    start = torch.tensor([[0.3]], dtype=F64)
    solution = reference_solution(SignField(), start, 1.0, max_evaluations=2000)
    assert not solution.completed and solution.theta is None
    assert solution.evaluations == 2000
    assert 0.0 < solution.time_reached < 1.0
    assert "2000 evaluations" in solution.message and "of 1.0" in solution.message


class Counted:
    """A vector field that counts its evaluations."""

    def __init__(self, field):
        self.field, self.calls = field, 0

    def __call__(self, theta, monitor=None):
        self.calls += 1
        return self.field(theta)


def test_reference_solution_reports_exactly_the_evaluations_it_made():
    smooth = Counted(Decay())
    assert reference_solution(smooth, Y0, 1.0).evaluations == smooth.calls > 0
    kinked = Counted(SignField())
    solution = reference_solution(kinked, torch.tensor([[0.3]], dtype=F64), 1.0, max_evaluations=500)
    assert not solution.completed and solution.evaluations == kinked.calls == 500  # the 501st was refused


def test_reference_solution_caps_at_200000_evaluations_by_default():
    import inspect

    assert inspect.signature(reference_solution).parameters["max_evaluations"].default == 200_000


def test_reference_solution_within_the_limit_is_not_cut_short():
    solution = reference_solution(Decay(), Y0, 1.0, max_evaluations=10_000)
    assert solution.completed and solution.evaluations <= 10_000


# --- Monitor -------------------------------------------------------------------------------------------


def test_monitor_records_changes_margins_and_evaluations_per_trajectory():
    pattern = torch.tensor([[True, False], [True, True]])
    signs = torch.tensor([[True, False, True], [False, False, True]])
    monitor = Monitor(pattern, signs)
    assert monitor.smooth.tolist() == [True, True] and monitor.evaluations == 0
    assert torch.isinf(monitor.pattern_margin).all() and torch.isinf(monitor.weight_margin).all()
    theta = torch.tensor([[1.0, -2.0, 3.0], [-0.5, -1.0, 2.0]], dtype=F64)
    monitor.observe(torch.tensor([[[0.5], [-0.25]], [[1.0], [2.0]]], dtype=F64), theta)  # (batch, n, k)
    assert monitor.smooth.tolist() == [True, True]
    assert monitor.pattern_margin.tolist() == [0.25, 1.0] and monitor.weight_margin.tolist() == [1.0, 0.5]
    # trajectory 0's second pre-activation turns >= 0 (0 counts as active); trajectory 1's weight 0 turns > 0
    theta = torch.tensor([[1.0, -2.0, 3.0], [0.125, -1.0, 2.0]], dtype=F64)
    monitor.observe(torch.tensor([[[0.5], [0.0]], [[1.0], [2.0]]], dtype=F64), theta)
    assert monitor.pattern_changed.tolist() == [True, False]
    assert monitor.signs_changed.tolist() == [False, True]
    assert monitor.smooth.tolist() == [False, False] and monitor.evaluations == 2
    assert monitor.pattern_margin.tolist() == [0.0, 1.0] and monitor.weight_margin.tolist() == [1.0, 0.125]
    # changes are sticky: returning to the start pattern does not clear them
    back = torch.where(signs, 0.5, -0.5).to(F64)
    monitor.observe(torch.tensor([[[0.5], [-0.25]], [[1.0], [2.0]]], dtype=F64), back)
    assert monitor.pattern_changed.tolist() == [True, False]
    assert monitor.signs_changed.tolist() == [False, True]


# --- GradientFlow on real networks ------------------------------------------------------------------

X_RIGGED = torch.tensor([[1.0, 1.0], [0.5, 0.5]], dtype=F64)
Y_RIGGED = torch.tensor([1.0, 1.0], dtype=F64)
# mlp([2, 3, 1]) parameters in edge order: W1 rows (w_02, w_12), (w_03, w_13), (w_04, w_14),
# then W2 (v_2, v_3, v_4).
# With y = +1 and x_i a positive multiple of (1, 1), dz_2/dt is proportional to v_2 and dv_j/dt to h_j >= 0.
RIGGED = torch.tensor(
    [
        [0.5, -0.499, 1, 1, 0.5, 0.5, -1.0, 1, 0.5],  # z_2 = 0.001 x_1 and v_2 < 0: neuron 2 switches off
        [0.5, 0.5, 1, 1, 0.5, 0.5, -1e-4, 1, 0.5],  # v_2 = -1e-4 rising (h_2 > 0): a weight sign changes
        [0.5, 0.5, 1, 1, 0.5, 0.5, -1.0, 1, 0.5],  # margins of order 1: nothing changes by t = 0.1
    ],
    dtype=F64,
)


def _rigged_flow(slope: float) -> GradientFlow:
    return GradientFlow(Risk(mlp([2, 3, 1], slope), X_RIGGED, Y_RIGGED))


def test_monitor_detects_a_pattern_change_and_a_weight_sign_change_on_a_relu_network():
    flow = _rigged_flow(RELU)
    monitor = flow.monitor(RIGGED)
    assert monitor.pattern.shape == (3, 2 * 3)  # 2 examples x 3 ReLU vertices (the output is linear)
    integrate(flow, RIGGED, 0.1, 10, RK4, monitor)
    assert monitor.evaluations == 10 * RK4.stages
    assert monitor.pattern_changed.tolist() == [True, False, False]
    assert monitor.signs_changed.tolist() == [False, True, False]
    assert monitor.smooth.tolist() == [False, False, True]
    assert float(monitor.pattern_margin[0]) < 1e-3 and float(monitor.weight_margin[1]) <= 1e-4
    assert float(monitor.pattern_margin[2]) > 0.1 and float(monitor.weight_margin[2]) > 0.1


def test_a_linear_network_never_reports_a_pattern_change():
    flow = _rigged_flow(LINEAR)
    monitor = flow.monitor(RIGGED)
    assert monitor.pattern.shape == (3, 0)
    final = integrate(flow, RIGGED, 0.1, 10, RK4, monitor)
    # trajectory 0's z_2 does cross 0, but a linear vertex has no kink
    assert float(final[0, 0] + final[0, 1]) < 0
    assert monitor.pattern_changed.tolist() == [False, False, False]
    assert torch.isinf(monitor.pattern_margin).all()
    assert monitor.signs_changed.tolist() == [False, True, False]  # weight signs are still watched


def test_short_integration_of_the_rigged_batch_is_smooth():
    flow = _rigged_flow(RELU)
    monitor = flow.monitor(RIGGED)
    integrate(flow, RIGGED, 1e-4, 4, RK4, monitor)
    assert monitor.smooth.all()


def _random_problem(seed: int, batch: int = 4, slope: float = RELU):
    generator = torch.Generator().manual_seed(seed)
    network = mlp([2, 3, 1], slope)
    x = torch.randn(5, 2, generator=generator, dtype=F64)
    y = torch.where(torch.rand(5, generator=generator) < 0.5, -1.0, 1.0).to(F64)
    theta = torch.randn(batch, network.n_parameters, generator=generator, dtype=F64)
    return Risk(network, x, y), theta


def _first_order_time_to_kink(risk: Risk, theta: torch.Tensor) -> torch.Tensor:
    """min(|z| / |dz/dt|) over pre-activations of ReLU vertices and parameters, by central differences."""
    network = risk.network
    kinked = [v for v in range(network.n_inputs, network.n_vertices) if network.slopes[v] != LINEAR]
    times = []
    for th in theta:
        velocity = -risk.gradient(th)
        eps = 1e-6
        z = risk.with_preactivations(th)[1][:, kinked]
        dz = (
            risk.with_preactivations(th + eps * velocity)[1][:, kinked]
            - risk.with_preactivations(th - eps * velocity)[1][:, kinked]
        ) / (2 * eps)
        candidates = torch.cat([(th.abs() / velocity.abs()), (z.abs() / dz.abs()).reshape(-1)])
        times.append(candidates.min())
    return torch.stack(times)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_time_to_kink_is_the_first_order_time_to_a_kink_or_a_zero_weight(seed):
    risk, theta = _random_problem(seed)
    flow = GradientFlow(risk)
    full = flow.time_to_kink(theta, fraction=1.0)
    assert torch.isfinite(full).all() and (full > 0).all()
    torch.testing.assert_close(full, _first_order_time_to_kink(risk, theta), rtol=1e-6, atol=0.0)
    default = flow.time_to_kink(theta)  # fraction 0.25
    torch.testing.assert_close(default, 0.25 * full, rtol=1e-15, atol=0.0)


def test_time_to_kink_of_the_rigged_batch_sees_the_tiny_margins():
    times = _rigged_flow(RELU).time_to_kink(RIGGED, fraction=1.0)
    # trajectory 0: z_2 = 0.001 (example 1) falls at a rate of order 0.1; trajectory 1: v_2 = 1e-4 rises
    assert float(times[0]) < 0.01 and float(times[1]) < 0.01 and float(times[2]) > 0.5
    linear = _rigged_flow(LINEAR).time_to_kink(RIGGED, fraction=1.0)
    assert float(linear[0]) > 0.5  # no kink to reach on a linear network, only weights


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_integrating_to_the_time_to_kink_keeps_patterns_and_signs(seed):
    risk, theta = _random_problem(seed)
    times = GradientFlow(risk).time_to_kink(theta)
    flow = GradientFlow(risk, time_scale=times)
    monitor = flow.monitor(theta)
    final = integrate(flow, theta, 1.0, 8, RK4, monitor)
    assert monitor.smooth.all(), (monitor.pattern_changed, monitor.signs_changed)
    assert not torch.equal(final, theta)


def test_time_scale_multiplies_the_velocity_of_each_trajectory():
    risk, theta = _random_problem(5, batch=3)
    scale = torch.tensor([0.5, 2.0, 0.125], dtype=F64)
    torch.testing.assert_close(
        GradientFlow(risk, time_scale=scale)(theta),
        scale[:, None] * GradientFlow(risk)(theta),
        rtol=0.0,
        atol=0.0,
    )
    torch.testing.assert_close(GradientFlow(risk)(theta), -risk.gradient(theta), rtol=0.0, atol=0.0)


def test_time_scale_takes_trajectory_i_to_the_unscaled_flow_at_time_c_i():
    risk, theta = _random_problem(4, batch=3)
    times = GradientFlow(risk).time_to_kink(theta)
    scaled = reference_solution(GradientFlow(risk, time_scale=times), theta, 1.0, rtol=1e-11, atol=1e-13)
    assert scaled.completed
    for i in range(theta.shape[0]):
        alone = reference_solution(
            GradientFlow(risk), theta[i : i + 1], float(times[i]), rtol=1e-11, atol=1e-13
        )
        assert alone.completed
        torch.testing.assert_close(scaled.theta[i : i + 1], alone.theta, rtol=0.0, atol=1e-9)
    # and the fixed-step integrator agrees with the reference
    torch.testing.assert_close(
        integrate(GradientFlow(risk, time_scale=times), theta, 1.0, 8, RK4), scaled.theta, rtol=0.0, atol=1e-7
    )


def test_a_time_scale_of_another_batch_size_is_refused():
    risk, theta = _random_problem(6, batch=3)
    flow = GradientFlow(risk, time_scale=torch.tensor([0.5, 1.0, 2.0], dtype=F64))
    with pytest.raises(ValueError):
        integrate(flow, theta[:1], 1.0, 2, EULER)


# --- edge cases that mutation testing found unpinned ---------------------------------------------------


def test_a_zero_weight_and_a_zero_pre_activation_at_the_start_are_not_changes():
    """The reference pattern is z >= 0 and the reference signs theta > 0, as ``observe`` compares them:
    observing the start itself changes nothing, even with a weight and a pre-activation exactly 0."""
    risk, theta = _random_problem(3, batch=2)
    theta = theta.clone()
    theta[:, 0] = 0.0  # w_02 = 0 (a zero weight)
    theta[0, :2] = 0.0  # trajectory 0: z_2 = 0 on every input (a zero pre-activation)
    flow = GradientFlow(risk)
    monitor = flow.monitor(theta)
    assert monitor.pattern_margin.dtype == monitor.weight_margin.dtype == F64  # before any observation too
    flow(theta, monitor)
    assert monitor.smooth.tolist() == [True, True] and monitor.evaluations == 1
    assert monitor.pattern_margin[0] == 0.0 and monitor.weight_margin.tolist() == [0.0, 0.0]
    assert monitor.pattern_margin.dtype == monitor.weight_margin.dtype == F64


def test_a_time_scale_of_the_wrong_batch_names_both_sizes():
    risk, theta = _random_problem(1, batch=3)
    with pytest.raises(ValueError, match=r"^time_scale has shape \(2,\), theta a batch of 3$"):
        GradientFlow(risk, time_scale=torch.ones(2, dtype=F64))(theta)


def test_reference_solution_reports_a_solver_failure_as_not_completed():
    """y' = y^2 from y = 1 blows up at t = 1: DOP853 fails before t = 2 without reaching the cap."""
    blowup = Counted(lambda theta: theta**2)
    solution = reference_solution(blowup, torch.tensor([[1.0]], dtype=F64), 2.0)
    assert solution.completed is False and solution.theta is None
    assert solution.evaluations == blowup.calls and 0.9 < solution.time_reached < 1.001
    assert solution.rtol == 1e-12 and solution.message and "stopped after" not in solution.message


def test_reference_solution_at_the_cap_keeps_its_rtol_and_says_not_completed():
    solution = reference_solution(SignField(), torch.tensor([[0.3]], dtype=F64), 1.0, rtol=1e-10,
                                  max_evaluations=300)
    assert solution.completed is False and solution.rtol == 1e-10
    done = reference_solution(Decay(), Y0, 1.0)
    assert done.completed is True and isinstance(done.message, str) and done.message


def test_reference_solution_stops_after_200000_evaluations_when_not_told_otherwise(monkeypatch):
    """The default cap as behaviour, not only as the signature's default: a stand-in for DOP853 that
    evaluates until refused is stopped after exactly 200,000 evaluations, and the message says so."""
    import claims.models._flow as flow_module

    def evaluate_until_refused(fun, span, y0, **options):
        while True:
            fun(span[0], y0)

    monkeypatch.setattr(flow_module, "solve_ivp", evaluate_until_refused)
    solution = reference_solution(lambda theta: theta, torch.zeros(1, 1, dtype=F64), 1.0)
    assert solution.completed is False and solution.evaluations == 200_000
    assert solution.message == "stopped after 200000 evaluations at t = 0 of 1.0"


# --- time_to_kink and the kinked vertices on exact small cases -----------------------------------------

ONE_NEURON = mlp([1, 1, 1], RELU)  # theta = (a, b): h = relu(a x), nu = b h (a linear output)


def test_time_to_kink_on_one_relu_neuron_is_the_exact_first_order_time():
    """Squared loss, x = 1, y = 1: with 1 - nu = 1 - a b, da/dt = (1 - a b) b, db/dt = (1 - a b) a and
    dz/dt = da/dt. At (a, b) = (2, 0.25): rates (0.125, 1) and z = 2 at rate 0.125, so the times are
    16 (a), 0.25 (b) and 16 (z): b, moving at rate exactly 1, sets the horizon. At (0, 0), a stationary
    point, nothing moves: no horizon (inf), not 0 / 0."""
    risk = Risk(ONE_NEURON, torch.tensor([[1.0]], dtype=F64), torch.tensor([1.0], dtype=F64), loss="squared")
    theta = torch.tensor([[2.0, 0.25], [0.0, 0.0]], dtype=F64)
    flow = GradientFlow(risk)
    torch.testing.assert_close(flow(theta), torch.tensor([[0.125, 1.0], [0.0, 0.0]], dtype=F64), rtol=0, atol=0)
    assert flow.time_to_kink(theta, fraction=1.0).tolist() == [0.25, math.inf]
    assert flow.time_to_kink(theta).tolist() == [0.0625, math.inf]


def test_input_vertices_are_never_watched_as_kinks_whatever_their_slope_entry():
    """Inputs carry x (``vertex_values`` never applies their slope), so an input's slope entry, here
    ReLU, is no kink: the monitor's pattern has one column per example and hidden ReLU vertex, and the
    pattern margin is the hidden pre-activation's |a x| = 1, not the input's |x| = 0.5."""
    import dataclasses

    relu_input = dataclasses.replace(ONE_NEURON, slopes=(RELU, RELU, LINEAR))
    x, y = torch.tensor([[0.5]], dtype=F64), torch.tensor([1.0], dtype=F64)
    theta = torch.tensor([[2.0, 0.25]], dtype=F64)
    assert relu_input(relu_input.edge_weights(theta[0]), -x).item() == ONE_NEURON(
        ONE_NEURON.edge_weights(theta[0]), -x
    ).item()  # the input's slope entry changes nothing the network computes
    flow = GradientFlow(Risk(relu_input, x, y))
    monitor = flow.monitor(theta)
    assert monitor.pattern.shape == (1, 1)
    flow(theta, monitor)
    assert monitor.pattern_margin.tolist() == [1.0]
