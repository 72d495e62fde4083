"""Citing a claims report: a content digest of its results, and "How to cite this report".

Only a full, complete run in which no test failed or ended in an error is citable
(``not_citable_because``): a partial or incomplete run's report, or one with a failed or errored test
(``failed_tests``: a per-test ``outcome`` of ``failed`` or ``error`` in a claim's ``evidence``), carries a
"Not citable" banner instead of the block (with the failed tests and the claims they touch),
``citation.citable`` false in its JSON, and ``python -m claims cite`` refuses it.

The digest names the *results* of a run, not the run: two runs that found the same thing (same
verdicts, cases, errors, notes, figure paths) have the same digest whatever their xdist worker
count, timing and date, so a write-up can quote it and a reader can check a rerun against it.
It is the SHA-256 of the report's ``claims`` section as canonical JSON (sorted keys, no
whitespace, ASCII) with the volatile keys removed: per-test ``duration`` and every key that holds
a wall time (``VOLATILE_KEYS``). Figure PNG bytes are never part of the report; their paths are
stable names, so they stay in.

A report read back is checked against its digest (``digest_mismatch``): ``python -m claims cite`` and
``compare`` refuse a report whose content no longer hashes to its stored digest (one verdict edited in a copy
of claims.json), naming both digests. A history entry drops each test's ``series``, so it cannot match the
full report's digest: it carries its own, ``citation.entry_digest`` (the digest of what the entry holds,
``ENTRY_DIGEST``), and is checked against that. A report with neither to check (no digest at all, or a history
entry saved before entries had their own) is read unchecked (``digest_checkable`` says so).

``PAPERS`` is every paper's bibliographic record (``claims/evidence/papers/``, one file per paper),
pinned to the versions whose texts the claims were encoded from: the citation block renders them as
BibTeX, and the ``references`` of ``CITATION.cff`` are rendered from them by ``cff_references_text``
(``python -m claims citation-references``; ``tests/plugin/test_citation.py`` checks that the file is
current).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from typing import Any

from claims.evidence._paper import Paper
from claims.evidence._registry import PAPER_RECORDS

DIGEST_OF = "claims section, canonical JSON, without durations and wall times"

VOLATILE_KEYS = re.compile(r"wall")
"""Keys (at any depth of a claim entry) whose values are wall-clock times: ``training_wall_time_s``
(GP22 trend tests' details), ``sweep_wall_time_s`` (BSJ25 width sweeps' details), and any later
``*wall*`` column. Flow or proof times (``time``, ``times``, ``proof_time``) are results and stay."""

PER_TEST_VOLATILE = ("duration",)
"""Keys of a per-test entry (``claims[i]["evidence"][j]``) that measure the run, not the result."""


def _without_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_volatile(v) for k, v in value.items() if not VOLATILE_KEYS.search(k)}
    if isinstance(value, list):
        return [_without_volatile(v) for v in value]
    return value


def stable_claims(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's ``claims`` section without per-test durations and wall times: what the digest hashes."""
    claims = []
    for claim in report["claims"]:
        entry = _without_volatile(claim)
        entry["evidence"] = [
            {k: v for k, v in t.items() if k not in PER_TEST_VOLATILE} for t in entry.get("evidence", [])
        ]
        claims.append(entry)
    return claims


def _canonical(value: Any) -> Any:
    """Non-finite floats as their names (as the report's JSON writes them), so that a report and the
    same report read back from ``claims.json`` have one digest."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def content_digest(report: dict[str, Any]) -> str:
    """SHA-256 (hex) of ``stable_claims(report)`` as canonical JSON."""
    text = json.dumps(_canonical(stable_claims(report)), sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


ENTRY_DIGEST = "entry_digest"
"""The key of ``citation`` that a history entry (the report without its tests' ``series``) stores its own
content digest under: the full report's ``digest`` hashes the series too, so an entry cannot be checked
against it."""


def series_dropped(report: dict[str, Any]) -> bool:
    """Whether some test of the report has no ``series`` key (a history entry: ``save_run`` drops them)."""
    tests = (t for c in report.get("claims") or [] if isinstance(c, dict) for t in c.get("evidence") or [])
    return any(isinstance(t, dict) and "series" not in t for t in tests)


def _stored_digest(report: dict[str, Any]) -> tuple[str, str | None]:
    """Which stored digest the report's content must hash to: (its name, its value or None)."""
    citation = report.get("citation") or {}
    if series_dropped(report):
        return "entry digest", citation.get(ENTRY_DIGEST)
    return "digest", citation.get("digest")


def digest_checkable(report: dict[str, Any]) -> bool:
    """Whether the report stores a digest its content can be checked against (``digest_mismatch``)."""
    return bool(_stored_digest(report)[1])


def digest_mismatch(report: dict[str, Any]) -> str | None:
    """Why the report's content is not the content its stored digest names (both digests), or None when
    it is, or when there is nothing to check (``digest_checkable``)."""
    name, stored = _stored_digest(report)
    if not stored:
        return None
    computed = content_digest(report)
    if computed == stored:
        return None
    return (f"its content does not match its stored {name}: stored sha256:{stored}, computed from its "
            f"content sha256:{computed}; it was changed after the run wrote it (use the report the run "
            "wrote, or rerun)")


# ---------------------------------------------------------------------------------------- papers

PAPERS: tuple[Paper, ...] = PAPER_RECORDS
"""Every paper's record (``claims/evidence/papers/``, one file per paper), in ``Paper.order``."""

_COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def papers_phrase(count: int) -> str:
    """'the three papers', 'the paper', 'the 12 papers': how the citation block names the papers."""
    if count == 1:
        return "the paper"
    return f"the {_COUNT_WORDS[count] if count < len(_COUNT_WORDS) else count} papers"


def _bibtex(entry_type: str, key: str, fields: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"  {name} = {value if name == 'month' else '{' + value + '}'}" for name, value in fields)
    return f"@{entry_type}{{{key},\n{body}\n}}"


def paper_bibtex(paper: Paper) -> str:
    authors = " and ".join(f"{family}, {given}" for given, family in paper.authors)
    fields = [("author", authors), ("title", "{" + paper.title + "}"), *paper.bibtex_fields,
              ("year", str(paper.year)), ("url", paper.url)]
    return _bibtex(paper.bibtex_type, paper.bibtex_key, fields)


def report_bibtex(report: dict[str, Any], digest: str) -> str:
    """A @misc entry for the report itself: the suite version, commit and digest identify what it says."""
    run = report["run"]
    version = run["versions"].get("lowrank-claims")
    git = run.get("git") or {}
    commit = git.get("commit") or "unknown"
    dirty = " (dirty)" if git.get("dirty") else ""
    fields = [
        ("author", "{lowrank-claims contributors}"),
        ("title", f"lowrank-claims {version}: claims report"),
        ("year", run["started"][:4]),
        ("howpublished", f"Claims report of lowrank-claims {version}, Hypothesis profile {run['profile']}"),
        ("note", f"git commit {commit}{dirty}; content digest sha256:{digest}; run {run['started']}"),
    ]
    return _bibtex("misc", f"lowrank-claims-report-{digest[:12]}", fields)


# -------------------------------------------------------------------------------------- citable


FAILED_OUTCOMES = ("failed", "error")
"""The per-test outcomes that make a report not citable: a check that found a counterexample its test did
not expect (or a control that accepted), and a test that broke (setup, teardown, a NaN, a failing finding)."""

SHOWN_FAILURES = 10
"""At most this many failed tests named in ``not_citable_because``'s sentence; the report lists them all."""


def failed_tests(report: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """Every test of the report whose outcome is ``failed`` or ``error``, once each in report order:
    (nodeid, outcome, the IDs of the claims it evidences)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for claim in report.get("claims") or []:
        for test in claim.get("evidence") or []:
            if isinstance(test, dict) and test.get("outcome") in FAILED_OUTCOMES:
                _, ids = found.setdefault(str(test.get("nodeid")), (test["outcome"], []))
                if claim.get("id") not in ids:
                    ids.append(claim.get("id"))
    return [(nodeid, outcome, ids) for nodeid, (outcome, ids) in found.items()]


def failed_test_text(nodeid: str, outcome: str, claim_ids: list[str]) -> str:
    """One failed test as the report and the terminal name it: ``t.py::test_a (failed; LJ22.L1)``."""
    return f"{nodeid} ({outcome}; {', '.join(claim_ids)})"


def not_citable_because(report: dict[str, Any]) -> str | None:
    """Why ``report`` must not be cited, or None when it may be: only a full, complete run in which every
    test that finished passed reports on the suite. A partial run selected some claim tests (every other
    claim reads not-run), and an incomplete run stopped before every selected test finished; either would be
    cited as the suite's finding. A failed or errored test (``failed_tests``) is a result the suite did not
    expect (a check's counterexample, a control that accepted) or a broken test: its claims' verdicts are the
    run's accident until someone has looked."""
    run = report.get("run") or {}
    reasons = []
    if run.get("selection") == "partial":
        reasons.append("it is the report of a partial run (only some claim tests were selected)")
    elif not run.get("complete"):
        reasons.append("it is the report of an incomplete run (not every selected test finished)")
    failures = failed_tests(report)
    if failures:
        shown = "; ".join(failed_test_text(*failure) for failure in failures[:SHOWN_FAILURES])
        more = f"; and {len(failures) - SHOWN_FAILURES} more" if len(failures) > SHOWN_FAILURES else ""
        count = f"{len(failures)} test{'s' if len(failures) > 1 else ''}"
        reasons.append(f"{count} of the run failed or ended in an error ({shown}{more})")
    return "; ".join(reasons) or None


NOT_CITABLE_ADVICE = (
    "cite the report of a full, complete run in which no test failed or ended in an error "
    "(pytest -n auto writes it to reports/)"
)


# -------------------------------------------------------------------------------- citation block


def citation_facts(report: dict[str, Any], digest: str) -> list[tuple[str, str]]:
    """(label, value) lines of the block, shared by its Markdown and HTML renderings."""
    run = report["run"]
    git = run.get("git") or {}
    dirty = {True: " (dirty: uncommitted changes)", False: " (clean)"}.get(git.get("dirty"), " (dirty flag unknown)")
    seed = run.get("hypothesis_seed")
    return [
        ("Suite", f"lowrank-claims {run['versions'].get('lowrank-claims')}"),
        ("Git commit", f"{git.get('commit') or 'unknown'}{dirty}"),
        ("Content digest", f"sha256:{digest} ({DIGEST_OF})"),
        ("Hypothesis profile", str(run["profile"])),
        ("Hypothesis seed", "derandomized" if seed is None else str(seed)),
        ("Run date", str(run["started"])),
    ]


_INTRO = (
    "Cite the suite (CITATION.cff), the commit and the content digest; the digest hashes the results "
    "only, so a rerun that finds the same can be checked against it. Link a claim as claims.html#ID."
)


def _bibtex_text(report: dict[str, Any], digest: str) -> str:
    return "\n\n".join([report_bibtex(report, digest), *(paper_bibtex(p) for p in PAPERS)])


def citation_markdown(report: dict[str, Any], digest: str, bibtex: bool = True) -> str:
    """The block for claims.md, as a bold-led paragraph (not a heading: the run's details follow it);
    for a report that is not citable, a banner that says so instead (no BibTeX). Without ``bibtex``, a line
    that says where the BibTeX is (``python -m claims cite``, claims.html) in its place."""
    why = not_citable_because(report)
    if why is not None:
        banner = (f"> **Not citable.** This report must not be cited: {why}. "
                  f"To cite results, {NOT_CITABLE_ADVICE}.\n")
        failures = failed_tests(report)
        if failures:
            banner += ">\n> Failed or errored tests, and the claims they touch:\n>\n" + "".join(
                f"> - `{nodeid}`: {outcome} ({', '.join(ids)})\n" for nodeid, outcome, ids in failures)
        return banner
    lines = [f"**How to cite this report.** {_INTRO}", ""]
    facts = citation_facts(report, digest)
    if not bibtex:  # claims.md: the facts on one line (its line budget), the BibTeX left to `cite` and claims.html
        return "\n".join(lines[:-1] + ["; ".join(f"{label}: {value}" for label, value in facts) + ".", "",
                                       "BibTeX: `python -m claims cite` prints it; claims.html holds it too.", ""])
    lines += [f"- {label}: {value}" for label, value in facts]
    lines += ["", f"<details><summary>BibTeX: this report and {papers_phrase(len(PAPERS))}</summary>", "", "```bibtex",
              _bibtex_text(report, digest), "```", "", "</details>", ""]
    return "\n".join(lines)


_BANNER_STYLE = "border: 2px solid #b3261e; background: #fdf0ef; padding: 0.3rem 1rem; margin: 1rem 0;"


def citation_html(report: dict[str, Any], digest: str) -> str:
    esc = html.escape
    why = not_citable_because(report)
    if why is not None:
        failures = failed_tests(report)
        listed = "".join(f"<li><code>{esc(nodeid)}</code>: {esc(outcome)} ({esc(', '.join(ids))})</li>"
                         for nodeid, outcome, ids in failures)
        if listed:
            listed = f"<p>Failed or errored tests, and the claims they touch:</p><ul>{listed}</ul>"
        return (
            f'<section id="not-citable" class="not-citable" style="{_BANNER_STYLE}"><p><strong>Not citable.</strong> '
            f"This report must not be cited: {esc(why)}. To cite results, {esc(NOT_CITABLE_ADVICE)}.</p>"
            f"{listed}</section>"
        )
    items = "".join(
        f"<li>{esc(label)}: <code>{esc(value)}</code></li>" for label, value in citation_facts(report, digest)
    )
    return (
        '<section id="how-to-cite"><h2>How to cite this report</h2>'
        f"<p>{esc(_INTRO)}</p><ul>{items}</ul>"
        f"<details><summary>BibTeX: this report and {papers_phrase(len(PAPERS))}</summary>"
        f"<pre>{esc(_bibtex_text(report, digest))}</pre></details></section>"
    )


def citation_text(report: dict[str, Any], digest: str | None = None) -> str:
    """The citation of ``report`` as plain text (``python -m claims cite``): its facts and BibTeX.
    Raises ``ValueError`` (why, and what to cite instead) for a report that is not citable."""
    why = not_citable_because(report)
    if why is not None:
        raise ValueError(f"not citable: {why}; {NOT_CITABLE_ADVICE}")
    digest = digest or (report.get("citation") or {}).get("digest") or content_digest(report)
    facts = [f"{label}: {value}" for label, value in citation_facts(report, digest)]
    return "\n".join([*facts, "", _bibtex_text(report, digest), ""])


def citation_block(report: dict[str, Any], digest: str | None = None) -> dict[str, str]:
    """``{"markdown": ..., "html": ...}``: the "How to cite this report" block in both renderings."""
    digest = digest or content_digest(report)
    return {"markdown": citation_markdown(report, digest), "html": citation_html(report, digest)}
