"""Unit tests of claims.lj22._alignment."""

import math

import pytest

import torch

from claims.lj22._alignment import (
    alignment,
    convolution_chain,
    convolution_chain_invariants,
    definition8_matrix,
    descent_direction,
    log_loss_slope,
    eq13_offset,
    eq13_offset_through_convolutions,
    eq13_vc_convolutions,
    lemma11_offset,
    lemma11_sides,
    norm_ratio,
    normalized_flow,
    plain_gradient,
    same_path_error,
    separable_data,
    theorem2_network_with_convolutions,
)
from claims.models._builders import NetworkBuilder, resnet_block, with_bias_column
from claims.models._networks import LINEAR
from claims.models._representations import kernel_columns, kernel_rows
from claims.models._risk import Risk


def block_risk():
    b = NetworkBuilder(3)
    r = resnet_block(b, b.inputs, "free", 4, 3, slope=LINEAR, name="B1.")
    o = b.layer(1, LINEAR)
    b.dense(r, o, "Fin")
    x, y = separable_data(12, 3, 0.3, 0)
    return Risk(b.build(), x, y)


def test_norm_ratio_and_alignment():
    W = torch.diag(torch.tensor([3.0, 4.0], dtype=torch.float64))
    assert abs(norm_ratio(W) - 16 / 25) < 1e-14
    u = torch.tensor([[1.0], [0.0]], dtype=torch.float64)
    assert abs(norm_ratio(u @ u.T) - 1) < 1e-14
    assert (
        abs(
            alignment(
                torch.tensor([[0.0, 0.0], [0.0, 2.0]], dtype=torch.float64),
                torch.tensor([[0.0, 5.0]], dtype=torch.float64),
            )
            - 1
        )
        < 1e-14
    )
    assert (
        alignment(
            torch.tensor([[2.0, 0.0], [0.0, 0.0]], dtype=torch.float64),
            torch.tensor([[0.0, 5.0]], dtype=torch.float64),
        )
        < 1e-14
    )


def test_offsets_and_lemma11_sides():
    U, Y = torch.eye(2, dtype=torch.float64) * 2, torch.eye(2, dtype=torch.float64)
    assert abs(lemma11_offset(U, Y) - 3) < 1e-12
    Z = torch.zeros(2, 2, dtype=torch.float64)
    a, b = lemma11_sides(U, Y, Z)
    assert abs(a - 4) < 1e-12 and abs(b - 1) < 1e-12
    A, F = torch.eye(2, dtype=torch.float64), torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    # D0 = 2 - 1, D1 = ||diag(0, -1)||_2 = 1
    assert abs(eq13_offset(A, F) - 2) < 1e-12


def test_separable_data_has_margin():
    x, y = separable_data(50, 4, 0.2, 1)
    assert x.shape == (50, 4) and set(y.tolist()) <= {-1.0, 1.0}
    # separable: the generating direction is recovered by least squares up to a positive margin
    w = torch.linalg.lstsq(x, y[:, None]).solution[:, 0]
    assert bool(((x @ w) * y > 0).float().mean() > 0.8)


def test_normalized_flow_is_unit_speed_and_same_path():
    risk = block_risk()
    torch.manual_seed(0)
    theta0 = 0.5 * torch.randn(1, risk.network.n_parameters, dtype=torch.float64)
    theta, log_t, snaps = normalized_flow(risk, theta0.clone(), torch.tensor([1.0], dtype=torch.float64), 40, 10)
    assert len(snaps) == 4 and float(log_t[0]) > -torch.inf
    # the chord never exceeds the arc length
    assert float((theta - theta0).norm()) <= 1.0 + 1e-12
    errors = [same_path_error(risk, theta0[0], 3.0, n)[0] for n in (10, 20)]
    assert errors[1] < errors[0] / 8 and errors[1] < 1e-6  # RK4: order 4 toward the plain flow's point


def test_descent_direction_is_the_normalized_gradient_in_log_space():
    risk = block_risk()
    torch.manual_seed(1)
    theta = torch.randn(risk.network.n_parameters, dtype=torch.float64)
    g = plain_gradient(risk, theta)
    direction, log_norm = descent_direction(risk, theta)
    assert float((direction + g / g.norm()).abs().max()) < 1e-14
    assert abs(log_norm - float(torch.log(g.norm()))) < 1e-13
    # where the loss's derivative leaves float64, the direction is still defined: under the exponential
    # loss at margins of order -1e5, e^{-z} overflows, and the weights concentrate on the smallest margin
    exp_risk = Risk(risk.network, risk.x, risk.y, loss="exponential")
    far = 400.0 * theta
    assert not bool(torch.isfinite(plain_gradient(exp_risk, far)).all())
    direction, log_norm = descent_direction(exp_risk, far)
    th = far.clone().requires_grad_(True)
    margins = exp_risk.y * risk.network(risk.network.edge_weights(th), risk.x)
    worst = int(margins.argmin())
    dz = torch.autograd.grad(margins[worst], th)[0]
    assert float((direction - dz / dz.norm()).abs().max()) < 1e-12
    assert log_norm > 700  # |g| = e^{-z_min} |grad z| / n beyond float64's largest number


@pytest.mark.parametrize("far", [400.0, 800.0])
def test_descent_direction_where_the_heaviest_example_has_no_gradient(far):
    """An example at x = 0 has margin 0 and no gradient (log-slope weight 1/2, the largest), the other has margin
    400 (weight e^{-400}: the weighted gradient's entries are about 1e-172, their squares underflow) or 800
    (e^{-800} is 0 in float64): the direction is still the other example's unit margin gradient."""
    network = block_risk().network
    x = torch.stack([torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)])
    theta = torch.randn(network.n_parameters, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    output = float(network(network.edge_weights(theta), x)[1])
    y = torch.tensor([1.0, 1.0 if output > 0 else -1.0], dtype=torch.float64)  # the second margin positive
    w = network.edge_weights(theta)
    fin = torch.tensor(network.matrices["Fin"]).flatten()
    w[fin] = w[fin] * far / abs(output)  # the output is linear in Fin
    theta = network.parameters_of(w)
    th = theta.clone().requires_grad_(True)
    margin = y[1] * network(network.edge_weights(th), x)[1]
    dz = torch.autograd.grad(margin, th)[0]
    margin = margin.detach()
    assert abs(float(margin) - far) < 1e-9 * far
    direction, log_norm = descent_direction(Risk(network, x, y), theta)
    assert float((direction - dz / dz.norm()).abs().max()) < 1e-12
    expected = float(log_loss_slope(margin, "logistic")) - math.log(2) + math.log(float(dz.norm()))
    assert abs(log_norm - expected) < 1e-9


def test_normalized_flow_follows_the_exponential_loss_too():
    risk = block_risk()
    exp_risk = Risk(risk.network, risk.x, risk.y, loss="exponential")
    torch.manual_seed(2)
    theta0 = 0.5 * torch.randn(1, exp_risk.network.n_parameters, dtype=torch.float64)
    theta, log_t, _ = normalized_flow(exp_risk, theta0.clone(), torch.tensor([2.0], dtype=torch.float64), 20)
    assert float(exp_risk(theta[0])) < float(exp_risk(theta0[0])) and bool(torch.isfinite(log_t).all())


def convolution_risk(seed=0):
    network = theorem2_network_with_convolutions(3, 3, 5, [(8, 3), (1, 2)])
    x, y = separable_data(12, 3, 0.3, seed)
    return Risk(network, with_bias_column(x), y)


def test_network_with_convolutions_has_the_kernels_and_fin_of_its_shape():
    risk = convolution_risk()
    theta = torch.randn(risk.network.n_parameters, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    kernels, F = convolution_chain(risk.network, theta)
    assert [tuple(T.shape) for T in kernels] == [(3, 3, 8), (8, 2, 1)]
    assert tuple(F.shape) == (1, 2)  # c_2 = 1 channel, n_2 = 5 - 3 + 1 - 2 + 1 = 2 positions
    assert eq13_vc_convolutions(kernels, F, 0) == 2 * min(8, 2)
    assert eq13_vc_convolutions(kernels, F, 1) == 2


def test_definition8_matrix_is_lemma10_T2_transposed():
    T = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    assert torch.equal(definition8_matrix(T), kernel_columns(T).T)
    assert torch.equal(definition8_matrix(T)[1, 2 * 5 + 3], T[1, 2, 3])


def test_chain_invariants_have_zero_rate_along_the_flow():
    """dQ_l/dt = 0 along -grad R (Theorem 1 cases 2 and 5, all layers after eta linear): the derivative of each
    Q_l in the direction of the gradient is rounding, against O(1) entries."""
    risk = convolution_risk()
    theta = torch.randn(risk.network.n_parameters, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    g = plain_gradient(risk, theta)

    def invariants(th):
        return tuple(convolution_chain_invariants(*convolution_chain(risk.network, th)))

    _, rates = torch.autograd.functional.jvp(invariants, theta, -g)
    scale = float(g.norm()) * max(float(q.abs().max()) for q in invariants(theta))
    assert all(float(r.abs().max()) < 1e-12 * max(scale, 1.0) for r in rates)

    def first_gram(th):  # one side alone moves: the zero rate is a cancellation
        T1 = kernel_rows(convolution_chain(risk.network, th)[0][0])
        return T1 @ T1.T

    _, rate = torch.autograd.functional.jvp(first_gram, theta, -g)
    assert float(rate.abs().max()) > 1e-3 * scale


def test_offset_through_convolutions_is_the_telescoped_sum_and_bounds_eq13_at_zero():
    risk = convolution_risk()
    for seed in range(5):
        theta = torch.randn(risk.network.n_parameters, generator=torch.Generator().manual_seed(10 + seed),
                            dtype=torch.float64)
        kernels, F = convolution_chain(risk.network, theta)
        q0, q1 = convolution_chain_invariants(kernels, F)
        spectral = lambda q: float(torch.linalg.matrix_norm(q, ord=2))  # noqa: E731
        d0 = float((kernels[0] ** 2).sum() - (F**2).sum())
        manual = d0 / 4 + spectral(q0) + spectral(q1) / min(8, 2)
        D = eq13_offset_through_convolutions(kernels, F, 0)
        assert abs(D - max(0.0, manual)) <= 1e-12 * abs(manual)
        T1 = kernel_rows(kernels[0])
        lhs = float((T1**2).sum()) / 4 - float(torch.linalg.matrix_norm(T1, ord=2)) ** 2
        assert lhs <= D  # the chain holds at t = 0 too
