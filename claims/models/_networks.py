"""Bias-free feedforward networks on a DAG (LJ22 Section 2, Definitions 1-3).

A network is a computation graph G = (V, E, w): vertices ``0 .. n_inputs-1`` are the inputs,
vertex ``n_vertices-1`` is the single output, and every edge goes from a lower to a higher
index, so the vertex order is a topological order. Every non-input vertex carries a positively
1-homogeneous activation z -> z if z >= 0 else slope * z: ReLU is slope 0, leaky ReLU its
slope, linear slope 1. The derivative at 0 is that of the z >= 0 branch (autodiff's
ReLU'(0) = 1 convention, LJ22 Remark 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Sequence

import torch

RELU = 0.0
LINEAR = 1.0

Scalar = Fraction | int | float


def activation_name(slope: float) -> str:
    if slope == RELU:
        return "relu"
    if slope == LINEAR:
        return "linear"
    return f"leaky_relu({slope:g})"


def homogeneous_activation(z: torch.Tensor, slope: torch.Tensor) -> torch.Tensor:
    """sigma(z) = z for z >= 0, slope * z otherwise (positively 1-homogeneous)."""
    return torch.where(z >= 0, z, slope * z)


@dataclass(frozen=True)
class _Level:
    """One level of ``DagNetwork.levels`` as ``DagNetwork.vertex_values`` computes it."""

    size: int
    edge_ids: torch.Tensor
    sources: torch.Tensor
    targets: torch.Tensor
    slopes: torch.Tensor | None


def _as(slopes: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return slopes if slopes.dtype == x.dtype else slopes.to(x.dtype)


@dataclass(frozen=True)
class DagNetwork:
    """The graph and activations of a network; weights are passed to ``forward``.

    ``edges[e] = (source, target)``. ``learnable[e]`` is False for fixed edges such as the
    identity skip of a ResNetIdentity block. ``matrices`` names groups of edges that form a
    weight matrix (rows = targets, columns = sources; ``-1`` where a matrix has no edge).

    Training moves the free parameters theta, not the edges: ``parameters[e]`` is the index in
    theta of edge e's weight (``-1`` for a fixed edge), so several edges can share one parameter,
    as the neurons of a convolution share its kernel (LJ22 Definitions 11-12, Lemma 9). By
    default every learnable edge is its own parameter, in edge order. ``tensors`` names the
    kernels of weight-shared layers: nested edge ids of shape (a, b, c) = (input kernels, kernel
    size, output kernels), one representative edge per parameter (LJ22 Theorem 1's convention).
    ``bias_vertex`` is the input vertex whose value is the constant 1, when the network has biases
    (edges from it, LJ22's remark after Lemma 3). ``neurons`` names the neuron groups of a layer:
    one tuple of vertices per neuron of a dense layer or block, one per output kernel (all its
    positions) of a convolution (LJ22 Definition 12's organization).
    """

    n_inputs: int
    n_vertices: int
    edges: tuple[tuple[int, int], ...]
    slopes: tuple[float, ...]
    learnable: tuple[bool, ...] = ()
    matrices: dict[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    constants: dict[int, float] = field(default_factory=dict)
    parameters: tuple[int, ...] = ()
    tensors: dict[str, tuple] = field(default_factory=dict)
    bias_vertex: int | None = None
    neurons: dict[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.learnable:
            object.__setattr__(self, "learnable", (True,) * len(self.edges))
        if not self.parameters:
            count = iter(range(len(self.edges)))
            object.__setattr__(self, "parameters", tuple(next(count) if free else -1 for free in self.learnable))
        if len(self.parameters) != len(self.edges):
            raise ValueError("one parameter index per edge")
        if any((p >= 0) != free for p, free in zip(self.parameters, self.learnable)):
            raise ValueError("learnable edges, and only those, have a parameter index (-1 for fixed edges)")
        if sorted({p for p in self.parameters if p >= 0}) != list(range(self.n_parameters)):
            raise ValueError("parameter indices must be 0 .. n_parameters - 1, each used")
        if self.bias_vertex is not None and not 0 <= self.bias_vertex < self.n_inputs:
            raise ValueError("the bias vertex is an input vertex")
        if len(self.slopes) != self.n_vertices:
            raise ValueError("one activation slope per vertex")
        if len(self.learnable) != len(self.edges):
            raise ValueError("one learnable flag per edge")
        if set(self.constants) != {e for e, free in enumerate(self.learnable) if not free}:
            raise ValueError("every non-learnable edge, and only those, needs a constant")
        for u, v in self.edges:
            if not (0 <= u < v < self.n_vertices) or v < self.n_inputs:
                raise ValueError(f"edge {(u, v)} breaks the topological vertex order")
        for v in range(self.n_inputs, self.n_vertices):
            if not self.in_edges[v]:
                raise ValueError(f"vertex {v} has no in-edge")

    @property
    def n_edges(self) -> int:
        return len(self.edges)

    @property
    def output(self) -> int:
        return self.n_vertices - 1

    @property
    def n_parameters(self) -> int:
        return 1 + max(self.parameters, default=-1)

    @cached_property
    def _parameter_index(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        index = torch.tensor(self.parameters, dtype=torch.long)
        fixed = torch.tensor([self.constants.get(e, 0.0) for e in range(self.n_edges)], dtype=torch.float64)
        return index.clamp_min(0), index >= 0, fixed

    def edge_weights(self, theta: torch.Tensor) -> torch.Tensor:
        """The weight of every edge, shape (..., n_edges), from parameters theta of shape
        (..., n_parameters): shared edges take their parameter, fixed edges their constant."""
        index, free, fixed = self._parameter_index
        return torch.where(free, theta[..., index], fixed.to(theta.dtype))

    def magnitude_weights(self, magnitudes: torch.Tensor) -> torch.Tensor:
        """Edge weights from parameter magnitudes (..., n_parameters), fixed edges at their constants'
        magnitudes: the all-nonnegative network whose paths bound the real one's (rounding scales)."""
        index, free, fixed = self._parameter_index
        return torch.where(free, magnitudes[..., index], fixed.abs().to(magnitudes.dtype))

    def parameters_of(self, weights: torch.Tensor) -> torch.Tensor:
        """theta from edge weights (..., n_edges): the weight of each parameter's first edge. The
        edges sharing a parameter must agree (``ValueError`` otherwise)."""
        first = [self.parameters.index(p) for p in range(self.n_parameters)]
        theta = weights[..., first]
        if not torch.equal(self.edge_weights(theta)[..., list(self._learnable_edges)],
                           weights[..., list(self._learnable_edges)]):
            raise ValueError("edges that share a parameter carry different weights")
        return theta

    @cached_property
    def _learnable_edges(self) -> tuple[int, ...]:
        return tuple(e for e, free in enumerate(self.learnable) if free)

    @cached_property
    def multiplicity(self) -> int:
        """The most edges sharing one parameter (1 without weight sharing)."""
        counts: dict[int, int] = {}
        for p in self.parameters:
            if p >= 0:
                counts[p] = counts.get(p, 0) + 1
        return max(counts.values(), default=1)

    @cached_property
    def in_edges(self) -> tuple[tuple[int, ...], ...]:
        incoming: list[list[int]] = [[] for _ in range(self.n_vertices)]
        for e, (_, v) in enumerate(self.edges):
            incoming[v].append(e)
        return tuple(map(tuple, incoming))

    @cached_property
    def out_edges(self) -> tuple[tuple[int, ...], ...]:
        outgoing: list[list[int]] = [[] for _ in range(self.n_vertices)]
        for e, (u, _) in enumerate(self.edges):
            outgoing[u].append(e)
        return tuple(map(tuple, outgoing))

    @cached_property
    def levels(self) -> tuple[tuple[int, ...], ...]:
        """Non-input vertices grouped by longest distance from the inputs."""
        depth = [0] * self.n_vertices
        for v in range(self.n_inputs, self.n_vertices):
            depth[v] = 1 + max(depth[self.edges[e][0]] for e in self.in_edges[v])
        grouped: dict[int, list[int]] = {}
        for v in range(self.n_inputs, self.n_vertices):
            grouped.setdefault(depth[v], []).append(v)
        return tuple(tuple(grouped[d]) for d in sorted(grouped))

    @cached_property
    def _level_plan(self) -> tuple[list[_Level], torch.Tensor | None]:
        """Per level of ``levels``, its in-edges, their sources (positions in the level-ordered layout:
        the inputs, then each level's vertices in turn), their targets (positions in the level) and
        the level's slopes (None when every vertex is linear); and the gather that puts the layout back
        in vertex order (None when it is already)."""
        order = list(range(self.n_inputs)) + [v for level in self.levels for v in level]
        position = {v: i for i, v in enumerate(order)}
        plan = []
        for level in self.levels:
            local = {v: i for i, v in enumerate(level)}
            edge_ids = [e for v in level for e in self.in_edges[v]]
            slopes = [self.slopes[v] for v in level]
            plan.append(_Level(
                len(level),
                torch.tensor(edge_ids),
                torch.tensor([position[self.edges[e][0]] for e in edge_ids]),
                torch.tensor([local[self.edges[e][1]] for e in edge_ids]),
                None if all(slope == LINEAR for slope in slopes) else torch.tensor(slopes, dtype=torch.float64),
            ))
        identity = order == list(range(self.n_vertices))
        return plan, None if identity else torch.tensor([position[v] for v in range(self.n_vertices)])

    def vertex_values(
        self, weights: torch.Tensor, x: torch.Tensor, edge_signals: dict[int, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Pre- and post-activations of every vertex, shape (batch, n_vertices) each.

        Input vertices carry x as both; ``weights`` has shape (n_edges,), ``x`` (batch, n_inputs).
        ``edge_signals[e]`` (shape (batch,)) replaces the source value that edge e carries, an
        intervention used to predict what a perturbed network computes.

        Level by level: each vertex's pre-activation is the sum of its in-edges' weight times source
        value (``index_add`` in edge order), its post-activation the activation of it. The levels' values
        are kept as blocks and concatenated (cheaper, forward and backward, than copying each level into
        a full tensor); a linear level's post-activation is its pre-activation itself (z for z >= 0 and
        1 * z otherwise: the same numbers).
        """
        plan, vertex_order = self._level_plan
        pre_blocks, post_blocks, available = [x], [x], x
        for level in plan:
            signals = available.index_select(1, level.sources)
            for i, e in enumerate(level.edge_ids.tolist() if edge_signals else ()):
                if e in edge_signals:
                    signals = signals.index_copy(1, torch.tensor([i]), edge_signals[e][:, None])
            contributions = signals * weights.index_select(-1, level.edge_ids)
            z = torch.zeros(x.shape[0], level.size, dtype=x.dtype).index_add(1, level.targets, contributions)
            pre_blocks.append(z)
            post_blocks.append(z if level.slopes is None else homogeneous_activation(z, _as(level.slopes, x)))
            available = torch.cat(post_blocks, 1)
        pre = torch.cat(pre_blocks, 1)
        return (pre, available) if vertex_order is None else (pre[:, vertex_order], available[:, vertex_order])

    def batched_vertex_values(self, weights: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``vertex_values`` for several weight vectors at once: ``weights`` (runs, n_edges), ``x`` (batch,
        n_inputs); pre- and post-activations of shape (runs, batch, n_vertices), one tensor program for
        every run (the same operations as ``vertex_values``, run by run)."""
        runs, batch = weights.shape[0], x.shape[0]
        plan, vertex_order = self._level_plan
        inputs = x.expand(runs, batch, self.n_inputs)
        pre_blocks, post_blocks, available = [inputs], [inputs], inputs
        for level in plan:
            contributions = available.index_select(2, level.sources) * weights.index_select(1, level.edge_ids)[:, None]
            z = torch.zeros(runs, batch, level.size, dtype=x.dtype).index_add(2, level.targets, contributions)
            pre_blocks.append(z)
            post_blocks.append(z if level.slopes is None else homogeneous_activation(z, _as(level.slopes, x)))
            available = torch.cat(post_blocks, 2)
        pre = torch.cat(pre_blocks, 2)
        return (pre, available) if vertex_order is None else (pre[:, :, vertex_order], available[:, :, vertex_order])

    def forward(self, weights: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """nu(x; w) for a batch x of shape (batch, n_inputs); returns shape (batch,)."""
        return self.vertex_values(weights, x)[1][:, self.output]

    __call__ = forward

    def forward_exact(self, weights: Sequence[Scalar], x: Sequence[Scalar]) -> Scalar:
        """nu(x; w) for one input in exact arithmetic (Fractions and ints)."""
        post: list[Scalar] = list(x) + [0] * (self.n_vertices - self.n_inputs)
        for v in range(self.n_inputs, self.n_vertices):
            z = sum((weights[e] * post[self.edges[e][0]] for e in self.in_edges[v]), Fraction(0))
            post[v] = z if z >= 0 else Fraction(self.slopes[v]) * z
        return post[self.output]

    def activation_derivatives(self, pre: torch.Tensor) -> torch.Tensor:
        """sigma_v'(pre_v) for every vertex: 1 where pre >= 0 (autodiff's convention at 0), else the slope."""
        slopes = torch.tensor(self.slopes, dtype=pre.dtype)
        return torch.where(pre >= 0, torch.ones_like(pre), slopes)

    def output_sensitivities(self, weights: torch.Tensor, pre: torch.Tensor) -> torch.Tensor:
        """d nu / d pre_v for every vertex, shape (batch, n_vertices), by the backward recursion
        u_v = sigma_v'(pre_v) sum_{(v, b) in E} w_vb u_b from the output (GP22 Eqs. (11)-(12): the
        u of Eq. (13)). Written out, not autograd, so that gradient factorizations can be checked
        against autograd; ``pre`` fixes the activation pattern."""
        d = self.activation_derivatives(pre)
        u = [torch.zeros(pre.shape[0], dtype=pre.dtype)] * self.n_vertices
        u[self.output] = d[:, self.output]
        for v in range(self.output - 1, self.n_inputs - 1, -1):
            u[v] = d[:, v] * sum(weights[e] * u[self.edges[e][1]] for e in self.out_edges[v])
        return torch.stack(u, dim=1)

    def absolute_vertex_values(
        self, weights: torch.Tensor, x: torch.Tensor, pre: torch.Tensor | None = None
    ) -> torch.Tensor:
        """For every vertex, the sum over paths into it of |x_p| prod |w_e| |sigma'| with the activation
        pattern of ``pre`` (every path, sigma' = 1, if None): the scale of its forward rounding error."""
        if pre is None:
            return self.vertex_values(weights.abs(), x.abs())[1]
        d = self.activation_derivatives(pre).abs()
        post = list(x.abs().T) + [None] * (self.n_vertices - self.n_inputs)
        for v in range(self.n_inputs, self.n_vertices):
            post[v] = d[:, v] * sum(weights[e].abs() * post[self.edges[e][0]] for e in self.in_edges[v])
        return torch.stack(post, dim=1)

    def matrix_vertices(self, name: str) -> tuple[list[int], list[int]]:
        """Target vertices (rows) and source vertices (columns) of a named weight matrix."""
        rows = self.matrices[name]
        targets = [next(self.edges[e][1] for e in row if e >= 0) for row in rows]
        sources = [next(self.edges[row[j]][0] for row in rows if row[j] >= 0) for j in range(len(rows[0]))]
        return targets, sources

    def is_leaky(self, vertex: int) -> bool:
        """A slope other than 0 and 1 costs one more rounding (the product slope * z)."""
        return self.slopes[vertex] not in (RELU, LINEAR)

    def weight_matrix(self, name: str, weights: torch.Tensor) -> torch.Tensor:
        """The named weight matrix (rows = targets, columns = sources), zero where no edge;
        ``weights`` of shape (..., n_edges) gives (..., rows, columns)."""
        index = torch.tensor(self.matrices[name])
        padded = torch.cat([weights, weights.new_zeros(weights.shape[:-1] + (1,))], dim=-1)
        return padded[..., index]

    def weight_tensor(self, name: str, weights: torch.Tensor) -> torch.Tensor:
        """The named kernel of a weight-shared layer, shape (..., a, b, c) (``tensors``)."""
        return weights[..., torch.tensor(self.tensors[name])]

    def is_tree(self) -> bool:
        """Definition 3: the underlying undirected graph is a tree."""
        if self.n_edges != self.n_vertices - 1:
            return False
        reached, frontier = {self.output}, [self.output]
        while frontier:
            v = frontier.pop()
            for e in self.in_edges[v] + self.out_edges[v]:
                for w in self.edges[e]:
                    if w not in reached:
                        reached.add(w)
                        frontier.append(w)
        return len(reached) == self.n_vertices
