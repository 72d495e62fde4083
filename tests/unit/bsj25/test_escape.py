"""Unit tests of the escape-direction solver and its companions in claims.bsj25 (``_instances``, ``_search``,
``_polish``, ``_certificate``, ``_solver``, ``_flows``, ``_bounds``): the batched search, the A.3 warm start,
the frozen-pattern KKT system, the solver and its certificate, local optimality by perturbation, the flow on
L_0, the closed forms and the bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.func import grad

from claims import gamma
from claims.bsj25._bounds import (
    bound_ranges,
    layer_ratios,
    p33_bound,
    t31_bound,
    t31_bound_appendix,
    t31_constant,
    t31_constant_appendix,
)
from claims.bsj25._certificate import certify, perturbation_test
from claims.bsj25._flows import (
    blowup_time,
    escape_time_exact,
    escape_time_printed,
    localized_flow,
    output_bound_terms,
    p22_norm_exact,
    p22_norm_printed,
    radial_rate,
)
from claims.bsj25._instances import (
    digits_instance,
    example1_instance,
    near_rank_one_instance,
    random_instance,
)
from claims.bsj25._polish import FrozenKKT, Pattern, identify_pattern, polish
from claims.bsj25._saddle import flatten, forward, localized_loss, loss_of_theta, unflatten
from claims.bsj25._search import (
    batched_value_and_gradient,
    deepen,
    deepened_start,
    projected_descent,
    random_starts,
)
from claims.bsj25._solver import AGREEMENT, EscapeProblem, restarts_reaching, solve_escape, solve_escapes

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F64 = torch.float64


def test_batched_value_and_gradient_match_autograd():
    instance = random_instance(3, 4, 7, 3)
    shapes = instance.shapes(4, [5, 3, 4])
    thetas = random_starts(6, shapes, seed=1)
    values, gradients = batched_value_and_gradient(thetas, shapes, instance.x, instance.g)
    loss = loss_of_theta(shapes, instance.x, instance.g)
    for theta, value, gradient in zip(thetas, values, gradients):
        torch.testing.assert_close(value, loss(theta), rtol=1e-13, atol=1e-15)
        torch.testing.assert_close(gradient, grad(loss)(theta), rtol=1e-12, atol=1e-15)


def test_projected_descent_stays_on_the_sphere_and_descends():
    instance = random_instance(5, 4, 10, 2)
    shapes = instance.shapes(3, 4)
    starts = random_starts(8, shapes, seed=0)
    start_values, _ = batched_value_and_gradient(starts, shapes, instance.x, instance.g)
    thetas, values = projected_descent(starts, shapes, instance.x, instance.g, 100)
    torch.testing.assert_close(torch.linalg.vector_norm(thetas, dim=1) ** 2, torch.full((8,), 3.0, dtype=F64))
    assert bool((values < start_values).all())


def test_deepened_start_does_not_increase_the_loss():
    instance = random_instance(8, 3, 9, 2)
    shallow = instance.shapes(2, 4)
    direction = solve_escape(instance.x, instance.g, shallow, restarts=8, steps=100, fine_steps=50)
    target = instance.shapes(4, 4)
    start = deepened_start(direction.rho, shallow, instance.x, instance.g, target)
    assert math.isclose(float(start @ start), 4.0, rel_tol=1e-12)
    assert float(localized_loss(unflatten(start, target), instance.x, instance.g)) <= -direction.speed * (1 - 1e-12)
    deeper, terms, shares, star = deepen(direction.weights, instance.x, instance.g, [4, 4, 4])
    assert len(deeper) == 4 and int(torch.argmin(terms)) == star and bool((shares >= 0).all())
    with pytest.raises(ValueError):
        deepened_start(direction.rho, shallow, instance.x, instance.g, instance.shapes(2, 4))


def test_frozen_kkt_gradient_and_jacobian():
    """The frozen loss and the kink values match an autograd evaluation with the same masks; the
    complex-step Jacobian matches central differences of the residual."""
    instance = random_instance(11, 3, 6, 2)
    shapes = instance.shapes(3, 4)
    theta = random_starts(1, shapes, seed=2)[0]
    pre, _ = forward(unflatten(theta, shapes), instance.x)
    masks = tuple((z > 0).to(F64) for z in pre[1:-1])
    pattern = Pattern(masks, ((1, 0, 2), (2, 1, 3)), ())
    system = FrozenKKT(shapes, instance.x, instance.g, pattern)
    mu = torch.tensor([0.3, -0.7], dtype=F64)

    def frozen(t):
        weights = unflatten(t, shapes)
        z, out = instance.x, []
        for layer, w in enumerate(weights):
            z = w @ z
            out.append(z)
            if layer < len(weights) - 1:
                z = z * masks[layer]
        return (instance.g * out[-1]).sum() - mu[0] * out[0][0, 2] - mu[1] * out[1][1, 3]

    torch.testing.assert_close(system.lagrangian_gradient(theta[None], mu)[0], grad(frozen)(theta), rtol=1e-12,
                               atol=1e-14)
    y = torch.cat([theta, torch.tensor([0.4], dtype=F64), mu])
    direction = torch.randn(len(y), generator=torch.Generator().manual_seed(0), dtype=F64)
    h = 1e-6
    central = (system.residual(y + h * direction) - system.residual(y - h * direction)) / (2 * h)
    torch.testing.assert_close(system.jacobian(y) @ direction, central, rtol=1e-7, atol=1e-8)


def test_constraint_jacobian_of_shallow_kinks():
    """Kinks in layer 1 only: the Jacobian through the first layer (the deeper layers' probes not computed) equals
    the complex step through the whole network chunk by chunk, with zero columns for the deeper layers' weights."""
    instance = random_instance(11, 3, 6, 2)
    shapes = instance.shapes(3, 4)
    theta = random_starts(1, shapes, seed=2)[0]
    pre, _ = forward(unflatten(theta, shapes), instance.x)
    pattern = Pattern(tuple((z > 0).to(F64) for z in pre[1:-1]), ((1, 0, 2), (1, 3, 5)), ())
    system = FrozenKKT(shapes, instance.x, instance.g, pattern, chunk=5)
    jacobian = system.constraint_jacobian(theta)
    full = []
    for start in range(0, len(theta), 5):
        pre = system._forward(system._probes(theta, start, min(start + 5, len(theta))))[1]
        full.append(torch.stack([pre[0][:, i, n] for _, i, n in pattern.kinks], dim=1).imag / FrozenKKT.STEP)
    full = torch.cat(full).T
    assert torch.equal(jacobian, full) and not bool(jacobian[:, 12:].any())


def test_solve_escapes_equals_the_solves_one_by_one():
    """Problems of one shape solved together (one batched search) have exactly the results of separate solves,
    whatever else is stacked with them (other data, warm starts kept in place, another shape)."""
    first, second = random_instance(21, 3, 8, 2), random_instance(22, 3, 8, 2)
    shallow = solve_escape(first.x, first.g, first.shapes(2, 3), restarts=6, steps=60, fine_steps=40)
    warm = (deepened_start(shallow.rho, shallow.shapes, first.x, first.g, first.shapes(3, 3)),)
    problems = [EscapeProblem(first.x, first.g, first.shapes(3, 3), restarts=8, steps=60, fine_steps=40,
                              warm_starts=warm, warm_steps=0),
                EscapeProblem(second.x, second.g, second.shapes(3, 3), restarts=5, steps=60, seed=3, fine_steps=40),
                EscapeProblem(second.x, second.g, second.shapes(2, 3), restarts=4, steps=60, fine_steps=40)]
    together = solve_escapes(problems)
    for problem, found in zip(problems, together):
        alone = solve_escape(problem.x, problem.g, problem.shapes, restarts=problem.restarts, steps=problem.steps,
                             seed=problem.seed, warm_starts=problem.warm_starts, fine_steps=problem.fine_steps,
                             warm_steps=problem.warm_steps)
        assert torch.equal(found.rho, alone.rho) and found.values == alone.values
        assert found.cold_values == alone.cold_values and found.speed == alone.speed


@pytest.mark.parametrize("depth", [2, 3])
def test_solver_on_rank_one_nonnegative_inputs(depth):
    """For X = u v^T with u, v >= 0 the optimal speed is ||G v|| ||u|| (Prop. A.5's proof: Y(u v^T) =
    Y(u) v^T and ||Y(u)|| <= ||u|| on ||theta||^2 <= L); the solver reaches it to rounding."""
    instance, u, v = near_rank_one_instance(4, 3, 6, 2, 0.0, 2.0)
    shapes = instance.shapes(depth, 3)
    found = solve_escape(instance.x, instance.g, shapes, restarts=8, steps=100, fine_steps=50)
    expected = float(torch.linalg.vector_norm(instance.g @ v)) * float(torch.linalg.vector_norm(u))
    assert math.isclose(found.speed, expected, rel_tol=1e-13)
    assert found.smooth and found.residual_max <= found.residual_bound
    assert math.isclose(float(found.rho @ found.rho), depth, rel_tol=1e-13)
    ratios = layer_ratios(found.weights, instance.x)
    assert all(r.weight <= r.weight_tolerance and r.activation <= r.activation_tolerance for r in ratios)
    test = perturbation_test(found.rho, shapes, instance.x, instance.g, directions=8)
    assert min(i + t for i, t in zip(test.increases, test.tolerances)) >= 0


def test_restarts_reaching_counts_search_values_in_a_speeds_basin():
    """``restarts_reaching``: the restarts whose search value is within ``AGREEMENT`` (relative) of
    -speed; with the kept speed it is ``agreeing``, and a speed no restart came near has none."""
    instance, _, _ = near_rank_one_instance(4, 3, 6, 2, 0.0, 2.0)
    found = solve_escape(instance.x, instance.g, instance.shapes(2, 3), restarts=8, steps=100, fine_steps=50)
    assert restarts_reaching(found, found.speed) == found.agreeing >= 1
    assert restarts_reaching(found, 2 * found.speed) == 0
    found.values = [-1.0, -1.0 + 0.99 * AGREEMENT, -1.0 - 0.99 * AGREEMENT, -1.0 + 1.01 * AGREEMENT, -0.5]
    assert restarts_reaching(found, 1.0) == 3
    assert restarts_reaching(found, 0.5) == 1


def test_solver_on_example_1_finds_the_rank_two_kink_optimum():
    """Example 1 (width 4, depth 3): the optimum s = 1/2 (the rank-two direction of Eq. (2)) sits on
    kinks (data points on the first layer's hyperplanes); the perturbation test finds no descent."""
    instance = example1_instance()
    shapes = instance.shapes(3, 4)
    found = solve_escape(instance.x, instance.g, shapes, restarts=16)
    assert abs(found.speed - 0.5) <= 1e-14
    assert not found.smooth and found.kkt_residual <= 1e-14
    test = perturbation_test(found.rho, shapes, instance.x, instance.g, directions=16, kinks=found.kinks)
    assert min(i + t for i, t in zip(test.increases, test.tolerances)) >= 0
    assert max(test.increases) > 1e-6  # first-order growth away from the kinks


def test_polish_never_certifies_a_dead_point():
    """A point with no live path (W_2 = 0: L_0 = 0 and gradient 0) solves the KKT system with s = 0 exactly, but
    is no escape direction: the polish leaves it uncertified (residual NaN). The solver on Example 1 with 512
    restarts, where a candidate's Newton steps once ended on such a point and the solver kept s = 0, keeps s2."""
    instance = example1_instance()
    shapes = instance.shapes(3, 4)
    weights = unflatten(random_starts(1, shapes, 0)[0], shapes)
    weights[1] = torch.zeros_like(weights[1])
    dead = flatten(weights)
    dead = math.sqrt(3) * dead / torch.linalg.vector_norm(dead)
    assert float(localized_loss(unflatten(dead, shapes), instance.x, instance.g)) == 0
    assert math.isnan(polish(dead, shapes, instance.x, instance.g)[1])
    found = solve_escape(instance.x, instance.g, shapes, restarts=512)
    assert abs(found.speed - 0.5) <= 1e-14 and math.isfinite(found.kkt_residual)


def test_certificate_flags_kinks_and_residuals():
    """A point with a pre-activation exactly at zero is a kink; a non-critical point has a residual
    far above its rounding bound; a maximum fails the perturbation test."""
    instance = random_instance(2, 2, 4, 1)
    shapes = instance.shapes(2, 1)
    w1 = torch.tensor([[instance.x[1, 0], -instance.x[0, 0]]], dtype=F64)  # orthogonal to sample 0
    theta = flatten([w1, torch.ones(1, 1, dtype=F64)])
    theta = math.sqrt(2) * theta / torch.linalg.vector_norm(theta)
    record = certify(theta, shapes, instance.x, instance.g)
    assert (1, 0, 0) in record.kinks and not record.smooth
    assert record.residual_max > 1e6 * record.residual_bound
    flipped = solve_escape(instance.x, -instance.g, shapes, restarts=8, steps=100, fine_steps=50)
    test = perturbation_test(flipped.rho, shapes, instance.x, instance.g, directions=8)
    assert test.worst_value - test.value < -1e3 * test.worst_tolerance


def test_identify_pattern_drops_units_and_finds_kinks():
    instance = random_instance(2, 2, 4, 1)
    shapes = instance.shapes(2, 2)
    w1 = torch.tensor([[instance.x[1, 0], -instance.x[0, 0]], [1e-9, 1e-9]], dtype=F64)
    w2 = torch.tensor([[1.0, 1e-9]], dtype=F64)
    pattern = identify_pattern(flatten([w1, w2]), shapes, instance.x)
    assert (1, 1) in pattern.dropped and (1, 0, 0) in pattern.kinks


def test_flow_along_an_escape_direction_follows_the_exact_closed_form():
    instance = random_instance(300, 3, 8, 2, positive=True)
    depth = 3
    shapes = instance.shapes(depth, 3)
    found = solve_escape(instance.x, instance.g, shapes, restarts=8, steps=150, fine_steps=100)
    assert found.smooth
    r0 = math.sqrt(depth)
    end = escape_time_exact(r0, 3 * r0, depth, found.speed)
    times = np.linspace(0, end, 5)[1:]
    solution = localized_flow(found.rho, shapes, instance.x, instance.g, end, times)
    exact = p22_norm_exact(r0, depth, found.speed, times)
    tolerance = solution.relative_norm_tolerance(depth, r0, 3 * r0)
    assert np.abs(solution.norms / exact - 1).max() <= tolerance
    stopped = localized_flow(found.rho, shapes, instance.x, instance.g, 2 * end, stop_norm=3 * r0)
    assert abs(stopped.event_time / end - 1) <= stopped.escape_time_tolerance(depth, r0, 3 * r0)
    assert math.isclose(float(torch.linalg.vector_norm(stopped.event_theta)), 3 * r0, rel_tol=1e-9)


def test_flow_crossings_are_the_stopped_flows_event_times():
    """One flow stopped at the last radius, the others' crossings recorded on the way: the same event times, and
    the same evaluation count as the flow stopped there alone (the crossings' interpolants are not counted)."""
    instance = random_instance(300, 3, 8, 2, positive=True)
    shapes = instance.shapes(3, 3)
    found = solve_escape(instance.x, instance.g, shapes, restarts=8, steps=150, fine_steps=100)
    r0 = math.sqrt(3)
    end = 2 * escape_time_exact(r0, 8 * r0, 3, found.speed)
    radii = [2 * r0, 4 * r0, 8 * r0]
    alone = [localized_flow(found.rho, shapes, instance.x, instance.g, end, stop_norm=r) for r in radii]
    together = localized_flow(found.rho, shapes, instance.x, instance.g, end, stop_norm=radii[-1], crossings=radii[:-1])
    assert together.crossing_times == tuple(flow.event_time for flow in alone[:-1])
    assert together.event_time == alone[-1].event_time and together.evaluations == alone[-1].evaluations
    assert together.steps == alone[-1].steps and torch.equal(together.thetas, alone[-1].thetas)


@pytest.mark.parametrize("depth", [2, 3, 4, 5])
def test_closed_forms(depth):
    """The exact form solves dR/dt = L c R^{L-1}, c = s L^{-L/2}; the escape time inverts it; the
    printed forms are the exact ones at speed s L^{L/2}; the printed escape time has + for -."""
    r0, s, radius = 0.3, 0.7, 2.0
    c = radial_rate(depth, s)
    assert math.isclose(c, s * depth ** (-depth / 2))
    t, h = 0.5 * escape_time_exact(r0, radius, depth, s), 1e-5
    derivative = (p22_norm_exact(r0, depth, s, t + h) - p22_norm_exact(r0, depth, s, t - h)) / (2 * h)
    assert math.isclose(float(derivative), depth * c * float(p22_norm_exact(r0, depth, s, t)) ** (depth - 1),
                        rel_tol=1e-8)
    assert math.isclose(float(p22_norm_exact(r0, depth, s, escape_time_exact(r0, radius, depth, s))), radius,
                        rel_tol=1e-12)
    assert math.isclose(float(p22_norm_printed(r0, depth, c, t)), float(p22_norm_exact(r0, depth, s, t)), rel_tol=1e-14)
    if depth > 2:
        assert math.isnan(float(p22_norm_printed(r0, depth, s, 2 * blowup_time(r0, depth, s))))
        plus = (r0 ** (2 - depth) + radius ** (2 - depth)) / ((depth - 2) * depth * s)
        assert math.isclose(escape_time_printed(r0, radius, depth, s), plus)
    else:
        assert math.isclose(escape_time_printed(r0, radius, 2, s), math.log(radius / r0) / (2 * s))


def test_theorem_31_constants_and_ranges():
    """The main-text and Appendix A.7 forms of Theorem 3.1's bound coincide (c_A7 = s* c_main);
    the bound is negative below l = c^2 and below 1 exactly above l = 81 c^2."""
    instance = random_instance(1, 3, 6, 2)
    speed = 0.3 * instance.data_norm
    c = t31_constant(instance.x, instance.g, speed)
    c_appendix = t31_constant_appendix(instance.x, instance.g, speed)
    assert math.isclose(c_appendix, speed * c, rel_tol=1e-13)
    for layer in (1, 2, 5, 40, 10_000):
        assert math.isclose(t31_bound(c, layer), t31_bound_appendix(c_appendix, speed, layer), rel_tol=1e-12)
    ranges = bound_ranges(c)
    below, above = math.floor(ranges["negative_below"]), math.ceil(ranges["nonvacuous_above"])
    assert t31_bound(c, below) < 0 < t31_bound(c, below + 1)
    assert t31_bound(c, above) < 1 <= t31_bound(c, math.floor(ranges["nonvacuous_above"]))
    assert p33_bound(instance.g, 0.01, 1.0) > 0


def test_layer_ratios_on_known_matrices():
    w1 = torch.diag(torch.tensor([2.0, 1.0], dtype=F64))
    w2 = torch.tensor([[1.0, -1.0]], dtype=F64)
    x = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, 0.0]], dtype=F64)
    ratios = layer_ratios([w1, w2], x)
    assert math.isclose(ratios[0].weight, 1 / 5)
    # Z_1 = [[2, 0, -2], [0, 1, 0]]: Z^s_1 = [[2, 0, 0], [0, 1, 0]], ratio 1/5; ||Z^-||^2 / ||Z||^2 = 4/9
    assert math.isclose(ratios[0].activation, 1 / 5) and math.isclose(ratios[0].nonlinearity, 4 / 9)
    # Z_2 = [2, -1, 0]: rank one; relu(Z_2) = [2, 0, 0]; ||Z^-||^2 / ||Z||^2 = 1/5
    assert ratios[1].weight == 0.0 and ratios[1].activation <= ratios[1].activation_tolerance
    assert math.isclose(ratios[1].nonlinearity, 1 / 5)
    assert all(r.weight_tolerance < 1e-13 for r in ratios)


def test_output_bound_chain_holds():
    instance = random_instance(9, 3, 5, 2)
    shapes = instance.shapes(3, 4)
    for theta in random_starts(4, shapes, seed=3):
        terms = output_bound_terms(0.7 * theta, shapes, instance.x)
        assert terms.output <= terms.product + terms.output_error + terms.product_error
        assert terms.product <= terms.norm_term + terms.product_error + terms.norm_term_error


def test_instances():
    digits = digits_instance(per_class=5)
    assert digits.x.shape == (64, 50) and digits.g.shape == (10, 50)
    torch.testing.assert_close(digits.g.sum(dim=0), torch.zeros(50, dtype=F64), atol=1e-16, rtol=0)
    assert math.isclose(float(digits.g.min()), -0.9 / 50) and math.isclose(float(digits.g.max()), 0.1 / 50)
    instance, u, v = near_rank_one_instance(0, 4, 6, 2, 0.01, 3.0, aligned=0.1)
    assert bool((u >= 0).all() and (v >= 0).all())
    assert (math.isclose(float(torch.linalg.vector_norm(u)), 3.0)
            and math.isclose(float(torch.linalg.vector_norm(v)), 1.0))
    assert math.isclose(float(torch.linalg.matrix_norm(instance.x - torch.outer(u, v))), 0.01, rel_tol=1e-12)
    example = example1_instance()
    assert example.x.shape == (2, 8) and example.g.tolist() == [[-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0]]
    assert gamma(1) > 0
