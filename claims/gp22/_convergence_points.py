"""Convergence points of mini-batch SGD (GP22 Section 3.1: Eqs. (6)-(9), Propositions 1 and 2).

A *convergence point* of mini-batch SGD on L^lambda_S (batch size B < m) is a W at which every
batch gradient vanishes, Eq. (6) for every batch S~ of size B:

    0 = (1/B) sum_{i in S~} l'(f(x_i), y_i) d f(x_i)/d W^{pq} + 2 lambda W^{pq}   (all trainable pq).

Write g_i = d f(x_i)/d theta (theta: every trainable entry) and G_i = l'_i g_i. Two batches that
differ in one sample (i for j) differ by (1/B)(G_i - G_j); every pair i, j has such batches when
B < m, so every batch gradient vanishes iff G_i = M for every i and M + 2 lambda theta = 0
(Eqs. (8), (9)), i.e. iff the per-sample residual sum_i ||G_i + 2 lambda theta||^2 is zero: the
convergence points for any B < m are those of batch size 1 (the memo's last remark of Sec. 3.1).

This module builds such points where they exist, searches for them where Propositions 1 and 2 say
they do not, and computes the quantities (and their float64 rounding scales) the claim tests judge:

- synthetic inputs: collinear sets x_i = c_i u, non-collinear sets (general position, or in a cone
  around a direction), from a seed;
- ``SampleGradients``: f(x_i), l'_i, the per-sample gradients g_i written out as u_p v_q^T
  (Eq. (13)), G_i + 2 lambda W, every batch gradient by autograd of ``regularized_batch_risk``,
  Eq. (6)'s written-out batch gradient, and the magnitudes bounding their rounding;
- constructions (``ConvergencePoint``): balanced ReLU chains on collinear data with weight decay, a
  fixed first layer of width 1 on non-collinear data, interpolation / dead samples without weight
  decay, a fixed first layer with a skip connection, a loss with a stationary inflection point;
- ``search``: many random starts at once (one tensor program), a batched Levenberg-Marquardt
  minimization (Gauss-Newton converges quadratically to a zero residual, so a convergence point is
  reached to rounding level, where a first-order method or L-BFGS stalls far above it; optionally
  after Adam steps) of a scale-free stationarity residual:
  ``label-free`` (lambda > 0: the sine of the angle between g_i and theta, zero for every i iff
  theta is a convergence point for some labels), ``violation`` (lambda = 0, one sample:
  ||g_i|| ||theta|| / |f_i|, zero iff i can have l'_i != 0 at a convergence point with f(x_i) != 0)
  and ``loss-violation`` (lambda = 0, given loss and labels: ||(l'_i g_i)_i|| ||theta|| /
  ||(l'_i f_i)_i||, zero iff theta is a convergence point where some l'_i f(x_i) != 0).

The ReLU convention is the suite's (``homogeneous_activation``): sigma'(0) = 1. Constructions keep
every pre-activation away from 0.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Callable, Mapping

import torch
from torch.autograd import forward_ad
from torch.nn.functional import softplus

from claims.models._layered import LayeredNetwork, matrix_key, regularized_batch_risk
from claims.models._numerics import EPS, gamma

DTYPE = torch.float64

# ------------------------------------------------------------------------------------------ losses

LOSS_NAMES = ("squared", "logistic", "exponential", "sigmoid", "inflection")


def loss_value(name: str, a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """l(a, y): squared (a - y)^2; logistic log(1 + exp(-y a)); exponential exp(-y a); sigmoid
    1 / (1 + exp(y a)) (non-convex, l' never 0, no minimizer); inflection exp(-(y a - 1)^3)
    (non-convex, no minimizer, l' = 0 at a = 1/y, a stationary inflection point). Labels of the
    last four are +-1; all are nonnegative and differentiable, as the memo's Section 2 asks."""
    if name == "squared":
        return (a - y) ** 2
    if name == "logistic":
        return softplus(-y * a)
    if name == "exponential":
        return torch.exp(-y * a)
    if name == "sigmoid":
        return torch.sigmoid(-y * a)
    if name == "inflection":
        return torch.exp(-((y * a - 1) ** 3))
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")


def loss_function(name: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """``l`` as a function of (prediction, label), for ``regularized_batch_risk``."""
    if name not in LOSS_NAMES:
        raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")
    return lambda a, y: loss_value(name, a, y)


def loss_derivative(name: str, a: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """d l(a, y) / d a, written out."""
    if name == "squared":
        return 2 * (a - y)
    if name == "logistic":
        return -y * torch.sigmoid(-y * a)
    if name == "exponential":
        return -y * torch.exp(-y * a)
    if name == "sigmoid":
        return -y * torch.sigmoid(-y * a) * torch.sigmoid(y * a)
    if name == "inflection":
        t = y * a - 1
        return -3 * y * t * t * torch.exp(-(t**3))
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")


LOSS_DERIVATIVE_ROUNDINGS = 8
"""Roundings in a written-out l'(a, y) (or autograd's): the product y a or the difference a - y, the
exponential (library exp within one ulp, counted as 2), the sum and quotient of the sigmoid, the
cube or square, the factors y, 2 or 3."""


def second_derivative_bound(name: str, a: torch.Tensor, y: torch.Tensor, radius: torch.Tensor) -> torch.Tensor:
    """sup |d^2 l(a', y) / d a'^2| over |a' - a| <= radius, elementwise (labels +-1 where the loss
    takes them): squared 2; logistic sigma(t) sigma(-t) (t = y a', at most 1/4, evaluated at the
    point of the interval nearest t = 0); exponential exp(-y a') (monotone: the larger endpoint
    value); sigmoid |sigma''| <= 1/(6 sqrt 3) < 0.1 (global); inflection y^2 |9 t^4 - 6 t| e^{-t^3}
    with t = y a' - 1, bounded by (9 T^4 + 6 T) e^{T^3}, T = |t| + radius."""
    a, y, radius = torch.as_tensor(a, dtype=DTYPE), torch.as_tensor(y, dtype=DTYPE), torch.as_tensor(radius, dtype=DTYPE)
    if name == "squared":
        return torch.full_like(a, 2.0) + 0 * y
    if name == "logistic":
        t = (y * a).abs()
        nearest = (t - radius).clamp_min(0.0)
        return torch.sigmoid(nearest) * torch.sigmoid(-nearest)
    if name == "exponential":
        return torch.exp(-y * a + radius * y.abs())
    if name == "sigmoid":
        return torch.full_like(a, 0.1) + 0 * y
    if name == "inflection":
        big = (y * a - 1).abs() + radius
        return y * y * (9 * big**4 + 6 * big) * torch.exp(big**3)
    raise ValueError(f"unknown loss {name!r}; one of {LOSS_NAMES}")


# ------------------------------------------------------------------------------------------ inputs


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(seed))


def unit_vector(n: int, seed: int, positive: bool = False, low: float = 0.2) -> torch.Tensor:
    """A unit vector in R^n from a seed; with ``positive`` its entries are in [low, 1] before
    normalizing (so every entry is bounded away from 0)."""
    generator = _generator(seed)
    if positive:
        v = low + (1 - low) * torch.rand(n, generator=generator, dtype=DTYPE)
    else:
        v = torch.randn(n, generator=generator, dtype=DTYPE)
    return v / torch.linalg.vector_norm(v)


def collinear_inputs(
    coefficients: torch.Tensor | list[float], n: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """x_i = c_i u (rows), u a unit vector drawn from ``seed``; returns (x, u). The c_i must be
    nonzero (the memo assumes x_i != 0)."""
    c = torch.as_tensor(coefficients, dtype=DTYPE)
    if (c == 0).any():
        raise ValueError("x_i = 0 is excluded (Section 3.1 assumes x_i != 0)")
    u = unit_vector(n, seed)
    return c[:, None] * u[None, :], u


def general_position_inputs(m: int, n: int, seed: int) -> torch.Tensor:
    """m Gaussian rows in R^n (n >= 2), rescaled to norms in [0.5, 1.5]: in general position with
    probability 1, and certified non-collinear by ``collinearity`` in the tests."""
    if n < 2:
        raise ValueError("non-collinear inputs need n >= 2")
    generator = _generator(seed)
    x = torch.randn(m, n, generator=generator, dtype=DTYPE)
    norms = 0.5 + torch.rand(m, generator=generator, dtype=DTYPE)
    return x * (norms / torch.linalg.vector_norm(x, dim=1))[:, None]


def cone_inputs(
    signs: torch.Tensor | list[float], n: int, seed: int, spread: float = 0.3
) -> tuple[torch.Tensor, torch.Tensor]:
    """x_i = s_i (u + spread z_i) with ||z_i|| <= 1, z_i orthogonal to u and drawn in general
    position: non-collinear for m >= 2 (n >= 2), and u . x_i = s_i exactly in exact arithmetic, so
    a unit whose weights are within ``1 - spread`` of +-u has a fixed sign on every sample. Returns
    (x, u)."""
    s = torch.as_tensor(signs, dtype=DTYPE)
    if n < 2:
        raise ValueError("non-collinear inputs need n >= 2")
    generator = _generator(seed)
    u = unit_vector(n, seed + 7919)
    z = torch.randn(len(s), n, generator=generator, dtype=DTYPE)
    z = z - (z @ u)[:, None] * u[None, :]
    z = z / torch.linalg.vector_norm(z, dim=1, keepdim=True).clamp_min(1.0)
    scale = 0.5 + 0.5 * torch.rand(len(s), generator=generator, dtype=DTYPE)
    return s[:, None] * (u[None, :] + spread * scale[:, None] * z), u


def collinearity(x: torch.Tensor) -> tuple[float, float]:
    """(sigma_2(X), its rounding bound): the rows of X are collinear iff sigma_2 = 0. A computed
    sigma_2 above max(shape) eps sigma_1 (what a backward-stable SVD can add to a singular value,
    plus the rounding of the rows themselves, a few eps ||X||) certifies that they are not; below
    it, they are collinear up to rounding."""
    s = torch.linalg.svdvals(x)
    second = float(s[1]) if len(s) > 1 else 0.0
    bound = (max(x.shape) + 8) * EPS * float(s[0])
    return second, bound


# ------------------------------------------------------------------------------------------ networks


@dataclass(frozen=True)
class Setting:
    """A ``LayeredNetwork`` with some matrices held fixed (not in E_T, like its identity skips):
    the memo's E_T is ``trainable``; ``fixed`` matrices take part in f but get no gradient, no
    update and no weight decay that matters (their lambda ||W||^2 term is a constant)."""

    network: LayeredNetwork
    fixed: frozenset[tuple[int, int]] = frozenset()

    @cached_property
    def trainable(self) -> tuple[tuple[int, int], ...]:
        return tuple(c for c in self.network.trainable if c not in self.fixed)

    @cached_property
    def keys(self) -> tuple[str, ...]:
        return tuple(matrix_key(p, q) for p, q in self.trainable)

    @cached_property
    def shapes(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.network.widths[p], self.network.widths[q]) for p, q in self.trainable)

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(a * b for a, b in self.shapes)

    @property
    def dimension(self) -> int:
        return sum(self.sizes)

    @property
    def first_layer_trainable(self) -> bool:
        """Propositions 1 and 2's hypothesis {(v_p, v_1) in E} subset E_T: every connection out of
        the input is trainable (the memo's v_1 is layer 0 here)."""
        return all((p, q) in self.trainable for p, q in self.network.connections if q == 0)

    def unflatten(self, theta: torch.Tensor) -> dict[str, torch.Tensor]:
        """The trainable matrices from theta (..., D), leading dimensions kept."""
        parts = torch.split(theta, list(self.sizes), dim=-1)
        return {k: t.reshape(*theta.shape[:-1], *s) for k, t, s in zip(self.keys, parts, self.shapes)}

    def flatten(self, params: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return torch.cat([params[k].reshape(-1) for k in self.keys])

    def longest_path(self) -> int:
        """Most matrices (trainable or fixed, identity skips not counted) on an input-output path."""
        net = self.network
        depth = {0: 0}
        for p in range(1, net.output + 1):
            depth[p] = max(depth[q] + ((p, q) not in net.identity_skips) for q in net.pred[p])
        return depth[net.output]

    def forward_roundings(self) -> dict[int, int]:
        """Roundings on the longest chain of the forward pass to each layer: d_q for the product
        W^{pq} v_q (d_q terms), one per further predecessor summed in."""
        net = self.network
        k = {0: 0}
        for p in range(1, net.output + 1):
            k[p] = max(
                k[q] + (0 if (p, q) in net.identity_skips else net.widths[q]) for q in net.pred[p]
            ) + len(net.pred[p]) - 1
        return k

    def gradient_roundings(self) -> int:
        """Roundings of a per-sample gradient entry u_p(x) v_q(x): the backward chain to p
        (``LayeredNetwork.backward_roundings``), the forward chain to q, and the product; the
        largest over the trainable matrices (autograd's reverse pass has the same chains)."""
        backward = self.network.backward_roundings(1)
        forward = self.forward_roundings()
        return max(backward[p] + forward[q] + 1 for p, q in self.trainable)


def chain_network(widths: tuple[int, ...]) -> LayeredNetwork:
    """Fully connected ReLU chain n -> h_1 -> ... -> 1 (connections (p, p-1))."""
    return LayeredNetwork(tuple(widths), tuple((p, p - 1) for p in range(1, len(widths))))


def residual_network(n: int, width: int) -> LayeredNetwork:
    """n -> width -> width -> width -> 1 with a constant identity skip from layer 1 into layer 3:
    v_3 = relu(W^{32} relu(W^{21} v_1) + v_1), a ReLU network with a residual connection (E_T
    holds every matrix but the skip)."""
    return LayeredNetwork(
        (n, width, width, width, 1),
        ((1, 0), (2, 1), (3, 2), (3, 1), (4, 3)),
        identity_skips=frozenset({(3, 1)}),
    )


def skip_network(n: int) -> LayeredNetwork:
    """n -> 1 -> 1 -> 1: layer 1 = relu(W^{10} x), layer 2 = relu(W^{21} v_1), output
    f = W^{32} v_2 + v_1 (a constant identity skip from layer 1 to the output)."""
    return LayeredNetwork((n, 1, 1, 1), ((1, 0), (2, 1), (3, 2), (3, 1)), identity_skips=frozenset({(3, 1)}))


def absolute_forward(network: LayeredNetwork, params: Mapping[str, torch.Tensor], x: torch.Tensor) -> list[torch.Tensor]:
    """Forward pass on |x| with |W| and no activation: for every layer the sum over all paths of
    |terms|, which bounds the rounding of the layer's computed values (ReLU is 1-Lipschitz and
    passes absolute errors on unamplified, whatever the pattern)."""
    v = [x.abs()]
    for p in range(1, network.output + 1):
        v.append(
            sum(
                v[q] if (p, q) in network.identity_skips else v[q] @ params[matrix_key(p, q)].abs().mT
                for q in network.pred[p]
            )
        )
    return v


def per_sample_gradients(
    setting: Setting, params: Mapping[str, torch.Tensor], x: torch.Tensor, absolute: bool = False
) -> torch.Tensor:
    """g_i = d f(x_i)/d theta for every sample, (..., m, D) in ``Setting.keys`` order, written out
    as Eq. (13)'s u_p(x_i) v_q(x_i)^T with u_p from ``LayeredNetwork.sensitivities`` (beta_i = 1:
    each sample's own gradient, no normalization couples them) and v_q the forward outputs. Leading
    dimensions of the matrices (several parameter points at once) are kept; x is (m, n).

    With ``absolute`` the magnitudes that bound its rounding: the absolute sensitivities (|W|, the
    same activation pattern) times the ``absolute_forward`` values."""
    network = setting.network
    lead = torch.broadcast_shapes(*(value.shape[:-2] for value in params.values() if value.ndim >= 2))
    xs = x.expand(*lead, *x.shape)
    ones = torch.ones(xs.shape[:-1], dtype=DTYPE)
    if absolute:
        backward = network.sensitivities(params, xs, ones, absolute=True)
        forward = absolute_forward(network, params, xs)
    else:
        backward = network.sensitivities(params, xs, ones)
        forward = network.layers(params, xs)[1]
    blocks = [
        (backward[p][..., :, None] * forward[q][..., None, :]).reshape(*xs.shape[:-1], -1)
        for p, q in setting.trainable
    ]
    return torch.cat(blocks, dim=-1)


def all_batches(m: int, batch: int) -> torch.Tensor:
    """Every batch of size B of m samples (itertools.combinations order), (C(m, B), B)."""
    if not 1 <= batch < m:
        raise ValueError(f"mini-batches have 1 <= B < m, not B = {batch}, m = {m}")
    return torch.tensor(list(itertools.combinations(range(m), batch)))


# ------------------------------------------------------------------------------------------ per sample


def evaluation_roundings(setting: Setting) -> int:
    """Roundings of one entry of G_i + 2 lambda theta at a given point: the gradient entry, the
    forward pass to f (whose error reaches l' through b_i), l' itself, the product l'_i g_i,
    2 lambda theta (2) and the sum (1)."""
    forward = setting.forward_roundings()[setting.network.output]
    return setting.gradient_roundings() + forward + LOSS_DERIVATIVE_ROUNDINGS + 4


class SampleGradients:
    """Everything Eqs. (6)-(9) speak of at one parameter point, for every sample and batch.

    ``f``, ``dloss`` (l'_i written out), ``g`` (m, D) per-sample gradients of f (Eq. (13) written
    out), ``loss_gradients`` G_i = l'_i g_i, ``residual`` G_i + 2 lambda theta (Eq. (9)); their
    ``scale``: the same expression with every term replaced by a bound of its magnitude,
    (|l'_i| + b_i (|f|_i + |y_i|)) |g|_i + 2 lambda |theta|, where |g|_i, |f|_i are sums of
    |terms| (``per_sample_gradients(absolute=True)``, ``absolute_forward``) and b_i bounds |l''| near
    f(x_i) (``second_derivative_bound``), so that a relative perturbation e of the inputs (weights,
    x, y) or of the evaluation moves each entry by at most O(e) times the scale."""

    def __init__(
        self,
        setting: Setting,
        params: Mapping[str, torch.Tensor],
        x: torch.Tensor,
        y: torch.Tensor,
        loss: str,
        weight_decay: float,
    ):
        self.setting, self.params, self.x, self.y = setting, dict(params), x, y
        self.loss, self.weight_decay = loss, float(weight_decay)
        network = setting.network
        self.f = network(self.params, x)
        self.f_abs = absolute_forward(network, self.params, x)[-1][:, 0]
        self.dloss = loss_derivative(loss, self.f, y)
        self.g = per_sample_gradients(setting, self.params, x)
        self.g_abs = per_sample_gradients(setting, self.params, x, absolute=True)
        self.theta = setting.flatten(self.params)
        radius = 1e-8 * (1 + self.f_abs + y.abs())
        self.curvature = second_derivative_bound(loss, self.f, y, radius)
        self.loss_gradients = self.dloss[:, None] * self.g
        self.residual = self.loss_gradients + 2 * self.weight_decay * self.theta[None, :]
        self.loss_scale = (self.dloss.abs() + self.curvature * (self.f_abs + y.abs()))[:, None] * self.g_abs
        self.scale = self.loss_scale + 2 * self.weight_decay * self.theta.abs()[None, :]

    @property
    def m(self) -> int:
        return self.x.shape[0]

    def evaluation_roundings(self) -> int:
        return evaluation_roundings(self.setting)

    def batch_gradients(self, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Autograd's grad_theta L^lambda_{S~} for every batch S~ of size B (``all_batches``), one
        reverse pass through ``regularized_batch_risk`` with a copy of the trainable matrices per
        batch: (C(m, B), D), and the batches."""
        index = all_batches(self.m, batch)
        count = len(index)
        leaves = {
            key: self.params[key].expand(count, *self.params[key].shape).clone().requires_grad_()
            for key in self.setting.keys
        }
        params = {**self.params, **leaves}
        risk = regularized_batch_risk(
            self.setting.network, params, self.x[index], self.y[index], self.weight_decay, loss_function(self.loss)
        )
        grads = torch.autograd.grad(risk, [leaves[k] for k in self.setting.keys])
        return torch.cat([g.reshape(count, -1) for g in grads], dim=1), index

    def batch_mean(self, values: torch.Tensor, batch: int) -> torch.Tensor:
        """(1/B) sum_{i in S~} values_i for every batch S~ of size B: (C(m, B), ...)."""
        return values[all_batches(self.m, batch)].mean(dim=1)

    def eq6(self, batch: int) -> torch.Tensor:
        """Eq. (6)'s right-hand side written out for every batch: (1/B) sum_{i in S~} l'_i g_i +
        2 lambda theta, (C(m, B), D)."""
        return self.batch_mean(self.loss_gradients, batch) + 2 * self.weight_decay * self.theta[None, :]

    def batch_scale(self, batch: int) -> torch.Tensor:
        """(1/B) sum_{i in S~} scale_i for every batch (2 lambda |theta| once): bounds the terms of
        a batch gradient entry."""
        return self.batch_mean(self.loss_scale, batch) + 2 * self.weight_decay * self.theta.abs()[None, :]

    def blocks(self, values: torch.Tensor) -> dict[str, torch.Tensor]:
        """(..., D) split into the trainable matrices (..., d_p, d_q)."""
        return self.setting.unflatten(values)


# ------------------------------------------------------------------------------------------ constructions


@dataclass
class ConvergencePoint:
    """A constructed parameter point with data and labels at which every batch gradient vanishes
    in exact arithmetic (up to the rounding of the construction itself, ``construction_roundings``
    per input: each weight, input coordinate and label is within gamma(that) of its ideal value).

    ``kind`` names the construction; ``collinear`` whether the inputs are collinear; ``nonzero_at``
    a point z where f(z) != 0 (None when f vanishes identically); ``notes`` describe it."""

    kind: str
    setting: Setting
    params: dict[str, torch.Tensor]
    x: torch.Tensor
    y: torch.Tensor
    loss: str
    weight_decay: float
    collinear: bool
    construction_roundings: int
    nonzero_at: torch.Tensor | None = None
    notes: dict[str, float] = field(default_factory=dict)

    def gradients(self) -> SampleGradients:
        return SampleGradients(self.setting, self.params, self.x, self.y, self.loss, self.weight_decay)

    def tolerance(self) -> float:
        """gamma_K bound, relative to ``SampleGradients.scale``, for every entry of
        G_i + 2 lambda theta (and of any batch mean of them, plus the B - 1 sums and the division):
        K = evaluation roundings + (L + 1) c + 1 for the construction, L the longest path's number of
        matrices, c ``construction_roundings`` (each term of f has L + 1 input factors, of g at most
        L, and l' moves by at most b_i times the change of f and y)."""
        batch_sum = self.x.shape[0]
        construction = (self.setting.longest_path() + 1) * self.construction_roundings + 1
        return gamma(evaluation_roundings(self.setting) + construction + batch_sum)

    def gradient_tolerance(self) -> float:
        """gamma bound, relative to the per-sample gradients' magnitudes |g|_i, of the distance of
        the computed g_i from the ideal construction's: the gradient's own roundings
        (``Setting.gradient_roundings``) and at most L input factors per term, each within
        gamma(c) of its ideal value."""
        return gamma(self.setting.gradient_roundings() + self.setting.longest_path() * self.construction_roundings + 1)

    def output_tolerance(self) -> float:
        """gamma bound, relative to |f|_i (``absolute_forward``), of the distance of the computed
        f(x_i) from the ideal construction's: the forward roundings and L + 1 input factors."""
        forward = self.setting.forward_roundings()[self.setting.network.output]
        return gamma(forward + (self.setting.longest_path() + 1) * self.construction_roundings + 1)

    def f_nonzero_value(self) -> float:
        """|f(z)| at ``nonzero_at`` (0 when there is none)."""
        if self.nonzero_at is None:
            return 0.0
        return float(self.setting.network(self.params, self.nonzero_at[None, :]).abs()[0])


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
    generator = _generator(seed + 3)
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


def collinear_dead_point(coefficients: list[float], n: int, hidden: int, seed: int, label: float = 1.0) -> ConvergencePoint:
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
    generator = _generator(seed + 11)
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


def skip_control_point(m: int, n: int, loss: str, seed: int, inner: float = -0.7, outer: float = 1.3) -> ConvergencePoint:
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
    output weights a = H^+ 1 (pseudo-inverse; ValueError unless H a = 1 to 1e-12), so f(x_i) = 1 up to rounding, l'_i = 0 up to
    O(rounding^2), and every batch gradient vanishes: a convergence point where f(x_i) = 1 != 0."""
    x = general_position_inputs(m, n, seed)
    network = chain_network((n, hidden, 1))
    generator = _generator(seed + 13)
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


def with_labels(point: ConvergencePoint, y: torch.Tensor, kind: str | None = None) -> ConvergencePoint:
    """The same point with other labels (e.g. perturbed: no longer a convergence point)."""
    return ConvergencePoint(
        kind or point.kind, point.setting, point.params, point.x, y, point.loss, point.weight_decay,
        point.collinear, point.construction_roundings, point.nonzero_at, dict(point.notes),
    )


# ------------------------------------------------------------------------------------------ residuals


def _safe_unit(v: torch.Tensor) -> torch.Tensor:
    """v / ||v|| along the last dimension, 0 where v = 0 (with finite derivatives everywhere)."""
    squares = (v * v).sum(-1, keepdim=True)
    positive = squares > 0
    safe = torch.where(positive, squares, torch.ones_like(squares))
    return torch.where(positive, v / safe.sqrt(), torch.zeros_like(v))


def label_free_residual(setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor) -> torch.Tensor:
    """Lambda > 0: (..., m, D), for every sample theta^ - (theta^ . g^_i) g^_i (hats: unit vectors,
    g^_i = 0 when g_i = 0). Its norm is the sine of the angle between g_i and theta (1 when g_i = 0):
    all vanish iff every g_i is parallel to theta, i.e. iff l'_i g_i + 2 lambda theta = 0 for some
    reals l'_i != 0, i.e. iff theta != 0 is a convergence point for some labels (the squared loss
    reaches any l'_i: y_i = f(x_i) - l'_i / 2; any lambda > 0)."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    direction = _safe_unit(theta)[..., None, :]
    unit = _safe_unit(g)
    return direction - (unit * direction).sum(-1, keepdim=True) * unit


def _pick(values: torch.Tensor, sample: int | torch.Tensor, dim: int) -> torch.Tensor:
    """values[..., i, ...] along ``dim`` (counted from the end, -1 or -2) with i = ``sample``: an int,
    or a LongTensor (S,) giving each point of the last leading dimension (of size S) its own."""
    if isinstance(sample, int):
        return values.select(dim, sample)
    shape = list(values.shape)
    shape[dim] = 1
    index = sample.reshape(-1, *([1] * (-dim))).expand(shape)
    return torch.take_along_dim(values, index, dim=dim).squeeze(dim)


def violation_residual(
    setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
    sample: int | torch.Tensor,
) -> torch.Tensor:
    """Lambda = 0, one sample i: g_i ||theta|| / f(x_i), (..., D); its norm eta_i = ||g_i|| ||theta||
    / |f(x_i)| is zero iff g_i = 0 with f(x_i) != 0, i.e. iff some labels make theta a convergence
    point with l'_i != 0 and f(x_i) != 0 (squared loss: y_i != f(x_i), every other sample
    interpolated; at lambda = 0 Eq. (9) reads l'_i g_i = M = 0). Where f(x_i) = 0 the conclusion
    holds and the residual is set to 1e3 per entry (no violation). ``sample`` may give each of S
    points (theta of shape (..., S, D)) its own sample."""
    params = {**fixed, **setting.unflatten(theta)}
    g = _pick(per_sample_gradients(setting, params, x), sample, -2)
    f = _pick(setting.network(params, x), sample, -1)
    norm = torch.linalg.vector_norm(theta, dim=-1)
    nonzero = f != 0
    safe = torch.where(nonzero, f, torch.ones_like(f))
    return torch.where(nonzero[..., None], g * (norm / safe)[..., None], torch.full_like(g, 1e3))


def loss_violation_residual(
    setting: Setting, x: torch.Tensor, y: torch.Tensor, loss: str, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor
) -> torch.Tensor:
    """Lambda = 0, given loss and labels: (l'_i g_i)_i ||theta|| / ||(l'_i f(x_i))_i||, (..., m D);
    its norm is zero iff every l'_i g_i vanishes (theta a convergence point) while some l'_i f(x_i) !=
    0 (a sample with l'_i != 0 and f(x_i) != 0: Proposition 2's conclusion fails). Where every
    l'_i f(x_i) = 0 the conclusion holds: 1e3 per entry."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    f = setting.network(params, x)
    dloss = loss_derivative(loss, f, y)
    violation = torch.linalg.vector_norm(dloss * f, dim=-1)
    norm = torch.linalg.vector_norm(theta, dim=-1)
    nonzero = violation > 0
    safe = torch.where(nonzero, violation, torch.ones_like(violation))
    r = (dloss[..., :, None] * g).flatten(-2) * (norm / safe)[..., None]
    return torch.where(nonzero[..., None], r, torch.full_like(r, 1e3))


# ------------------------------------------------------------------------------------------ search


@dataclass
class SearchResult:
    """Endpoints of a search: ``theta`` (S, D), ``residual`` the judged measure at each endpoint
    (``label-free``: the sine of the sample that exceeds its rounding bound most,
    ``label_free_judgement``; otherwise the residual's norm), ``tolerance`` its rounding bound there
    (``residual_tolerance``), ``outputs`` f on the data (S, m), ``initial`` the largest per-sample
    sine (``label-free``) or the residual's norm at the starts, ``iterations`` (Adam, LM)."""

    kind: str
    theta: torch.Tensor
    residual: torch.Tensor
    tolerance: torch.Tensor
    outputs: torch.Tensor
    initial: torch.Tensor
    iterations: tuple[int, int]
    samples: torch.Tensor
    """The sample each start targets (``violation``: s mod m)."""

    @property
    def starts(self) -> int:
        return self.theta.shape[0]

    def found(self) -> torch.Tensor:
        """Endpoints whose residual is within its rounding bound (convergence points up to rounding)."""
        return self.residual <= self.tolerance


def _residual_function(kind: str, setting: Setting, x, fixed, y=None, loss=None, sample=0):
    if kind == "label-free":
        return lambda theta: label_free_residual(setting, x, fixed, theta).flatten(-2)
    if kind == "violation":
        return lambda theta: violation_residual(setting, x, fixed, theta, sample)
    if kind == "loss-violation":
        return lambda theta: loss_violation_residual(setting, x, y, loss, fixed, theta)
    raise ValueError(f"unknown residual {kind!r}")


def endpoint_measure(kind: str, residual: torch.Tensor, m: int) -> torch.Tensor:
    """The judged quantity from a residual vector (..., R): for ``label-free`` the largest
    per-sample sine, otherwise the norm."""
    if kind == "label-free":
        return torch.linalg.vector_norm(residual.unflatten(-1, (m, -1)), dim=-1).amax(-1)
    return torch.linalg.vector_norm(residual, dim=-1)


def residual_tolerance(
    kind: str, setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
    y: torch.Tensor | None = None, loss: str | None = None, sample: int | torch.Tensor = 0,
) -> torch.Tensor:
    """Rounding bound of the judged quantity at each row of theta (S, D), if it were an exact zero
    (K = ``Setting.gradient_roundings``):

    - ``label-free``: per sample, (S, m): the computed g_i is within gamma_K |g|_i (entrywise) of
      the exact one, which moves g^_i by at most 2 gamma_K |||g|_i|| / ||g_i||, and the sine
      ||theta^ - (theta^ . g^) g^|| by at most twice that; normalizing and projecting add
      4 gamma_{D+3}: tau_i = 4 gamma_K |||g|_i|| / ||g_i|| + 4 gamma_{D+3} (where g_i = 0 the sine
      is 1 exactly and no bound is needed: tau_i = 0). ``label_free_judgement`` combines them;
    - ``violation``: at an exact zero g_i = 0, so the computed g_i is at most gamma_K |g|_i:
      tau = gamma_K |||g|_i|| ||theta|| / |f(x_i)| (1 + gamma_{D+4}) for the norms and the quotient
      (0 where f(x_i) = 0: no violation to bound);
    - ``loss-violation``: likewise |l'_i| gamma_K |g|_i per sample: tau = gamma_K ||(|l'_i| |g|_i)_i||
      ||theta|| / ||(l'_i f(x_i))_i|| (1 + gamma_{mD+4})."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    g_abs = per_sample_gradients(setting, params, x, absolute=True)
    k = gamma(setting.gradient_roundings())
    dimension = setting.dimension
    zero = torch.zeros(theta.shape[:-1], dtype=DTYPE)
    if kind == "label-free":
        norms = torch.linalg.vector_norm(g, dim=-1)
        positive = norms > 0
        ratio = torch.linalg.vector_norm(g_abs, dim=-1) / torch.where(positive, norms, torch.ones_like(norms))
        return torch.where(positive, 4 * k * ratio + 4 * gamma(dimension + 3), torch.zeros_like(norms))
    theta_norm = torch.linalg.vector_norm(theta, dim=-1)
    f = setting.network(params, x)
    if kind == "violation":
        value = _pick(f, sample, -1).abs()
        size = torch.linalg.vector_norm(_pick(g_abs, sample, -2), dim=-1)
        factor = 1 + gamma(dimension + 4)
    else:
        dloss = loss_derivative(loss, f, y)
        value = torch.linalg.vector_norm(dloss * f, dim=-1)
        size = torch.linalg.vector_norm((dloss.abs()[..., None] * g_abs).flatten(-2), dim=-1)
        factor = 1 + gamma(x.shape[0] * dimension + 4)
    positive = value > 0
    bound = k * size * theta_norm / torch.where(positive, value, torch.ones_like(value)) * factor
    return torch.where(positive, bound, zero)


def label_free_judgement(
    setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(sine, bound) at each row of theta (S, D), for the sample i* that maximizes sin_i - tau_i
    (``residual_tolerance``): theta is certainly not a convergence point (for any labels) iff some
    sample's sine exceeds its own rounding bound, i.e. iff sin_{i*} > tau_{i*}. A sample whose
    computed g_i is within rounding of 0 has a huge bound and cannot show it, but never hides
    another sample that does."""
    sines = torch.linalg.vector_norm(label_free_residual(setting, x, fixed, theta), dim=-1)
    bounds = residual_tolerance("label-free", setting, x, fixed, theta)
    worst = (sines - bounds).argmax(-1, keepdim=True)
    return sines.gather(-1, worst)[..., 0], bounds.gather(-1, worst)[..., 0]


def residual_and_jacobian(
    residual: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """r(theta) (S, R) and its Jacobian (S, R, D) for every row of theta (S, D), by forward-mode
    differentiation of one evaluation on D copies of theta, copy k carrying the tangent e_k
    (``torch.autograd.forward_ad``: one tensor program, no per-start loop)."""
    starts, dimension = theta.shape
    primal = theta.expand(dimension, starts, dimension).clone()
    tangent = torch.eye(dimension, dtype=theta.dtype)[:, None, :].expand(dimension, starts, dimension).clone()
    with forward_ad.dual_level():
        out = residual(forward_ad.make_dual(primal, tangent))
        value, derivative = forward_ad.unpack_dual(out)
    return value[0], derivative.permute(1, 2, 0)


def levenberg_marquardt(
    residual: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor, iterations: int
) -> torch.Tensor:
    """Batched Levenberg-Marquardt on r(theta) for every row of theta (S, D) at once: the Jacobians
    by forward mode (``residual_and_jacobian``), the damped normal equations (J^T J + mu (diag J^T J
    + 1e-12 tr/D)) delta = -J^T r solved per start, mu divided by 3 on an accepted step (the cost
    decreased) and multiplied by 4 otherwise."""
    def evaluate(points):
        return residual_and_jacobian(residual, points)

    r, jac = evaluate(theta)
    cost = (r * r).sum(-1)
    mu = torch.full(cost.shape, 1e-3, dtype=DTYPE)
    for _ in range(iterations):
        normal = jac.mT @ jac
        diagonal = torch.diagonal(normal, dim1=-2, dim2=-1)
        floor = 1e-12 * diagonal.sum(-1, keepdim=True) / theta.shape[-1] + 1e-300
        damping = torch.diag_embed(diagonal + floor) * mu[:, None, None]
        step = torch.linalg.solve(normal + damping, -(jac.mT @ r[..., None]))[..., 0]
        candidate = theta + step
        r_new, jac_new = evaluate(candidate)
        cost_new = (r_new * r_new).sum(-1)
        accept = torch.isfinite(cost_new) & (cost_new < cost)
        theta = torch.where(accept[:, None], candidate, theta)
        r = torch.where(accept[:, None], r_new, r)
        jac = torch.where(accept[:, None, None], jac_new, jac)
        cost = torch.where(accept, cost_new, cost)
        mu = torch.where(accept, mu / 3, mu * 4).clamp(1e-15, 1e15)
    return theta


def random_starts(setting: Setting, starts: int, seed: int) -> torch.Tensor:
    """(S, D) starting points: each matrix's entries N(0, 1/d_q) (fan-in scaling)."""
    generator = _generator(seed)
    blocks = [
        torch.randn(starts, rows * cols, generator=generator, dtype=DTYPE) / math.sqrt(cols)
        for rows, cols in setting.shapes
    ]
    return torch.cat(blocks, dim=1)


def search(
    kind: str,
    setting: Setting,
    x: torch.Tensor,
    fixed: Mapping[str, torch.Tensor] | None = None,
    starts: int = 32,
    seed: int = 0,
    y: torch.Tensor | None = None,
    loss: str | None = None,
    adam_steps: int = 0,
    lm_iterations: int = 30,
    learning_rate: float = 0.03,
    radius: float | None = None,
) -> SearchResult:
    """Minimize a stationarity residual (``kind``: ``label-free``, ``violation``, ``loss-violation``)
    over the trainable parameters on the sphere ||theta|| = ``radius`` (default sqrt(sum of the
    trainable matrices' row counts), the typical norm of a fan-in initialization) from ``starts``
    random points at once: optionally Adam on the summed squared residual (``adam_steps``, one
    reverse pass for all starts; off by default: from random starts Levenberg-Marquardt alone reached
    lower residuals in fewer evaluations), then ``levenberg_marquardt``. The sphere is one more residual entry,
    ||theta|| / radius - 1 (zero on it), so the search cannot drift off in scale (a ReLU chain's
    ``label-free`` and ``violation`` residuals are scale-invariant anyway; with skip connections or a
    loss like the logistic one the search covers that scale). For ``violation`` the start s targets
    sample s mod m. ``fixed`` holds the matrices not in E_T."""
    fixed = dict(fixed or {})
    m = x.shape[0]
    if radius is None:
        radius = math.sqrt(sum(rows for rows, _ in setting.shapes))
    theta = random_starts(setting, starts, seed)
    theta = theta * (radius / torch.linalg.vector_norm(theta, dim=1, keepdim=True))

    def on_sphere(fn: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
        def augmented(points: torch.Tensor) -> torch.Tensor:
            norm = torch.linalg.vector_norm(points, dim=-1, keepdim=True)
            return torch.cat([fn(points), norm / radius - 1], dim=-1)

        return augmented

    targets = torch.arange(starts) % m
    batched = on_sphere(_residual_function(kind, setting, x, fixed, y=y, loss=loss, sample=targets))

    def measure(points: torch.Tensor) -> torch.Tensor:
        return endpoint_measure(kind, batched(points)[..., :-1], m)

    with torch.no_grad():
        initial = measure(theta)
    theta = theta.clone().requires_grad_()
    optimizer = torch.optim.Adam([theta], lr=learning_rate)
    for _ in range(adam_steps):
        optimizer.zero_grad()
        r = batched(theta)
        objective = torch.where(torch.isfinite(r), r, torch.zeros_like(r)).pow(2).sum()
        objective.backward()
        optimizer.step()
    theta = levenberg_marquardt(batched, theta.detach(), lm_iterations)
    with torch.no_grad():
        outputs = setting.network({**fixed, **setting.unflatten(theta)}, x)
        if kind == "label-free":
            final, tolerance = label_free_judgement(setting, x, fixed, theta)
        else:
            final = measure(theta)
            tolerance = residual_tolerance(kind, setting, x, fixed, theta, y=y, loss=loss, sample=targets)
    return SearchResult(kind, theta, final, tolerance, outputs, initial, (adam_steps, lm_iterations), targets)


def nonzero_witness(
    setting: Setting, params: Mapping[str, torch.Tensor], x: torch.Tensor, probes: int = 16, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Whether f is not identically zero: max |f(z)| over z in the data, their negatives, +-e_k and
    ``probes`` random unit vectors, and the rounding bound gamma_K |f|(z) of f at that z (K the
    forward roundings, |f| the ``absolute_forward`` value): f != 0 is certain where the first
    exceeds the second. Leading dimensions of the matrices (several points) give (...,)-shaped
    results."""
    n = x.shape[1]
    directions = torch.randn(probes, n, generator=_generator(seed), dtype=DTYPE)
    directions = directions / torch.linalg.vector_norm(directions, dim=1, keepdim=True)
    basis = torch.eye(n, dtype=DTYPE)
    z = torch.cat([x, -x, basis, -basis, directions])
    values = setting.network(dict(params), z).abs()
    bounds = gamma(setting.forward_roundings()[setting.network.output]) * absolute_forward(
        setting.network, params, z
    )[-1][..., 0]
    best = values.argmax(-1, keepdim=True)
    return values.gather(-1, best)[..., 0], bounds.gather(-1, best)[..., 0]


def labels_for(setting: Setting, x: torch.Tensor, fixed: Mapping[str, torch.Tensor], theta: torch.Tensor,
               weight_decay: float) -> torch.Tensor:
    """Squared-loss labels making theta (a zero of the label-free residual) a convergence point:
    l'_i = -2 lambda (g_i . theta) / ||g_i||^2 (the least-squares solution of l'_i g_i = -2 lambda
    theta), y_i = f(x_i) - l'_i / 2."""
    params = {**fixed, **setting.unflatten(theta)}
    g = per_sample_gradients(setting, params, x)
    dloss = -2 * weight_decay * (g @ theta) / (g * g).sum(-1)
    return setting.network(params, x) - dloss / 2
