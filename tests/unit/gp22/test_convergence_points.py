"""Unit tests of GP22 Section 3.1's convergence points (``claims.gp22``: ``_losses``, ``_inputs``,
``_settings``, ``_stationarity``, ``_weight_decay_points``, ``_zero_decay_points``, ``_residuals``,
``_search``): constructions and searches.

Pinned here, since the claim tests pass only if these hold:
- the written-out loss derivatives and per-sample gradients agree with autograd; the magnitudes
  that bound their rounding bound them; the curvature bound bounds |l''|;
- batch gradients (one reverse pass, a copy of the matrices per batch) agree with a loop over the
  batches, and with Eq. (6)'s written-out expression;
- the inputs are collinear / non-collinear as documented, and the cone inputs have fixed signs;
- every construction is a convergence point (every batch gradient at rounding level), and moving
  its labels or weights breaks it;
- the residuals vanish exactly where documented (g_i || theta; g_i = 0 with f(x_i) != 0), the
  forward-mode Jacobian agrees with ``torch.func``, Levenberg-Marquardt reaches a zero residual to
  rounding, and the search finds convergence points on collinear data and none on non-collinear data.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch.func import jacfwd, jacrev, vmap

from claims.gp22._inputs import (
    collinear_inputs, collinearity, cone_inputs, general_position_inputs, unit_vector,
)
from claims.gp22._losses import (
    LOSS_NAMES, loss_derivative, loss_function, loss_value, second_derivative_bound,
)
from claims.gp22._residuals import (
    label_free_judgement, label_free_residual, labels_for, loss_violation_residual, nonzero_witness,
    violation_residual,
)
from claims.gp22._search import levenberg_marquardt, random_starts, residual_and_jacobian, search
from claims.gp22._settings import Setting, chain_network, residual_network, skip_network
from claims.gp22._stationarity import (
    SampleGradients, absolute_forward, all_batches, per_sample_gradients, with_labels,
)
from claims.gp22._weight_decay_points import balanced_chain_point, fixed_first_layer_point
from claims.gp22._zero_decay_points import (
    collinear_dead_point, dead_point, exact_outputs, interpolation_point, skip_control_point,
    stationary_inflection_point,
)
from claims.models._layered import matrix_key, regularized_batch_risk

pytestmark = pytest.mark.usefixtures("one_torch_thread")
DT = torch.float64


def _random_params(setting: Setting, seed: int) -> dict[str, torch.Tensor]:
    return setting.unflatten(random_starts(setting, 1, seed)[0])


SETTINGS = {
    "chain": Setting(chain_network((3, 4, 3, 1))),
    "residual": Setting(residual_network(3, 3)),
    "fixed-first": Setting(chain_network((3, 2, 3, 1)), frozenset({(1, 0)})),
    "skip": Setting(skip_network(3), frozenset({(1, 0)})),
}


def _full_params(name: str, seed: int) -> tuple[Setting, dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    setting = SETTINGS[name]
    network = setting.network
    generator = torch.Generator().manual_seed(seed + 100)
    fixed = {
        matrix_key(p, q): torch.randn(network.widths[p], network.widths[q], generator=generator, dtype=DT)
        for p, q in setting.fixed
    }
    return setting, fixed, {**fixed, **_random_params(setting, seed)}


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_loss_derivative_matches_autograd(loss):
    a = torch.linspace(-3, 3, 41, dtype=DT).requires_grad_()
    for y in (torch.ones(41, dtype=DT), -torch.ones(41, dtype=DT), torch.full((41,), 0.7, dtype=DT)):
        if loss != "squared" and not (y.abs() == 1).all():
            continue
        (derivative,) = torch.autograd.grad(loss_value(loss, a, y).sum(), a)
        torch.testing.assert_close(loss_derivative(loss, a.detach(), y), derivative, rtol=1e-12, atol=1e-14)
        assert (loss_value(loss, a.detach(), y) >= 0).all()


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_second_derivative_bound_bounds_the_curvature(loss):
    centers = torch.linspace(-3, 3, 25, dtype=DT)
    radius = torch.full_like(centers, 0.05)
    for y_value in (1.0, -1.0):
        y = torch.full_like(centers, y_value)
        bound = second_derivative_bound(loss, centers, y, radius)
        for offset in torch.linspace(-0.05, 0.05, 11, dtype=DT):
            a = (centers + offset).requires_grad_()
            (first,) = torch.autograd.grad(loss_value(loss, a, y).sum(), a, create_graph=True)
            (second,) = torch.autograd.grad(first.sum(), a)
            assert (second.abs() <= bound * (1 + 1e-12) + 1e-300).all(), (loss, y_value, float(offset))


def test_loss_properties_as_documented():
    a = torch.linspace(-20, 20, 4001, dtype=DT)
    one = torch.ones_like(a)
    for loss in ("logistic", "exponential", "sigmoid"):
        assert (loss_derivative(loss, a, one) < 0).all()  # never zero: no minimizer
    inflection = loss_derivative("inflection", torch.tensor([1.0], dtype=DT), torch.tensor([1.0], dtype=DT))
    assert inflection.item() == 0.0
    # the inflection loss is not convex and has no minimizer (decreasing on both sides of a = 1)
    assert (loss_derivative("inflection", a[a != 1], one[a != 1]) <= 0).all()
    values = loss_value("sigmoid", a, one)
    assert (values[1:] < values[:-1]).all()


def test_inputs_collinear_or_not():
    x, u = collinear_inputs([0.5, -1.0, 2.0], 4, 3)
    second, bound = collinearity(x)
    assert second <= bound
    torch.testing.assert_close(x[1], -u)
    with pytest.raises(ValueError):
        collinear_inputs([1.0, 0.0], 3, 0)
    x = general_position_inputs(5, 3, 1)
    second, bound = collinearity(x)
    assert second > 1e6 * bound
    norms = torch.linalg.vector_norm(x, dim=1)
    assert ((norms >= 0.5 - 1e-12) & (norms <= 1.5 + 1e-12)).all()
    x, u = cone_inputs([1.0, -1.0, 1.0, 1.0], 3, 2)
    torch.testing.assert_close(x @ u, torch.tensor([1.0, -1.0, 1.0, 1.0], dtype=DT))
    assert collinearity(x)[0] > 1e6 * collinearity(x)[1]


def test_setting_bookkeeping():
    setting = SETTINGS["fixed-first"]
    assert setting.keys == (matrix_key(2, 1), matrix_key(3, 2))
    assert not setting.first_layer_trainable
    assert SETTINGS["chain"].first_layer_trainable and SETTINGS["residual"].first_layer_trainable
    assert SETTINGS["residual"].longest_path() == 4 and SETTINGS["chain"].longest_path() == 3
    theta = torch.randn(setting.dimension, dtype=DT)
    torch.testing.assert_close(setting.flatten(setting.unflatten(theta)), theta)
    assert SETTINGS["chain"].forward_roundings() == {0: 0, 1: 3, 2: 7, 3: 10}
    assert len(all_batches(5, 2)) == 10
    with pytest.raises(ValueError):
        all_batches(3, 3)


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_per_sample_gradients_match_autograd(name):
    setting, fixed, params = _full_params(name, 5)
    x = general_position_inputs(4, 3, 6)
    g = per_sample_gradients(setting, params, x)
    theta = setting.flatten(params)
    reference = jacrev(lambda t: setting.network({**fixed, **setting.unflatten(t)}, x))(theta)
    torch.testing.assert_close(g, reference, rtol=1e-12, atol=1e-14)
    g_abs = per_sample_gradients(setting, params, x, absolute=True)
    assert (g.abs() <= g_abs * (1 + 1e-12)).all()
    f_abs = absolute_forward(setting.network, params, x)[-1][:, 0]
    assert (setting.network(params, x).abs() <= f_abs * (1 + 1e-12)).all()
    # several parameter points at once
    thetas = random_starts(setting, 3, 7)
    batched = per_sample_gradients(setting, {**fixed, **setting.unflatten(thetas)}, x)
    for s in range(3):
        single = per_sample_gradients(setting, {**fixed, **setting.unflatten(thetas[s])}, x)
        torch.testing.assert_close(batched[s], single, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("loss", ["squared", "logistic", "exponential"])
def test_batch_gradients_and_eq6(loss):
    setting, fixed, params = _full_params("residual", 8)
    x = general_position_inputs(5, 3, 9)
    y = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=DT) * (1.3 if loss == "squared" else 1.0)
    sg = SampleGradients(setting, params, x, y, loss, 0.3)
    for batch in (1, 2, 4):
        gradients, index = sg.batch_gradients(batch)
        assert len(index) == math.comb(5, batch)
        for row, members in enumerate(index):
            leaves = {k: params[k].clone().requires_grad_() for k in setting.keys}
            risk = regularized_batch_risk(setting.network, {**params, **leaves}, x[members], y[members], 0.3,
                                          loss_function(loss))
            expected = torch.cat([g.reshape(-1) for g in torch.autograd.grad(risk, [leaves[k] for k in setting.keys])])
            torch.testing.assert_close(gradients[row], expected, rtol=1e-12, atol=1e-14)
        torch.testing.assert_close(gradients, sg.eq6(batch), rtol=1e-11, atol=1e-13)
        assert (sg.batch_scale(batch) >= sg.eq6(batch).abs() * (1 - 1e-12)).all()


def test_balanced_chain_is_a_convergence_point_and_balance_is_needed():
    point = balanced_chain_point(3, (4, 2), [0.4, 1.0, 1.6, 0.9], 1.2, 0.05, "squared", 1)
    sg = point.gradients()
    assert float(sg.residual.abs().max() / sg.scale.max()) <= point.tolerance()
    for batch in (1, 2, 3):
        gradients, _ = sg.batch_gradients(batch)
        assert float(gradients.abs().max() / sg.batch_scale(batch).max()) <= point.tolerance()
    torch.testing.assert_close(sg.f, 1.2**3 * torch.tensor([0.4, 1.0, 1.6, 0.9], dtype=DT))
    assert point.f_nonzero_value() > 0
    # unbalanced: the first layer scaled by 2, the output by 1/2 -- same f, not a convergence point
    params = dict(point.params)
    params[matrix_key(1, 0)] = 2 * params[matrix_key(1, 0)]
    params[matrix_key(3, 2)] = params[matrix_key(3, 2)] / 2
    other = SampleGradients(point.setting, params, point.x, point.y, "squared", 0.05)
    torch.testing.assert_close(other.f, sg.f)
    assert float(other.residual.abs().max() / other.scale.max()) > 1e-3


@pytest.mark.parametrize("loss", ["logistic", "exponential"])
def test_second_root_construction(loss):
    for root in (0.3, 2.5):
        point = balanced_chain_point(3, (3,), None, 1.1, 0.0, loss, 2, root=root, m=4)
        c = point.x @ unit_vector(3, 2)
        assert abs(float(c[0]) - root) < 1e-12 and abs(float(c[1]) - root) > 1e-3
        sg = point.gradients()
        assert float(sg.residual.abs().max() / sg.scale.max()) <= point.tolerance()
        assert point.weight_decay > 0


def test_every_construction_is_a_convergence_point():
    points = [
        balanced_chain_point(2, (3,), [0.5, 1.5, 1.0], 0.7, 0.5, "squared", 3),
        fixed_first_layer_point(4, 3, (3, 2), 1.1, 0.2, 4),
        interpolation_point([1.0, -1.0, 1.0, -1.0], 3, (4, 3), 5, dead_labels=[2.0, -1.0]),
        collinear_dead_point([1.0, -0.5, 2.0, -1.0], 3, 4, 6),
        dead_point(4, 3, (4,), "exponential", 7),
        skip_control_point(4, 3, "logistic", 8),
        stationary_inflection_point(4, 3, 6, 9),
    ]
    for point in points:
        sg = point.gradients()
        for batch in range(1, point.x.shape[0]):
            gradients, _ = sg.batch_gradients(batch)
            scale = float(sg.batch_scale(batch).max())
            assert gradients.abs().max() <= point.tolerance() * scale, point.kind
        assert point.f_nonzero_value() > 0, point.kind
        assert point.collinear == (collinearity(point.x)[0] <= collinearity(point.x)[1]), point.kind
    interpolation = points[2]
    sg = interpolation.gradients()
    assert (sg.f[torch.tensor([1, 3])] == 0).all() and (sg.f[torch.tensor([0, 2])] != 0).all()
    assert (sg.dloss[torch.tensor([1, 3])] != 0).all()
    assert (sg.dloss[torch.tensor([0, 2])].abs() < 1e-13).all()
    # labels moved: no longer a convergence point
    moved = with_labels(interpolation, interpolation.y + 1e-6)
    sg = moved.gradients()
    gradients, _ = sg.batch_gradients(1)
    assert gradients.abs().max() > 1e3 * moved.tolerance() * float(sg.batch_scale(1).max())


def test_exact_outputs_are_correctly_rounded():
    setting, fixed, params = _full_params("residual", 10)
    x = general_position_inputs(3, 3, 11)
    exact = exact_outputs(setting.network, params, x)
    torch.testing.assert_close(exact, setting.network(params, x), rtol=1e-13, atol=1e-15)


def test_label_free_residual_is_the_sine_and_vanishes_at_constructions():
    setting, fixed, params = _full_params("chain", 12)
    x = general_position_inputs(4, 3, 13)
    theta = setting.flatten(params)
    r = label_free_residual(setting, x, fixed, theta)
    g = per_sample_gradients(setting, params, x)
    cosine = (g @ theta) / (torch.linalg.vector_norm(g, dim=1) * torch.linalg.vector_norm(theta))
    expected = torch.where(torch.linalg.vector_norm(g, dim=1) > 0, (1 - cosine**2).clamp_min(0).sqrt(), 1.0)
    torch.testing.assert_close(torch.linalg.vector_norm(r, dim=-1), expected, rtol=1e-9, atol=1e-12)
    point = balanced_chain_point(3, (4,), [0.5, 1.0, 1.5], 1.0, 0.1, "squared", 14)
    theta = point.setting.flatten(point.params)
    measure, bound = label_free_judgement(point.setting, point.x, {}, theta[None])
    assert float(measure[0]) <= float(bound[0]) < 1e-13
    # a sample with g_i = 0 (dead) has sine 1 and bound 0: it shows non-convergence by itself
    dead = dead_point(4, 3, (3,), "squared", 29)
    theta = dead.setting.flatten(dead.params)[None]
    measure, bound = label_free_judgement(dead.setting, dead.x, {}, theta)
    assert float(measure[0]) == 1.0 and float(bound[0]) == 0.0


def test_violation_residuals():
    setting, fixed, params = _full_params("chain", 15)
    x = general_position_inputs(4, 3, 16)
    theta = setting.flatten(params)
    for i in range(4):
        eta = torch.linalg.vector_norm(violation_residual(setting, x, fixed, theta, i))
        f = setting.network(params, x)[i]
        if f != 0:
            assert eta >= 3 * (1 - 1e-12)  # Euler (L = 3) and Cauchy-Schwarz
    # one sample per point, several points
    thetas = random_starts(setting, 4, 17)
    both = violation_residual(setting, x, fixed, thetas, torch.arange(4))
    for s in range(4):
        torch.testing.assert_close(both[s], violation_residual(setting, x, fixed, thetas[s], s))
    point = skip_control_point(4, 3, "squared", 18)
    fixed = {matrix_key(1, 0): point.params[matrix_key(1, 0)]}
    theta = point.setting.flatten(point.params)
    assert (violation_residual(point.setting, point.x, fixed, theta, 0) == 0).all()
    assert (loss_violation_residual(point.setting, point.x, point.y, "logistic", fixed, theta) == 0).all()
    dead = dead_point(4, 3, (3,), "logistic", 19)
    theta = dead.setting.flatten(dead.params)
    assert (loss_violation_residual(dead.setting, dead.x, dead.y, "logistic", {}, theta) == 1e3).all()


def test_forward_mode_jacobian_matches_torch_func():
    setting, fixed, params = _full_params("residual", 20)
    x = general_position_inputs(4, 3, 21)
    thetas = random_starts(setting, 3, 22)

    def residual(t):
        return label_free_residual(setting, x, fixed, t).flatten(-2)

    value, jacobian = residual_and_jacobian(residual, thetas)
    ref_value, ref_jacobian = vmap(lambda t: (residual(t), jacfwd(residual)(t)))(thetas)
    torch.testing.assert_close(value, ref_value)
    torch.testing.assert_close(jacobian, ref_jacobian, rtol=1e-10, atol=1e-12)


def test_levenberg_marquardt_reaches_rounding_on_a_zero_residual():
    def residual(t):
        return torch.stack(
            [t[..., 0] ** 2 - 2, t[..., 0] * t[..., 1] - 3, torch.sin(t[..., 1]) - math.sin(1.5 * math.sqrt(2))], -1
        )

    start = torch.tensor([[1.0, 1.0], [2.0, 3.0]], dtype=DT)
    solution = levenberg_marquardt(residual, start, 40)
    assert residual(solution).abs().max() < 1e-14


def test_search_finds_convergence_points_only_on_collinear_data():
    setting = Setting(chain_network((3, 3, 1)))
    x, _ = collinear_inputs([0.5, 1.0, 1.5, 0.7], 3, 23)
    result = search("label-free", setting, x, starts=8, seed=24)
    assert int(result.found().sum()) >= 4
    s = int(torch.nonzero(result.found())[0])
    y = labels_for(setting, x, {}, result.theta[s], 0.1)
    sg = SampleGradients(setting, setting.unflatten(result.theta[s]), x, y, "squared", 0.1)
    gradients, _ = sg.batch_gradients(2)
    assert gradients.abs().max() < 1e-13 * float(sg.batch_scale(2).max())
    torch.testing.assert_close(torch.linalg.vector_norm(result.theta, dim=1), torch.full((8,), 2.0, dtype=DT),
                               rtol=1e-6, atol=0)
    x = general_position_inputs(4, 3, 25)
    result = search("label-free", setting, x, starts=8, seed=26)
    assert not result.found().any() and (result.residual > 0.1).all()
    result = search("violation", setting, x, starts=8, seed=27)
    assert (result.samples == torch.arange(8) % 4).all() and (result.residual >= 2 * (1 - 1e-9)).all()


def test_nonzero_witness():
    point = dead_point(4, 3, (3,), "logistic", 28)
    assert (point.gradients().f == 0).all()
    witness, bound = nonzero_witness(point.setting, point.params, point.x)
    assert witness > bound > 0
    zero = {k: torch.zeros_like(v) for k, v in point.params.items()}
    witness, bound = nonzero_witness(point.setting, zero, point.x)
    assert witness == 0 and bound == 0
