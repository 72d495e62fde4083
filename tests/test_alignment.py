"""Unit tests of claims._alignment."""

import torch

from claims._alignment import (
    alignment,
    eq13_offset,
    lemma11_offset,
    lemma11_sides,
    norm_ratio,
    normalized_flow,
    same_path_error,
    separable_data,
)
from claims._builders import NetworkBuilder, resnet_block
from claims._networks import LINEAR
from claims._risk import Risk


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
    theta, t, snaps = normalized_flow(risk, theta0.clone(), torch.tensor([1.0], dtype=torch.float64), 40, 10)
    assert len(snaps) == 4 and float(t[0]) > 0
    # the chord never exceeds the arc length
    assert float((theta - theta0).norm()) <= 1.0 + 1e-12
    errors = [same_path_error(risk, theta0[0], 3.0, n)[0] for n in (10, 20)]
    assert errors[1] < errors[0] / 8 and errors[1] < 1e-6  # RK4: order 4 toward the plain flow's point
