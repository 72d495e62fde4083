"""Hypothesis strategies for the claims' hypotheses: architectures, weights, inputs, datasets.

Every architecture is acyclic by construction (edges go from lower to higher vertex index),
every vertex lies on an input-to-output path, and sizes shrink toward the smallest graph.

Sections: DAG, fully-connected and residual networks with weights, inputs and datasets (LJ22);
BSJ25 networks as lists of weight matrices; LJ22 Theorem 1's layer pairs; LJ22 gradient-flow
instances; GP22 DAGs of layers and layered networks (batch normalization) with their parameters
and inputs.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import torch
from hypothesis import assume
from hypothesis import strategies as st

from claims.lj22 import random_parameters
from claims.models import (
    LINEAR, LOSSES, RELU, Block, Conv, Dense, DagNetwork, LayeredNetwork, NetworkBuilder, Risk, count_paths, matrix_key,
    mlp, resnet, sequential, with_bias_column,
)

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
def mlp_networks(
    draw,
    max_inputs: int = 3,
    max_depth: int = 3,
    max_width: int = 4,
    slope: float | None = None,
    min_width: int = 1,
):
    """Fully-connected networks with ``W1 .. WL+1``, hidden activation drawn unless given; input and
    hidden widths at least ``min_width``."""
    widths = [draw(st.integers(min_width, max(min_width, max_inputs)))]
    widths += draw(st.lists(st.integers(min_width, max_width), min_size=1, max_size=max_depth)) + [1]
    return mlp(widths, draw(ACTIVATION_SLOPES) if slope is None else slope)


@st.composite
def resnet_networks(draw, max_inputs: int = 3, max_blocks: int = 2, max_width: int = 3, min_width: int = 1):
    """Sequences of the residual blocks of LJ22 Definition 5, then a linear layer ``Fin``; every
    width (the input's included) at least ``min_width``."""
    n_inputs = width = draw(st.integers(min_width, max(min_width, max_inputs)))
    blocks = []
    for _ in range(draw(st.integers(1, max_blocks))):
        kind = draw(st.sampled_from(["identity", "diagonal", "free"]))
        out = draw(st.integers(min_width, max_width)) if kind == "free" else width
        blocks.append((kind, draw(st.integers(min_width, max_width)), out))
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


MIN_MAGNITUDE = 1e-3
"""Smallest nonzero magnitude that ``signed_floats`` draws: products of a few dozen such factors stay
far above the float64 underflow threshold (1e-308), so the gamma_k rounding model behind the
tolerances (no product underflows) holds, and a nonzero gradient is not lost in subnormals."""


@st.composite
def signed_floats(draw, bound: float, min_magnitude: float = MIN_MAGNITUDE, zeros: bool = True) -> float:
    """Exactly 0 (one draw in eight, when ``zeros``; shrinks there) or a sign times a magnitude in
    [min_magnitude, bound]: values of either sign and exact zeros (sign patterns with zeros,
    dead units) without magnitudes so small that products over paths underflow."""
    if not 0 < min_magnitude <= bound:
        raise ValueError(f"signed_floats needs 0 < min_magnitude <= bound, not {min_magnitude}, {bound}")
    if zeros and draw(st.integers(0, 7)) == 0:
        return 0.0
    magnitude = draw(st.floats(min_magnitude, bound))
    return -magnitude if draw(st.booleans()) else magnitude


@st.composite
def input_batches(
    draw, n_inputs: int, min_size: int = 1, max_size: int = 8, exact: bool = False, nonzero_rows: bool = False
):
    """Inputs in the unit l1 ball (so ||x||_2 <= 1): a (batch, n_inputs) float64 tensor, or a
    list of Fraction rows if ``exact``. Coordinates are 0 or +-[1e-3, 1] (``signed_floats``) before the
    rows are scaled into the ball. With ``nonzero_rows`` an all-zero row (x = 0, where a bias-free
    network and all its gradients vanish) gets one nonzero coordinate."""
    coordinate = st.fractions(-1, 1, max_denominator=16) if exact else signed_floats(1.0)
    rows = draw(
        st.lists(st.lists(coordinate, min_size=n_inputs, max_size=n_inputs), min_size=min_size, max_size=max_size)
    )
    if nonzero_rows:
        nonzero = (
            st.fractions(-1, 1, max_denominator=16).filter(bool) if exact else signed_floats(1.0, zeros=False)
        )
        for row in rows:
            if not any(row):
                row[draw(st.integers(0, n_inputs - 1))] = draw(nonzero)
    rows = [[c / max(1, sum(map(abs, row))) for c in row] for row in rows]
    return rows if exact else torch.tensor(rows, dtype=torch.float64)


@st.composite
def datasets(draw, n_inputs: int, min_size: int = 1, max_size: int = 8):
    """Binary classification data (X, y): ||x_i|| <= 1 and y_i in {-1, +1} (LJ22 Section 2)."""
    x = draw(input_batches(n_inputs, min_size, max_size))
    y = draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=x.shape[0], max_size=x.shape[0]))
    return x, torch.tensor(y, dtype=torch.float64)


# BSJ25 networks as lists of weight matrices (claims.bsj25._saddle), with data X and loss gradient G.


@st.composite
def matrices(
    draw,
    rows: int,
    cols: int,
    low: float = 0.1,
    high: float = 1.0,
    signed: bool = True,
    zero_fraction: float = 0.0,
) -> torch.Tensor:
    """rows x cols float64 matrices: magnitudes uniform in [low, high], signs +-1 with equal odds if
    ``signed``, each entry 0 with probability ``zero_fraction``. The entries come from a torch generator
    seeded by Hypothesis (one draw per matrix, which keeps depth-16 networks cheap to generate)."""
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**63 - 1)))

    def uniform():
        return torch.rand(rows, cols, generator=generator, dtype=torch.float64)

    entries = low + (high - low) * uniform()
    if signed:
        entries = torch.where(uniform() < 0.5, -entries, entries)
    if zero_fraction:
        entries = torch.where(uniform() < zero_fraction, 0.0, entries)
    return entries


@st.composite
def relu_networks(
    draw,
    min_depth: int = 2,
    max_depth: int = 4,
    min_width: int = 1,
    max_width: int = 6,
    max_samples: int = 8,
    max_outputs: int = 3,
):
    """(weights, X, G): depth L in [min_depth, max_depth], widths n_0 .. n_{L-1} in [min_width, max_width],
    n_L <= max_outputs, N <= max_samples samples; G has the shape of Y_theta."""
    depth = draw(st.integers(min_depth, max_depth))
    widths = [draw(st.integers(min_width, max_width)) for _ in range(depth)] + [
        draw(st.integers(1, max_outputs))
    ]
    n_samples = draw(st.integers(1, max_samples))
    weights = [draw(matrices(widths[l + 1], widths[l])) for l in range(depth)]
    return weights, draw(matrices(widths[0], n_samples)), draw(matrices(widths[-1], n_samples))


# LJ22 Theorem 1's layer pairs as ``sequential`` networks (claims.models._builders): convolutions,
# dense layers and residual blocks.

THEOREM1_CASES = {
    "dense-dense": 1,
    "conv-conv": 2,
    "block": 3,
    "block-block": 4,
    "conv-dense": 5,
    "conv-block": 6,
    "block-dense": 7,
    "dense-block": 7,
}
"""The layer pair (layers 1 and 2 of a ``sequential_networks`` draw) -> its case of LJ22 Theorem 1.
"block" is one block of any kind (case 3, Y then U); every other block is ResNetFree."""

LAYER_SLOPES = st.sampled_from([LINEAR, RELU])


@st.composite
def conv_specs(
    draw, dims: int = 1, slope: float | None = None, max_channels: int = 3, max_kernel: int = 3
) -> Conv:
    """A ``Conv`` layer: 1-D or 2-D (``dims``) kernel sizes 1..max_kernel per dimension, stride
    1-2, padding 0-1 and below the kernel size (else some neuron sees only padding), slope drawn
    from linear/ReLU unless given."""
    kernel = tuple(draw(st.integers(1, max_kernel)) for _ in range(dims))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    padding = tuple(draw(st.integers(0, min(1, k - 1))) for k in kernel)
    channels = draw(st.integers(1, max_channels))
    return Conv(channels, kernel, stride, padding, draw(LAYER_SLOPES) if slope is None else slope)


@st.composite
def sequential_networks(
    draw,
    case: str | None = None,
    dims: int | None = None,
    slope: float | None = None,
    bias: bool = False,
    max_width: int = 3,
    max_edges: int = 300,
) -> DagNetwork:
    """A ``sequential`` network whose layers 1 and 2 are the pair of ``case`` (``THEOREM1_CASES``,
    drawn unless given), then ``Fin``: names ``C1``/``W1``/``B1.*`` and ``C2``/``W2``/``B2.*``
    (the "block" case has the one block ``B1``). Convolutions are 1-D or 2-D (``dims``, drawn
    unless given) on grids of 1-3 channels sized so that every kernel entry has edges; dense and
    block widths are 1..max_width; every layer's slope is drawn from linear/ReLU unless given; at
    most ``max_edges`` edges."""
    case = draw(st.sampled_from(sorted(THEOREM1_CASES))) if case is None else case
    kinds = case.split("-")
    dims = draw(st.integers(1, 2)) if dims is None else dims

    def layer_slope():
        return draw(LAYER_SLOPES) if slope is None else slope

    def width():
        return draw(st.integers(1, max_width))

    n_inputs = width()
    layers: list = []
    for kind in kinds:
        if kind == "conv":
            layers.append(draw(conv_specs(dims, slope, max_channels=4 - dims, max_kernel=4 - dims)))
        elif kind == "dense":
            layers.append(Dense(width(), layer_slope()))
        elif case == "block":
            block = draw(st.sampled_from(["identity", "diagonal", "diagonal-fixed", "free"]))
            magnitude = st.floats(0.25, 2.0).flatmap(lambda m: st.sampled_from([m, -m]))
            fixed = tuple(draw(magnitude) for _ in range(n_inputs)) if block == "diagonal-fixed" else None
            out = width() if block == "free" else None
            hidden = width()
            learnable = fixed is None
            layers.append(Block(block.removesuffix("-fixed"), hidden, out, layer_slope(), learnable, fixed))
        else:
            layers.append(Block("free", width(), width(), layer_slope()))
    input_shape: tuple[int, ...] = (n_inputs,)
    if kinds[0] == "conv":
        # Input sizes for which every convolution has every kernel offset on some input and feeds
        # the next one (size >= kernel + stride suffices with padding <= 1).
        need = [1] * dims
        for conv in reversed([layer for layer in layers if isinstance(layer, Conv)]):
            need = [max(k + t, (m - 1) * t + k - 2 * p) for k, t, p, m in
                    zip(conv.kernel_size, conv.stride, conv.padding, need)]
        input_shape = (min(n_inputs, 3 if dims == 1 else 2), *(n + draw(st.integers(0, 1)) for n in need))
    network = sequential(input_shape, layers, bias)
    assume(network.n_edges <= max_edges)
    return network


# Architectures whose conservation laws are counted (claims.models._conservation, claims.lj22._laws).

LAW_FAMILIES = ("DAG", "ReLU DAG", "MLP", "ResNet", "ResNet block", "linear convolution")
"""The families ``law_architectures`` draws from: random DAGs with skips (ReLU, leaky or linear vertices), the
same with ReLU vertices only, fully-connected networks (ReLU, leaky or linear, with or without biases),
sequences of residual blocks of every kind, one block of any kind (the fixed-diagonal ResNetDiagonal
included), and linear 1-D convolutions followed by a convolution or a dense layer."""


@st.composite
def law_architectures(draw, max_parameters: int = 14, families: Sequence[str] = LAW_FAMILIES):
    """(family, network) with at most ``max_parameters`` free parameters, from one of ``families``."""
    family = draw(st.sampled_from(list(families)))
    if family in ("DAG", "ReLU DAG"):
        slopes = st.just(RELU) if family == "ReLU DAG" else ACTIVATION_SLOPES
        network = draw(dag_networks(max_inputs=2, max_hidden=4, max_extra_in_edges=1, max_paths=16, slopes=slopes))
    elif family == "MLP":
        widths = [draw(st.integers(1, 3))] + draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)) + [1]
        network = mlp(widths, draw(st.sampled_from([RELU, LINEAR, 0.25])), bias=draw(st.booleans()))
    elif family == "ResNet":
        network = draw(resnet_networks(max_inputs=2, max_blocks=2, max_width=2))
    elif family == "ResNet block":
        network = draw(sequential_networks("block", max_width=2))
    else:
        network = draw(sequential_networks(draw(st.sampled_from(["conv-conv", "conv-dense"])), dims=1,
                                           slope=LINEAR, max_width=2, max_edges=40))
    assume(network.n_parameters <= max_parameters)
    return family, network


# LJ22 gradient-flow instances (claims.models._risk, claims.lj22._invariants)


@st.composite
def risk_instances(draw, networks, n_examples: int = 4):
    """A risk on a drawn network (data in the unit ball, labels +-1, one of Assumption 3's losses)
    and parameters bounded away from 0 (``random_parameters``)."""
    network = draw(networks)
    bias = network.bias_vertex is not None
    x = draw(input_batches(network.n_inputs - bias, 1, n_examples, nonzero_rows=True))
    if bias:
        x = with_bias_column(x)
    y = torch.tensor(
        draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(x), max_size=len(x))), dtype=torch.float64
    )
    risk = Risk(network, x, y, draw(st.sampled_from(sorted(LOSSES))))
    return risk, random_parameters(network, 1, draw(st.integers(0, 2**32 - 1)))[0]


# GP22 networks: DAGs of layers (GP22 Section 2) built with ``NetworkBuilder``, and layered networks
# (claims.models._layered: skips, batch normalization as Eq. (5)) with their parameters and inputs.

RELU_ONLY = st.just(RELU)
"""The ReLU alone (``layered_networks``' default slope)."""
RELU_OR_LEAKY = st.sampled_from([RELU, 0.25])
"""ReLU or the leaky ReLU of slope 0.25 (dyadic)."""


@st.composite
def layer_dags(draw, min_width: int = 2, max_width: int = 6, max_hidden: int = 3):
    """DAGs of layers (GP22 Section 2): layer i is fed by layer i-1 and up to two earlier layers
    (skip connections, the input included), each connection a free dense matrix W^{iq}."""
    widths = [draw(st.integers(min_width, max_width))] + draw(
        st.lists(st.integers(min_width, max_width), min_size=1, max_size=max_hidden)
    )
    slope = draw(ACTIVATION_SLOPES)
    builder = NetworkBuilder(widths[0])
    layers = [builder.inputs]
    for p, width in enumerate(widths[1:] + [1], start=1):
        target = builder.layer(width, slope if p < len(widths) else LINEAR)
        skips = draw(st.sets(st.integers(0, p - 2), max_size=2)) if p >= 2 else set()
        for q in sorted({p - 1} | skips):
            builder.dense(layers[q], target, matrix_key(p, q))
        layers.append(target)
    return builder.build()


ZERO_FRACTION = 1 / 8
"""Share of exact zeros among drawn matrix entries and inputs (as ``signed_floats`` draws them)."""


def float_matrices(rows: int, cols: int, bound: float = 2.0) -> st.SearchStrategy[torch.Tensor]:
    """Entries 0 (one in eight) or +-[1e-3, bound]: one seeded draw per matrix (``matrices``),
    which keeps the larger networks here cheap to generate."""
    return matrices(rows, cols, low=MIN_MAGNITUDE, high=bound, zero_fraction=ZERO_FRACTION)


def nonzero_matrices(rows: int, cols: int) -> st.SearchStrategy[torch.Tensor]:
    """Entries +-[0.25, 2]."""
    return matrices(rows, cols, low=0.25, high=2.0)


@st.composite
def unit_ball_inputs(draw, n_inputs: int, size: int) -> torch.Tensor:
    """``size`` inputs in the unit l1 ball, as ``input_batches`` draws them (coordinates 0 or
    +-[1e-3, 1], each row scaled into the ball), in one seeded draw."""
    x = draw(matrices(size, n_inputs, low=MIN_MAGNITUDE, high=1.0, zero_fraction=ZERO_FRACTION))
    return x / x.abs().sum(dim=1, keepdim=True).clamp_min(1.0)


@st.composite
def layered_networks(
    draw,
    normalization: bool,
    slopes: st.SearchStrategy[float] = RELU_ONLY,
    min_width: int = 2,
    max_width: int = 6,
    max_hidden: int = 3,
    unnormalized: int | None = None,
    skip_into: int | None = None,
):
    """DAGs of layers with skips (free matrices or, between equal widths, constant identities) and
    batch normalization on a nonempty random set of hidden layers when ``normalization``; hidden
    layer ``unnormalized`` (if given) is left without it; layer ``skip_into`` gets a skip from two
    layers below."""
    hidden = st.integers(min_width, max_width)
    minimum = max(unnormalized or 1, skip_into or 1, 2 if normalization and unnormalized else 1)
    widths = [draw(hidden)] + draw(st.lists(hidden, min_size=minimum, max_size=max(minimum, max_hidden)))
    widths.append(1)
    output = len(widths) - 1
    connections, identities = [], set()
    for p in range(1, output + 1):
        connections.append((p, p - 1))
        skips = draw(st.sets(st.integers(0, p - 2), max_size=2)) if p >= 2 else set()
        for q in sorted(skips | ({p - 2} if p == skip_into else set())):
            connections.append((p, q))
            if widths[p] == widths[q] and draw(st.booleans()):
                identities.add((p, q))
    layers = [layer for layer in range(1, output) if layer != unnormalized]
    normalized = draw(st.sets(st.sampled_from(layers), min_size=1)) if normalization else set()
    return LayeredNetwork(
        tuple(widths), tuple(connections), frozenset(normalized), frozenset(identities), draw(slopes)
    )


@st.composite
def layered_parameters(draw, network: LayeredNetwork, nonzero: bool = False):
    """Matrix entries 0 or +-[1e-3, 2] (+-[0.25, 2] if ``nonzero``); BN scales +-[0.25, 2], shifts 0 or
    +-[1e-3, 1]."""
    entries = float_matrices if not nonzero else nonzero_matrices
    params = {
        matrix_key(p, q): draw(entries(network.widths[p], network.widths[q])) for p, q in network.trainable
    }
    for layer in network.normalized:
        scale = draw(st.floats(0.25, 2.0)) * draw(st.sampled_from([-1.0, 1.0]))
        params[f"gamma{layer}"] = torch.tensor(scale, dtype=torch.float64)
        params[f"beta{layer}"] = torch.tensor(draw(signed_floats(1.0)), dtype=torch.float64)
    return params


# BSJ25 linear networks (claims.bsj25._linear): data, a depth and width, and a rank-one start


@st.composite
def linear_flow_cases(draw, max_depth: int = 5, max_width: int = 5):
    """(instance, depth, width, scale, seed): data from ``random_instance`` (X standard normal d_in x N, G standard
    normal d_out x N over N; d_in 2..4, N 2..8, d_out 1..3, a drawn data seed), depth 2..``max_depth``, hidden width
    2..``max_width`` (so some layer has two singular values), and a rank-one start's layer scale c in [0.2, 0.8]
    with the seed of its unit vectors (``rank_one_start``)."""
    from claims.bsj25 import random_instance

    instance = random_instance(draw(st.integers(0, 2**16)), draw(st.integers(2, 4)), draw(st.integers(2, 8)),
                               draw(st.integers(1, 3)))
    depth, width = draw(st.integers(2, max_depth)), draw(st.integers(2, max_width))
    return instance, depth, width, draw(st.floats(0.2, 0.8)), draw(st.integers(0, 2**16))


@st.composite
def linear_chain_risks(draw, max_matrices: int = 4, max_width: int = 4):
    """(risk, kind): a linear chain d_0 -> n_1 -> ... -> 1 (d_0 and n_k in 2..``max_width``, 2..``max_matrices``
    matrices; ``mlp`` with LINEAR), 2-6 inputs in the unit ball (``unit_ball_inputs``), labels +-1 and one of the
    losses; kind "chain" (a whole balanced chain, ``claims.lj22.balanced_chain``) or, with three matrices or more,
    "pair" (only (W_1, W_2) balanced, ``balanced_pair_chain``)."""
    depth = draw(st.integers(2, max_matrices))
    widths = [draw(st.integers(2, max_width)) for _ in range(depth)] + [1]
    network = mlp(widths, LINEAR)
    x = draw(unit_ball_inputs(widths[0], draw(st.integers(2, 6))))
    y = torch.tensor(
        draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=len(x), max_size=len(x))), dtype=torch.float64
    )
    kind = draw(st.sampled_from(["chain", "pair"] if depth >= 3 else ["chain"]))
    return Risk(network, x, y, draw(st.sampled_from(sorted(LOSSES)))), kind


@st.composite
def linear_search_cases(draw, max_depth: int = 5, max_width: int = 5, max_gap_ratio: float = 0.5):
    """(instance, depth, width, seed) for BSJ25 Section 5's optima: data as ``linear_flow_cases`` draws it, kept only
    when sigma_2(G X^T) <= ``max_gap_ratio`` sigma_1 (``assume``; the search's power, ``claims.bsj25.linear_search``:
    at depth 2 its step is a power iteration that shrinks the sigma_2 direction by (1 + sigma_2/sigma_1)/2 per
    step, 3/4 or less here, so its 400 steps end far below rounding; near sigma_2 = sigma_1 they end 1e-8 away), depth
    2..``max_depth``, hidden width 2..``max_width`` and the seed of the search's Gaussian restarts."""
    from claims.bsj25 import random_instance

    instance = random_instance(draw(st.integers(0, 2**16)), draw(st.integers(2, 4)), draw(st.integers(2, 8)),
                               draw(st.integers(1, 3)))
    singular_values = torch.linalg.svdvals(instance.g @ instance.x.T)
    assume(len(singular_values) < 2 or singular_values[1] <= max_gap_ratio * singular_values[0])
    return instance, draw(st.integers(2, max_depth)), draw(st.integers(2, max_width)), draw(st.integers(0, 2**16))


@st.composite
def s_time_starts(draw, min_depth: int = 3, max_depth: int = 4, max_width: int = 5):
    """(instance, depth, width, seed) for BSJ25 Section 2.2's flows: ReLU networks on data from ``random_instance``
    (X standard normal d_in x N, G standard normal d_out x N over N; d_in 2..4, N 2..8, d_out 1..2, a drawn data
    seed), depth ``min_depth``..``max_depth`` (at depth 2, s = t), hidden width 2..``max_width``, and the seed of a
    Gaussian theta_0 (the test normalizes it)."""
    from claims.bsj25 import random_instance

    instance = random_instance(draw(st.integers(0, 2**16)), draw(st.integers(2, 4)), draw(st.integers(2, 8)),
                               draw(st.integers(1, 2)))
    depth, width = draw(st.integers(min_depth, max_depth)), draw(st.integers(2, max_width))
    return instance, depth, width, draw(st.integers(0, 2**16))
