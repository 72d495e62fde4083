"""Convergence points with weight decay (lambda > 0; GP22 Section 3.1, Proposition 1 and its
exception): a balanced ReLU chain on collinear data (squared, logistic or exponential loss: the
exception "the x_i are collinear"), and the same chain behind a fixed first layer of width 1 on
non-collinear data (Proposition 1's hypothesis {(v_p, v_1) in E} subset E_T violated), each with
f != 0.
"""

from __future__ import annotations

import math

import torch

from claims.gp22._inputs import collinear_inputs, cone_inputs, unit_vector
from claims.gp22._settings import Setting, chain_network
from claims.gp22._stationarity import ConvergencePoint
from claims.models._layered import matrix_key

DTYPE = torch.float64


def positive_unit_vectors(widths: tuple[int, ...], seed: int) -> list[torch.Tensor]:
    return [unit_vector(w, seed + 101 * (k + 1), positive=True) for k, w in enumerate(widths)]


def balanced_chain_point(
    n: int,
    hidden: tuple[int, ...],
    coefficients: list[float] | None,
    scale: float,
    weight_decay: float,
    loss: str,
    seed: int,
    root: float | None = None,
    m: int | None = None,
) -> ConvergencePoint:
    """Lambda > 0 on collinear data x_i = c_i u (c_i > 0): the balanced chain W^{10} = s p_1 u^T,
    W^{l+1,l} = s p_{l+1} p_l^T, W^{L,L-1} = s p_{L-1}^T (p_l unit vectors with entries > 0, s > 0).
    Every unit is active on every sample, f(x_i) = s^L c_i and g_i = s^{L-1} c_i q with
    theta = s q, so l'_i g_i + 2 lambda theta = 0 iff l'_i c_i = -2 lambda s^{2-L} for every i:

    - squared loss: y_i = f(x_i) + lambda s^{2-L} / c_i (any c_i > 0);
    - logistic / exponential (y_i = 1): c sigma(-s^L c) = 2 lambda s^{2-L} (resp. c e^{-s^L c}), a
      unimodal function of c > 0: given ``root`` c_0 the weight decay is set to make c_0 a root and
      the other root c_1 is found by bisection; the data alternate c_0, c_1 (m samples, repeats
      allowed: collinear points may coincide).

    The balance (one s for every layer) is forced: with s_l per layer the per-layer conditions give
    s_l^2 equal. Returns the point (``weight_decay`` is replaced for logistic / exponential)."""
    widths = (n, *hidden, 1)
    depth = len(widths) - 1
    network = chain_network(widths)
    p = positive_unit_vectors(tuple(hidden), seed)
    if loss in ("logistic", "exponential"):
        if root is None or m is None:
            raise ValueError("logistic / exponential constructions take a root c_0 and a sample count m")
        weight_decay, other = _second_root(loss, scale**depth, root, scale ** (2 - depth))
        coefficients = [root if i % 2 == 0 else other for i in range(m)]
    c = torch.tensor(coefficients, dtype=DTYPE)
    if (c <= 0).any():
        raise ValueError("the construction needs c_i > 0 (a negative c_i kills every unit on x_i)")
    x, u = collinear_inputs(c, n, seed)
    params = {matrix_key(1, 0): scale * p[0][:, None] * u[None, :]}
    for layer in range(2, depth):
        params[matrix_key(layer, layer - 1)] = scale * p[layer - 1][:, None] * p[layer - 2][None, :]
    params[matrix_key(depth, depth - 1)] = scale * p[-1][None, :]
    setting = Setting(network)
    if loss == "squared":
        f = network(params, x)
        y = f + weight_decay * scale ** (2 - depth) / c
    else:
        y = torch.ones_like(c)
    construction = max(widths) + 6 + setting.forward_roundings()[network.output] + 4
    return ConvergencePoint(
        "balanced chain, collinear data, lambda > 0",
        setting,
        params,
        x,
        y,
        loss,
        weight_decay,
        collinear=True,
        construction_roundings=construction,
        nonzero_at=u,
        notes={"scale": scale, "depth": depth, "c_min": float(c.min()), "c_max": float(c.max())},
    )


def _second_root(loss: str, slope: float, root: float, factor: float) -> tuple[float, float]:
    """For phi(c) = c e(s c) with e the logistic sigma(-t) or exponential e^{-t}: lambda with
    phi(c_0) = 2 lambda factor, and the other root c_1 of phi(c) = phi(c_0) (phi is unimodal on
    c > 0: it rises from 0 and decays to 0), found by bisection in float64."""
    def phi(c: float) -> float:
        t = slope * c
        return c * (1 / (1 + math.exp(t)) if loss == "logistic" else math.exp(-t))

    target = phi(root)
    # the maximum of phi: golden-section search on a bracket (phi is unimodal)
    lo, hi = 0.0, 50.0 / slope
    for _ in range(200):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if phi(a) < phi(b):
            lo = a
        else:
            hi = b
    peak = (lo + hi) / 2
    if abs(root - peak) < 1e-3 * peak:
        raise ValueError("c_0 is at the maximum of phi: the two roots coincide")
    if root < peak:
        lo, hi = peak, peak
        while phi(hi) > target:
            hi *= 2
    else:
        lo, hi = 0.0, peak
    increasing = root > peak
    for _ in range(200):
        mid = (lo + hi) / 2
        if (phi(mid) < target) == increasing:
            lo = mid
        else:
            hi = mid
    return target / (2 * factor), (lo + hi) / 2


def fixed_first_layer_point(
    m: int, n: int, hidden: tuple[int, ...], scale: float, weight_decay: float, seed: int
) -> ConvergencePoint:
    """Lambda > 0, squared loss, NON-collinear inputs in a cone around u (``cone_inputs``), the
    first layer FIXED (not in E_T, Proposition 1's hypothesis violated) of width 1: W^{10} = u^T, so
    h_i = relu(u . x_i) > 0 is a scalar feature. The trainable chain 1 -> hidden -> 1 sees collinear
    features h_i: the balanced chain of ``balanced_chain_point`` on them (s p_1, s p_l p_{l-1}^T,
    s p_last^T) with y_i = f(x_i) + lambda s^{2-L_T} / h_i, L_T the trainable matrices, is a
    convergence point with f != 0."""
    x, u = cone_inputs(torch.ones(m), n, seed)
    widths = (n, 1, *hidden, 1)
    depth = len(widths) - 1
    network = chain_network(widths)
    setting = Setting(network, frozenset({(1, 0)}))
    p = positive_unit_vectors(tuple(hidden), seed)
    params = {matrix_key(1, 0): u[None, :].clone(), matrix_key(2, 1): scale * p[0][:, None]}
    for layer in range(3, depth):
        params[matrix_key(layer, layer - 1)] = scale * p[layer - 2][:, None] * p[layer - 3][None, :]
    params[matrix_key(depth, depth - 1)] = scale * p[-1][None, :]
    trainable_depth = depth - 1
    h = network.layers(params, x)[1][1][:, 0]
    f = network(params, x)
    y = f + weight_decay * scale ** (2 - trainable_depth) / h
    construction = max(widths) + 6 + setting.forward_roundings()[network.output] + 4
    return ConvergencePoint(
        "fixed first layer (width 1), non-collinear data, lambda > 0",
        setting,
        params,
        x,
        y,
        "squared",
        weight_decay,
        collinear=False,
        construction_roundings=construction,
        nonzero_at=u,
        notes={"scale": scale, "h_min": float(h.min())},
    )
