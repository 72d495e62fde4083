"""Hypothesis strategies for the claims' hypotheses: architectures, weights, inputs, datasets.

Every architecture is acyclic by construction (edges go from lower to higher vertex index),
every vertex lies on an input-to-output path, and sizes shrink toward the smallest graph.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import torch
from hypothesis import assume
from hypothesis import strategies as st

from claims._builders import mlp, resnet
from claims._networks import LINEAR, RELU, DagNetwork
from claims._paths import count_paths

ACTIVATION_SLOPES = st.sampled_from([RELU, LINEAR, 0.25, 0.1])
"""ReLU, linear, and two leaky ReLU slopes (0.25 is dyadic, 0.1 is not)."""


@st.composite
def dag_networks(
    draw,
    max_inputs: int = 3,
    max_hidden: int = 6,
    max_extra_in_edges: int = 2,
    max_paths: int = 256,
    slopes: st.SearchStrategy[float] = ACTIVATION_SLOPES,
    output_slope: float = LINEAR,
) -> DagNetwork:
    """Random DAG architectures with skip connections and at most ``max_paths`` paths."""
    n_inputs = draw(st.integers(1, max_inputs))
    n_hidden = draw(st.integers(0, max_hidden))
    n_vertices = n_inputs + n_hidden + 1
    edges: set[tuple[int, int]] = set()
    for v in range(n_inputs, n_vertices):
        edges.add((draw(st.integers(0, v - 1)), v))
        edges.update((u, v) for u in draw(st.lists(st.integers(0, v - 1), max_size=max_extra_in_edges)))
    for u in range(n_vertices - 2, -1, -1):
        if not any(source == u for source, _ in edges):
            edges.add((u, draw(st.integers(max(u + 1, n_inputs), n_vertices - 1))))
    vertex_slopes = (LINEAR,) * n_inputs + tuple(draw(slopes) for _ in range(n_hidden)) + (output_slope,)
    network = DagNetwork(n_inputs, n_vertices, tuple(sorted(edges, key=lambda e: (e[1], e[0]))), vertex_slopes)
    assume(count_paths(network) <= max_paths)
    return network


@st.composite
def mlp_networks(draw, max_inputs: int = 3, max_depth: int = 3, max_width: int = 4, slope: float | None = None):
    """Fully-connected networks with ``W1 .. WL+1``, hidden activation drawn unless given."""
    widths = [draw(st.integers(1, max_inputs))]
    widths += draw(st.lists(st.integers(1, max_width), min_size=1, max_size=max_depth)) + [1]
    return mlp(widths, draw(ACTIVATION_SLOPES) if slope is None else slope)


@st.composite
def resnet_networks(draw, max_inputs: int = 3, max_blocks: int = 2, max_width: int = 3):
    """Sequences of the residual blocks of LJ22 Definition 5, then a linear layer ``Fin``."""
    n_inputs = width = draw(st.integers(1, max_inputs))
    blocks = []
    for _ in range(draw(st.integers(1, max_blocks))):
        kind = draw(st.sampled_from(["identity", "diagonal", "free"]))
        out = draw(st.integers(1, max_width)) if kind == "free" else width
        blocks.append((kind, draw(st.integers(1, max_width)), out))
        width = out
    return resnet(n_inputs, blocks)


def feedforward_networks(max_paths: int = 256) -> st.SearchStrategy[DagNetwork]:
    """Random DAGs, fully-connected networks and residual networks together."""
    return st.one_of(dag_networks(max_paths=max_paths), mlp_networks(), resnet_networks()).filter(
        lambda network: count_paths(network) <= max_paths
    )


def sign_patterns(network: DagNetwork) -> st.SearchStrategy[tuple[int, ...]]:
    """Sign patterns in {-1, +1}; fixed edges keep the sign of their constant."""
    return st.tuples(
        *(
            st.just(1 if network.constants[e] > 0 else -1) if not free else st.sampled_from([1, -1])
            for e, free in enumerate(network.learnable)
        )
    )


@st.composite
def weight_vectors(
    draw,
    network: DagNetwork,
    signs: Sequence[int] | None = None,
    min_magnitude: float = 0.25,
    max_magnitude: float = 2.0,
    exact: bool = False,
    max_denominator: int = 16,
):
    """Nonzero weights for every edge: float64 tensor, or a list of Fractions if ``exact``.

    ``signs`` fixes the sign pattern (its magnitudes are still drawn); non-learnable edges take
    their constant.
    """
    signs = draw(sign_patterns(network)) if signs is None else signs
    magnitude = (
        st.fractions(Fraction(min_magnitude), Fraction(max_magnitude), max_denominator=max_denominator)
        if exact
        else st.floats(min_magnitude, max_magnitude)
    )
    values = [
        (Fraction(network.constants[e]) if exact else network.constants[e])
        if not free
        else signs[e] * draw(magnitude)
        for e, free in enumerate(network.learnable)
    ]
    return values if exact else torch.tensor(values, dtype=torch.float64)


@st.composite
def input_batches(draw, n_inputs: int, min_size: int = 1, max_size: int = 8, exact: bool = False):
    """Inputs in the unit l1 ball (so ||x||_2 <= 1): a (batch, n_inputs) float64 tensor, or a
    list of Fraction rows if ``exact``."""
    coordinate = st.fractions(-1, 1, max_denominator=16) if exact else st.floats(-1, 1)
    rows = draw(st.lists(st.lists(coordinate, min_size=n_inputs, max_size=n_inputs), min_size=min_size, max_size=max_size))
    rows = [[c / max(1, sum(map(abs, row))) for c in row] for row in rows]
    return rows if exact else torch.tensor(rows, dtype=torch.float64)


@st.composite
def datasets(draw, n_inputs: int, min_size: int = 1, max_size: int = 8):
    """Binary classification data (X, y): ||x_i|| <= 1 and y_i in {-1, +1} (LJ22 Section 2)."""
    x = draw(input_batches(n_inputs, min_size, max_size))
    y = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=x.shape[0], max_size=x.shape[0]))
    return x, torch.tensor(y, dtype=torch.float64)
