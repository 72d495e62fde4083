"""Numeric helpers in one place: float64 rounding bounds that tolerances are derived from.

Tolerances follow the standard forward error analysis (Higham, Accuracy and Stability of
Numerical Algorithms, Ch. 3): k chained float64 roundings perturb a sum of products by at most
gamma_k = k u / (1 - k u) times the sum of the magnitudes of its terms, u = 2^-53.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claims.models._networks import DagNetwork

EPS = sys.float_info.epsilon  # float64 machine epsilon, 2^-52
UNIT_ROUNDOFF = EPS / 2


def gamma(k: int) -> float:
    """gamma_k = k u / (1 - k u), the bound on k chained relative roundings."""
    ku = k * UNIT_ROUNDOFF
    return ku / (1 - ku)


def rounding_depth(network: DagNetwork, backward: bool = False) -> int:
    """Most roundings on any chain of ``DagNetwork.forward`` (to the output), or with ``backward`` of
    ``DagNetwork.output_sensitivities`` (from the output to any vertex). Per vertex: one product and
    one addition per in-edge (out-edge), index_add starting from an exact 0, and one for a leaky
    slope. Activations are 1-Lipschitz with sigma(0) = 0, so absolute errors pass through them
    unamplified.
    """
    depth = [0] * network.n_vertices
    if backward:
        for v in range(network.output - 1, network.n_inputs - 1, -1):
            own = 1 + len(network.out_edges[v]) + network.is_leaky(v)
            # A vertex without out-edges (a strided convolution's unused position) has sensitivity 0.
            depth[v] = own + max((depth[network.edges[e][1]] for e in network.out_edges[v]), default=0)
        return max(depth)
    for v in range(network.n_inputs, network.n_vertices):
        own = 1 + len(network.in_edges[v]) + network.is_leaky(v)
        depth[v] = own + max(depth[network.edges[e][0]] for e in network.in_edges[v])
    return depth[network.output]


SIDES_ULPS = 256
"""How many ulps of the two sides' magnitudes an inequality between squared norms of small matrices (spectral,
Frobenius, nuclear; dimensions up to 16) may move by rounding: each norm through an SVD or a sum of squares is
within a few dozen ulps (``singular_value_rounding``: max(shape) eps sigma_1 for dimensions <= 16, doubled by
squaring), and the sides combine a handful of them."""


def sides_rounding(*sides: float) -> float:
    """``SIDES_ULPS`` ulps of the sides' magnitudes: the rounding tolerance of an inequality between norms
    (LJ22's Lemma 11 and Theorem 2 chains)."""
    return SIDES_ULPS * EPS * sum(abs(side) for side in sides)


def singular_value_rounding(matrix: Any) -> float:
    """max(shape) eps sigma_1: what a backward-stable SVD may add to any singular value, the cutoff
    of numpy's and torch's matrix_rank. A numerical rank below it is indistinguishable from rounding."""
    import torch  # here, so that the check core imports without torch

    return max(matrix.shape) * EPS * float(torch.linalg.matrix_norm(matrix, 2))


def decomposition_tolerance(network: DagNetwork, tree: DagNetwork, longest_path: int) -> float:
    """Bound on |nu(x) - mu(h(x))| / sum_p |h(x)_p| in float64 (LJ22 Lemma 1).

    Both sides are sums over paths of x_p prod w_e, passed through 1-Lipschitz activations, so
    each is within gamma_k of the exact value times the absolute path sum: k = the forward depth
    for nu; the path product (``longest_path`` roundings) plus mu's forward depth for mu(h); one
    more for the division by the scale.
    """
    return gamma(rounding_depth(network)) + gamma(longest_path + rounding_depth(tree)) + gamma(1)
