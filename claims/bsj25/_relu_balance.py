"""Section 5, conjecture (3): balancedness of ReLU networks along gradient flow on L_0. For the hidden
neurons of layer l-1 (between W_{l-1} and W_l, W_l of shape n_l x n_{l-1}) the quantity is
D_l = W_l^T W_l - W_{l-1} W_{l-1}^T; weak balancedness is diag(D_l), the strong one the whole matrix.

``balance_rate`` gives dD_l/dt = <grad D_l, -grad L_0> in closed form from the gradient, with the scale
and rounding bound a conserved-rate check needs; ``balance_drift`` integrates the flow with classical
RK4 at several step counts and returns the drift of D_l with its rounding floor and the terms' motion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from claims.bsj25._saddle import absolute_forward, absolute_loss, forward, localized_loss, rounding_depth
from claims.models import gamma


def balance_matrix(weights: Sequence[torch.Tensor], layer: int, diagonal: bool) -> torch.Tensor:
    """D_l = W_l^T W_l - W_{l-1} W_{l-1}^T (l = 2..L, 1-based as in the paper), or its diagonal."""
    if not 2 <= layer <= len(weights):
        raise ValueError(f"layer {layer} has no preceding weight matrix (L = {len(weights)})")
    w, v = weights[layer - 1], weights[layer - 2]
    d = w.T @ w - v @ v.T
    return torch.diagonal(d) if diagonal else d


def _gradients(weights, x, g, loss):
    leaves = [w.detach().clone().requires_grad_(True) for w in weights]
    return list(torch.autograd.grad(loss(leaves, x, g), leaves))


@dataclass(frozen=True)
class BalanceRate:
    """dD_l/dt along -grad L_0 (``rate``), the sum of the magnitudes of its summands with the gradient
    replaced by its rounding scale (``scale``: the gradient of the absolute network), the rounding bound
    (``tolerance``, relative to ``scale``), and the smallest |Z_{l-1}| entry relative to its path sum
    (``margin``: the ReLU pattern is fixed near theta when it is above rounding)."""

    rate: torch.Tensor
    scale: torch.Tensor
    tolerance: float
    margin: float
    nonnegative: bool


def balance_rate(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor, layer: int,
                 diagonal: bool) -> BalanceRate:
    """dD_l/dt = -(grad_l^T W_l + W_l^T grad_l) + (grad_{l-1} W_{l-1}^T + W_{l-1} grad_{l-1}^T). Each entry
    is a sum of inner products of length <= max(n_l, n_{l-2}) of a gradient entry (within gamma_k A, A the
    absolute network's gradient, k = ``rounding_depth``) and a weight: within gamma_{k + n + 2} of the
    same sums over A and |W|, the ``scale``."""
    grads = _gradients(weights, x, g, localized_loss)
    absolute = _gradients([w.abs() for w in weights], x, g, absolute_loss)
    w, v = weights[layer - 1], weights[layer - 2]
    gw, gv, aw, av = grads[layer - 1], grads[layer - 2], absolute[layer - 1], absolute[layer - 2]
    rate = -(gw.T @ w + w.T @ gw) + (gv @ v.T + v @ gv.T)
    scale = aw.T @ w.abs() + w.abs().T @ aw + av @ v.abs().T + v.abs() @ av.T
    if diagonal:
        rate, scale = torch.diagonal(rate), torch.diagonal(scale)
    shapes = [tuple(m.shape) for m in weights]
    k = rounding_depth(shapes, x.shape[1]) + max(w.shape[0], v.shape[1]) + 2
    pre, _ = forward(weights, x)
    z = pre[layer - 1]

    paths = absolute_forward(weights, x)[layer - 1]
    margin = float((z.abs() / paths.clamp_min(torch.finfo(z.dtype).tiny)).min())
    return BalanceRate(rate, scale, gamma(k), margin, bool((z >= 0).all()))


def _flow_step(weights, x, g, h):
    """One classical RK4 step of d theta/dt = -grad L_0(theta)."""
    def f(ws):
        return [-d for d in _gradients(ws, x, g, localized_loss)]

    k1 = f(weights)
    k2 = f([w + h / 2 * k for w, k in zip(weights, k1)])
    k3 = f([w + h / 2 * k for w, k in zip(weights, k2)])
    k4 = f([w + h * k for w, k in zip(weights, k3)])
    return [w + h / 6 * (a + 2 * b + 2 * c + d) for w, a, b, c, d in zip(weights, k1, k2, k3, k4)]


@dataclass(frozen=True)
class BalanceDrift:
    """For each step count n (step T / n): the drift max |D_l(T) - D_l(0)|, its rounding floor, whether
    the ReLU pattern of every layer stayed the start's at every step (``smooth``); and the terms' own
    motion, max |W_l^T W_l(T) - W_l^T W_l(0)| (same entries), at the finest step."""

    step_sizes: list[float]
    drifts: list[float]
    floors: list[float]
    smooth: list[bool]
    term_change: float


def balance_drift(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor, layer: int, diagonal: bool,
                  time: float, step_counts: Sequence[int]) -> BalanceDrift:
    """RK4 at each of ``step_counts`` (doubling) up to ``time``. Rounding floor: each step's update
    w + (h/6)(k1 + 2 k2 + 2 k3 + k4) rounds each weight by <= 2u |w| (the addition and the increment's own
    relative error, u the unit roundoff) plus h gamma_k A (the gradients' rounding, A the absolute
    network's gradient, k = ``rounding_depth`` + 8 for the combination); D_l is quadratic in the weights and
    computed within gamma_{n+1}, so n steps move it by at most (4 n u + gamma_{n_max + 1}) M + 2 T gamma_k
    max A max |W|, M = max(|W_l|^T |W_l| + |W_{l-1}| |W_{l-1}|^T)."""
    weights = [w.detach().clone() for w in weights]
    start = balance_matrix(weights, layer, diagonal)
    first_term = balance_matrix(weights, layer, diagonal) + (
        torch.diagonal(weights[layer - 2] @ weights[layer - 2].T) if diagonal
        else weights[layer - 2] @ weights[layer - 2].T)
    pattern = [p > 0 for p in forward(weights, x)[0][1:-1]]
    shapes = [tuple(m.shape) for m in weights]
    k = rounding_depth(shapes, x.shape[1]) + 8
    absolute = _gradients([w.abs() for w in weights], x, g, absolute_loss)
    largest = max(float(w.abs().max()) for w in weights)
    increment = 2 * time * gamma(k) * max(float(a.max()) for a in absolute) * largest * 2
    u = 2.0**-53
    magnitude = float((weights[layer - 1].abs().T @ weights[layer - 1].abs()
                       + weights[layer - 2].abs() @ weights[layer - 2].abs().T).max())
    sizes, drifts, floors, smooth, change = [], [], [], [], 0.0
    for n in step_counts:
        h = time / n
        current, kept = weights, True
        for _ in range(n):
            current = _flow_step(current, x, g, h)
            kept = kept and all(torch.equal(p > 0, q) for p, q in zip(forward(current, x)[0][1:-1], pattern))
        end = balance_matrix(current, layer, diagonal)
        sizes.append(h)
        drifts.append(float((end - start).abs().max()))
        floors.append((4 * n * u + gamma(max(m.shape[0] for m in weights) + 1)) * magnitude + increment)
        smooth.append(kept)
        w = current[layer - 1]
        term = torch.diagonal(w.T @ w) if diagonal else w.T @ w
        change = float((term - first_term).abs().max())
    return BalanceDrift(sizes, drifts, floors, smooth, change)
