"""The saddle at the origin of BSJ25 (Section 2): bias-free ReLU networks and the localized loss.

Data X in R^{d_in x N} holds one sample per column; the weights are W_1 .. W_L with W_l of shape
n_l x n_{l-1}. Section 2 defines Z^s_0 = X, Z_l = W_l Z^s_{l-1}, Z^s_l = relu(Z_l), and the output
Y_theta = Z_L (the last layer is linear). theta concatenates the W_l row by row, P = sum n_l n_{l-1}.
The localized loss L_0(theta) = Tr[G^T Y_theta] (after Eq. (1)) is positively L-homogeneous.

Rounding bounds follow claims.models._numerics: every entry of every Z_l is a sum over input-to-unit paths
of x prod w, so its float64 error is at most gamma_k times the same sum of |terms|, which the
*absolute network* |W_l| ... |W_1| |X| (no activation) computes (relu is 1-Lipschitz, relu(0) = 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import prod

import torch

Weights = list[torch.Tensor]
Shapes = tuple[tuple[int, int], ...]


def shapes_of(weights: Sequence[torch.Tensor]) -> Shapes:
    return tuple((int(w.shape[0]), int(w.shape[1])) for w in weights)


def flatten(weights: Sequence[torch.Tensor]) -> torch.Tensor:
    """theta: the weight matrices concatenated row by row (Section 2)."""
    return torch.cat([w.reshape(-1) for w in weights])


def unflatten(theta: torch.Tensor, shapes: Shapes) -> Weights:
    sizes = [rows * cols for rows, cols in shapes]
    return [part.reshape(shape) for part, shape in zip(torch.split(theta, sizes), shapes, strict=True)]


def forward(weights: Sequence[torch.Tensor], x: torch.Tensor) -> tuple[Weights, Weights]:
    """(pre, post): pre[l] = Z_l and post[l] = Z^s_l = relu(Z_l) for l = 1 .. L, with
    pre[0] = post[0] = X. post[L] = relu(Y) is defined by the recursion but is not the output."""
    pre, post = [x], [x]
    for w in weights:
        pre.append(w @ post[-1])
        post.append(torch.relu(pre[-1]))
    return pre, post


def output(weights: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Y_theta = Z_L."""
    return forward(weights, x)[0][-1]


def localized_loss(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """L_0(theta) = Tr[G^T Y_theta] (Section 2, after Eq. (1))."""
    return (g * output(weights, x)).sum()


def loss_of_theta(shapes: Shapes, x: torch.Tensor, g: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """theta -> L_0(theta), for torch.func (grad, jvp)."""
    return lambda theta: localized_loss(unflatten(theta, shapes), x, g)


def absolute_forward(weights: Sequence[torch.Tensor], x: torch.Tensor) -> Weights:
    """|W_l| ... |W_1| |X| for l = 0 .. L: the path sums of |terms| that bound the rounding of Z_l."""
    layers = [x.abs()]
    for w in weights:
        layers.append(w.abs() @ layers[-1])
    return layers


def absolute_loss(weights: Sequence[torch.Tensor], x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """Tr[|G|^T |W_L| ... |W_1| |X|]: the sum over all paths of |terms| of L_0, the scale of its
    rounding error (and, by its gradient in |theta|, of the gradient's)."""
    return (g.abs() * absolute_forward(weights, x)[-1]).sum()


def rounding_depth(shapes: Shapes, n_samples: int) -> int:
    """Roundings on any chain of L_0 and its reverse-mode gradient: the forward inner products
    (length n_{l-1}), the trace (N n_L terms), the backward products W_l^T (length n_l) and the
    weight-gradient products (length N)."""
    fan_in = sum(cols for _, cols in shapes)
    fan_out = sum(rows for rows, _ in shapes)
    return fan_in + fan_out + n_samples * (shapes[-1][0] + 1)


def singular_value_ratio(a: torch.Tensor) -> torch.Tensor:
    """sum_{i>=2} s_i^2(A) / sum_i s_i^2(A) (Theorem 3.1, Propositions 3.3, 3.4); NaN for A = 0."""
    s = torch.linalg.svdvals(a)
    return (s[1:] ** 2).sum() / (s**2).sum()


def numerical_rank(a: torch.Tensor) -> int:
    """Rank with torch's default cutoff s_i > max(m, n) eps s_1 (the numpy/Matlab convention):
    singular values below it are indistinguishable from rounding of a matrix of norm s_1."""
    return int(torch.linalg.matrix_rank(a))


def nonnegative_top_singular_pair(
    a: torch.Tensor, top: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Lemma A.6 for a nonnegative A: (s_1, u, v) with u, v >= 0 entrywise, A u = s_1 v, A^T v = s_1 u.

    From a top right singular vector w (``top``; default: torch.linalg.svd's first), u = |w|: since
    |A w| <= A |w| entrywise for A >= 0, |w| still attains ||A x|| = s_1 on the unit sphere, so it is a
    top right singular vector even when s_1 is repeated (the Rayleigh-quotient form of the proof's
    Perron-Frobenius step); then v = A u / ||A u|| as in the proof.
    """
    s = torch.linalg.svdvals(a)
    u = (torch.linalg.svd(a)[2][0] if top is None else top).abs()
    image = a @ u
    return s[0], u, image / torch.linalg.vector_norm(image)


def parameter_count(shapes: Shapes) -> int:
    return sum(prod(shape) for shape in shapes)


# ---------------------------------------------------------------- Proposition 3.4 / A.4

NETWORK_LAYERS = "network layers l = 1..L"
"""Prop. 3.4 / A.4 as printed: 'at least (1-p)L layers' of the depth-L network, whose l-th layer has the
activation Z^s_l and the weight W_l, l = 1..L (Section 2); Z^s_L = relu(Z_L) by the same recursion.
Theorem 3.1's proof applies A.4 this way ('layers 0 < l_0 < .. < l_n <= L', 'of the L total layers')."""

INPUT_AS_LAYER_0 = "X as layer 0: l = 0..L-1"
"""The reading the proof of Prop. A.4 proves: its product prod_{l=0}^{L-1} ||Z^s_l||_F^2 / ||Z^s_l||_op^2
counts Z^s_0 = X and not Z^s_L."""


HIDDEN_LAYERS = "hidden layers l = 1..L-1"
"""The network's hidden activations only (the layers a ReLU acts on in the network's output): L - 1 of
them, so 'at least (1-p)L layers' cannot be met when p < 1/L."""


def p34_layers(depth: int, reading: str) -> range:
    """The layers l whose Z^s_l Prop. 3.4 / A.4 counts, under ``reading``: L of them, or L - 1 hidden."""
    if reading == NETWORK_LAYERS:
        return range(1, depth + 1)
    if reading == HIDDEN_LAYERS:
        return range(1, depth)
    if reading == INPUT_AS_LAYER_0:
        return range(0, depth)
    raise ValueError(f"unknown reading of Prop. 3.4's layers: {reading!r}")


def activation_ratio(z: torch.Tensor) -> float:
    """sum_{i>=2} s_i^2 / sum_i s_i^2 of Z^s_l as a float; 0 for Z^s_l = 0, where the statement's
    cross-multiplied form sum_{i>=2} s_i^2 <= b sum_i s_i^2 holds as 0 <= 0 (with s_0 > 0 only
    Z^s_L = relu(Z_L) can vanish). ``singular_value_ratio`` keeps NaN for 0."""
    if not bool(z.any()):
        return 0.0
    return float(singular_value_ratio(z))


def p34_bound(
    x: torch.Tensor, g: torch.Tensor, s0: float, p: float | Fraction, depth: int, factor: float = 2
) -> float:
    """The right-hand side of Prop. 3.4 / A.4 (Eq. (3)): factor log(||X||_F ||G||_F / s_0) / (p L),
    with the printed factor 2 by default."""
    gain = float(torch.linalg.matrix_norm(x)) * float(torch.linalg.matrix_norm(g)) / s0
    return factor * math.log(gain) / (float(p) * depth)


def p34_required(p: float | Fraction, depth: int) -> int:
    """How many layers 'at least (1-p) L layers' asks for: the least integer >= (1-p) L, computed
    exactly (a float p is taken at its exact binary value)."""
    return math.ceil((1 - Fraction(p)) * depth)


def p34_mth_smallest(ratios: Sequence[float], p: float | Fraction, depth: int) -> float:
    """At least (1-p) L of ``ratios`` are <= b exactly when their ceil((1-p) L)-th smallest is <= b:
    the left-hand side the statement's inequality is checked on."""
    required = p34_required(p, depth)
    if not 1 <= required <= len(ratios):
        raise ValueError(f"{required} layers required of {len(ratios)}")
    return sorted(ratios)[required - 1]
