"""Layers of a computation graph, LJ22 Definition 7, as printed and as Lemma 3's proof uses them.

Definition 7 (printed): F subset of E is a layer when 1) no path contains two edges of F, and
2) the graph (V, E minus F) is disconnected. Lemma 3's proof double counts the input-to-output
paths through F, which needs every such path to contain exactly one edge of F (a path cut).
"""

from __future__ import annotations

from functools import cached_property

from claims.models._networks import DagNetwork


class DisjointSets:
    """Union-find over vertices 0..n-1 (path halving): ``root`` names a vertex's class, ``merge`` joins
    two classes."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def root(self, v: int) -> int:
        parent = self.parent
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    def merge(self, u: int, v: int) -> None:
        self.parent[self.root(u)] = self.root(v)


class GraphLayers:
    """Definition 7 on one network: enumeration of the printed layers and the path-cut test."""

    def __init__(self, network: DagNetwork):
        self.network = network

    @cached_property
    def reaches(self) -> list[set[int]]:
        """reaches[u]: the vertices a directed path from u reaches (u included)."""
        network = self.network
        reach: list[set[int]] = [set() for _ in range(network.n_vertices)]
        for u in range(network.n_vertices - 1, -1, -1):
            reach[u] = {u}.union(*(reach[network.edges[e][1]] for e in network.out_edges[u]))
        return reach

    def on_one_path(self, e: int, f: int) -> bool:
        """Some directed path contains both edges e and f."""
        (a, b), (c, d) = self.network.edges[e], self.network.edges[f]
        return e == f or c in self.reaches[b] or a in self.reaches[d]

    def disconnects(self, edges: frozenset[int]) -> bool:
        """Condition 2: (V, E minus ``edges``) has more than one connected component (undirected)."""
        network = self.network
        sets = DisjointSets(network.n_vertices)
        for e, (u, v) in enumerate(network.edges):
            if e not in edges:
                sets.merge(u, v)
        return len({sets.root(v) for v in range(network.n_vertices)}) > 1

    def printed_layers(self, learnable_only: bool = True) -> list[frozenset[int]]:
        """Every nonempty F satisfying Definition 7's two printed conditions (only learnable edges when
        ``learnable_only``, as Lemma 3 asks), by extending antichains of edges (condition 1) edge by
        edge and testing condition 2 on each."""
        network = self.network
        candidates = [e for e in range(network.n_edges) if network.learnable[e] or not learnable_only]
        layers: list[frozenset[int]] = []

        def extend(chosen: list[int], start: int) -> None:
            if chosen and self.disconnects(frozenset(chosen)):
                layers.append(frozenset(chosen))
            for i in range(start, len(candidates)):
                e = candidates[i]
                if not any(self.on_one_path(e, f) for f in chosen):
                    extend(chosen + [e], i + 1)

        extend([], 0)
        return layers

    def paths_missing(self, edges: frozenset[int]) -> int:
        """The number of input-to-output paths that contain no edge of ``edges``."""
        network = self.network
        count = [1 if v < network.n_inputs else 0 for v in range(network.n_vertices)]
        for v in range(network.n_inputs, network.n_vertices):
            count[v] = sum(count[network.edges[e][0]] for e in network.in_edges[v] if e not in edges)
        return count[network.output]

    def is_path_cut(self, edges: frozenset[int]) -> bool:
        """Every input-to-output path contains exactly one edge of ``edges`` (no path misses it, and
        no path meets it twice)."""
        pairs = [(e, f) for e in edges for f in edges if e < f]
        return self.paths_missing(edges) == 0 and not any(self.on_one_path(e, f) for e, f in pairs)
