"""lowrank-claims: executable evidence for the formal claims of LJ22, GP22 and BSJ25.

Public API: networks and builders, path tools (LJ22 Section 3), the claim registry, the check
core that records evidence, and numeric helpers. Strategies live in ``claims.strategies`` and
the pytest plugin in ``claims.plugin``. Names load on first use, so that the plugin (and a
pytest run that collects nothing numeric) does not pay for importing torch; the same names are imported
statically under ``TYPE_CHECKING``, so type checkers and editors see them (a unit test keeps both lists equal).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
if TYPE_CHECKING:  # for type checkers and editors (at run time the names load on first use); 'as': re-exported
    from claims.models._builders import (
        Block as Block,
        Conv as Conv,
        Dense as Dense,
        NetworkBuilder as NetworkBuilder,
        mlp as mlp,
        resnet as resnet,
        resnet_block as resnet_block,
        sequential as sequential,
        with_bias_column as with_bias_column,
    )
    from claims.evidence._record import (
        ClaimViolation as ClaimViolation,
        NonFiniteEvidence as NonFiniteEvidence,
        count_cases_as as count_cases_as,
        OutsideClaimTest as OutsideClaimTest,
        declare_verdict as declare_verdict,
        finding as finding,
        record_erratum as record_erratum,
        record_case as record_case,
        record_degenerate as record_degenerate,
        record_note as record_note,
        record_series as record_series,
    )
    from claims.report._figures import (
        record_figure as record_figure,
    )
    from claims.models._networks import (
        LINEAR as LINEAR,
        RELU as RELU,
        DagNetwork as DagNetwork,
        activation_name as activation_name,
        homogeneous_activation as homogeneous_activation,
    )
    from claims.models._numerics import (
        UNIT_ROUNDOFF as UNIT_ROUNDOFF,
        gamma as gamma,
        rounding_depth as rounding_depth,
    )
    from claims.models._paths import (
        PathEnumeration as PathEnumeration,
        TreeNetwork as TreeNetwork,
        UnrolledTree as UnrolledTree,
        count_paths as count_paths,
        path_enumeration as path_enumeration,
        pull_back as pull_back,
        pull_back_order as pull_back_order,
        sign as sign,
        tree_network as tree_network,
        unrolled_tree as unrolled_tree,
    )
    from claims.evidence._registry import (
        CLAIMS as CLAIMS,
        Claim as Claim,
        get_claim as get_claim,
    )
    from claims.checks import (
        check_close as check_close,
        check_conserved_rate as check_conserved_rate,
        check_conserved_rate_rejected as check_conserved_rate_rejected,
        check_convergence_order as check_convergence_order,
        check_convergence_order_rejected as check_convergence_order_rejected,
        check_nonzero_limit as check_nonzero_limit,
        check_nonzero_limit_rejected as check_nonzero_limit_rejected,
        check_nonzero_rate as check_nonzero_rate,
        check_nonzero_rate_rejected as check_nonzero_rate_rejected,
        check_exact as check_exact,
        check_inequality as check_inequality,
        check_inequality_rejected as check_inequality_rejected,
        check_law_count as check_law_count,
        check_law_count_rejected as check_law_count_rejected,
        check_property as check_property,
        check_power as check_power,
        check_property_rejected as check_property_rejected,
        check_rejected as check_rejected,
        check_settled_limit as check_settled_limit,
        check_settled_limit_rejected as check_settled_limit_rejected,
        check_trend as check_trend,
        check_trend_rejected as check_trend_rejected,
        check_paired as check_paired,
        check_paired_rejected as check_paired_rejected,
    )
    from claims.evidence._trend import (
        Trend as Trend,
        TrendRule as TrendRule,
        permuted_levels as permuted_levels,
        trend_test as trend_test,
    )

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

