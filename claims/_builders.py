"""Builders for the architectures the papers name, as ``DagNetwork`` graphs.

Fully-connected networks (LJ22 Definition 2) and the residual blocks of LJ22 Definition 5:
ResNetIdentity r = s(U s(Yx) + x), ResNetDiagonal r = s(U s(Yx) + Dx),
ResNetFree r = s(U s(Yx) + Zx). Each weight matrix is recorded by name in ``matrices``.
"""

from __future__ import annotations

from typing import Literal, Sequence

from claims._networks import LINEAR, RELU, DagNetwork

BlockKind = Literal["identity", "diagonal", "free"]


class NetworkBuilder:
    """Adds layers in topological order and dense, diagonal or identity connections."""

    def __init__(self, n_inputs: int):
        self.n_inputs = n_inputs
        self.slopes: list[float] = [LINEAR] * n_inputs
        self.edges: list[tuple[int, int]] = []
        self.learnable: list[bool] = []
        self.constants: dict[int, float] = {}
        self.matrices: dict[str, tuple[tuple[int, ...], ...]] = {}

    @property
    def inputs(self) -> list[int]:
        return list(range(self.n_inputs))

    def layer(self, size: int, slope: float = RELU) -> list[int]:
        start = len(self.slopes)
        self.slopes += [slope] * size
        return list(range(start, start + size))

    def _edge(self, u: int, v: int, learnable: bool = True) -> int:
        self.edges.append((u, v))
        self.learnable.append(learnable)
        return len(self.edges) - 1

    def dense(self, sources: Sequence[int], targets: Sequence[int], name: str) -> None:
        self.matrices[name] = tuple(tuple(self._edge(u, v) for u in sources) for v in targets)

    def diagonal(self, sources: Sequence[int], targets: Sequence[int], name: str) -> None:
        if len(sources) != len(targets):
            raise ValueError("a diagonal connection needs as many sources as targets")
        ids = [self._edge(u, v) for u, v in zip(sources, targets)]
        self.matrices[name] = tuple(
            tuple(ids[i] if i == j else -1 for j in range(len(sources))) for i in range(len(targets))
        )

    def identity(self, sources: Sequence[int], targets: Sequence[int]) -> None:
        """Fixed (non-learnable) edges of weight 1, the skip of ResNetIdentity."""
        if len(sources) != len(targets):
            raise ValueError("an identity skip needs as many sources as targets")
        for u, v in zip(sources, targets):
            self.constants[self._edge(u, v, learnable=False)] = 1.0

    def build(self) -> DagNetwork:
        return DagNetwork(
            self.n_inputs,
            len(self.slopes),
            tuple(self.edges),
            tuple(self.slopes),
            tuple(self.learnable),
            dict(self.matrices),
            dict(self.constants),
        )


def mlp(widths: Sequence[int], slope: float = RELU, output_slope: float = LINEAR) -> DagNetwork:
    """Fully-connected network with layer widths ``widths = [d, n_1, ..., n_L, 1]``.

    Weight matrices are ``W1 .. WL+1``; hidden vertices use ``slope``, the output ``output_slope``.
    """
    if widths[-1] != 1:
        raise ValueError("the networks of LJ22 have a single output vertex")
    builder = NetworkBuilder(widths[0])
    previous = builder.inputs
    for k, width in enumerate(widths[1:], start=1):
        layer = builder.layer(width, output_slope if k == len(widths) - 1 else slope)
        builder.dense(previous, layer, f"W{k}")
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
) -> list[int]:
    """Append one block of LJ22 Definition 5 on vertices ``x``; returns the vertices of r.

    Matrices are named ``{name}Y``, ``{name}U`` and ``{name}D`` or ``{name}Z``. Only
    ResNetFree may change the width (``out``).
    """
    out = len(x) if out is None else out
    if kind != "free" and out != len(x):
        raise ValueError(f"ResNet{kind.capitalize()} keeps the width")
    h = builder.layer(hidden, slope)
    builder.dense(x, h, f"{name}Y")
    r = builder.layer(out, slope)
    builder.dense(h, r, f"{name}U")
    if kind == "identity":
        builder.identity(x, r)
    elif kind == "diagonal":
        builder.diagonal(x, r, f"{name}D")
    else:
        builder.dense(x, r, f"{name}Z")
    return r


def resnet(
    n_inputs: int,
    blocks: Sequence[tuple[BlockKind, int, int]],
    slope: float = RELU,
) -> DagNetwork:
    """Residual blocks ``(kind, hidden, out)`` in sequence, then a linear layer ``Fin`` to 1 output."""
    builder = NetworkBuilder(n_inputs)
    x = builder.inputs
    for i, (kind, hidden, out) in enumerate(blocks, start=1):
        x = resnet_block(builder, x, kind, hidden, out, slope, name=f"B{i}.")
    builder.dense(x, builder.layer(1, LINEAR), "Fin")
    return builder.build()
