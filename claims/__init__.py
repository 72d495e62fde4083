"""lowrank-claims: executable evidence for the formal claims of LJ22, GP22 and BSJ25.

Public API: networks and builders, path tools (LJ22 Section 3), the claim registry, the check
core that records evidence, and numeric helpers. Strategies live in ``claims.strategies`` and
the pytest plugin in ``claims.plugin``. Names load on first use, so that the plugin (and a
pytest run that collects nothing numeric) does not pay for importing torch.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

_EXPORTS = {
    "claims.models._builders": (
        "Block", "Conv", "Dense", "NetworkBuilder", "mlp", "resnet", "resnet_block", "sequential", "with_bias_column",
    ),
    "claims.evidence._record": (
        "ClaimViolation",
        "NonFiniteEvidence",
        "count_cases_as",
        "OutsideClaimTest",
        "declare_verdict",
        "finding",
        "record_erratum",
        "record_case",
        "record_degenerate",
        "record_note",
        "record_series",
    ),
    "claims.report._figures": ("record_figure",),
    "claims.models._networks": ("LINEAR", "RELU", "DagNetwork", "activation_name", "homogeneous_activation"),
    "claims.models._numerics": ("UNIT_ROUNDOFF", "gamma", "rounding_depth"),
    "claims.models._paths": (
        "PathEnumeration",
        "TreeNetwork",
        "UnrolledTree",
        "count_paths",
        "path_enumeration",
        "pull_back",
        "pull_back_order",
        "sign",
        "tree_network",
        "unrolled_tree",
    ),
    "claims.evidence._registry": ("CLAIMS", "Claim", "get_claim"),
    "claims.checks": (
        "check_close",
        "check_conserved_rate",
        "check_conserved_rate_rejected",
        "check_convergence_order",
        "check_convergence_order_rejected",
        "check_nonzero_limit",
        "check_nonzero_limit_rejected",
        "check_nonzero_rate",
        "check_nonzero_rate_rejected",
        "check_exact",
        "check_inequality",
        "check_inequality_rejected",
        "check_law_count",
        "check_law_count_rejected",
        "check_paired",
        "check_paired_rejected",
        "check_property",
        "check_power",
        "check_property_rejected",
        "check_rejected",
        "check_settled_limit",
        "check_settled_limit_rejected",
        "check_trend",
        "check_trend_rejected",
    ),
    "claims.evidence._trend": ("Trend", "TrendRule", "permuted_levels", "trend_test"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = ["__version__", *sorted(_MODULE_OF)]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'claims' has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__

