"""Path tools of LJ22 Section 3 and Appendix B: h, the unrolled tree, pull-back, and mu.

Paths are tuples of edge ids from an input vertex to the output. The tree networks built here
are ordinary ``DagNetwork`` graphs whose input ``i`` is fed the coordinate of path ``i`` of
``path_enumeration(network)``; ``origin[t]`` names the edge of G that tree edge ``t`` unrolls
(``-1`` for the edges Lemma 1 adds when it subdivides input edges).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import prod
from typing import Sequence

import torch

from claims.models._networks import LINEAR, DagNetwork, Scalar


def sign(value: Scalar) -> int:
    return (value > 0) - (value < 0)


def count_paths(network: DagNetwork) -> int:
    """Number of input-to-output paths, by dynamic programming over the topological order."""
    into = [1] * network.n_inputs + [0] * (network.n_vertices - network.n_inputs)
    for v in range(network.n_inputs, network.n_vertices):
        into[v] = sum(into[network.edges[e][0]] for e in network.in_edges[v])
    return into[network.output]


def _paths_to_output(network: DagNetwork, start: int) -> list[tuple[int, ...]]:
    if start == network.output:
        return [()]
    return [
        (e,) + rest
        for e in network.out_edges[start]
        for rest in _paths_to_output(network, network.edges[e][1])
    ]


@dataclass(frozen=True)
class PathEnumeration:
    """The path enumeration function h of LJ22 Definition 4: h(x)_p = x_p prod_{e in p} w_e."""

    network: DagNetwork
    paths: tuple[tuple[int, ...], ...]

    @property
    def sources(self) -> tuple[int, ...]:
        """The input coordinate x_p that each path starts from."""
        return tuple(self.network.edges[p[0]][0] for p in self.paths)

    @cached_property
    def _padded(self) -> torch.Tensor:
        longest = max(map(len, self.paths))
        pad = self.network.n_edges  # index of an appended constant 1
        return torch.tensor([p + (pad,) * (longest - len(p)) for p in self.paths])

    def path_products(self, weights: torch.Tensor) -> torch.Tensor:
        """prod_{e in p} w_e for every path, shape (P,)."""
        return torch.cat([weights, weights.new_ones(1)])[self._padded].prod(dim=1)

    def __call__(self, weights: torch.Tensor, x: torch.Tensor, absolute: bool = False) -> torch.Tensor:
        """h(x), shape (batch, P); ``absolute=True`` gives h' of Lemma 5 (|w_e| in the product)."""
        products = self.path_products(weights.abs() if absolute else weights)
        return x[:, list(self.sources)] * products

    def exact(self, weights: Sequence[Scalar], x: Sequence[Scalar]) -> list[Scalar]:
        """h(x) for one input, in exact arithmetic."""
        return [x[s] * prod((weights[e] for e in p), start=Fraction(1)) for s, p in zip(self.sources, self.paths)]

    def path_derivatives(self, weights: torch.Tensor) -> torch.Tensor:
        """D[p, e] = d(prod_{f in p} w_f)/d w_e = prod_{f in p, f != e} w_f (0 when e not in p).

        Computed from prefix and suffix products, without dividing by w_e, for Eq. (2).
        """
        factors = torch.cat([weights, weights.new_ones(1)])[self._padded]
        ones = factors.new_ones(factors.shape[0], 1)
        prefix = torch.cat([ones, factors.cumprod(dim=1)[:, :-1]], dim=1)
        suffix = torch.cat([factors.flip(1).cumprod(dim=1)[:, :-1].flip(1), ones], dim=1)
        derivatives = weights.new_zeros(len(self.paths), self.network.n_edges + 1)
        derivatives = derivatives.scatter_add(1, self._padded, prefix * suffix)
        return derivatives[:, :-1]


def path_enumeration(network: DagNetwork) -> PathEnumeration:
    """All input-to-output paths of ``network`` in a fixed depth-first order."""
    paths = [p for i in range(network.n_inputs) for p in _paths_to_output(network, i)]
    return PathEnumeration(network, tuple(paths))


@dataclass(frozen=True)
class UnrolledTree:
    """Definition 10: the tree whose vertices are the paths of G ending at the output.

    ``tree`` has one input per input-to-output path (the leaves), then the other paths in order
    of decreasing length, the trivial path at the output last. Tree edge t joins path e.q to
    path q, carries the weight of e (``origin[t] = e``) and the activation of e's target.
    """

    tree: DagNetwork
    origin: tuple[int, ...]

    def weights(self, weights):
        """The tree's weights w_{origin(t)} for weights w of G (Lemma 6): tensor or list."""
        if isinstance(weights, torch.Tensor):
            return weights[list(self.origin)]
        return [weights[e] for e in self.origin]


def unrolled_tree(network: DagNetwork, paths: PathEnumeration | None = None) -> UnrolledTree:
    """Definition 10 / Lemma 6: the unrolled tree of ``network``; it computes nu on x[:, sources]."""
    paths = paths or path_enumeration(network)
    inner = sorted(
        {p[i:] for p in paths.paths for i in range(1, len(p) + 1)}, key=lambda q: (-len(q), q)
    )
    vertices = list(paths.paths) + inner
    index = {q: i for i, q in enumerate(vertices[len(paths.paths):], start=len(paths.paths))}
    edges, origin = [], []
    for i, q in enumerate(vertices):
        if q:
            edges.append((i, index[q[1:]]))
            origin.append(q[0])

    def vertex_slope(q: tuple[int, ...]) -> float:
        return network.slopes[network.edges[q[0]][0]] if q else network.slopes[network.output]

    slopes = [LINEAR] * len(paths.paths) + [vertex_slope(q) for q in inner]
    tree = DagNetwork(len(paths.paths), len(vertices), tuple(edges), tuple(slopes))
    return UnrolledTree(tree, tuple(origin))


def pull_back(
    tree: DagNetwork, weights: Sequence[Scalar], input_scale: Sequence[Scalar], vertex: int
) -> tuple[list[Scalar], list[Scalar]]:
    """Lemma 7: move |w| of ``vertex``'s out-edge into its in-edges, leaving sgn(w) behind.

    For a tree input the magnitude moves into the input itself (``input_scale``), as in the
    extension after Lemma 7. Returns new (weights, input_scale) lists; the function is unchanged.
    Works on any scalars, so it can be checked exactly on Fractions.
    """
    (out_edge,) = tree.out_edges[vertex]
    weights, input_scale = list(weights), list(input_scale)
    magnitude = abs(weights[out_edge])
    weights[out_edge] = sign(weights[out_edge])
    if vertex < tree.n_inputs:
        input_scale[vertex] *= magnitude
    else:
        for e in tree.in_edges[vertex]:
            weights[e] *= magnitude
    return weights, input_scale


def pull_back_order(tree: DagNetwork) -> list[int]:
    """Non-root tree vertices in breadth-first order from the root (proof of Lemma 5)."""
    order, frontier = [], [tree.output]
    while frontier:
        children = [tree.edges[e][0] for v in frontier for e in tree.in_edges[v]]
        order.extend(children)
        frontier = children
    return order


@dataclass(frozen=True)
class TreeNetwork:
    """mu of Lemma 1: a tree network with weights in {-1, +1}, fed h(x)."""

    graph: DagNetwork
    weights: torch.Tensor

    def __call__(self, h: torch.Tensor) -> torch.Tensor:
        return self.graph.forward(self.weights, h)

    def exact(self, h: Sequence[Scalar]) -> Scalar:
        return self.graph.forward_exact([int(w) for w in self.weights.tolist()], h)


def tree_network(network: DagNetwork, signs: Sequence[int]) -> TreeNetwork:
    """Lemma 1: mu built from the sign pattern sgn(w) alone, by unroll-then-pull-back.

    After the pull-back of Lemma 5 every tree edge carries sgn of the edge it unrolls and the
    leaf of path p is fed h'_p = x_p prod |w_e|. Lemma 1 then subdivides each input edge with a
    linear vertex: input -> new vertex with sgn(prod_{e in p} w_e), which turns h_p into h'_p,
    and new vertex -> old target with the input edge's own sign.
    """
    if any(s not in (-1, 1) for s in signs):
        raise ValueError("Lemma 1 needs a sign pattern in {-1, +1} (nonzero weights)")
    paths = path_enumeration(network)
    unrolled = unrolled_tree(network, paths)
    n_paths = len(paths.paths)
    shift = n_paths  # new linear vertices take indices n_paths .. 2 n_paths - 1
    edges, weights = [], []
    for t, (u, v) in enumerate(unrolled.tree.edges):
        tree_sign = signs[unrolled.origin[t]]
        if u < n_paths:
            path_sign = prod(signs[e] for e in paths.paths[u])
            edges += [(u, u + shift), (u + shift, v + shift)]
            weights += [path_sign, tree_sign]
        else:
            edges.append((u + shift, v + shift))
            weights.append(tree_sign)
    slopes = unrolled.tree.slopes[:n_paths] + (LINEAR,) * n_paths + unrolled.tree.slopes[n_paths:]
    graph = DagNetwork(n_paths, unrolled.tree.n_vertices + n_paths, tuple(edges), slopes)
    return TreeNetwork(graph, torch.tensor(weights, dtype=torch.float64))
