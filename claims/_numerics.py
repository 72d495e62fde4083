"""Numeric helpers in one place: float64 rounding bounds that tolerances are derived from.

Tolerances follow the standard forward error analysis (Higham, Accuracy and Stability of
Numerical Algorithms, Ch. 3): k chained float64 roundings perturb a sum of products by at most
gamma_k = k u / (1 - k u) times the sum of the magnitudes of its terms, u = 2^-53.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claims._networks import DagNetwork

UNIT_ROUNDOFF = sys.float_info.epsilon / 2  # float64


def gamma(k: int) -> float:
    """gamma_k = k u / (1 - k u), the bound on k chained relative roundings."""
    ku = k * UNIT_ROUNDOFF
    return ku / (1 - ku)


def rounding_depth(network: DagNetwork) -> int:
    """Most roundings on any chain of ``DagNetwork.forward``: per vertex, one product per
    in-edge, one addition per in-edge (index_add starts from an exact 0), one for a leaky slope.
    Activations are 1-Lipschitz with sigma(0) = 0, so absolute errors pass through them unamplified.
    """
    depth = [0] * network.n_vertices
    for v in range(network.n_inputs, network.n_vertices):
        own = 1 + len(network.in_edges[v]) + network.is_leaky(v)
        depth[v] = own + max(depth[network.edges[e][0]] for e in network.in_edges[v])
    return depth[network.output]


def error_of(observed: Any, expected: Any) -> float:
    """max |observed - expected| over tensors, arrays or scalars; NaN anywhere is an infinite error."""
    difference = abs(observed - expected)
    values = difference.reshape(-1).tolist() if hasattr(difference, "reshape") else [difference]
    values = [float(v) for v in values]
    return math.inf if any(map(math.isnan, values)) else max(values, default=0.0)


def decomposition_tolerance(network: DagNetwork, tree: DagNetwork, longest_path: int) -> float:
    """Bound on |nu(x) - mu(h(x))| / sum_p |h(x)_p| in float64 (LJ22 Lemma 1).

    Both sides are sums over paths of x_p prod w_e, passed through 1-Lipschitz activations, so
    each is within gamma_k of the exact value times the absolute path sum: k = the forward depth
    for nu; the path product (``longest_path`` roundings) plus mu's forward depth for mu(h); one
    more for the division by the scale.
    """
    return gamma(rounding_depth(network)) + gamma(longest_path + rounding_depth(tree)) + gamma(1)
