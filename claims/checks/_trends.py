"""Trend checks: a hyperparameter's predicted effect on a response, judged by a rule fixed before the
data (statistics in ``claims.evidence._trend``), and its permuted-label control."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from claims.checks._core import _finite, _floats
from claims.evidence._numbers import format_apart, format_number
from claims.evidence._record import (
    ClaimViolation, count_cases_as, current, declare_verdict, plain, record_case, record_note,
)

RULE_LEAD = "; rule: "
"""How a trend's note introduces its decision rule, which runs to the parenthesis closing around it (``_judged``);
the report finds the rule there by this text (``claims.report._parts``, and ``claims.report._schema`` for an older
report, whose trends did not record it)."""
SCALE_LEAD = "; scale used: "
"""How a trend's note introduces the scale of its runs, which runs to the note's end (read back as ``RULE_LEAD``)."""

def _trend(levels: Sequence[float], responses: Sequence[float], rule: Any, check: str) -> Any:
    from claims.evidence._trend import TrendRule, trend_test

    if not isinstance(rule, TrendRule):
        raise TypeError(f"{check}: the rule is a claims.TrendRule fixed before the data, not {rule!r}")
    xs, ys = [float(v) for v in levels], _floats(list(responses))
    _finite("levels", xs, check)
    _finite("responses", ys, check)
    return trend_test(xs, ys, rule)


def _record_trend(
    trend: Any, levels: Sequence[float], responses: Sequence[float], statement: str, violates: bool, details: dict,
    control: bool = False, runs: int | None = None, rule: str | None = None, scale: str | None = None,
) -> None:
    """One trend case: error ``Trend.error`` against tolerance 1, with the test's numbers and the design;
    the case counts ``runs`` (default: one run per response). ``rule`` and ``scale`` are the decision rule and
    the scale of the runs as the trend's note states them (None: no note states them, a control's), kept with
    the trend so that the report names each once ("rule R1", "scale S1") from them, not from the note's prose."""
    if runs is not None and not 0 < runs <= trend.n:
        raise ValueError(f"a design of {trend.n} responses comes from 1 to {trend.n} runs, not {runs}")
    numbers = dict(
        trend.to_builtin(), statement=statement, design_levels=list(levels), responses=_floats(list(responses))
    )
    # every trend's summary, not only the worst case's: a comparison of two runs reads p and effect per trend
    current("check_trend").trends.append(plain({
        "statement": statement, "control": control, "verdict": trend.verdict,
        "p_predicted": trend.p_predicted, "p_opposite": trend.p_opposite, "alpha": trend.rule.alpha,
        "effect": trend.effect, "min_effect": trend.rule.min_effect, "n": trend.n,
        "detectable_effect": trend.detectable_effect, "uninformative": trend.uninformative,
        "direction": trend.rule.direction, "effect_interval": list(trend.effect_interval), "levels": trend.levels,
        "statistic": trend.rule.statistic, "rule": rule, "scale": scale,
    }))
    # a trend's case counts its runs (the report says "runs" unless the test named its unit), and an
    # uninformative design counts them all; several responses of one run (its layers) are one run
    count_cases_as("runs", unless_named=True)
    numbers.pop("uninformative")  # record_case keeps the reason with the case
    record_case(trend.error(), 1.0, violates=violates, uninformative=trend.uninformative, units=runs or trend.n,
                check_kind="trend", error_scale="relative", evidence="trend", **numbers, **details)


def check_trend(
    levels: Sequence[float], responses: Sequence[float], rule: Any, statement: str, declare: bool = True,
    runs: int | None = None, replica: tuple[Sequence[float], Sequence[float], str] | None = None, **details: Any,
) -> Any:
    """A trend claim (``statement``: the predicted effect of a hyperparameter on a response) judged
    by ``rule`` (a ``claims.TrendRule`` fixed before the data) on a design of runs: ``levels[i]``
    the hyperparameter of run i (several seeds per level), ``responses[i]`` what it measured.

    The test's outcome is the verdict, and the check records it rather than raising: ``verified``
    is a case where the statement holds; ``refuted`` (significant against the prediction) is a
    counterexample and the test declares ``refuted``; ``inconclusive`` is recorded with its numbers
    and the test declares ``inconclusive`` (a trend that does not reproduce at this scale is a
    result, not a broken run). Error = max(p / alpha, 2 - effect / min_effect) against tolerance 1
    (``Trend.error``). With ``declare=False`` the test states its verdict itself from the returned
    ``claims.evidence._trend.Trend`` (e.g. a correction that two designs together show). ``runs``: how many
    runs the responses come from when a run gives several (one per layer); the case counts runs.

    The permutation test treats the responses as exchangeable under no effect; with several responses per
    run, the caller centres them per run (so the run's own level drops out) or says why they are.

    ``replica`` = (levels, responses, perturbation): the same design's runs again under a rounding-level
    perturbation that ``perturbation`` names (e.g. float32 arithmetic with the same seeds and batches). Long SGD
    runs are chaotic, so a replica is another draw of every run, and a verdict the replica does not share hinges
    on rounding, not on the statement: the case is then uninformative (undecided), with both verdicts in its
    reason, and the trend returned is ``inconclusive``. When the two agree, the case is the design's, with the
    replica's numbers beside it (``replica_*``)."""
    trend = _trend(levels, responses, rule, "check_trend")
    undecided = None
    if replica is not None:
        trend, details, undecided = _against_replica(trend, replica, rule, details)
    judged = _judged(trend, levels, responses, rule, statement, declare, runs, details)
    if undecided:
        record_note(f"Trend '{statement}': {undecided}.")
    return judged


def _against_replica(trend, replica: tuple, rule: Any, details: dict) -> tuple[Any, dict, str | None]:
    """``trend`` judged against its ``replica`` (``check_trend``), the details with the replica's numbers, and
    why it is undecided (None when the two verdicts agree)."""
    replica_levels, replica_responses, perturbation = replica
    again = _trend(replica_levels, replica_responses, rule, "check_trend")
    details = {**details, "replica": perturbation, "replica_verdict": again.verdict, "replica_n": again.n,
               "replica_effect": again.effect, "replica_p_predicted": again.p_predicted,
               "replica_p_opposite": again.p_opposite}
    if again.verdict == trend.verdict:
        return trend, details, None
    reason = (f"undecided: the verdict changes under a rounding-level perturbation ({perturbation}): "
              f"{trend.verdict} (effect {format_number(trend.effect, signed=True)}, p "
              f"{format_number(trend.p_predicted)} predicted / {format_number(trend.p_opposite)} opposite, {trend.n} "
              f"runs) against {again.verdict} (effect {format_number(again.effect, signed=True)}, p "
              f"{format_number(again.p_predicted)} / {format_number(again.p_opposite)}, {again.n} runs), so it "
              "hinges on rounding, not on the statement")
    return replace(trend, verdict="inconclusive", uninformative=reason), details, reason


def _judged(trend, levels, responses, rule, statement: str, declare: bool, runs: int | None, details: dict) -> Any:
    """Record ``trend`` as a case, note its numbers and declare its verdict (``check_trend``, ``check_paired``)."""
    scale = details.get("scale")
    if isinstance(scale, dict):
        scale = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in scale.items() if k not in ("levels", "base"))
    memo = f"; the memo's scale: {details['memo_scale']}" if details.get("memo_scale") else ""
    stated_scale = f"{scale}{memo}" if scale else None  # the note's scale runs to its end, the memo's with it
    described = rule.describe()
    _record_trend(trend, levels, responses, statement, trend.verdict == "refuted", details, runs=runs,
                  rule=described, scale=stated_scale)
    low, high = trend.effect_interval
    paired = rule.statistic == "signed_rank"
    measure = "rank-biserial" if paired else rule.statistic
    record_note(
        f"{'Paired comparison' if paired else 'Trend'} '{statement}': {trend.verdict} ({measure} "
        f"{format_number(trend.correlation, signed=True)}, effect {format_number(trend.effect, signed=True)} "
        f"[{format_number(low, signed=True)}, {format_number(high, signed=True)}], one-sided p "
        f"{format_number(trend.p_predicted)} predicted / {format_number(trend.p_opposite)} opposite, "
        + (f"median difference {format_number(trend.slope, signed=True)} over {trend.n} runs" if paired
           else f"{trend.n} responses of {runs} runs" if runs else f"{trend.n} runs")
        + ("" if paired else f" at {trend.levels} levels") + f"{RULE_LEAD}{described})"
        + _power_sentence(trend, rule)
        + (f"{SCALE_LEAD}{stated_scale}" if stated_scale else memo)
        + "."
    )
    if trend.verdict != "verified" and declare:
        evidence = current("check_trend")
        if evidence.is_finding:  # a finding keeps its own verdict; the claim's rests on the test's own trends
            strength = ("refuted", "inconclusive")
            if evidence.verdict not in strength or strength.index(trend.verdict) < strength.index(evidence.verdict):
                evidence.verdict = trend.verdict
        else:
            declare_verdict(trend.verdict)
    return trend


def _power_sentence(trend, rule) -> str:
    """The design's power in words: the smallest effect it detects with power 0.8, and whether that is above the
    rule's minimum effect (effects between the two can go undetected: an ``inconclusive`` there is the design's)."""
    from claims.evidence._trend import POWER

    detectable = trend.detectable_effect
    if detectable is None:
        return f"; the design detects no effect with power {POWER}"
    # at the digits that tell it from the rule's minimum effect, which the sentence says it is above when it is
    shown = format_apart(detectable, rule.min_effect)[0]
    text = f"; the design detects effects of {shown} or more with power {POWER}"
    if detectable > rule.min_effect:
        text += f" (not the rule's minimum effect {rule.min_effect:g}: smaller effects can go undetected)"
    return text


def check_trend_rejected(
    levels: Sequence[float], responses: Sequence[float], rule: Any, statement: str, runs: int | None = None,
    **details: Any,
) -> Any:
    """Negative control for ``check_trend``: on a design where no effect is predicted (the
    hyperparameter labels permuted, ``claims.evidence._trend.permuted_levels``, or a factor the theory says
    is inert) the same rule must not come out ``verified``."""
    trend = _trend(levels, responses, rule, "check_trend_rejected")
    _record_trend(trend, levels, responses, statement, True, details, control=True, runs=runs)
    if trend.verdict == "verified":
        raise ClaimViolation(
            f"negative control accepted: '{statement}' came out verified on a design with no effect "
            f"(p {format_number(trend.p_predicted)}, correlation {format_number(trend.correlation, signed=True)})"
        )
    return trend


def _paired(compared: Sequence[float], reference: Sequence[float], rule: Any, check: str) -> tuple[Any, list, list]:
    from claims.evidence._paired import paired_test
    from claims.evidence._trend import TrendRule

    if not isinstance(rule, TrendRule) or rule.statistic != "signed_rank":
        raise TypeError(f"{check}: the rule is a claims.TrendRule with statistic 'signed_rank', not {rule!r}")
    upper, lower = _floats(list(compared)), _floats(list(reference))
    _finite("compared responses", upper, check)
    _finite("reference responses", lower, check)
    # the case's design: level 1 for the compared response of each run, 0 for its reference
    return paired_test(upper, lower, rule), [1.0] * len(upper) + [0.0] * len(lower), upper + lower


def check_paired(
    compared: Sequence[float], reference: Sequence[float], rule: Any, statement: str, declare: bool = True,
    **details: Any,
) -> Any:
    """A paired claim (``statement``: in each run, one response is above, or below, another of the same run, e.g.
    a network's bottom matrix's rank against its mid-layers') judged by ``rule`` (a ``claims.TrendRule`` with
    ``statistic="signed_rank"``, fixed before the data) over the runs' pairs (``compared[i]``, ``reference[i]``):
    ``claims.evidence._paired.paired_test``. Recorded and declared as ``check_trend`` does (verified, refuted,
    inconclusive; uninformative when the pairs are tied or saturated); the case counts the runs."""
    trend, levels, responses = _paired(compared, reference, rule, "check_paired")
    return _judged(trend, levels, responses, rule, statement, declare, trend.n, details)


def check_paired_rejected(
    compared: Sequence[float], reference: Sequence[float], rule: Any, statement: str, **details: Any,
) -> Any:
    """Negative control for ``check_paired``: on pairs where no difference is predicted (the labels swapped in
    half the runs, ``claims.evidence._paired.swapped_pairs``) the same rule must not come out ``verified``."""
    trend, levels, responses = _paired(compared, reference, rule, "check_paired_rejected")
    _record_trend(trend, levels, responses, statement, True, details, control=True, runs=trend.n)
    if trend.verdict == "verified":
        raise ClaimViolation(
            f"negative control accepted: '{statement}' came out verified on pairs with no difference "
            f"(p {format_number(trend.p_predicted)}, rank-biserial {format_number(trend.correlation, signed=True)})"
        )
    return trend
