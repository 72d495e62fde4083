"""The matrix views of LJ22 Theorem 1: flattenings of convolutional kernels and rearrangements of
the matrices around a layer of shared neurons, so that Eq. (6) reads
d/dt ([W2^T W2]_active - [W1 W1^T]_active) = 0 with W1 the in-matrix and W2 the out-matrix of
the shared neurons (rows and columns of the Gram matrices indexed by neurons, or by the output
channels of a convolution, Definition 12 and Lemma 9).

Kernels are T in R^{a x b x c} = (input kernels, kernel size, output kernels) (Definition 11,
``DagNetwork.tensors``). Every function accepts leading batch dimensions (...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from claims.models._networks import DagNetwork


def kernel_rows(T: torch.Tensor) -> torch.Tensor:
    """T in R^{a x b x c} -> W1 in R^{c x (a b)}, W1[k, i b + j] = T[i, j, k]: a convolution as
    the in-matrix of its output channels (Theorem 1 cases 2, 5 and 6; Lemma 10's T1)."""
    a, b, c = T.shape[-3:]
    return T.reshape(*T.shape[:-3], a * b, c).transpose(-1, -2)


def kernel_columns(T: torch.Tensor) -> torch.Tensor:
    """T in R^{c x d x e} -> W2 in R^{(d e) x c}, W2[j e + k, i] = T[i, j, k]: a convolution as the
    out-matrix of its input channels (Theorem 1 case 2's W2; Lemma 10's T2 in R^{(b c) x a})."""
    c, d, e = T.shape[-3:]
    return T.reshape(*T.shape[:-3], c, d * e).transpose(-1, -2)


def dense_after_conv(W: torch.Tensor, channels: int) -> torch.Tensor:
    """W in R^{d x (c l)}, whose columns are the neurons of a convolution with c = ``channels``
    output channels in channel-major order (k, position), -> R^{(d l) x c} with rows (o, position):
    [o l + p, k] = W[o, k l + p]. The dense layer after a convolution as the out-matrix of its
    channels (Theorem 1 case 5; case 6 with W = [Y; Z] of a ResNetFree block, ``stack_rows``)."""
    d, cl = W.shape[-2:]
    if cl % channels:
        raise ValueError(f"{cl} columns are not {channels} channels of equal length")
    rearranged = W.reshape(*W.shape[:-2], d, channels, cl // channels).transpose(-1, -2)
    return rearranged.reshape(*W.shape[:-2], cl // channels * d, channels)


def concat_columns(U: torch.Tensor, Z: torch.Tensor) -> torch.Tensor:
    """[U Z]: the in-matrix of a ResNetFree block's output r, columns = hidden then input neurons
    (Theorem 1 cases 4 and 7, W1)."""
    return torch.cat([U, Z], dim=-1)


def stack_rows(Y: torch.Tensor, Z: torch.Tensor) -> torch.Tensor:
    """[Y; Z]: the out-matrix of a ResNetFree block's input x, rows = hidden then output neurons
    (Theorem 1 cases 4, 6 and 7, W2; the paper writes case 6's as a rearrangement of [U Z], but
    the edges out of x are those of Y and Z)."""
    return torch.cat([Y, Z], dim=-2)


@dataclass(frozen=True)
class LayerPair:
    """W1 (in-matrix) and W2 (out-matrix) of the neurons shared by two layers, as functions of the
    edge weights, and those neurons (a tuple of vertices each: a dense neuron, or every position
    of a convolution's output channel)."""

    case: str
    first: Callable[[torch.Tensor], torch.Tensor]
    second: Callable[[torch.Tensor], torch.Tensor]
    neurons: tuple[tuple[int, ...], ...]
    reading: str


def theorem1_pair(network: DagNetwork, case: str, printed: bool = False) -> LayerPair:
    """The matrices of LJ22 Theorem 1 for a ``strategies.sequential_networks`` draw of ``case``
    (layers 1 and 2; the "block" case has the one block B1).

    Case 6 as printed takes W2 as "a rearrangement of [U Z]" of the ResNetFree block after the
    convolution. Only Z of [U Z] has columns on the convolution's neurons (U's columns are the
    block's hidden neurons), so with ``printed`` W2 is Z rearranged (``dense_after_conv``); the
    out-edges of those neurons are Y's and Z's, so the default is [Y; Z] rearranged."""
    matrix = lambda name: lambda w: network.weight_matrix(name, w)  # noqa: E731
    tensor = lambda name: lambda w: network.weight_tensor(name, w)  # noqa: E731
    if case == "dense-dense":
        first, second, shared = matrix("W1"), matrix("W2"), "W1"
    elif case == "block":
        first, second, shared = matrix("B1.Y"), matrix("B1.U"), "B1.Y"
    elif case == "block-block":
        first = lambda w: concat_columns(matrix("B1.U")(w), matrix("B1.Z")(w))  # noqa: E731
        second = lambda w: stack_rows(matrix("B2.Y")(w), matrix("B2.Z")(w))  # noqa: E731
        shared = "B1.U"
    elif case == "block-dense":
        first = lambda w: concat_columns(matrix("B1.U")(w), matrix("B1.Z")(w))  # noqa: E731
        second, shared = matrix("W2"), "B1.U"
    elif case == "dense-block":
        first, shared = matrix("W1"), "W1"
        second = lambda w: stack_rows(matrix("B2.Y")(w), matrix("B2.Z")(w))  # noqa: E731
    elif case.startswith("conv-"):
        kernel = tensor("C1")
        channels = len(network.tensors["C1"][0][0])
        first, shared = (lambda w: kernel_rows(kernel(w))), "C1"
        if case == "conv-conv":
            second = lambda w: kernel_columns(tensor("C2")(w))  # noqa: E731
        elif case == "conv-dense":
            second = lambda w: dense_after_conv(matrix("W2")(w), channels)  # noqa: E731
        elif case == "conv-block" and printed:
            second = lambda w: dense_after_conv(matrix("B2.Z")(w), channels)  # noqa: E731
        elif case == "conv-block":
            second = lambda w: dense_after_conv(stack_rows(matrix("B2.Y")(w), matrix("B2.Z")(w)), channels)  # noqa: E731
        else:
            raise ValueError(f"unknown case {case!r}")
    else:
        raise ValueError(f"unknown case {case!r}")
    reading = "printed" if printed else "corrected" if case == "conv-block" else "as printed"
    return LayerPair(case, first, second, network.neurons[shared], reading)


def active_neurons(network: DagNetwork, neurons: Sequence[Sequence[int]], pre: torch.Tensor) -> list[int]:
    """Definition 6: the indices of the neurons active on every example (every vertex of the
    neuron linear, or with a nonnegative pre-activation on every row of ``pre``)."""
    return [
        i for i, group in enumerate(neurons)
        if all(network.slopes[v] == 1.0 or bool((pre[:, v] >= 0).all()) for v in group)
    ]
