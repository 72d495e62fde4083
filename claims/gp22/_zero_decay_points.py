"""Convergence points without weight decay (lambda = 0; GP22 Section 3.1, Proposition 2 and its
hypotheses): interpolated and dead samples on non-collinear and on collinear data, every sample
dead, a fixed first layer with a skip to the output (the hypothesis on the first layer violated),
and a stationary inflection point of a loss without minimizer (convexity dropped). Interpolated
labels come from an exact evaluation of f (``exact_outputs``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import torch

from claims.gp22._inputs import (
    collinear_inputs, cone_inputs, general_position_inputs, seeded_generator, unit_vector,
)
from claims.gp22._settings import Setting, chain_network, skip_network
from claims.gp22._stationarity import ConvergencePoint
from claims.models._layered import LayeredNetwork, matrix_key

DTYPE = torch.float64


def exact_outputs(network: LayeredNetwork, params: Mapping[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """f(x_i) evaluated exactly (Fractions) on the float64 weights and inputs, then rounded once:
    labels that a float evaluation of f misses by its own rounding only (no normalization)."""
    if network.normalized:
        raise ValueError("exact evaluation without batch normalization only")
    weights = {
        key: [[Fraction(float(v)) for v in row] for row in value.tolist()]
        for key, value in params.items()
        if value.ndim == 2
    }
    outputs = []
    for row in x.tolist():
        v = {0: [Fraction(float(t)) for t in row]}
        for p in range(1, network.output + 1):
            total = [Fraction(0)] * network.widths[p]
            for q in network.pred[p]:
                if (p, q) in network.identity_skips:
                    contribution = v[q]
                else:
                    w = weights[matrix_key(p, q)]
                    contribution = [sum((a * b for a, b in zip(w_row, v[q])), Fraction(0)) for w_row in w]
                total = [a + b for a, b in zip(total, contribution)]
            if p < network.output:
                total = [t if t >= 0 else network.slope * t for t in total]
            v[p] = total
        outputs.append(float(v[network.output][0]))
    return torch.tensor(outputs, dtype=DTYPE)


def interpolation_point(
    signs: list[float], n: int, hidden: tuple[int, ...], seed: int, dead_labels: list[float] | None = None
) -> ConvergencePoint:
    """Lambda = 0, squared loss, non-collinear inputs x_i = s_i (u + spread z_i) (``cone_inputs``):
    the first layer W^{10} = rows u^T + 0.2 zeta_k (||zeta_k|| <= 1) is active on the samples with
    s_i = +1 and dead (every pre-activation < 0) on those with s_i = -1; deeper matrices have
    entries in [0.2, 1] (the active samples stay active), the output entries any sign.

    Labels: y_i = f(x_i) exactly (``exact_outputs``, rounded once) on the active samples, so l'_i is
    0 up to the rounding of f; on the dead samples f(x_i) = 0, g_i = 0 and y_i != 0 (l'_i = -2 y_i
    != 0). Every G_i vanishes: a convergence point with f != 0 on the data (interpolation)."""
    s = torch.as_tensor(signs, dtype=DTYPE)
    x, u = cone_inputs(s, n, seed)
    widths = (n, *hidden, 1)
    network = chain_network(widths)
    generator = seeded_generator(seed + 3)
    zeta = torch.randn(hidden[0], n, generator=generator, dtype=DTYPE)
    zeta = zeta / torch.linalg.vector_norm(zeta, dim=1, keepdim=True).clamp_min(1.0)
    params = {matrix_key(1, 0): u[None, :] + 0.2 * zeta}
    for layer in range(2, len(widths) - 1):
        params[matrix_key(layer, layer - 1)] = 0.2 + 0.8 * torch.rand(
            widths[layer], widths[layer - 1], generator=generator, dtype=DTYPE
        )
    out = (0.5 + torch.rand(1, widths[-2], generator=generator, dtype=DTYPE)) * torch.where(
        torch.rand(1, widths[-2], generator=generator) < 0.5, -1.0, 1.0
    ).to(DTYPE)
    params[matrix_key(len(widths) - 1, len(widths) - 2)] = out
    y = exact_outputs(network, params, x)
    dead = s < 0
    if dead_labels is None:
        dead_labels = [1.0] * int(dead.sum())
    y[dead] = torch.tensor(dead_labels, dtype=DTYPE)
    setting = Setting(network)
    return ConvergencePoint(
        "interpolation and dead samples, non-collinear data, lambda = 0",
        setting,
        params,
        x,
        y,
        "squared",
        0.0,
        collinear=False,
        construction_roundings=2,
        nonzero_at=u,
        notes={"active": int((~dead).sum()), "dead": int(dead.sum())},
    )


def collinear_dead_point(
    coefficients: list[float], n: int, hidden: int, seed: int, label: float = 1.0
) -> ConvergencePoint:
    """Lambda = 0, squared loss, COLLINEAR inputs x_i = c_i u with both signs: W^{10} = p u^T
    (p > 0), output weights a > 0; samples with c_i > 0 are active and interpolated (y_i = f(x_i)
    exactly, ``exact_outputs``), those with c_i < 0 dead (f = 0, g = 0, y_i = ``label``, so
    l'_i = -2 y_i != 0). Proposition 2's hypothesis "not collinear" is violated; its conclusion
    (l'_i != 0 => f(x_i) = 0) still holds here."""
    x, u = collinear_inputs(coefficients, n, seed)
    network = chain_network((n, hidden, 1))
    p = unit_vector(hidden, seed + 5, positive=True)
    a = unit_vector(hidden, seed + 6, positive=True)
    params = {matrix_key(1, 0): p[:, None] * u[None, :], matrix_key(2, 1): a[None, :]}
    y = exact_outputs(network, params, x)
    c = torch.as_tensor(coefficients, dtype=DTYPE)
    y[c < 0] = label
    return ConvergencePoint(
        "interpolation and dead samples, collinear data, lambda = 0",
        Setting(network),
        params,
        x,
        y,
        "squared",
        0.0,
        collinear=True,
        construction_roundings=2,
        nonzero_at=u,
        notes={"dead": int((c < 0).sum())},
    )


def dead_point(m: int, n: int, hidden: tuple[int, ...], loss: str, seed: int) -> ConvergencePoint:
    """Lambda = 0, any loss, non-collinear inputs in a cone around u (all s_i = +1), first layer
    rows -u^T + 0.2 zeta_k: every unit is dead on every sample, so f(x_i) = 0 and g_i = 0 exactly and
    every batch gradient vanishes, for any labels (y_i = +-1). f is not identically zero: at -u
    every first-layer unit is active (deeper entries in [0.2, 1], output entries of any sign)."""
    point = interpolation_point([1.0] * m, n, hidden, seed)
    params = dict(point.params)
    params[matrix_key(1, 0)] = -params[matrix_key(1, 0)]
    generator = seeded_generator(seed + 11)
    y = torch.where(torch.rand(m, generator=generator) < 0.5, -1.0, 1.0).to(DTYPE)
    return ConvergencePoint(
        "every sample dead, non-collinear data, lambda = 0",
        point.setting,
        params,
        point.x,
        y,
        loss,
        0.0,
        collinear=False,
        construction_roundings=2,
        nonzero_at=-point.x[0] / torch.linalg.vector_norm(point.x[0]),
        notes={"dead": m},
    )


def skip_control_point(
    m: int, n: int, loss: str, seed: int, inner: float = -0.7, outer: float = 1.3
) -> ConvergencePoint:
    """Lambda = 0, non-collinear inputs in a cone around u, ``skip_network`` with the FIRST layer
    FIXED (W^{10} = u^T, not in E_T: Proposition 2's hypothesis violated): W^{21} = ``inner`` < 0
    makes layer 2 dead on every sample, so f(x_i) = relu(u . x_i) > 0 through the constant skip and
    the trainable gradients vanish (d f/d W^{21} = W^{32} sigma'(W^{21} h) h = 0, d f/d W^{32} =
    relu(W^{21} h) = 0): every batch gradient is zero for any labels. Labels y_i = -1 (squared
    loss: l'_i = 2 (f_i + 1) != 0; logistic and exponential: l' != 0 everywhere), with
    f(x_i) != 0."""
    x, u = cone_inputs(torch.ones(m), n, seed)
    network = skip_network(n)
    params = {
        matrix_key(1, 0): u[None, :].clone(),
        matrix_key(2, 1): torch.tensor([[inner]], dtype=DTYPE),
        matrix_key(3, 2): torch.tensor([[outer]], dtype=DTYPE),
    }
    return ConvergencePoint(
        "fixed first layer with a skip to the output, dead trainable path, lambda = 0",
        Setting(network, frozenset({(1, 0)})),
        params,
        x,
        -torch.ones(m, dtype=DTYPE),
        loss,
        0.0,
        collinear=False,
        construction_roundings=2,
        nonzero_at=u,
    )


def stationary_inflection_point(m: int, n: int, hidden: int, seed: int) -> ConvergencePoint:
    """Lambda = 0, the ``inflection`` loss l(a, y) = exp(-(y a - 1)^3) (no minimizer, not convex,
    l'(1/y, y) = 0), non-collinear inputs in general position, y_i = 1: a two-layer ReLU net with a
    random first layer (hidden >= m units, the m x hidden activation matrix H of full row rank) and
    output weights a = H^+ 1 (pseudo-inverse; ValueError unless H a = 1 to 1e-12), so f(x_i) = 1 up to
    rounding, l'_i = 0 up to O(rounding^2), and every batch gradient vanishes: a convergence point where
    f(x_i) = 1 != 0."""
    x = general_position_inputs(m, n, seed)
    network = chain_network((n, hidden, 1))
    generator = seeded_generator(seed + 13)
    first = torch.randn(hidden, n, generator=generator, dtype=DTYPE)
    activations = torch.relu(x @ first.T)
    a = torch.linalg.pinv(activations) @ torch.ones(m, 1, dtype=DTYPE)
    if float((activations @ a - 1).abs().max()) > 1e-12:
        raise ValueError("the activation matrix is rank deficient: f(x_i) = 1 cannot be interpolated")
    params = {matrix_key(1, 0): first, matrix_key(2, 1): a.T.contiguous()}
    sv = torch.linalg.svdvals(activations)
    return ConvergencePoint(
        "stationary inflection point of a loss without minimizer, lambda = 0",
        Setting(network),
        params,
        x,
        torch.ones(m, dtype=DTYPE),
        "inflection",
        0.0,
        collinear=False,
        construction_roundings=2,
        nonzero_at=x[0],
        notes={"activation_rank_margin": float(sv[-1] / sv[0])},
    )
