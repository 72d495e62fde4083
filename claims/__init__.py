"""lowrank-claims: executable evidence for the formal claims of LJ22, GP22 and BSJ25.

Public API: networks and builders, path tools (LJ22 Section 3), the claim registry, the check
core that records evidence, and numeric helpers. Strategies live in ``claims.strategies`` and
the pytest plugin in ``claims.plugin``.
"""

from claims._builders import NetworkBuilder, mlp, resnet, resnet_block
from claims._evidence import ClaimViolation, declare_verdict, record_case, record_note
from claims._networks import LINEAR, RELU, DagNetwork, activation_name, homogeneous_activation
from claims._numerics import UNIT_ROUNDOFF, error_of, gamma, rounding_depth
from claims._paths import (
    PathEnumeration,
    TreeNetwork,
    UnrolledTree,
    count_paths,
    path_enumeration,
    pull_back,
    pull_back_order,
    sign,
    tree_network,
    unrolled_tree,
)
from claims._registry import CLAIMS, Claim, get_claim
from claims.checks import (
    check_close,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_property,
    check_rejected,
)

__all__ = [
    "CLAIMS",
    "LINEAR",
    "RELU",
    "UNIT_ROUNDOFF",
    "Claim",
    "ClaimViolation",
    "DagNetwork",
    "NetworkBuilder",
    "PathEnumeration",
    "TreeNetwork",
    "UnrolledTree",
    "activation_name",
    "check_close",
    "check_exact",
    "check_inequality",
    "check_inequality_rejected",
    "check_property",
    "check_rejected",
    "count_paths",
    "declare_verdict",
    "error_of",
    "gamma",
    "get_claim",
    "homogeneous_activation",
    "mlp",
    "path_enumeration",
    "pull_back",
    "pull_back_order",
    "record_case",
    "record_note",
    "resnet",
    "resnet_block",
    "rounding_depth",
    "sign",
    "tree_network",
    "unrolled_tree",
]
