"""Unit tests of GP22 Eq. (5), ``LayeredNetwork.batch_normalization``: n(z) = gamma A (z - b) + beta 1.

Pinned here, since the claim tests pass whether or not they hold:
- centering: the output has batch mean beta and population variance gamma^2 in every unit;
- ``variance="detached"``: A = diag(Var^{-1/2}) is a stop-gradient, so autograd returns the memo's
  pseudo-gradient, that of gamma A (z - mean z) + beta with A a constant;
- ``variance="ordinary"``: A is differentiated as in standard batch normalization, which gives a
  different gradient on generic inputs;
- in both modes the batch mean b is differentiated (it is not detached).

The gradients are compared with closed forms per unit: with x = A (z - mean z), y = gamma x + beta
and g = dL/dy, the detached gradient is gamma A (g - mean g) and the ordinary one is
gamma A (g - mean g - x mean(g x)).
"""

from __future__ import annotations

import pytest
import torch

from claims.models._layered import LayeredNetwork, matrix_key

LAYER = 2
MODES = pytest.mark.parametrize("variance", ["detached", "ordinary"])
SHAPES = pytest.mark.parametrize("batch, width, seed", [(5, 3, 0), (8, 1, 1), (3, 4, 2), (16, 2, 3)])


def _inputs(batch: int, width: int, seed: int):
    """Generic pre-activations (units with different nonzero means and spreads), gamma, beta and
    upstream weights w, float64, all requiring gradients but w."""
    generator = torch.Generator().manual_seed(seed)
    z = 3.0 * torch.randn(batch, width, generator=generator, dtype=torch.float64)
    spreads = torch.linspace(0.5, 2.0, width, dtype=torch.float64)
    z = (z * spreads + torch.arange(1, width + 1) * 1.7).requires_grad_()
    params = {
        f"gamma{LAYER}": torch.tensor(1.3 + seed / 10, dtype=torch.float64, requires_grad=True),
        f"beta{LAYER}": torch.tensor(-0.4 + seed / 7, dtype=torch.float64, requires_grad=True),
    }
    w = torch.randn(batch, width, generator=generator, dtype=torch.float64)
    return z, params, w


def _normalize(params, z, variance):
    return LayeredNetwork.batch_normalization(params, LAYER, z, variance)


def _grads(params, z, w, variance):
    """Gradients in (z, gamma, beta) of L = sum(w * n(z))."""
    loss = (w * _normalize(params, z, variance)).sum()
    return torch.autograd.grad(loss, (z, params[f"gamma{LAYER}"], params[f"beta{LAYER}"]))


def _constant_scale(z):
    """A = Var^{-1/2} per unit (population variance), as a constant."""
    return z.detach().var(dim=0, unbiased=False).rsqrt()


def _close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-10, atol=1e-12)


@MODES
@SHAPES
def test_output_has_batch_mean_beta_and_variance_gamma_squared_per_unit(variance, batch, width, seed):
    z, params, _ = _inputs(batch, width, seed)
    out = _normalize(params, z, variance).detach()
    gamma, beta = params[f"gamma{LAYER}"].item(), params[f"beta{LAYER}"].item()
    assert out.shape == (batch, width)
    _close(out.mean(dim=0), torch.full((width,), beta, dtype=torch.float64))
    _close(out.var(dim=0, unbiased=False), torch.full((width,), gamma**2, dtype=torch.float64))


@MODES
def test_output_is_the_centred_and_scaled_input(variance):
    z, params, _ = _inputs(6, 3, 7)
    gamma, beta = params[f"gamma{LAYER}"], params[f"beta{LAYER}"]
    expected = gamma * (z - z.mean(dim=0)) / z.std(dim=0, unbiased=False) + beta
    _close(_normalize(params, z, variance), expected)


def test_output_ignores_a_shift_of_the_input():
    z, params, _ = _inputs(7, 3, 4)
    shifted = z.detach() + torch.tensor([10.0, -3.0, 0.5], dtype=torch.float64)
    _close(_normalize(params, shifted, "detached"), _normalize(params, z, "detached"))


def test_both_modes_compute_the_same_values():
    z, params, _ = _inputs(9, 3, 5)
    detached, ordinary = _normalize(params, z, "detached"), _normalize(params, z, "ordinary")
    torch.testing.assert_close(detached, ordinary, rtol=0, atol=0)


@SHAPES
def test_detached_variance_gradient_is_that_of_a_constant_scale(batch, width, seed):
    z, params, w = _inputs(batch, width, seed)
    gamma, beta = params[f"gamma{LAYER}"], params[f"beta{LAYER}"]
    grad_z, grad_gamma, grad_beta = _grads(params, z, w, "detached")

    scale = _constant_scale(z)  # precomputed: no graph through the variance
    reference = (w * (gamma * scale * (z - z.mean(dim=0)) + beta)).sum()
    ref_z, ref_gamma, ref_beta = torch.autograd.grad(reference, (z, gamma, beta))
    _close(grad_z, ref_z)
    _close(grad_gamma, ref_gamma)
    _close(grad_beta, ref_beta)

    # the closed form, independent of autograd: gamma A (g - mean g) with g = w
    _close(grad_z, gamma.detach() * scale * (w - w.mean(dim=0)))


@SHAPES
def test_ordinary_variance_gradient_differentiates_through_the_variance(batch, width, seed):
    z, params, w = _inputs(batch, width, seed)
    grad_z, _, _ = _grads(params, z, w, "ordinary")
    scale = _constant_scale(z)
    x = (z.detach() - z.detach().mean(dim=0)) * scale
    expected = params[f"gamma{LAYER}"].detach() * scale * (w - w.mean(dim=0) - x * (w * x).mean(dim=0))
    _close(grad_z, expected)


@SHAPES
def test_detached_and_ordinary_gradients_differ_on_generic_inputs(batch, width, seed):
    z, params, w = _inputs(batch, width, seed)
    detached, _, _ = _grads(params, z, w, "detached")
    ordinary, _, _ = _grads(params, z, w, "ordinary")
    difference = (detached - ordinary).abs().amax(dim=0)
    assert bool((difference > 1e-3 * detached.abs().amax(dim=0)).all()), difference


@MODES
def test_gamma_and_beta_gradients_are_those_of_the_normalized_input(variance):
    z, params, w = _inputs(6, 3, 8)
    _, grad_gamma, grad_beta = _grads(params, z, w, variance)
    x = (z.detach() - z.detach().mean(dim=0)) * _constant_scale(z)
    _close(grad_gamma, (w * x).sum())
    _close(grad_beta, w.sum())


@MODES
@SHAPES
def test_the_batch_mean_is_differentiated_in_both_modes(variance, batch, width, seed):
    """Each unit's batch sum is batch * beta whatever z, so its gradient in z is 0; with the mean
    detached it would be gamma A batch in every entry."""
    z, params, _ = _inputs(batch, width, seed)
    (grad_z,) = torch.autograd.grad(_normalize(params, z, variance).sum(), (z,))
    _close(grad_z, torch.zeros_like(grad_z))
    # and the gradient of one output entry reaches every row of its unit through the mean
    (row_grad,) = torch.autograd.grad(_normalize(params, z, variance)[0, 0], (z,))
    assert bool((row_grad[1:, 0] != 0).all()) or batch == 1
    _close(row_grad[:, 1:], torch.zeros_like(row_grad[:, 1:]))  # units are normalized separately


@MODES
def test_layered_network_normalizes_the_hidden_layer_it_is_told_to(variance):
    """Through the network: v_1 = relu(n(z_1)) on a normalized layer, v_1 = relu(z_1) otherwise."""
    generator = torch.Generator().manual_seed(11)
    network = LayeredNetwork(widths=(2, 3, 1), connections=((1, 0), (2, 1)), normalized=frozenset({1}))
    params = {
        matrix_key(1, 0): torch.randn(3, 2, generator=generator, dtype=torch.float64),
        matrix_key(2, 1): torch.randn(1, 3, generator=generator, dtype=torch.float64),
        "gamma1": torch.tensor(0.8, dtype=torch.float64),
        "beta1": torch.tensor(0.1, dtype=torch.float64),
    }
    x = torch.randn(6, 2, generator=generator, dtype=torch.float64)
    z, v = network.layers(params, x, variance)
    _close(v[1], torch.relu(LayeredNetwork.batch_normalization(params, 1, z[1], variance)))
    plain = LayeredNetwork(widths=(2, 3, 1), connections=((1, 0), (2, 1)))
    _close(plain.layers(params, x, variance)[1][1], torch.relu(z[1]))


@MODES
def test_leading_dimensions_normalize_each_batch_by_its_own_statistics(variance):
    """z of shape (copies, batch, width): every copy is normalized as it would be alone, values and
    gradients (the statistics run over the batch dimension -2, never across copies)."""
    parts = [_inputs(5, 3, seed) for seed in (20, 21, 22)]
    params, w = parts[0][1], torch.stack([part[2] for part in parts])
    stacked = torch.stack([part[0].detach() for part in parts]).requires_grad_()
    out = _normalize(params, stacked, variance)
    (grad,) = torch.autograd.grad((w * out).sum(), (stacked,))
    for copy, (z, _, _) in enumerate(parts):
        _close(out[copy], _normalize(params, z, variance))
        (alone,) = torch.autograd.grad((w[copy] * _normalize(params, z, variance)).sum(), (z,))
        _close(grad[copy], alone)
