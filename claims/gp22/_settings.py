"""The setting of GP22 Section 3.1's statements: a ``LayeredNetwork`` (Section 2's DAG of layers)
with its trainable set E_T (``Setting``: the other matrices held fixed, as Propositions 1 and 2's
hypothesis on the first layer speaks of), the flat parameter vector theta and the rounding depths of
the forward and backward passes; and the networks the claims use: ReLU chains, a residual network,
a constant skip to the output.

The ReLU convention is the suite's (``homogeneous_activation``): sigma'(0) = 1. Constructions keep
every pre-activation away from 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

import torch

from claims.models._layered import LayeredNetwork, matrix_key


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
