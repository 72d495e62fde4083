"""The headline figures of a claim or a test, by kind of check, and the plain reading of a verdict.

A claim's evidence is read in the numbers that fit the checks that judged it (``claims.evidence._kinds``),
never as one score across kinds: an identity by its worst error against its rounding bound; an inequality
by its smallest slack among informative cases, with that case's tolerance (a negative slack within the
tolerance is rounding at an equality case, and reads as such); a conserved rate by its largest share of
its scale; a drift order by the range of fitted slopes per integrator and the largest finest-drift ratio;
a nonzero rate or limit by how many times its rounding bound or error estimate it exceeds; a trend by its
effect with its interval, the p-value of the direction concluded, runs and levels. Slacks and tolerances
of inequalities are relative to the check's scale (|lhs| + |rhs| unless the test gives one).

A claim's headline (``claim_headline``) has one line per kind of check its evidence tests recorded, in
``KINDS`` order, from the cases where the (corrected) statement held; a claim with no such case shows
its counterexamples instead. A test's headline (``per_test_headline``) is the same for its own cases, and
adds what it shows against a statement: the printed statement's counterexample (an evidence test) or the
rejected cases (a negative control). A report from before the tallies gets them where it is loaded
(``claims.report._schema.upgrade``).
"""

from __future__ import annotations

from typing import Any, Mapping

from claims.evidence._kinds import KINDS, OTHER, from_cases, kind_of
from claims.evidence._numbers import format_number
from claims.evidence._role import Role

_SCALE = {"relative": "rel", "absolute": "abs"}


UNBOUNDED = 1e299
"""Reports from before finite scores recorded an unbounded ratio as 1e300: at or above this an error reads
"unbounded", never as a number."""


def format_error(value: float | None, scale: str | None) -> str:
    """An error with its scale, ``rel`` or ``abs`` ("unbounded": an old report's stand-in for no finite value)."""
    if value is not None and abs(value) >= UNBOUNDED:
        return "unbounded"
    text = format_number(value)
    return f"{text} {_SCALE[scale]}" if value is not None and scale in _SCALE else text


def entry_kinds(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A claim's or test's ``by_kind`` (a report from before the tallies has one once it is loaded:
    ``claims.report._schema.upgrade`` reads it from the recorded cases)."""
    return entry["by_kind"]


# -- one kind, where the statement held --------------------------------------------------------------------


def _identity(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    if n["error"] == 0:
        exact = "exact in rational arithmetic" if "exact_error" in n else "error 0"
        return f"identity: {exact} (tolerance {format_number(n['tolerance'])})"
    return (f"identity: worst error {format_error(n['error'], n.get('error_scale'))} <= tolerance "
            f"{format_number(n['tolerance'])}")


def _conserved_rate(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    if n["error"] == 0:
        return "conserved rate: dQ/dt exactly 0"
    return (f"conserved rate: |dQ/dt| <= {format_number(n['error'])} of its scale (rounding bound "
            f"{format_number(n['tolerance'])})")


def _property(part: Mapping[str, Any]) -> str:
    return f"property: holds in {part['checks']} of {part['checks']} checks"


def slack_text(n: Mapping[str, Any]) -> str:
    """An inequality's slack (relative) and its tolerance, relative to the same scale: a negative slack
    within the tolerance is rounding at an equality case, shown as a slack of 0 within rounding."""
    relative = n.get("relative_slack")
    scale = n.get("scale")
    if scale is None and n.get("lhs") is not None and n.get("rhs") is not None:
        scale = abs(n["lhs"]) + abs(n["rhs"])
    tolerance = n["tolerance"] / scale if scale else n["tolerance"]
    source = f"; tolerance: {n['tolerance_source']}" if n.get("tolerance_source") else ""
    if relative is None:
        return f"holds (tolerance {format_number(tolerance)}{source})"
    if relative >= 0:
        return f"min slack {format_number(relative)} (tolerance {format_number(tolerance)}{source})"
    if -relative <= tolerance * (1 + 1e-12):
        return (f"min slack 0 within rounding (lhs over rhs by {format_number(-relative)} <= tolerance "
                f"{format_number(tolerance)}{source})")
    return f"min slack {format_number(relative)}, BEYOND its tolerance {format_number(tolerance)}{source}"


def _inequality(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    uninformative = "" if n.get("informative", True) else " (no informative case)"
    return f"inequality: {slack_text(n)}{uninformative}"


def _drift_groups(part: Mapping[str, Any]) -> list[tuple[str, dict[str, list[float]]]]:
    ranges = part.get("ranges") or {}
    if ranges:
        return sorted(ranges.items(), key=lambda item: (item[1].get("order", [0])[0], item[0]))
    n = part["nearest"]  # a report from before the tallies: its one recorded case
    group = str(n.get("method") or f"order {n.get('order')}")
    return [(group, {k: [n[k], n[k]] for k in ("slope", "relative_drift", "order", "band", "ratio") if k in n})]


def _drift_order(part: Mapping[str, Any], failing: bool = False) -> str:
    texts = []
    for group, r in _drift_groups(part):
        text = group
        if "slope" in r:
            low, high = (format_number(v) for v in r["slope"])  # one slope when the range shows as one
            text += f" slope {low}" + (f"..{high}" if high != low else "")
            if "order" in r and "band" in r:
                text += f" (order {r['order'][0]:g}, needs >= {r['order'][0] - r['band'][1]:g})"
        if "relative_drift" in r:
            text += f", finest drift <= {format_number(r['relative_drift'][1])} of its terms' motion"
            if "ratio" in r:
                text += f" ({'needs' if not failing else 'limit'} < {r['ratio'][0]:g})"
        texts.append(text)
    return "drift order: " + "; ".join(texts)


def _nonzero_rate(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    if n.get("unscaled_rate"):
        return f"nonzero rate: {format_number(n['unscaled_rate'])} where its scale is 0"
    bound = n.get("rounding_bound")
    times = n["relative_rate"] / bound if bound else None
    if times is None:
        return f"nonzero rate: {format_number(n.get('relative_rate'))} of its scale"
    return f"nonzero rate: >= {format_number(times)} x its rounding bound (needs > {n.get('factor', 1):g} x)"


def _drift_limit(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    limit, error = n.get("limit"), n.get("limit_error")
    if limit is None or error is None:
        return "drift limit: shown nonzero"
    times = (f"{format_number(abs(limit) / error)} x its error estimate" if error > 0
             else "exact extrapolation (estimate 0)")
    text = (
        f"drift limit: {format_number(limit)} +- {format_number(error)}, |limit| {times} "
        f"(needs >= {n.get('factor', 1):g} x)"
    )
    if n.get("reference") is not None:
        text += f"; adaptive reference {format_number(n['reference'])} agrees"
    return text


def _settled_interval(n: Mapping[str, Any]) -> str:
    return (f"{format_number(n.get('limit'))} +- {format_number(n.get('error_bar'))} against "
            f"[{format_number(n.get('lower'))}, {format_number(n.get('upper'))}]"
            + (f" (resolution {format_number(n['resolution'])})" if n.get("resolution") else ""))


def _settled_limit(part: Mapping[str, Any]) -> str:
    """The settled case nearest to leaving its statement's interval: its limit, error bar and interval."""
    return f"settled limit: {_settled_interval(part['nearest'])}"


_HOLDING = {
    "identity": _identity, "conserved rate": _conserved_rate, "property": _property, "inequality": _inequality,
    "drift order": _drift_order, "nonzero rate": _nonzero_rate, "drift limit": _drift_limit,
    "settled limit": _settled_limit,
}


def _other(part: Mapping[str, Any]) -> str:
    n = part["nearest"]
    return f"worst error {format_error(n['error'], n.get('error_scale'))} <= tolerance {format_number(n['tolerance'])}"


# -- one kind, where the statement was violated --------------------------------------------------------------


def violating_text(kind: str, part: Mapping[str, Any]) -> str:
    """What the case nearest to acceptance shows, in its kind's numbers."""
    n = part["nearest"]
    if kind == "property":
        return f"property fails: {n.get('property', '')}".rstrip(": ")
    if kind == "inequality":
        if n.get("lhs") is not None and n.get("rhs") is not None:
            return (f"lhs {format_number(n['lhs'])} > rhs {format_number(n['rhs'])} by "
                    f"{format_number(n['lhs'] - n['rhs'])} (tolerance {format_number(n['tolerance'])}, absolute)")
        return f"lhs over rhs by {format_number(n['error'])} (tolerance {format_number(n['tolerance'])})"
    if kind == "conserved rate":
        if n.get("unscaled_rate"):
            return f"dQ/dt = {format_number(n['unscaled_rate'])} where its scale is 0"
        return f"|dQ/dt| {format_number(n['error'])} of its scale > rounding bound {format_number(n['tolerance'])}"
    if kind == "drift order":
        return _drift_order(part, failing=True).replace("drift order:", "drift order, not conserved:")
    if kind == "nonzero rate":
        bound = n.get("rounding_bound")
        times = format_number(n["relative_rate"] / bound) if bound and n.get("relative_rate") is not None else "-"
        return f"rate {times} x its rounding bound, not shown nonzero (needs > {n.get('factor', 1):g} x)"
    if kind == "drift limit":
        return (f"drift limit {format_number(n.get('limit'))} +- {format_number(n.get('limit_error'))}, not shown "
                f"nonzero (needs |limit| >= {n.get('factor', 1):g} x its error)")
    if kind == "settled limit":
        return f"settled limit {n.get('outcome', 'violated')}: {_settled_interval(n)}"
    if kind == "trend":
        return "trend: " + trend_text([n])
    return f"error {format_error(n['error'], n.get('error_scale'))} > tolerance {format_number(n['tolerance'])}"


# -- trends --------------------------------------------------------------------------------------------------

_TREND_ORDER = ("refuted", "inconclusive", "verified")


def _shown_p(trend: Mapping[str, Any]) -> tuple[float | None, str]:
    """The p-value of the direction the trend concluded: against the prediction when refuted, else for it."""
    if trend.get("verdict") == "refuted":
        return trend.get("p_opposite"), "against the prediction"
    return trend.get("p_predicted"), ""


def trend_text(trends: list[Mapping[str, Any]]) -> str:
    """One trend: its effect, interval, p, runs and levels; several: their verdicts and the deciding one
    (the worst verdict; among those, the largest p shown)."""
    if not trends:
        return "-"

    def one(t: Mapping[str, Any]) -> str:
        interval = t.get("effect_interval")
        effect = format_number(t["effect"], signed=True) if t.get("effect") is not None else "-"
        if interval:
            effect += f" [{format_number(interval[0], signed=True)}, {format_number(interval[1], signed=True)}]"
        p, against = _shown_p(t)
        text = f"effect {effect}"
        if t.get("direction") == "none":
            text += f" (no effect within +-{t.get('min_effect', 0):g})"
        else:
            text += f", p {format_number(p)}" + (f" {against}" if against else "")
        runs = f", {t['n']} runs" if t.get("n") is not None else ""
        levels = f" at {t['levels']} levels" if t.get("levels") is not None else ""
        verdict = f" ({t['verdict']})" if t.get("verdict") else ""
        return text + runs + levels + verdict

    if len(trends) == 1:
        return one(trends[0])
    counts = {v: sum(t.get("verdict") == v for t in trends) for v in _TREND_ORDER}
    rank = {v: i for i, v in enumerate(_TREND_ORDER)}
    deciding = min(trends, key=lambda t: (rank.get(t.get("verdict"), -1), -(_shown_p(t)[0] or 0.0)))
    summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    statement = str(deciding.get("statement") or "")
    statement = statement if len(statement) <= 90 else statement[:87].rstrip() + "..."
    return f"{len(trends)} trends ({summary}); deciding: '{statement}': {one(deciding)}"


# -- headlines -----------------------------------------------------------------------------------------------


def kind_items(
    by_kind: Mapping[str, Any], trends: list[Mapping[str, Any]], side: str = "holding"
) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(kind, its line, its tally) per kind of check with cases on ``side``, in ``KINDS`` order (``OTHER`` last)."""
    items = []
    for kind in (*KINDS, OTHER, *(k for k in by_kind if k not in KINDS and k != OTHER)):
        part = (by_kind.get(kind) or {}).get(side)
        if not part or not part.get("checks"):
            continue
        if kind == "trend":
            line = "trend: " + trend_text(trends or [part["nearest"]])
        elif side == "violating":
            line = violating_text(kind, part)
        else:
            line = _HOLDING.get(kind, _other)(part)
        items.append((kind, line, part))
    return items


def kind_lines(by_kind: Mapping[str, Any], trends: list[Mapping[str, Any]], side: str = "holding") -> list[str]:
    """One line per kind of check with cases on ``side``, in ``KINDS`` order (``OTHER`` last)."""
    return [line for _, line, _ in kind_items(by_kind, trends, side)]


def claim_trends(entry: Mapping[str, Any], control: bool | None) -> list[Mapping[str, Any]]:
    """The entry's recorded trends: the controls' (``control`` True), the others' (False) or all (None)."""
    return _trends(entry, control)


def _trends(entry: Mapping[str, Any], control: bool | None) -> list[Mapping[str, Any]]:
    return [t for t in entry.get("trends") or [] if control is None or bool(t.get("control")) == control]


def claim_headline(c: Mapping[str, Any]) -> list[str]:
    """The claim's headline figures, one line per kind (see the module docstring)."""
    by_kind = entry_kinds(c)
    lines = kind_lines(by_kind, _trends(c, False))
    if lines:
        return lines
    return ["fails: " + line for line in kind_lines(by_kind, _trends(c, False), "violating")] or ["-"]


def per_test_headline(t: Mapping[str, Any]) -> list[str]:
    """A test's headline figures: where the statement held, and what its violating cases show (the printed
    statement's counterexample in an evidence test, the rejected cases of a negative control)."""
    by_kind = entry_kinds(t)
    control = t.get("role") == Role.CONTROL
    held = [] if control else kind_lines(by_kind, _trends(t, False))
    against = kind_lines(by_kind, _trends(t, True) if control else [], "violating")
    if not control:
        against = [] if not against else ["printed statement fails: " + "; ".join(against)]
    else:
        against = ["rejected: " + "; ".join(against)] if against else []
    return held + against or ["-"]


def reading(c: Mapping[str, Any]) -> str:
    """The verdict in one plain sentence."""
    verdict = c["verdict"]
    why = " ".join(c.get("why") or [])
    printed_fails = bool(c.get("counterexamples"))
    if verdict == "verified":
        return ("Holds as printed: every evidence test passed with informative cases, and the negative control "
                "shows the checks can fail.")
    if verdict == "verified-with-correction":
        return "False as printed (a counterexample is shown); holds with the correction given in its section."
    if verdict == "refuted" and c.get("origin") == "suite":
        return ("Answered no: a check found a counterexample to the suite's own question (a finding beyond the "
                "papers, not an error of a paper).")
    if verdict == "refuted":
        return "False as printed: a check found a counterexample, and no correction is claimed."
    if verdict == "not-reproduced":
        return ("Not reproduced at this scale: the effect was absent or reversed in a design that differs from the "
                "paper's setting (both are shown); no counterexample to the paper's statement.")
    if verdict == "inconclusive":
        printed = " The printed statement fails (a counterexample is shown)." if printed_fails else ""
        if "declared inconclusive" in why:
            text = "Undecided: a test fixed before the data came out neither way at this run's scale."
            if c.get("control_state") not in (None, "rejected"):
                text += f" Its negative control is {c['control_state']}."
            return text + printed
        if "The test lacked power" in why:
            return "Undecided: the test lacked power (a check of its own power fell short; see its reasons)." + printed
        if "could not have failed" in why:
            return "Undecided: the checks passed, but on no case where they could have failed." + printed
        if c.get("control_state") not in (None, "rejected"):
            return (f"Undecided: the checks passed, but the negative control ({c['control_state']}) does not show "
                    "that they can fail." + printed)
        return "Undecided: " + ((c.get("why") or ["see its section."])[0]) + printed
    if verdict == "not-run":
        skipped = [line for line in c.get("why") or [] if line.startswith("Skipped: ")]
        if skipped:
            return "Not run: " + skipped[0].removeprefix("Skipped: ")
        return "Not run: none of its tests finished in this selection."
    if verdict == "untested":
        return "Untested: the suite has no test for it."
    if verdict == "error":
        return "No verdict: a test broke (an exception, a non-finite value, or a failing finding)."
    return verdict


def case_text(case: Mapping[str, Any], violates: bool) -> str:
    """One recorded case (``{"error", "tolerance", "details"}``) in its kind's numbers."""
    details = dict(case.get("details") or {})
    kind = kind_of(details)
    tally = from_cases(None if violates else case, case if violates else None)
    side = "violating" if violates else "holding"
    part = (tally.get(kind) or {}).get(side)
    if part is None:
        return "-"
    if violates:
        return violating_text(kind, part)
    if kind == "trend":
        return "trend: " + trend_text([part["nearest"]])
    return _HOLDING.get(kind, _other)(part)

