"""The network substrate shared by the three papers' claims: DAG networks (LJ22 Section 3) and their
builders, layered networks, Theorem 1's matrix representations, path tools (LJ22 Lemma 1), the risk
(LJ22 Assumption 3), gradient-flow integrators, rank measures, float64 rounding bounds, datasets.

Nothing here imports ``claims.evidence``, ``claims.report``, ``claims.session`` or pytest.
"""

from __future__ import annotations

from claims.models._builders import (
    Block, Conv, Dense, NetworkBuilder, mlp, resnet, resnet_block, sequential, with_bias_column,
)
from claims.models._conservation import (
    LieRank, Reparametrization, exact_rank, integer_point, lie_rank, reparametrization,
)
from claims.models._datasets import (
    digits,
)
from claims.models._flow import (
    EULER, ExplicitRungeKutta, GradientFlow, HEUN, RK4, integrate, reference_solution,
)
from claims.models._graph_layers import (
    GraphLayers,
)
from claims.models._layered import (
    LayeredNetwork, logistic_loss, matrix_key, regularized_batch_risk, squared_loss,
)
from claims.models._networks import (
    DagNetwork, LINEAR, RELU, activation_name, homogeneous_activation,
)
from claims.models._numerics import (
    EPS, UNIT_ROUNDOFF, decomposition_tolerance, gamma, rounding_depth, sides_rounding, singular_value_rounding,
)
from claims.models._paths import (
    PathEnumeration, TreeNetwork, UnrolledTree, count_paths, path_enumeration, pull_back,
    pull_back_order, sign, tree_network, unrolled_tree,
)
from claims.models._representations import (
    active_neurons, dense_after_conv, kernel_rows, theorem1_pair,
)
from claims.models._risk import (
    LOSSES, Risk,
)

__all__ = [
    "Block", "Conv", "DagNetwork", "Dense", "EPS", "EULER", "ExplicitRungeKutta", "GradientFlow",
    "GraphLayers", "HEUN", "LINEAR", "LOSSES", "LayeredNetwork", "LieRank", "NetworkBuilder",
    "PathEnumeration", "RELU", "RK4", "Reparametrization", "Risk", "TreeNetwork", "UNIT_ROUNDOFF", "UnrolledTree",
    "activation_name", "active_neurons", "count_paths", "decomposition_tolerance",
    "dense_after_conv", "digits", "exact_rank", "gamma", "homogeneous_activation", "integer_point", "integrate",
    "kernel_rows", "lie_rank", "logistic_loss", "matrix_key", "mlp", "path_enumeration", "pull_back", "pull_back_order",
    "reference_solution", "regularized_batch_risk", "reparametrization", "resnet", "resnet_block", "rounding_depth",
    "sequential", "sides_rounding", "sign", "singular_value_rounding", "squared_loss", "theorem1_pair",
    "tree_network", "unrolled_tree", "with_bias_column",
]
