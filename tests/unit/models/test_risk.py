"""The empirical risk of ``claims.models._risk``: the three losses and their derivatives at chosen points
(including the far tails of the logistic loss), R(theta) against a direct sum, the batched
gradient against per-sample ``torch.func.grad``, the autograd gradients and ``forward_derivative``
against the ``torch.func`` transforms they replaced, the bound G >= |grad R| of
``absolute_gradient``, and the input validation (bias column, shapes, loss names)."""

from __future__ import annotations

import math

import pytest
import torch
from torch.func import grad, jvp, vmap

from claims.models._builders import Block, Conv, Dense, mlp, resnet, sequential, with_bias_column
from claims.models._networks import LINEAR, RELU
from claims.models._numerics import rounding_depth
from claims.models._risk import LOSSES, Risk, exponential_loss, forward_derivative, logistic_loss, squared_loss

F64 = torch.float64


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # see tests/conftest.py


# --- the losses ---------------------------------------------------------------------------------------

E50 = math.exp(-50.0)

LOSS_POINTS = [
    # (loss, z, l(z), l'(z))
    ("logistic", 0.0, math.log(2.0), -0.5),
    ("logistic", 2.0, math.log1p(math.exp(-2.0)), -1 / (1 + math.exp(2.0))),
    ("logistic", -3.0, math.log1p(math.exp(3.0)), -1 / (1 + math.exp(-3.0))),
    ("logistic", 50.0, math.log1p(E50), -E50 / (1 + E50)),  # ~2e-22: not rounded to 0 by 1 + e^-z
    ("logistic", -50.0, 50.0 + math.log1p(E50), -1 / (1 + E50)),
    ("exponential", 0.0, 1.0, -1.0),
    ("exponential", 1.5, math.exp(-1.5), -math.exp(-1.5)),
    ("exponential", -2.0, math.exp(2.0), -math.exp(2.0)),
    ("squared", 1.0, 0.0, 0.0),
    ("squared", -1.0, 2.0, -2.0),
    ("squared", 3.0, 2.0, 2.0),
    ("squared", 0.25, 0.28125, -0.75),
]


@pytest.mark.parametrize("name, z, value, derivative", LOSS_POINTS)
def test_loss_value_and_derivative(name, z, value, derivative):
    loss = LOSSES[name]
    at = torch.tensor(z, dtype=F64)
    assert float(loss(at)) == pytest.approx(value, rel=1e-15, abs=0.0)
    assert float(grad(loss)(at)) == pytest.approx(derivative, rel=1e-15, abs=0.0)


def test_losses_are_the_three_of_assumption_3():
    assert LOSSES == {"logistic": logistic_loss, "exponential": exponential_loss, "squared": squared_loss}


@pytest.mark.parametrize("z", [1000.0, -1000.0, 745.0, -745.0])
def test_logistic_loss_is_finite_in_the_far_tails(z):
    at = torch.tensor(z, dtype=F64)
    value, slope = float(logistic_loss(at)), float(grad(logistic_loss)(at))
    assert math.isfinite(value) and math.isfinite(slope)
    if z < 0:
        assert value == pytest.approx(-z, rel=1e-15) and slope == -1.0
    else:
        assert 0.0 <= value < 1e-300 and -1e-300 < slope <= 0.0


def test_losses_act_entrywise_on_tensors():
    z = torch.tensor([[-1.0, 0.0], [0.5, 2.0]], dtype=F64)
    for loss in LOSSES.values():
        expected = torch.tensor(
            [[float(loss(torch.tensor(v, dtype=F64))) for v in row] for row in z.tolist()], dtype=F64
        )
        torch.testing.assert_close(loss(z), expected, rtol=0.0, atol=0.0)


# --- R(theta) and its gradient ----------------------------------------------------------------------


def _labels(n: int, generator: torch.Generator) -> torch.Tensor:
    return torch.where(torch.rand(n, generator=generator) < 0.5, -1.0, 1.0).to(F64)


def _risk(network, seed: int = 0, n: int = 6, loss: str = "logistic", bias: bool = False) -> Risk:
    generator = torch.Generator().manual_seed(seed)
    columns = network.n_inputs - bias
    x = torch.randn(n, columns, generator=generator, dtype=F64)
    return Risk(network, with_bias_column(x) if bias else x, _labels(n, generator), loss)


def _theta(network, batch: tuple[int, ...] = (), seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*batch, network.n_parameters, generator=generator, dtype=F64)


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_risk_is_the_mean_loss_of_the_margins(loss):
    network = mlp([3, 4, 1], RELU)
    risk = _risk(network, loss=loss)
    theta = _theta(network)
    margins = risk.y * network(network.edge_weights(theta), risk.x)
    expected = sum(LOSSES[loss](m) for m in margins) / risk.n_examples
    assert float(risk(theta)) == pytest.approx(float(expected), rel=1e-14)
    value, pre = risk.with_preactivations(theta)
    assert float(value) == float(risk(theta)) and pre.shape == (risk.n_examples, network.n_vertices)
    torch.testing.assert_close(pre[:, network.output], network(network.edge_weights(theta), risk.x))
    assert risk.n_examples == 6


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)], ids=["single", "batch-3", "batch-2x3"])
def test_batched_gradient_equals_per_sample_grad(loss, batch):
    network = mlp([2, 3, 2, 1], 0.2)
    risk = _risk(network, loss=loss)
    theta = _theta(network, batch)
    gradients = risk.gradient(theta)
    assert gradients.shape == theta.shape
    flat_theta, flat_gradients = (
        theta.reshape(-1, network.n_parameters),
        gradients.reshape(-1, network.n_parameters),
    )
    for th, g in zip(flat_theta, flat_gradients):
        torch.testing.assert_close(g, grad(risk)(th), rtol=1e-14, atol=1e-16)
        leaf = th.clone().requires_grad_(True)
        risk(leaf).backward()
        torch.testing.assert_close(g, leaf.grad, rtol=1e-13, atol=1e-16)


AUTODIFF_NETWORKS = {
    "leaky mlp with biases": (lambda: mlp([2, 3, 2, 1], 0.2, bias=True), True),
    "relu convolution (shared kernel)": (lambda: sequential((2, 5), [Conv(2, 2, 1, 1), Dense(2, RELU)]), False),
    "identity blocks (fixed skips)": (lambda: resnet(3, [("identity", 2, 3), ("free", 2, 2)], RELU), False),
}
"""Networks with every feature the gradient passes through: biases, weight sharing and fixed edges."""


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("kind", sorted(AUTODIFF_NETWORKS))
def test_autograd_gradients_are_the_torch_func_ones(kind, loss):
    """The gradients the flows and rates use (plain torch.autograd, for speed) against the torch.func
    transforms they replaced: one vector bitwise (the same formulas), a batch to rounding with the
    same pre-activations, the loss slopes and the absolute gradient bitwise."""
    build, bias = AUTODIFF_NETWORKS[kind]
    network = build()
    risk = _risk(network, loss=loss, bias=bias)
    theta = _theta(network, (5,))
    for th in theta:
        torch.testing.assert_close(risk.gradient(th), grad(risk)(th), rtol=0.0, atol=0.0)
        margins = risk.y * network(network.edge_weights(th), risk.x)
        torch.testing.assert_close(risk.loss_slopes(th), vmap(grad(LOSSES[loss]))(margins).abs(), rtol=0.0, atol=0.0)
        slopes = risk.loss_slopes(th)
        absolute_output = lambda a: (slopes * network(network.magnitude_weights(a), risk.x.abs())).mean()  # noqa: E731
        torch.testing.assert_close(risk.absolute_gradient(th), grad(absolute_output)(th.abs()), rtol=0.0, atol=0.0)
    gradients, pre = risk.batched_gradient(theta)
    expected, expected_pre = vmap(grad(risk.with_preactivations, has_aux=True))(theta)
    torch.testing.assert_close(gradients, expected, rtol=1e-14, atol=1e-16)
    torch.testing.assert_close(pre, expected_pre, rtol=0.0, atol=0.0)
    torch.testing.assert_close(risk.gradient(theta), gradients, rtol=0.0, atol=0.0)
    assert not gradients.requires_grad and not pre.requires_grad


def test_batched_gradient_rows_do_not_interact():
    """Each row of a batch is that run's gradient whatever the other rows hold."""
    network, _ = AUTODIFF_NETWORKS["leaky mlp with biases"]
    risk = _risk(network(), bias=True)
    theta = _theta(network(), (4,))
    alone = torch.cat([risk.batched_gradient(th[None])[0] for th in theta])
    torch.testing.assert_close(risk.batched_gradient(theta)[0], alone, rtol=1e-14, atol=1e-16)


def test_gradients_work_under_no_grad():
    network = mlp([2, 3, 1], RELU)
    risk, theta = _risk(network), _theta(network, (2,))
    with torch.no_grad():
        torch.testing.assert_close(risk.gradient(theta), vmap(grad(risk))(theta), rtol=1e-14, atol=1e-16)
        torch.testing.assert_close(risk.gradient(theta[0]), grad(risk)(theta[0]), rtol=0.0, atol=0.0)


def test_forward_derivative_is_the_torch_func_jvp():
    """``forward_derivative`` (torch.autograd.forward_ad) gives torch.func.jvp's tangent bitwise, for a
    Gram-matrix function of the edge weights (Eq. (6)'s kind) and the edge weights themselves; a function
    that does not depend on its input has derivative 0."""
    network = sequential((3,), [Dense(3, RELU), Dense(2, LINEAR)])
    theta, tangent = _theta(network), _theta(network, seed=2)

    def gram(th):
        first = network.weight_matrix("W1", network.edge_weights(th))
        return first @ first.T

    for function in (gram, network.edge_weights, lambda th: (th**2).sum()):
        torch.testing.assert_close(forward_derivative(function, theta, tangent), jvp(function, (theta,), (tangent,))[1],
                                   rtol=0.0, atol=0.0)
    constant = forward_derivative(lambda th: torch.ones(2, 2, dtype=F64), theta, tangent)
    torch.testing.assert_close(constant, torch.zeros(2, 2, dtype=F64), rtol=0.0, atol=0.0)


def test_gradient_of_shared_parameters_sums_over_their_edges():
    network = sequential((1, 5), [Conv(2, 3, slope=RELU)])  # the kernel is shared across positions
    risk = _risk(network)
    theta = _theta(network)
    weights = network.edge_weights(theta).clone().requires_grad_(True)
    margins = risk.y * network(weights, risk.x)
    LOSSES["logistic"](margins).mean().backward()
    summed = torch.zeros(network.n_parameters, dtype=F64).index_add(
        0, torch.tensor(network.parameters), weights.grad
    )
    torch.testing.assert_close(risk.gradient(theta), summed, rtol=1e-13, atol=1e-16)


def test_loss_slopes_are_the_magnitudes_of_the_loss_derivatives():
    network = mlp([2, 3, 1], RELU)
    for loss in LOSSES:
        risk = _risk(network, loss=loss)
        theta = _theta(network)
        margins = risk.y * network(network.edge_weights(theta), risk.x)
        expected = torch.stack([grad(LOSSES[loss])(m).abs() for m in margins])
        torch.testing.assert_close(risk.loss_slopes(theta), expected, rtol=0.0, atol=0.0)


# --- absolute_gradient -----------------------------------------------------------------------------

NETWORKS = {
    "mlp-relu": (lambda: mlp([3, 4, 3, 1], RELU), False),
    "mlp-leaky": (lambda: mlp([3, 4, 3, 1], 0.1), False),
    "mlp-relu-bias": (lambda: mlp([2, 3, 1], RELU, bias=True), True),
    "resnet-leaky": (lambda: resnet(2, [("identity", 3, 2), ("free", 2, 3)], slope=0.3), False),
    "conv-relu-bias": (lambda: sequential((1, 6), [Conv(2, 3, slope=RELU), Dense(2)], bias=True), True),
    "fixed-negative-diagonal": (
        lambda: sequential(
            (2,), [Block("diagonal", 3, slope=RELU, learnable_diagonal=False, diagonal=(-2.0, 0.5))]
        ),
        False,
    ),
}


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", NETWORKS, ids=NETWORKS.keys())
def test_absolute_gradient_bounds_the_gradient_entrywise(kind, seed, loss):
    build, bias = NETWORKS[kind]
    network = build()
    risk = _risk(network, seed=seed, loss=loss, bias=bias)
    theta = _theta(network, seed=seed + 10)
    bound, gradient = risk.absolute_gradient(theta), risk.gradient(theta)
    assert bound.shape == gradient.shape == theta.shape
    assert (bound >= 0).all()
    assert (gradient.abs() <= bound * (1 + 1e-12)).all(), (gradient.abs() - bound).max()
    assert float(bound.sum()) > 0


def test_absolute_gradient_is_tight_without_cancellation():
    """A linear network with positive weights and inputs and labels +1: every summand of every
    gradient entry has the same sign, so G = |grad R| up to rounding."""
    network = mlp([2, 3, 1], LINEAR)
    generator = torch.Generator().manual_seed(3)
    x = torch.rand(4, 2, generator=generator, dtype=F64) + 0.1
    risk = Risk(network, x, torch.ones(4, dtype=F64))
    theta = torch.rand(network.n_parameters, generator=generator, dtype=F64) + 0.1
    torch.testing.assert_close(
        risk.absolute_gradient(theta), risk.gradient(theta).abs(), rtol=1e-13, atol=0.0
    )


def test_absolute_gradient_exceeds_the_gradient_when_terms_cancel():
    """nu = a b x on x = +1 and x = -1, both labelled +1: the margins are +-ab and the two
    summands of dR/da = (1/2) sum_i l'(y_i nu_i) y_i b x_i have opposite signs."""
    network = mlp([1, 1, 1], LINEAR)
    risk = Risk(network, torch.tensor([[1.0], [-1.0]], dtype=F64), torch.ones(2, dtype=F64))
    theta = torch.tensor([1.0, 1.0], dtype=F64)
    expected = 0.5 * (
        1 / (1 + math.exp(-1.0)) - 1 / (1 + math.exp(1.0))
    )  # l'(z) = -sigmoid(-z): (1/2)(-s(-1) + s(1))
    torch.testing.assert_close(
        risk.gradient(theta), torch.full((2,), expected, dtype=F64), rtol=1e-14, atol=0.0
    )
    torch.testing.assert_close(
        risk.absolute_gradient(theta), torch.full((2,), 0.5, dtype=F64), rtol=1e-14, atol=0.0
    )


def test_gradient_rounding_depth_counts_the_examples_and_the_sharing():
    network = mlp([2, 3, 1], RELU)

    def depth(n: int) -> int:
        return _risk(network, n=n).gradient_rounding_depth()

    assert depth(5) == rounding_depth(network) + rounding_depth(network, backward=True) + 5 + 1 + 6
    assert depth(9) - depth(5) == 4
    shared = sequential((1, 6), [Conv(2, 3, slope=RELU)])
    assert shared.multiplicity == 4
    assert _risk(shared, n=5).gradient_rounding_depth() == (
        rounding_depth(shared) + rounding_depth(shared, backward=True) + 5 + 4 + 6
    )


# --- validation --------------------------------------------------------------------------------------


def test_bias_vertex_needs_a_column_of_ones():
    network = mlp([2, 3, 1], RELU, bias=True)
    assert network.bias_vertex == 2 and network.n_inputs == 3
    x = torch.randn(4, 2, generator=torch.Generator().manual_seed(0), dtype=F64)
    y = torch.tensor([1.0, -1.0, 1.0, 1.0], dtype=F64)
    Risk(network, with_bias_column(x), y)  # accepted
    with pytest.raises(ValueError, match="bias vertex 2 needs a column of ones"):
        Risk(network, torch.cat([x, torch.randn(4, 1, dtype=F64)], dim=1), y)
    almost = with_bias_column(x)
    almost[2, 2] = 1.0 + 2**-52  # one entry off by one ulp
    with pytest.raises(ValueError, match="column of ones"):
        Risk(network, almost, y)
    with pytest.raises(ValueError, match="x must have shape"):  # the bias column forgotten altogether
        Risk(network, x, y)


@pytest.mark.parametrize(
    "x_shape, y_shape",
    [
        ((4,), (4,)),
        ((4, 3), (4,)),
        ((4, 1), (4,)),
        ((1, 4, 2), (4,)),
        ((4, 2), (3,)),
        ((4, 2), (4, 1)),
        ((4, 2), ()),
    ],
    ids=["x-1d", "x-too-wide", "x-too-narrow", "x-3d", "y-too-short", "y-column", "y-scalar"],
)
def test_wrong_shapes_raise(x_shape, y_shape):
    network = mlp([2, 3, 1], RELU)
    with pytest.raises(ValueError, match="shape|one label per example"):
        Risk(network, torch.zeros(x_shape, dtype=F64), torch.ones(y_shape, dtype=F64))


def test_unknown_loss_raises():
    network = mlp([2, 3, 1], RELU)
    with pytest.raises(ValueError, match="unknown loss 'hinge'"):
        Risk(network, torch.zeros(3, 2, dtype=F64), torch.ones(3, dtype=F64), "hinge")
