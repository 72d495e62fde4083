"""Reading an older report as a current one: ``upgrade`` fills, once, where a report is read from disk
(``claims.report._history.load_report``, behind every command of ``python -m claims`` and the plugin's
baseline), the fields that a report written before them lacks, and renames what a report of schema 2 named
otherwise. The renderers and the comparison then read each field as the current run writes it, instead of
each guessing a default.

Schema ``lowrank-claims/report/3`` renamed two things of schema 2 (``UPGRADABLE``), which ``upgrade`` renames
back into place: a claim's control state, ``negative_control`` (a status string, never a boolean), is
``control_state``, in the same position among the claim's keys; and a test's role is its ``role`` alone (schema 2
wrote the boolean ``negative_control`` beside it, which goes, and gives ``role`` where a report lacks it). The
upgraded report says schema 3.

Schema 2 grew by fields, not by versions, so a field's absence says what a report is from
(``tests/data/README.md`` keeps one of each):

- before digests, no ``citation.digest``: the digest of the report's content as stored, computed first,
  before any field is filled (the digest hashes the claims, which the other fields change);
- before scoped verdicts, no claim ``origin`` (every claim is a paper's), ``setting`` or ``at_paper_setting``
  (none) and no ``summary_beyond_papers`` (no question beyond the papers, so none counted);
- before the kinds' tallies, no ``by_kind`` (a test's is read from its recorded cases, ``from_cases``; a
  claim's is its evidence tests' merged);
- before errata, no claim ``errata`` (none recorded);
- before the readings were recorded, no claim ``tested_as`` or ``extraction`` (none); before figures, power checks
  and degenerate reasons, no claim ``figures``, test ``power`` or ``degenerate_why`` (none); before findings'
  trends, a finding without ``trends`` (none); a claim with ``evidence`` null gets an empty list;
- before the trends' rules were recorded, a trend without ``rule`` or ``scale``: read from the first note that
  states its statement's (``claims.checks._trends``: "Trend '<statement>': ... ; rule: <rule>) ... ; scale
  used: <scale>."), the one place the report layer reads them from prose; none when no note states them.

The report as stored is what its digest covers (``claims.report._citation.digest_mismatch``), so
``load_report`` checks the digest before it upgrades.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Mapping

from claims.checks._trends import RULE_LEAD, SCALE_LEAD
from claims.evidence._kinds import from_cases, kind_of, merge
from claims.evidence._role import Role, encode_role
from claims.report._citation import content_digest
from claims.report._model import SCHEMA
from claims.report._scope import PAPER, counted, summaries


UPGRADABLE = ("lowrank-claims/report/2",)
"""The older schemas a report may be of and still be read, as this one (``upgrade``)."""
OLD_CONTROL_STATE = "negative_control"
"""A claim's control state under its schema-2 name (``control_state`` since schema 3)."""

_CLAIM_DEFAULTS = (("origin", PAPER), ("errata", []), ("tested_as", None), ("extraction", None), ("setting", None),
                   ("at_paper_setting", None), ("figures", []), ("correction", None), ("violations", []),
                   ("findings", {}))
"""A claim's fields an older report may lack, with the value that says what it is from: every claim a paper's, no
erratum, no reading, no setting (not an empirical claim's), no figure, no correction, violation or finding."""
_TEST_DEFAULTS = (("power", []), ("degenerate_why", {}))
"""A test's fields an older report may lack: no power check, no reason kept for its degenerate cases."""


def upgrade(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (validated: ``claims.report._validate``) with every field the current schema writes, filled
    in place where it was missing (see the module's docstring); returned."""
    citation = report.get("citation") or {}
    if not citation.get("digest"):
        report["citation"] = {**citation, "digest": content_digest(report)}
    for claim in report["claims"]:
        _rename(claim, OLD_CONTROL_STATE, "control_state")
        if claim.get("evidence") is None:  # absent or null: ``validate_report`` accepts both
            claim["evidence"] = []
        for field, default in _CLAIM_DEFAULTS:
            claim.setdefault(field, copy.copy(default))
        for finding in (claim.get("findings") or {}).values():
            finding.setdefault("trends", [])
        tests = claim["evidence"]
        for test in tests:
            _one_role_field(test)
            for field, default in _TEST_DEFAULTS:
                test.setdefault(field, copy.copy(default))
            if test.get("by_kind") is None:
                test["by_kind"] = _tally_from_cases(test)
        if claim.get("by_kind") is None:  # merged before the ranges are filled: a merge joins recorded ranges only
            claim["by_kind"] = merge(t["by_kind"] for t in tests if t["role"] != Role.CONTROL)
    for claim in report["claims"]:
        _with_stated_rules(claim)
    if "summary_beyond_papers" not in report:
        report["summary_beyond_papers"] = summaries(counted(report["claims"], report["run"]),
                                                    tuple(report["summary"]))[1]
    report["schema"] = SCHEMA
    return report


def _rename(entry: dict[str, Any], old: str, new: str) -> None:
    """``entry``'s key ``old`` (if any) named ``new``, in place and in the same place among its keys (the JSON
    written from an upgraded report keeps the order a current run writes)."""
    if old in entry:
        renamed = {new if key == old else key: value for key, value in entry.items()}
        entry.clear()
        entry.update(renamed)


def _one_role_field(test: dict[str, Any]) -> None:
    """A test's role in its one field, ``role`` (``claims.evidence._role.Role``'s word): a report of schema 2
    also wrote it as the boolean ``negative_control``, which goes (and gives the role where ``role`` is absent)."""
    flagged = test.pop("negative_control", None)
    if "role" not in test:
        test["role"] = encode_role(Role.of_marker(bool(flagged)))


def _tally_from_cases(test: Mapping[str, Any]) -> dict[str, Any]:
    """A test's ``by_kind`` read from its shown case (a report from before the tallies recorded one case)."""
    if test.get("max_error") is None:
        return {}
    details = test.get("details") or {}
    case = {"error": test["max_error"], "tolerance": test["tolerance"], "details": details}
    # the shown case is the holding one when the test has one; a trend undecided at this scale is a holding case
    # beyond its tolerance, a refuted one a violating case
    if kind_of(details) == "trend":
        violates = test["role"] == Role.CONTROL or details.get("verdict") == "refuted"
    else:
        violates = test["role"] == Role.CONTROL or test["max_error"] > test["tolerance"]
    return from_cases(None if violates else case, case if violates else None)



_TREND_NOTE = re.compile(r"^(?:Trend|Paired comparison) '(.*?)': ")


def _rule_end(note: str, start: int) -> int:
    """Where a rule's text that starts at ``start`` ends: at the parenthesis that closes the one it sits in."""
    depth = 0
    for i in range(start, len(note)):
        depth += {"(": 1, ")": -1}.get(note[i], 0)
        if depth < 0:
            return i
    return len(note)


def _stated_in_notes(notes: list[str]) -> dict[str, list[tuple[str, str | None]]]:
    """{statement: [(its rule, its scale or None), ...]}, in the order the notes state them (a statement can be
    judged twice, under two rules)."""
    stated: dict[str, list[tuple[str, str | None]]] = {}
    for note in notes:
        match, at = _TREND_NOTE.match(note), note.find(RULE_LEAD)
        if match and at >= 0:
            start, at_scale = at + len(RULE_LEAD), note.find(SCALE_LEAD)
            scale = note[at_scale + len(SCALE_LEAD):].removesuffix(".") if at_scale >= 0 else None
            stated.setdefault(match.group(1), []).append((note[start:_rule_end(note, start)], scale))
    return stated


def _fill_rules(trends: list[dict[str, Any]], stated: dict[str, list[tuple[str, str | None]]]) -> None:
    """Each of ``trends`` without ``rule`` gets the rule and scale of the note that states its statement, the k-th
    trend of a statement the k-th note (the last when the notes, which a claim keeps once each, run out)."""
    seen: dict[str, int] = {}
    for trend in trends:
        statement = trend.get("statement")
        options = stated.get(statement) or [(None, None)]
        if "rule" not in trend:
            trend["rule"], trend["scale"] = options[min(seen.get(statement, 0), len(options) - 1)]
        seen[statement] = seen.get(statement, 0) + 1


def _with_stated_rules(claim: dict[str, Any]) -> None:
    """Each trend of the claim without ``rule``: its tests' and the claim's own from the claim's notes, a finding's
    from the finding's notes."""
    own = _stated_in_notes(claim.get("notes") or [])
    for test in claim.get("evidence") or []:
        _fill_rules(test.get("trends") or [], own)
    _fill_rules(claim.get("trends") or [], own)
    for finding in (claim.get("findings") or {}).values():
        _fill_rules(finding.get("trends") or [], _stated_in_notes(finding.get("notes") or []) or own)
