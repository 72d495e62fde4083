"""The low-rank bounds of BSJ25 at an optimal escape direction: the three ratios of Theorem 3.1 /
Proposition 3.3 per layer (singular-value ratios of W_l and Z^s_l, ||Z^s_l - Z_l||_F^2 / ||Z_l||_F^2),
each with its float64 rounding bound; Theorem 3.1's constant and bound in the main text's and in
Theorem A.7's form, the bound's tolerance from the error of s*, where it is negative, vacuous or
not; and Proposition 3.3 / A.5's bound for near-rank-one inputs with its tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from claims.bsj25._saddle import absolute_forward, forward, rounding_depth
from claims.models._numerics import gamma

frobenius = torch.linalg.matrix_norm


@dataclass(frozen=True)
class LayerRatios:
    """At layer l: sum_{i>=2} s_i^2 / sum_i s_i^2 of W_l and of Z^s_l, and ||Z^s_l - Z_l||_F^2 /
    ||Z_l||_F^2, each with a float64 rounding bound."""

    layer: int
    weight: float
    activation: float
    nonlinearity: float
    weight_tolerance: float
    activation_tolerance: float
    nonlinearity_tolerance: float

    def items(self) -> list[tuple[str, float, float]]:
        return [
            ("W_l", self.weight, self.weight_tolerance),
            ("Z^s_l", self.activation, self.activation_tolerance),
            ("||Z^s_l - Z_l||^2 / ||Z_l||^2", self.nonlinearity, self.nonlinearity_tolerance),
        ]


RATIO_NAMES = ("W_l", "Z^s_l", "||Z^s_l - Z_l||^2 / ||Z_l||^2")


def _ratio(a: torch.Tensor) -> float:
    s = torch.linalg.svdvals(a)
    total = float((s**2).sum())
    return float((s[1:] ** 2).sum()) / total if total > 0 else 0.0


def layer_ratios(weights: Sequence[torch.Tensor], x: torch.Tensor) -> list[LayerRatios]:
    """The three ratios of Theorem 3.1 / Proposition 3.3 at l = 1..L (Z^s_L = relu(Z_L), defined by
    the recursion although the output is Z_L), with rounding bounds:

    - W_l is exact; a backward-stable SVD moves each s_i by <= max(m, n) eps s_1 (the
      ``numerical_rank`` cutoff), so the ratio moves by <= gamma_{8 max(m,n)+8}.
    - Z_l is within gamma_k A_l entrywise (A_l = |W_l|..|W_1||X|, k = the forward depth), relu is
      1-Lipschitz, an entry certainly negative is exactly 0 in both; so ||Delta Z^s_l||_F <= d_l :=
      gamma_k ||A_l masked||_F, and a ratio 1 - ||M||_op^2 / ||M||_F^2 moves by <= 4 d_l / ||M||_F
      (for M = Z^s_l; ``claims.bsj25._saddle``'s P34 derivation), plus the SVD's share.
    - ||Z^-||^2 / ||Z||^2 (Z^- = Z^s - Z = min(Z, 0), 1-Lipschitz) moves by <= 4 ||Delta Z||_F / ||Z||_F.
    A zero matrix has ratio 0 (0 <= 0 in the cross-multiplied form)."""
    pre, post = forward(weights, x)
    scale = absolute_forward(weights, x)
    k = rounding_depth(tuple((int(w.shape[0]), int(w.shape[1])) for w in weights), x.shape[1]) + 8
    out = []
    for layer in range(1, len(weights) + 1):
        w, z, zs = weights[layer - 1], pre[layer], post[layer]
        svd = gamma(8 * max(max(w.shape), max(z.shape)) + 8)
        masked = torch.where(z <= -gamma(k) * scale[layer], 0.0, scale[layer])
        zs_norm, z_norm = float(frobenius(zs)), float(frobenius(z))
        delta_s, delta = gamma(k) * float(frobenius(masked)), gamma(k) * float(frobenius(scale[layer]))
        out.append(LayerRatios(
            layer=layer,
            weight=_ratio(w),
            activation=_ratio(zs),
            nonlinearity=float(frobenius(zs - z)) ** 2 / z_norm**2 if z_norm > 0 else 0.0,
            weight_tolerance=gamma(8 * max(w.shape) + 8),
            activation_tolerance=(4 * delta_s / zs_norm + svd) if zs_norm > 0 else (0.0 if delta_s == 0 else 1.0),
            nonlinearity_tolerance=(4 * delta / z_norm + gamma(k)) if z_norm > 0 else (0.0 if delta == 0 else 1.0),
        ))
    return out


def t31_constant(x: torch.Tensor, g: torch.Tensor, speed: float) -> float:
    """Theorem 3.1's c (main text): (||X||_F ||G||_F / s*) sqrt(2 log(||X||_F ||G||_F / s*))."""
    a = float(frobenius(x)) * float(frobenius(g)) / speed
    return a * math.sqrt(2 * math.log(a))


def t31_bound(constant: float, layer: int) -> float:
    """Theorem 3.1's bound (main text) at layer l: 8 (c / (1 - c l^{-1/2})) l^{-1/2}."""
    root = layer ** -0.5
    return 8 * constant / (1 - constant * root) * root


def t31_constant_appendix(x: torch.Tensor, g: torch.Tensor, speed: float) -> float:
    """Theorem A.7's c: sqrt(2) ||X||_F ||G||_F sqrt(log ||X||_F + log ||G||_F - log s*)."""
    nx, ng = float(frobenius(x)), float(frobenius(g))
    return math.sqrt(2) * nx * ng * math.sqrt(math.log(nx) + math.log(ng) - math.log(speed))


def t31_bound_appendix(constant: float, speed: float, layer: int) -> float:
    """Theorem A.7's bound at layer l: 8 (c / (s* - c l^{-1/2})) l^{-1/2}."""
    root = layer ** -0.5
    return 8 * constant / (speed - constant * root) * root


def t31_bound_tolerance(x: torch.Tensor, g: torch.Tensor, speed: float, speed_error: float, layer: int) -> float:
    """How far float64 moves the main-text bound at layer l: s* is known within ``speed_error``, so
    a = ||X|| ||G|| / s* within a (gamma_8 + speed_error / s*), c within |dc/da| of that
    (dc/da = sqrt(2 log a) + 1 / sqrt(2 log a)), the bound within |dB/dc| = 8 sqrt(l) / (sqrt(l) - c)^2
    times it, plus gamma_16 of the bound for its own arithmetic."""
    a = float(frobenius(x)) * float(frobenius(g)) / speed
    root_log = math.sqrt(2 * math.log(a))
    da = a * (gamma(8) + speed_error / speed)
    dc = (root_log + (1 / root_log if root_log > 0 else math.inf)) * da
    c = a * root_log
    db = 8 * math.sqrt(layer) / (math.sqrt(layer) - c) ** 2 * dc
    return db + gamma(16) * abs(t31_bound(c, layer))


def speed_upper_bound(x: torch.Tensor, g: torch.Tensor) -> float:
    """||G||_F ||X||_op: every speed on ||theta||^2 <= L is at most this, whatever the depth, since
    ||Y||_F <= ||W_L||_op .. ||W_2||_op ||W_1 X||_F <= prod_l ||W_l||_F ||X||_op <= ||X||_op (relu is
    1-Lipschitz with relu(0) = 0; AM-GM on sum_l ||W_l||_F^2 <= L). So a = ||X||_F ||G||_F / s* is at
    least ||X||_F / ||X||_op and Theorem 3.1's c at least ``t31_constant`` there (c grows with a >= 1):
    a bound negative at that c is negative at the optimum, found or not."""
    return float(frobenius(g)) * float(torch.linalg.matrix_norm(x, ord=2))


def bound_ranges(constant: float) -> dict[str, float]:
    """Where Theorem 3.1's main-text bound B(l) = 8 c l^{-1/2} / (1 - c l^{-1/2}) is negative
    (l < c^2), infinite (l = c^2), at least 1 (c^2 < l <= 81 c^2: vacuous, every ratio is <= 1) and
    below 1 (l > 81 c^2: non-vacuous, since B < 1 iff sqrt(l) > 9 c)."""
    return dict(c=constant, negative_below=constant**2, nonvacuous_above=81 * constant**2)


def p33_bound(g: torch.Tensor, eps: float, speed: float) -> float:
    """Proposition 3.3 / A.5's bound: 8 ||G||_F eps / (s* - ||G||_F eps)."""
    ng = float(frobenius(g))
    return 8 * ng * eps / (speed - ng * eps)


def p33_bound_tolerance(g: torch.Tensor, eps: float, speed: float, speed_error: float) -> float:
    """Rounding of ``p33_bound``: d/ds* of it times the error of s*, plus gamma_8 of it."""
    ng = float(frobenius(g))
    denominator = speed - ng * eps
    return 8 * ng * eps / denominator**2 * speed_error + gamma(8) * abs(8 * ng * eps / denominator)


def second_singular_ratio(w: torch.Tensor) -> tuple[float, float]:
    """(s_2 / s_1 of W, its rounding bound): the abstract's 's_1 at least l^{1/4} larger than any other
    singular value' is s_2 / s_1 <= l^{-1/4}. A backward-stable SVD moves each s_i by <= max(m, n) eps s_1
    (``numerical_rank``'s cutoff), so s_2 / s_1 moves by <= gamma_{8 max(m,n)+8}, as in ``layer_ratios``.
    A matrix with one singular value (a row or a column) has s_2 = 0."""
    s = torch.linalg.svdvals(w)
    ratio = float(s[1] / s[0]) if len(s) > 1 and s[0] > 0 else 0.0
    return ratio, gamma(8 * max(w.shape) + 8)
