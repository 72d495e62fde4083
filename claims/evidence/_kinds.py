"""Evidence by kind of check: what a test's cases show, in the numbers that fit the check that judged them.

Every check records its cases under one kind (``KINDS``): an identity's error against its rounding
bound, an inequality's slack, a drift's fitted slopes, a limit and its error, a trend's effect. A case's
``error`` and ``tolerance`` (``claims.evidence._record.Case``) are comparable within one kind only: a
rounding error, a drift-order score and a p-value over alpha are different quantities. So each kind is
tallied apart (``KindTally``), per side: the cases where the statement held (``holding``) and those shown
to violate it (``violating``: counterexamples to a printed statement, a control's rejected cases). Per
side and kind the tally keeps the number of checks, how many were informative, the case nearest to the
other side (``nearest``, with the numbers its kind is read by, ``KEPT``) and, for drift orders, the range
of each number per integrator (``ranges``). The report's headline of a claim is read from these tallies,
merged over its tests (``merge``); a report from before the tallies gets them from its recorded worst
cases (``from_cases``).

The nearest case: for an inequality where it held, the informative case with the smallest relative
slack; otherwise, where the statement held, the case nearest to violating (smallest margin = tolerance /
error), and where it was violated, the case nearest to acceptance (largest margin). An informative case
is preferred to an uninformative one.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

KINDS = (
    "identity", "conserved rate", "property", "inequality", "drift order", "nonzero rate", "drift limit",
    "settled limit", "trend",
)
"""The kinds of check, in the order the report lists them. ``identity``: ``check_close``, ``check_exact``,
``check_rejected``; ``conserved rate``: ``check_conserved_rate``; ``property``: ``check_property``;
``inequality``: ``check_inequality``; ``drift order``: ``check_convergence_order``; ``nonzero rate``:
``check_nonzero_rate``; ``drift limit``: ``check_nonzero_limit``; ``settled limit``: ``check_settled_limit``;
``trend``: ``check_trend`` (each with its
``_rejected`` form). A case recorded without a kind (``record_case`` called directly) is ``OTHER``."""

OTHER = "other"
SIDES = ("holding", "violating")

KEPT: dict[str, tuple[str, ...]] = {
    "identity": ("error_scale", "exact_error"),
    "conserved rate": ("rate", "rate_scale", "unscaled_rate"),
    "property": ("property",),
    "inequality": ("lhs", "rhs", "slack", "relative_slack", "scale"),
    "drift order": ("method", "order", "band", "ratio", "slope", "relative_drift"),
    "nonzero rate": ("relative_rate", "rounding_bound", "factor", "unscaled_rate"),
    "drift limit": ("limit", "limit_error", "factor", "reference", "reference_error", "reference_disagreement"),
    "settled limit": ("limit", "error_bar", "low", "high", "lower", "upper", "resolution", "outcome"),
    "trend": ("statement", "effect", "effect_interval", "p_predicted", "p_opposite", "n", "levels", "verdict"),
    OTHER: ("error_scale",),
}
"""The numbers of a case that its kind is read by, kept with the nearest case (besides its error,
tolerance, whether it is informative, and ``tolerance_source``: what the tolerance stands for, when
the test says)."""

RANGED: dict[str, tuple[str, ...]] = {"drift order": ("slope", "relative_drift", "order", "band", "ratio")}
"""Numbers whose range over a side's cases is kept, per group (drift orders: per integrator)."""


def margin(error: float, tolerance: float) -> float:
    """tolerance / error; infinite when the error is exactly 0."""
    return math.inf if error == 0 else tolerance / error


def kind_of(details: Mapping[str, Any]) -> str:
    """The kind of a case recorded before cases named their kind, read from its numbers."""
    evidence = details.get("evidence")
    named = {"instantaneous rate": "conserved rate", "convergence order": "drift order", "nonzero limit": "drift limit",
             "trend": "trend", "settled limit": "settled limit"}
    if evidence == "instantaneous rate" and "relative_rate" in details:
        return "nonzero rate"
    if evidence in named:
        return named[evidence]
    if "relative_slack" in details or ("lhs" in details and "rhs" in details):
        return "inequality"
    if "property" in details:
        return "property"
    return "identity" if "error_scale" in details else OTHER


def _group(kind: str, details: Mapping[str, Any]) -> str:
    if kind != "drift order":
        return ""
    return str(details.get("method") or f"order {details.get('order')}")


def _key(kind: str, side: str, entry: Mapping[str, Any]) -> tuple:
    """Smaller is shown: informative first; then, where the statement held, the smallest relative slack
    (inequalities) or the smallest margin (nearest to violating); where it was violated, the largest
    margin (nearest to acceptance)."""
    informative = 0 if entry.get("informative", True) else 1
    m = margin(entry["error"], entry["tolerance"])
    slack = entry.get("relative_slack")
    slack = math.inf if slack is None else slack
    if side == "holding":
        if kind == "inequality":
            return (informative, slack, m, -entry["error"])
        return (informative, m, -entry["error"], slack)
    return (informative, -m, entry["error"], -slack)


def _entry(kind: str, error: float, tolerance: float, details: Mapping[str, Any], informative: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"error": error, "tolerance": tolerance, "informative": informative}
    for name in KEPT.get(kind, ()) + ("tolerance_source",):
        if details.get(name) is not None:
            entry[name] = details[name]
    return entry


def _empty() -> dict[str, Any]:
    return {"checks": 0, "informative": 0, "nearest": None, "ranges": {}}


def _widen(ranges: dict[str, dict[str, list[float]]], group: str, name: str, low: float, high: float) -> None:
    current = ranges.setdefault(group, {}).get(name)
    ranges[group][name] = [low, high] if current is None else [min(current[0], low), max(current[1], high)]


def _fold(kind: str, side: str, into: dict[str, Any], entry: dict[str, Any], checks: int, informative: int,
          ranges: Mapping[str, Mapping[str, list[float]]]) -> None:
    into["checks"] += checks
    into["informative"] += informative
    if into["nearest"] is None or _key(kind, side, entry) < _key(kind, side, into["nearest"]):
        into["nearest"] = entry
    for group, names in ranges.items():
        for name, (low, high) in names.items():
            _widen(into["ranges"], group, name, low, high)


class KindTally:
    """A test's (or finding's) cases by kind and side, as they are recorded."""

    def __init__(self) -> None:
        self.kinds: dict[str, dict[str, dict[str, Any]]] = {}

    def add(self, kind: str | None, error: float, tolerance: float, details: Mapping[str, Any], violates: bool,
            informative: bool) -> None:
        kind = kind or OTHER
        side = "violating" if violates else "holding"
        into = self.kinds.setdefault(kind, {}).setdefault(side, _empty())
        ranges: dict[str, dict[str, list[float]]] = {}
        for name in RANGED.get(kind, ()):
            value = details.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                _widen(ranges, _group(kind, details), name, float(value), float(value))
        _fold(kind, side, into, _entry(kind, error, tolerance, details, informative), 1, int(informative), ranges)

    def to_builtin(self) -> dict[str, Any]:
        return {kind: {side: dict(tally) for side, tally in sides.items()} for kind, sides in self.kinds.items()}


def merge(tallies: Iterable[Mapping[str, Any] | None]) -> dict[str, Any]:
    """Several tests' ``by_kind`` tallies as one (a claim's): counts added, nearest cases compared, ranges
    joined; kinds in ``KINDS`` order, ``OTHER`` last."""
    merged: dict[str, dict[str, dict[str, Any]]] = {}
    for tally in tallies:
        for kind, sides in (tally or {}).items():
            for side, part in sides.items():
                if not part or not part.get("checks"):
                    continue
                into = merged.setdefault(kind, {}).setdefault(side, _empty())
                _fold(kind, side, into, part["nearest"], part["checks"], part.get("informative", 0),
                      part.get("ranges") or {})
    order = {kind: i for i, kind in enumerate(KINDS)}
    return {kind: merged[kind] for kind in sorted(merged, key=lambda k: order.get(k, len(KINDS)))}


def from_cases(holding: Mapping[str, Any] | None, violating: Mapping[str, Any] | None) -> dict[str, Any]:
    """The tally of a test recorded before tallies: its two recorded cases (the one nearest to violating
    where the statement held, the one nearest to acceptance where it did not), one check each."""
    tally = KindTally()
    for case, violates in ((holding, False), (violating, True)):
        if case:
            details = case.get("details") or {}
            tally.add(kind_of(details), case["error"], case["tolerance"], details, violates,
                      "uninformative" not in details)
    return tally.to_builtin()
