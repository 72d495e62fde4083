"""The shared check core: every claim test judges its cases through these functions.

Each check records the case (error, tolerance, the error's scale, details) for the report and
raises ``ClaimViolation`` when the case contradicts the statement. NaN or an infinity in a check's
input raises ``NonFiniteEvidence``: it never passes, and it is not a counterexample either (the
test becomes an error). A case whose two sides are identically zero is recorded as degenerate:
counted apart, never the claim's headline.

Checks record evidence only inside a test marked ``@pytest.mark.claim("ID")`` run under the
claims plugin; called anywhere else they raise ``OutsideClaimTest``.

Modules: ``_core`` (identities, exact identities, properties, inequalities), ``_dynamics`` (rates,
drift orders, drift limits), ``_laws`` (counts of conservation laws, exact), ``_limits`` (limits along a path:
settled limits against a statement's interval), ``_trends`` (trend tests), ``_protocol`` (the drift-order protocol's
judging of many trajectories), ``_power`` (checks of the test's own power: a search reaches a known
optimum, a design detects its effect; a shortfall makes the claim inconclusive, never refuted).
"""

from __future__ import annotations

from claims.checks._core import (
    check_close,
    check_exact,
    check_inequality,
    check_inequality_rejected,
    check_property,
    check_property_rejected,
    check_rejected,
)
from claims.checks._dynamics import (
    check_conserved_rate,
    check_conserved_rate_rejected,
    check_convergence_order,
    check_convergence_order_rejected,
    check_nonzero_limit,
    check_nonzero_limit_rejected,
    check_nonzero_rate,
    check_nonzero_rate_rejected,
    fit_selection,
    log_log_fit,
    richardson_limit,
)
from claims.checks._laws import check_law_count, check_law_count_rejected
from claims.checks._limits import LimitEstimate, check_settled_limit, check_settled_limit_rejected, limit_estimate
from claims.checks._power import check_power
from claims.checks._protocol import assert_judged, combined_tally, judge_order
from claims.checks._trends import check_paired, check_paired_rejected, check_trend, check_trend_rejected

__all__ = [
    "LimitEstimate",
    "assert_judged",
    "check_close",
    "check_conserved_rate",
    "check_conserved_rate_rejected",
    "check_convergence_order",
    "check_convergence_order_rejected",
    "check_exact",
    "check_inequality",
    "check_inequality_rejected",
    "check_law_count",
    "check_law_count_rejected",
    "check_nonzero_limit",
    "check_nonzero_limit_rejected",
    "check_nonzero_rate",
    "check_nonzero_rate_rejected",
    "check_power",
    "check_paired",
    "check_paired_rejected",
    "check_property",
    "check_property_rejected",
    "check_rejected",
    "check_settled_limit",
    "check_settled_limit_rejected",
    "check_trend",
    "check_trend_rejected",
    "combined_tally",
    "fit_selection",
    "judge_order",
    "limit_estimate",
    "log_log_fit",
    "richardson_limit",
]
