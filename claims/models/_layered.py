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

from claims.models._networks import RELU, homogeneous_activation

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

    @cached_property
    def successors(self) -> dict[int, tuple[int, ...]]:
        """The layers that layer q feeds (q in pred(p))."""
        return {q: tuple(sorted(p for p, qq in self.connections if qq == q)) for q in range(self.output + 1)}

    def layers(
        self,
        params: Parameters,
        x: torch.Tensor,
        variance: Variance = "detached",
        offsets: Mapping[int, torch.Tensor] | None = None,
    ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """Pre-normalization sums z_l and layer outputs v_l, each (batch, d_l), for the batch
        x = X~ of shape (batch, n); z_0 = v_0 = x. ``offsets[l]`` is added to z_l (zero offsets
        give the backward quantities d f / d z_l by differentiation).

        Leading dimensions evaluate several batches at once: x of shape (..., batch, n), each
        batch normalized by its own statistics, and a matrix of shape (..., d_p, d_q) gives every
        batch its own copy (so one reverse pass returns every batch's gradient)."""
        z, v = [x], [x]
        for p in range(1, self.output + 1):
            total = sum(
                v[q] if (p, q) in self.identity_skips else v[q] @ params[matrix_key(p, q)].mT
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
        """Eq. (5): gamma A (z - b) + beta 1 over the batch (the rows of z, dimension -2)."""
        spread = z.detach() if variance == "detached" else z
        scale = spread.var(dim=-2, unbiased=False, keepdim=True).rsqrt()
        return params[f"gamma{layer}"] * scale * (z - z.mean(dim=-2, keepdim=True)) + params[f"beta{layer}"]

    def forward(self, params: Parameters, x: torch.Tensor, variance: Variance = "detached", offsets=None):
        """f_W(x_j; X~) for every row x_j of the batch x = X~; shape (batch,) (or (..., batch))."""
        return self.layers(params, x, variance, offsets)[1][-1][..., 0]

    __call__ = forward

    def sensitivities(
        self,
        params: Parameters,
        x: torch.Tensor,
        coefficients: torch.Tensor,
        variance: Variance = "detached",
        absolute: bool = False,
    ) -> list[torch.Tensor | None]:
        """Backward quantities of Lemma 2's factorization, written out (not autograd): for every
        layer p >= 1, g_p = d(sum_j beta_j f(x_j; X~)) / d z_p, shape (..., batch, d_p), so that the
        beta-weighted gradient of W^{pq} is g_p^T V_q (V_q the forward outputs of layer q): B outer
        products. ``coefficients`` are the beta_j, shape (..., batch); ``x`` as in ``layers``.

        The recursion runs from g_L = beta through dL/dv_p = sum over the layers p' fed by p of
        g_{p'} W^{p'p} (g_{p'} for an identity skip), the activation's slope where n_p(z_p) < 0
        (autograd's convention: slope 1 at 0) and, for a normalized p, Eq. (5) backwards with the
        forward's statistics: gamma A (dn - mean dn) with A detached, and minus
        gamma A^3 (z - b) mean(dn (z - b)) more with ``variance="ordinary"``.

        With ``absolute`` every quantity is replaced by the magnitude it bounds: the same recursion
        on |beta|, |W|, |slope|, |gamma|, with every difference turned into a sum. Its value bounds
        the terms whose rounding both this recursion and autograd's incur (the scale of
        ``backward_roundings``)."""
        z, v = self.layers(params, x, variance)
        magnitude = torch.abs if absolute else (lambda t: t)
        sign = 1.0 if absolute else -1.0
        g: list[torch.Tensor | None] = [None] * (self.output + 1)
        g[self.output] = magnitude(coefficients)[..., None]
        for p in range(self.output - 1, 0, -1):
            terms = [
                g[s] if (s, p) in self.identity_skips else g[s] @ magnitude(params[matrix_key(s, p)])
                for s in self.successors[p]
            ]
            upstream = sum(terms[1:], terms[0]) if terms else torch.zeros_like(z[p])
            normalized = self.batch_normalization(params, p, z[p], variance) if p in self.normalized else z[p]
            slope = abs(self.slope) if absolute else self.slope
            dn = torch.where(normalized >= 0, upstream, slope * upstream)
            if p not in self.normalized:
                g[p] = dn
                continue
            scale = z[p].var(dim=-2, unbiased=False, keepdim=True).rsqrt()
            product = magnitude(params[f"gamma{p}"] * scale)
            centred = magnitude(z[p] - z[p].mean(dim=-2, keepdim=True))
            dc = dn * product
            gp = dc + sign * dc.mean(dim=-2, keepdim=True)
            if variance == "ordinary":
                gp = gp + sign * centred * (scale * scale) * (dc * centred).mean(dim=-2, keepdim=True)
            g[p] = gp
        return g

    def backward_roundings(
        self, batch: int, variance: Variance = "detached", output: int = 0
    ) -> dict[int, int]:
        """For every layer p >= 1, k_p: the roundings on any chain of ``sensitivities`` (or of
        autograd's reverse pass, whichever order of evaluation is longer) from the output to g_p,
        so that each computes g_p within gamma_{k_p} times the ``absolute`` sensitivities of the
        exact recursion on the same forward values; ``output`` counts the roundings in beta itself.

        Per layer: d_{p'} for the product g_{p'} W^{p'p} (d_{p'} terms), one per further layer fed
        by p, one for a slope other than 0 and 1; for batch normalization (A detached) the product
        with gamma A (1), the batch mean (B - 1 sums, the division, the constant 1/B: B + 1) and
        the difference (1): B + 3; with A differentiated the longer branch through A: the mean of
        the products dn gamma A (z - b) (B + 2), the constant gamma A^3 / B or A^2 formed from the
        forward's gamma A (4), the product with (z - b) (1) and the sum of both branches (1), plus
        the rounding of gamma A itself (1): B + 9."""
        extra = {"detached": batch + 3, "ordinary": batch + 9}[variance]
        k = {self.output: output}
        for p in range(self.output - 1, 0, -1):
            fed = self.successors[p]
            longest = max(
                (k[s] + (0 if (s, p) in self.identity_skips else self.widths[s]) for s in fed), default=0
            )
            k[p] = (
                longest
                + max(len(fed) - 1, 0)
                + (self.slope not in (0.0, 1.0))
                + (extra if p in self.normalized else 0)
            )
        return k


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
    so its gradient in W^{pq} is 2 lambda W^{pq} as in Eqs. (6) and (17).

    With leading dimensions (several batches, each with its own copy of the matrices, as in
    ``LayeredNetwork.layers``) the sum of the batches' risks, so that one reverse pass gives every
    batch's gradient in its own copy."""
    squares = sum((params[matrix_key(p, q)] ** 2).sum() for p, q in network.trainable)
    return loss(network(params, x, variance), y).mean(dim=-1).sum() + weight_decay * squares


def best_low_rank_approximation(matrix: torch.Tensor, rank: int) -> torch.Tensor:
    """Truncated SVD: a rank-``rank`` matrix nearest to ``matrix`` in every unitarily invariant
    norm (Eckart-Young-Mirsky; Frobenius, spectral and nuclear included)."""
    u, s, vh = torch.linalg.svd(matrix, full_matrices=False)
    return (u[:, :rank] * s[:rank]) @ vh[:rank]
