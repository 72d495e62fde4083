"""DAG-of-layers networks with optional batch normalization (GP22 Section 2, Eqs. (3)-(5)).

Layer 0 is the input x in R^n. A hidden layer i computes v_i = sigma(n_i(z_i)) with
z_i = sum_{q in pred(i)} W^{iq} v_q (Eq. (3)); the output layer L computes the scalar
f = sum_{q in pred(L)} W^{Lq} v_q (Eq. (4)). A connection (p, q), q < p, holds W^{pq} in
R^{d_p x d_q} (rows index layer p, columns layer q, as in the memo): a free trainable matrix, or a
fixed identity (a residual skip, not in E_T). n_i is the identity or the batch normalization of
Eq. (5) over the batch X~ being evaluated: n(z) = gamma A (z - b) + beta 1 with scalars gamma,
beta, b the batch mean and A = diag(Var^{-1/2}), Var the population (1/B) variance over X~. The
memo detaches A (stop-gradient, so autograd returns its pseudo-gradient); ``variance="ordinary"``
differentiates through A as standard batch normalization does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import torch
from torch.nn.functional import softplus

from claims._networks import RELU, homogeneous_activation

Variance = Literal["detached", "ordinary"]
Parameters = Mapping[str, torch.Tensor]


def matrix_key(p: int, q: int) -> str:
    """Parameter name of W^{pq}."""
    return f"W{p},{q}"


@dataclass(frozen=True)
class LayeredNetwork:
    """The graph of layers; parameters are passed to ``forward`` as a dict of tensors:
    ``matrix_key(p, q)`` for every trainable W^{pq}, ``gamma{l}`` and ``beta{l}`` (0-d) for every
    normalized layer l."""

    widths: tuple[int, ...]
    connections: tuple[tuple[int, int], ...]
    normalized: frozenset[int] = frozenset()
    identity_skips: frozenset[tuple[int, int]] = frozenset()
    slope: float = RELU
    """Negative-side slope of the activation: 0 is ReLU (Theorem 1's networks)."""

    def __post_init__(self) -> None:
        if self.widths[-1] != 1:
            raise ValueError("GP22 networks have a scalar output (k = 1)")
        for p, q in self.connections:
            if not 0 <= q < p <= self.output:
                raise ValueError(f"connection {(p, q)} breaks the layer order")
        for p, q in self.identity_skips:
            if (p, q) not in self.connections or self.widths[p] != self.widths[q]:
                raise ValueError(f"identity skip {(p, q)} needs a connection between equal widths")
        if not self.normalized <= set(range(1, self.output)):
            raise ValueError("only hidden layers are normalized (Eq. (4): the output layer is linear)")
        for p in range(1, self.output + 1):
            if not self.pred[p]:
                raise ValueError(f"layer {p} has no predecessor")

    @property
    def output(self) -> int:
        return len(self.widths) - 1

    @cached_property
    def pred(self) -> dict[int, tuple[int, ...]]:
        return {p: tuple(sorted(q for pp, q in self.connections if pp == p)) for p in range(self.output + 1)}

    @cached_property
    def trainable(self) -> tuple[tuple[int, int], ...]:
        """The connections in E_T, in layer order."""
        return tuple(sorted(c for c in self.connections if c not in self.identity_skips))

    def layers(
        self,
        params: Parameters,
        x: torch.Tensor,
        variance: Variance = "detached",
        offsets: Mapping[int, torch.Tensor] | None = None,
    ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """Pre-normalization sums z_l and layer outputs v_l, each (batch, d_l), for the batch
        x = X~ of shape (batch, n); z_0 = v_0 = x. ``offsets[l]`` is added to z_l (zero offsets
        give the backward quantities d f / d z_l by differentiation)."""
        z, v = [x], [x]
        for p in range(1, self.output + 1):
            total = sum(
                v[q] if (p, q) in self.identity_skips else v[q] @ params[matrix_key(p, q)].T
                for q in self.pred[p]
            )
            if offsets is not None and p in offsets:
                total = total + offsets[p]
            z.append(total)
            if p == self.output:
                v.append(total)
            else:
                normalized = (
                    self.batch_normalization(params, p, total, variance) if p in self.normalized else total
                )
                v.append(homogeneous_activation(normalized, self.slope))
        return z, v

    @staticmethod
    def batch_normalization(
        params: Parameters, layer: int, z: torch.Tensor, variance: Variance
    ) -> torch.Tensor:
        """Eq. (5): gamma A (z - b) + beta 1 over the batch (rows of z)."""
        spread = z.detach() if variance == "detached" else z
        scale = spread.var(dim=0, unbiased=False).rsqrt()
        return params[f"gamma{layer}"] * scale * (z - z.mean(dim=0)) + params[f"beta{layer}"]

    def forward(self, params: Parameters, x: torch.Tensor, variance: Variance = "detached", offsets=None):
        """f_W(x_j; X~) for every row x_j of the batch x = X~; shape (batch,)."""
        return self.layers(params, x, variance, offsets)[1][-1][:, 0]

    __call__ = forward


def squared_loss(prediction: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """l(a, y) = (a - y)^2."""
    return (prediction - y) ** 2


def logistic_loss(prediction: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """l(a, y) = log(1 + exp(-y a)), y in {-1, +1}."""
    return softplus(-y * prediction)


Loss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def regularized_batch_risk(
    network: LayeredNetwork,
    params: Parameters,
    x: torch.Tensor,
    y: torch.Tensor,
    weight_decay: float,
    loss: Loss,
    variance: Variance = "detached",
) -> torch.Tensor:
    """L^lambda_{S~}(f~_W) = (1/|S~|) sum_{i in S~} l(f_W(x_i; X~), y_i) + lambda ||W||_2^2 (Eq. (2)
    on the batch S~, X~ its inputs); ||W||_2^2 is the squared l2 norm of all trainable matrix entries,
    so its gradient in W^{pq} is 2 lambda W^{pq} as in Eqs. (6) and (17)."""
    squares = sum((params[matrix_key(p, q)] ** 2).sum() for p, q in network.trainable)
    return loss(network(params, x, variance), y).mean() + weight_decay * squares


def best_low_rank_approximation(matrix: torch.Tensor, rank: int) -> torch.Tensor:
    """Truncated SVD: a rank-``rank`` matrix nearest to ``matrix`` in every unitarily invariant
    norm (Eckart-Young-Mirsky; Frobenius, spectral and nuclear included)."""
    u, s, vh = torch.linalg.svd(matrix, full_matrices=False)
    return (u[:, :rank] * s[:rank]) @ vh[:rank]
