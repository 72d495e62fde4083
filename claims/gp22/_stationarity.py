"""Convergence points of mini-batch SGD (GP22 Section 3.1: Eqs. (6)-(9), with Eq. (13)'s per-sample
gradients): every quantity the equations speak of at one parameter point.

A *convergence point* of mini-batch SGD on L^lambda_S (batch size B < m) is a W at which every
batch gradient vanishes, Eq. (6) for every batch S~ of size B:

    0 = (1/B) sum_{i in S~} l'(f(x_i), y_i) d f(x_i)/d W^{pq} + 2 lambda W^{pq}   (all trainable pq).

Write g_i = d f(x_i)/d theta (theta: every trainable entry) and G_i = l'_i g_i. Two batches that
differ in one sample (i for j) differ by (1/B)(G_i - G_j); every pair i, j has such batches when
B < m, so every batch gradient vanishes iff G_i = M for every i and M + 2 lambda theta = 0
(Eqs. (8), (9)), i.e. iff the per-sample residual sum_i ||G_i + 2 lambda theta||^2 is zero: the
convergence points for any B < m are those of batch size 1 (the memo's last remark of Sec. 3.1).

Here: ``per_sample_gradients`` g_i written out as u_p v_q^T (Eq. (13)) and the magnitudes bounding
their rounding (with ``absolute_forward``); ``SampleGradients``: f(x_i), l'_i, g_i, G_i + 2 lambda W,
every batch gradient by autograd of ``regularized_batch_risk``, Eq. (6)'s written-out batch
gradient, and the magnitudes bounding their rounding; ``ConvergencePoint``: a constructed point
with its data, labels and tolerances (the constructions: ``_weight_decay_points`` and
``_zero_decay_points``; the searches where none exist: ``_residuals`` and ``_search``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Mapping

import torch

from claims.gp22._losses import (
    LOSS_DERIVATIVE_ROUNDINGS, loss_derivative, loss_function, second_derivative_bound,
)
from claims.gp22._settings import Setting
from claims.models._layered import LayeredNetwork, matrix_key, regularized_batch_risk
from claims.models._numerics import gamma

DTYPE = torch.float64


def absolute_forward(
    network: LayeredNetwork, params: Mapping[str, torch.Tensor], x: torch.Tensor
) -> list[torch.Tensor]:
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


def with_labels(point: ConvergencePoint, y: torch.Tensor, kind: str | None = None) -> ConvergencePoint:
    """The same point with other labels (e.g. perturbed: no longer a convergence point)."""
    return ConvergencePoint(
        kind or point.kind, point.setting, point.params, point.x, y, point.loss, point.weight_decay,
        point.collinear, point.construction_roundings, point.nonzero_at, dict(point.notes),
    )
