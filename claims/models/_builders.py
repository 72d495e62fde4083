"""Builders for the architectures the papers name, as ``DagNetwork`` graphs.

Fully-connected networks (LJ22 Definition 2), the residual blocks of LJ22 Definition 5
(ResNetIdentity r = s(U s(Yx) + x), ResNetDiagonal r = s(U s(Yx) + Dx), ResNetFree
r = s(U s(Yx) + Zx)) and weight-shared convolutions (LJ22 Definitions 11-12), in any sequence
(``sequential``, the layer pairs of LJ22 Theorem 1).

Naming: a dense connection ``N`` is the matrix ``matrices[N]`` (rows = targets, columns =
sources) and a convolution ``N`` the kernel ``tensors[N]`` of shape (a, b, c); either records
``neurons[N]``, the neurons it feeds (one singleton per vertex of a dense layer, one tuple of all
positions per output channel of a convolution). The bias of the neurons that ``N`` feeds is the
matrix ``N.b`` (for a residual block's output r, ``N`` is its ``U``). Biases are edges from the
constant-1 input vertex ``bias_vertex`` (LJ22's remark after Lemma 3): feed data through
``with_bias_column``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal, Sequence

import torch

from claims.models._networks import LINEAR, RELU, DagNetwork

BlockKind = Literal["identity", "diagonal", "free"]


class NetworkBuilder:
    """Adds layers in topological order and dense, diagonal, identity, convolutional and bias
    connections. Every new learnable edge gets a fresh parameter (an index into theta) unless it
    shares one; fixed edges get -1. With ``bias`` the network has one more input vertex, the last
    (index ``n_inputs``), whose value is the constant 1."""

    def __init__(self, n_inputs: int, bias: bool = False):
        self.n_inputs = n_inputs + bias
        self.bias_vertex = n_inputs if bias else None
        self.slopes: list[float] = [LINEAR] * self.n_inputs
        self.edges: list[tuple[int, int]] = []
        self.learnable: list[bool] = []
        self.parameters: list[int] = []
        self.n_parameters = 0
        self.constants: dict[int, float] = {}
        self.matrices: dict[str, tuple[tuple[int, ...], ...]] = {}
        self.tensors: dict[str, tuple] = {}
        self.neurons: dict[str, tuple[tuple[int, ...], ...]] = {}

    @property
    def inputs(self) -> list[int]:
        """The data input vertices (without the bias vertex)."""
        return list(range(self.n_inputs - (self.bias_vertex is not None)))

    def layer(self, size: int, slope: float = RELU) -> list[int]:
        start = len(self.slopes)
        self.slopes += [slope] * size
        return list(range(start, start + size))

    def _fresh(self, count: int = 1) -> int:
        """Reserve ``count`` new parameters; returns the first index."""
        self.n_parameters += count
        return self.n_parameters - count

    def _edge(self, u: int, v: int, parameter: int | None = None, constant: float | None = None) -> int:
        """A learnable edge (fresh parameter unless ``parameter`` is given) or, with ``constant``,
        a fixed one."""
        e = len(self.edges)
        self.edges.append((u, v))
        self.learnable.append(constant is None)
        if constant is None:
            self.parameters.append(self._fresh() if parameter is None else parameter)
        else:
            self.parameters.append(-1)
            self.constants[e] = constant
        return e

    def dense(self, sources: Sequence[int], targets: Sequence[int], name: str) -> None:
        self.matrices[name] = tuple(tuple(self._edge(u, v) for u in sources) for v in targets)
        self.neurons[name] = tuple((v,) for v in targets)

    def fixed(
        self, sources: Sequence[int], targets: Sequence[int], values: Sequence[Sequence[float]], name: str
    ) -> None:
        """Fixed (non-learnable) dense edges, ``values[i][j]`` from ``sources[j]`` to ``targets[i]``, recorded as
        the matrix ``name``: a layer that gradient flow does not train (a frozen layer)."""
        if len(values) != len(targets) or any(len(row) != len(sources) for row in values):
            raise ValueError("values are one row per target, one entry per source")
        self.matrices[name] = tuple(
            tuple(self._edge(u, v, constant=float(c)) for u, c in zip(sources, row)) for v, row in zip(targets, values)
        )
        self.neurons[name] = tuple((v,) for v in targets)

    def diagonal(
        self,
        sources: Sequence[int],
        targets: Sequence[int],
        name: str,
        learnable: bool = True,
        values: Sequence[float] | None = None,
    ) -> None:
        """The D of ResNetDiagonal; with ``learnable=False`` its entries are fixed edges of weights
        ``values`` (default all 1), still recorded as the matrix ``name``."""
        if len(sources) != len(targets):
            raise ValueError("a diagonal connection needs as many sources as targets")
        if learnable and values is not None:
            raise ValueError("values fix the entries of a non-learnable diagonal")
        values = [1.0] * len(sources) if values is None else [float(value) for value in values]
        ids = [
            self._edge(u, v, constant=None if learnable else c) for u, v, c in zip(sources, targets, values)
        ]
        self.matrices[name] = tuple(
            tuple(ids[i] if i == j else -1 for j in range(len(sources))) for i in range(len(targets))
        )

    def identity(self, sources: Sequence[int], targets: Sequence[int]) -> None:
        """Fixed (non-learnable) edges of weight 1, the skip of ResNetIdentity."""
        if len(sources) != len(targets):
            raise ValueError("an identity skip needs as many sources as targets")
        for u, v in zip(sources, targets):
            self._edge(u, v, constant=1.0)

    def bias(self, targets: Sequence[int], name: str, parameters: Sequence[int] | None = None) -> None:
        """A learnable edge from the bias vertex to every target, the matrix ``name`` of shape
        (len(targets), 1); ``parameters`` (one per target, indices already reserved, as ``conv``
        does) makes targets share bias parameters."""
        if self.bias_vertex is None:
            raise ValueError("the builder has no bias vertex (NetworkBuilder(..., bias=True))")
        parameters = [None] * len(targets) if parameters is None else parameters
        self.matrices[name] = tuple(
            (self._edge(self.bias_vertex, v, p),) for v, p in zip(targets, parameters)
        )

    def conv(
        self,
        grid: torch.Tensor | Sequence,
        out_channels: int,
        kernel_size: int | Sequence[int],
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        slope: float = LINEAR,
        name: str = "C",
        bias: bool = False,
    ) -> torch.Tensor:
        """A 1-D or 2-D convolution (cross-correlation, as torch's conv1d/conv2d) of the vertex grid
        ``grid`` of shape (in_channels, L) or (in_channels, H, W); returns the grid of new vertices,
        shape (out_channels, *out_spatial), a long tensor.

        Zero padding adds no edge (a zero input contributes nothing). Every edge of kernel entry
        (input channel i, offset j flattened row-major, output channel k) has the one parameter
        ``first + (i * b + j) * c + k``, so theta's slice of the layer reshapes to the kernel
        T in R^{a x b x c} (LJ22 Definition 11); ``tensors[name]`` holds one representative edge
        per entry and ``neurons[name]`` the output channels, all positions each (Definition 12).
        With ``bias`` the channel's neurons share one bias parameter (the matrix ``name.b``).
        Raises ``ValueError`` if some kernel entry would touch no edge, or some output neuron have no
        in-edge (padding >= kernel size).
        """
        grid = torch.as_tensor(grid, dtype=torch.long)
        spatial = tuple(grid.shape[1:])
        if len(spatial) not in (1, 2):
            raise ValueError("a convolution's grid has shape (channels, L) or (channels, H, W)")
        kernel, stride, padding = (
            (value,) * len(spatial) if isinstance(value, int) else tuple(value)
            for value in (kernel_size, stride, padding)
        )
        if not len(kernel) == len(stride) == len(padding) == len(spatial):
            raise ValueError(f"kernel size, stride and padding need {len(spatial)} entries each")
        out_spatial = tuple((s + 2 * p - k) // t + 1 for s, k, t, p in zip(spatial, kernel, stride, padding))
        if min(out_spatial) < 1:
            raise ValueError(f"kernel {kernel} does not fit the padded input {spatial}")
        for s, k, t, p, n in zip(spatial, kernel, stride, padding, out_spatial):
            touches = [[0 <= q * t + o - p < s for q in range(n)] for o in range(k)]
            if not all(map(any, touches)):
                raise ValueError(f"some kernel offsets of {name} touch no edge (they see only padding)")
            if not all(map(any, zip(*touches))):
                raise ValueError(f"some output positions of {name} have no in-edge (they see only padding)")
        a, b, c = grid.shape[0], math.prod(kernel), out_channels
        first = self._fresh(a * b * c)
        out = torch.tensor(self.layer(c * math.prod(out_spatial), slope)).reshape(c, *out_spatial)
        offsets = list(itertools.product(*map(range, kernel)))
        representative: dict[tuple[int, int, int], int] = {}
        for k in range(c):
            for q in itertools.product(*map(range, out_spatial)):
                for i in range(a):
                    for j, offset in enumerate(offsets):
                        at = [qd * t + o - p for qd, t, o, p in zip(q, stride, offset, padding)]
                        if all(0 <= x < s for x, s in zip(at, spatial)):
                            e = self._edge(
                                int(grid[(i, *at)]), int(out[(k, *q)]), first + (i * b + j) * c + k
                            )
                            representative.setdefault((i, j, k), e)
        self.tensors[name] = tuple(
            tuple(tuple(representative[i, j, k] for k in range(c)) for j in range(b)) for i in range(a)
        )
        self.neurons[name] = tuple(tuple(out[k].flatten().tolist()) for k in range(c))
        if bias:
            shared = self._fresh(c)
            positions = math.prod(out_spatial)
            self.bias(
                out.flatten().tolist(), f"{name}.b", [shared + k for k in range(c) for _ in range(positions)]
            )
        return out

    def build(self) -> DagNetwork:
        return DagNetwork(
            self.n_inputs,
            len(self.slopes),
            tuple(self.edges),
            tuple(self.slopes),
            tuple(self.learnable),
            dict(self.matrices),
            dict(self.constants),
            tuple(self.parameters),
            dict(self.tensors),
            self.bias_vertex,
            dict(self.neurons),
        )


def with_bias_column(x: torch.Tensor) -> torch.Tensor:
    """(batch, d) data -> (batch, d + 1) with the constant 1 of the bias vertex appended."""
    return torch.cat([x, x.new_ones(x.shape[0], 1)], dim=1)


def mlp(
    widths: Sequence[int], slope: float = RELU, output_slope: float = LINEAR, bias: bool = False
) -> DagNetwork:
    """Fully-connected network with layer widths ``widths = [d, n_1, ..., n_L, 1]``.

    Weight matrices are ``W1 .. WL+1``; hidden vertices use ``slope``, the output ``output_slope``.
    With ``bias`` every non-input vertex has a bias, ``Wk.b`` for the neurons of ``Wk``.
    """
    if widths[-1] != 1:
        raise ValueError("the networks of LJ22 have a single output vertex")
    builder = NetworkBuilder(widths[0], bias)
    previous = builder.inputs
    for k, width in enumerate(widths[1:], start=1):
        layer = builder.layer(width, output_slope if k == len(widths) - 1 else slope)
        builder.dense(previous, layer, f"W{k}")
        if bias:
            builder.bias(layer, f"W{k}.b")
        previous = layer
    return builder.build()


def resnet_block(
    builder: NetworkBuilder,
    x: Sequence[int],
    kind: BlockKind,
    hidden: int,
    out: int | None = None,
    slope: float = RELU,
    name: str = "",
    learnable_diagonal: bool = True,
    diagonal: Sequence[float] | None = None,
    bias: bool = False,
) -> list[int]:
    """Append one block of LJ22 Definition 5 on vertices ``x``; returns the vertices of r.

    Matrices are named ``{name}Y``, ``{name}U`` and ``{name}D`` or ``{name}Z``. Only
    ResNetFree may change the width (``out``). A ResNetDiagonal's D is learnable unless
    ``learnable_diagonal=False``: then it is fixed at ``diagonal`` (default all 1). With ``bias``
    the hidden neurons get the bias ``{name}Y.b`` and r the bias ``{name}U.b``.
    """
    out = len(x) if out is None else out
    if kind != "free" and out != len(x):
        raise ValueError(f"ResNet{kind.capitalize()} keeps the width")
    h = builder.layer(hidden, slope)
    builder.dense(x, h, f"{name}Y")
    if bias:
        builder.bias(h, f"{name}Y.b")
    r = builder.layer(out, slope)
    builder.dense(h, r, f"{name}U")
    if kind == "identity":
        builder.identity(x, r)
    elif kind == "diagonal":
        builder.diagonal(x, r, f"{name}D", learnable_diagonal, None if learnable_diagonal else diagonal)
    else:
        builder.dense(x, r, f"{name}Z")
    if bias:
        builder.bias(r, f"{name}U.b")
    return r


def resnet(
    n_inputs: int,
    blocks: Sequence[tuple[BlockKind, int, int]],
    slope: float = RELU,
    bias: bool = False,
) -> DagNetwork:
    """Residual blocks ``(kind, hidden, out)`` in sequence, then a linear layer ``Fin`` to 1 output
    (biases ``B{i}.Y.b``, ``B{i}.U.b``, ``Fin.b`` with ``bias``)."""
    return sequential((n_inputs,), [Block(kind, hidden, out, slope) for kind, hidden, out in blocks], bias)


@dataclass(frozen=True)
class Conv:
    """A convolution layer of ``sequential`` (``NetworkBuilder.conv``); linear by default, as
    LJ22's convolutional layers."""

    out_channels: int
    kernel_size: int | tuple[int, ...]
    stride: int | tuple[int, ...] = 1
    padding: int | tuple[int, ...] = 0
    slope: float = LINEAR


@dataclass(frozen=True)
class Dense:
    """A fully-connected layer of ``sequential``."""

    width: int
    slope: float = RELU


@dataclass(frozen=True)
class Block:
    """A residual block of ``sequential`` (``resnet_block``)."""

    kind: BlockKind
    hidden: int
    out: int | None = None
    slope: float = RELU
    learnable_diagonal: bool = True
    diagonal: tuple[float, ...] | None = None


def sequential(
    input_shape: Sequence[int], layers: Sequence[Conv | Dense | Block], bias: bool = False
) -> DagNetwork:
    """The layers in sequence, then a linear dense layer ``Fin`` to the single output.

    ``input_shape`` is (d,) for flat inputs or (channels, L) / (channels, H, W) for grids, whose
    input vertices are channel-major (vertex c*L + pos, 2-D c*H*W + h*W + w: data of shape
    (batch, *input_shape) enters as ``x.reshape(batch, -1)``). Layer i (1-based) is named ``C{i}``
    (convolution, a tensor), ``W{i}`` (dense, a matrix) or ``B{i}.Y``, ``B{i}.U``,
    ``B{i}.Z``/``B{i}.D`` (block). A dense layer or block after a convolution takes all its
    neurons flattened channel-major, (k, position). With ``bias`` every non-input vertex has a
    bias: ``C{i}.b`` (one parameter per output channel, as torch), ``W{i}.b``, ``B{i}.Y.b``,
    ``B{i}.U.b`` and ``Fin.b``.
    """
    builder = NetworkBuilder(math.prod(input_shape), bias)
    x = torch.tensor(builder.inputs).reshape(*input_shape)
    for i, spec in enumerate(layers, start=1):
        if isinstance(spec, Conv):
            if x.dim() == 1:
                raise ValueError(f"layer {i}: a convolution needs a grid, not a flat layer")
            x = builder.conv(
                x, spec.out_channels, spec.kernel_size, spec.stride, spec.padding, spec.slope, f"C{i}", bias
            )
        elif isinstance(spec, Dense):
            layer = builder.layer(spec.width, spec.slope)
            builder.dense(x.flatten().tolist(), layer, f"W{i}")
            if bias:
                builder.bias(layer, f"W{i}.b")
            x = torch.tensor(layer)
        else:
            x = torch.tensor(
                resnet_block(
                    builder,
                    x.flatten().tolist(),
                    spec.kind,
                    spec.hidden,
                    spec.out,
                    spec.slope,
                    f"B{i}.",
                    spec.learnable_diagonal,
                    spec.diagonal,
                    bias,
                )
            )
    output = builder.layer(1, LINEAR)
    builder.dense(x.flatten().tolist(), output, "Fin")
    if bias:
        builder.bias(output, "Fin.b")
    return builder.build()
