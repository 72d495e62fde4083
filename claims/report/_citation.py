"""Citing a claims report: a content digest of its results, and "How to cite this report".

The digest names the *results* of a run, not the run: two runs that found the same thing (same
verdicts, cases, errors, notes, figure paths) have the same digest whatever their xdist worker
count, timing and date, so a write-up can quote it and a reader can check a rerun against it.
It is the SHA-256 of the report's ``claims`` section as canonical JSON (sorted keys, no
whitespace, ASCII) with the volatile keys removed: per-test ``duration`` and every key that holds
a wall time (``VOLATILE_KEYS``). Figure PNG bytes are never part of the report; their paths are
stable names, so they stay in.

``PAPERS`` holds the bibliographic records of the three papers, pinned to the versions whose texts
the claims were encoded from; ``CITATION.cff`` repeats them (``tests/plugin/test_citation.py`` checks that
the two agree) and the citation block renders them as BibTeX.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from dataclasses import dataclass
from typing import Any

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
        entry["evidence"] = [{k: v for k, v in t.items() if k not in PER_TEST_VOLATILE} for t in entry.get("evidence", [])]
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


# ---------------------------------------------------------------------------------------- papers


@dataclass(frozen=True)
class Paper:
    """One paper as the claims were encoded from it: the version is the one whose text is in the
    project's paper collection (``version`` says how that version is identified, and what the text
    itself does not state)."""

    key: str  # the claims' ID prefix
    bibtex_key: str
    bibtex_type: str
    cff_type: str
    title: str
    authors: tuple[tuple[str, str], ...]  # (given names, family name)
    year: int
    url: str
    identifiers: tuple[tuple[str, str], ...]  # (value, description), as in CITATION.cff
    bibtex_fields: tuple[tuple[str, str], ...]
    version: str


PAPERS: tuple[Paper, ...] = (
    Paper(
        key="LJ22",
        bibtex_key="le2022training",
        bibtex_type="inproceedings",
        cff_type="conference-paper",
        title="Training invariances and the low-rank phenomenon: beyond linear networks",
        authors=(("Thien", "Le"), ("Stefanie", "Jegelka")),
        year=2022,
        url="https://openreview.net/forum?id=XEW8CQgArno",
        identifiers=(
            ("openreview:XEW8CQgArno", "ICLR 2022 camera-ready on OpenReview (the text is headed 'Published as a "
             "conference paper at ICLR 2022')"),
            ("arXiv:2201.11968", "arXiv preprint; which arXiv version matches the text is not stated in it"),
        ),
        bibtex_fields=(
            ("booktitle", "International Conference on Learning Representations (ICLR)"),
            ("note", "OpenReview XEW8CQgArno; also arXiv:2201.11968 (arXiv version not stated in the text)"),
        ),
        version="ICLR 2022 published version ('Published as a conference paper at ICLR 2022'); no arXiv version "
        "is stated in the text",
    ),
    Paper(
        key="GP22",
        bibtex_key="galanti2022sgd",
        bibtex_type="techreport",
        cff_type="report",
        title="SGD Noise and Implicit Low-Rank Bias in Deep Neural Networks",
        authors=(("Tomer", "Galanti"), ("Tomaso", "Poggio")),
        year=2022,
        url="https://hdl.handle.net/1721.1/141380",
        identifiers=(
            ("CBMM Memo No. 134, 2022-03-28", "memo number and date as printed on the text's cover page"),
        ),
        bibtex_fields=(
            ("institution", "Center for Brains, Minds and Machines (CBMM), MIT"),
            ("type", "CBMM Memo"),
            ("number", "134"),
            ("month", "mar"),
            ("note", "Dated March 28, 2022"),
        ),
        version="CBMM Memo No. 134 dated March 28, 2022 (stated on the cover page)",
    ),
    Paper(
        key="BSJ25",
        bibtex_key="bantzis2025saddle",
        bibtex_type="misc",
        cff_type="article",
        title="Saddle-To-Saddle Dynamics in Deep ReLU Networks: Low-Rank Bias in the First Saddle Escape",
        authors=(("Ioannis", "Bantzis"), ("James B.", "Simon"), ("Arthur", "Jacot")),
        year=2025,
        url="https://arxiv.org/abs/2505.21722v1",
        identifiers=(
            ("arXiv:2505.21722v1", "version inferred, not stated in the text: its abstract is v1's (v2 rewrote it)"),
        ),
        bibtex_fields=(
            ("eprint", "2505.21722v1"),
            ("archivePrefix", "arXiv"),
            ("note", "Preprint, version 1 (May 2025)"),
        ),
        version="arXiv:2505.21722v1 (inferred from the abstract; the text states no arXiv ID or version)",
    ),
)


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


def citation_markdown(report: dict[str, Any], digest: str) -> str:
    """The block for claims.md, as a bold-led paragraph (not a heading: the run's details follow it)."""
    lines = [f"**How to cite this report.** {_INTRO}", ""]
    lines += [f"- {label}: {value}" for label, value in citation_facts(report, digest)]
    lines += ["", "<details><summary>BibTeX: this report and the three papers</summary>", "", "```bibtex",
              _bibtex_text(report, digest), "```", "", "</details>", ""]
    return "\n".join(lines)


def citation_html(report: dict[str, Any], digest: str) -> str:
    esc = html.escape
    items = "".join(f"<li>{esc(label)}: <code>{esc(value)}</code></li>" for label, value in citation_facts(report, digest))
    return (
        '<section id="how-to-cite"><h2>How to cite this report</h2>'
        f"<p>{esc(_INTRO)}</p><ul>{items}</ul>"
        "<details><summary>BibTeX: this report and the three papers</summary>"
        f"<pre>{esc(_bibtex_text(report, digest))}</pre></details></section>"
    )


def citation_block(report: dict[str, Any], digest: str | None = None) -> dict[str, str]:
    """``{"markdown": ..., "html": ...}``: the "How to cite this report" block in both renderings."""
    digest = digest or content_digest(report)
    return {"markdown": citation_markdown(report, digest), "html": citation_html(report, digest)}
