"""claims.md: the claims report as Markdown, from the parts of ``claims.report._parts`` written with
the Markdown ``Markup`` (``MARKDOWN``), with its tables, lists and figure links."""

from __future__ import annotations

from typing import Any, Iterable

from claims.report._citation import citation_markdown
from claims.report._errata import ERRATA_FILE, claim_errata_line, paper_errors
from claims.report._model import report_digest
from claims.report._parts import (
    BEYOND_PAPERS,
    EVIDENCE_HEADER,
    GLOSSARY,
    GLOSSARY_ANCHOR,
    LEGEND,
    SETTING_HEADER,
    SUMMARY_HEADER,
    TEST_HEADER,
    Markup,
    claim_heading,
    claim_notes,
    evidence_rows,
    rule_lines,
    statement_label,
    counterexample_parts,
    finding_parts,
    papers_parts,
    partial_parts,
    reading_parts,
    run_lines,
    shows_section,
    summary_cells,
    summary_line,
    test_cells,
    unlisted_lines,
    beyond_paper_claims,
    paper_claims,
    power_lines,
    setting_rows,
    verdict_parts,
    violation_parts,
)


DETAILS_ELSEWHERE = ("Each claim's section below gives its statement, verdict, deciding evidence and figures; its "
                     "details (how it is read, why, setting, tests, findings, notes) are folded in claims.html "
                     "(claims.html#ID) and printed by `python -m claims show ID`.")
"""Where claims.md sends a reader for a claim's details, which it leaves out to stay short."""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


MARKDOWN = Markup(
    text=str, code=lambda s: f"`{s}`", strong=lambda s: f"**{s}**", emphasis=lambda s: f"*{s}*", cell=_cell,
    lines=lambda lines: _cell("; ".join(lines)),
)


def _table(header: Iterable[str], rows: Iterable[list[str]]) -> list[str]:
    header = list(header)
    return [f"| {' | '.join(header)} |", "|" + "---|" * len(header)] + [f"| {' | '.join(row)} |" for row in rows]


def render_markdown(report: dict[str, Any]) -> str:
    md = MARKDOWN.join
    citation = citation_markdown(report, report_digest(report), bibtex=False)
    lines = ["# Claims report", "", f"{summary_line(report)}.", "", citation]
    partial = partial_parts(report)
    if partial:
        lines += [md(partial), ""]
    lines += [md(parts) for parts in run_lines(report)]
    lines += ["", md(papers_parts(report)), "", md(LEGEND) + f" ([Glossary](#{GLOSSARY_ANCHOR}))", "",
              DETAILS_ELSEWHERE, ""]
    lines += _table(SUMMARY_HEADER, (summary_cells(c, MARKDOWN) for c in paper_claims(report)))
    if beyond_paper_claims(report):
        lines += ["", "## Questions beyond the papers", "", BEYOND_PAPERS, ""]
        lines += _table(SUMMARY_HEADER, (summary_cells(c, MARKDOWN) for c in beyond_paper_claims(report)))
    lines += [line for text in unlisted_lines(report) for line in ("", text)]
    lines += [
        "", f"Errata: {len(paper_errors(report))} errors of the papers, listed in [{ERRATA_FILE}]({ERRATA_FILE}).",
    ]
    lines.append("")
    for c in report["claims"]:
        if shows_section(c):
            lines += claim_section(c, details=False)
    lines += ["## Glossary", "", md(GLOSSARY), ""]
    return "\n".join(lines)


def _alt(caption: str) -> str:
    """A caption as Markdown image text: one line, no brackets that would end it."""
    return " ".join(caption.split()).replace("[", "(").replace("]", ")")


def claim_section(c: dict[str, Any], details: bool = True) -> list[str]:
    """One claim's section of claims.md (its lines), in three layers: the statement and the verdict sentence with
    its scale; the deciding evidence as a small table, the correction and errata; the figures. Then, with
    ``details`` (``python -m claims show`` prints them; claims.md leaves them to claims.html and ``show``): how
    the suite reads it, why, the setting, failures and counterexamples, the tests, findings, rules and notes."""
    md = MARKDOWN.join
    # one paragraph per layer, its lines joined by hard line breaks ("\\" at a line's end): the main text stays
    # short (claims.md's budget, ``claims.report._lint.BUDGETS``)
    first = [f"{statement_label(c)}: {c['statement']}", md(verdict_parts(c))]
    first += [f"Correction: {c['correction']}"] if c["correction"] else []
    first += [claim_errata_line(c)] if claim_errata_line(c) else []
    lines = [f"## {claim_heading(c)}"] + [line + "\\" for line in first[:-1]] + first[-1:]
    if evidence_rows(c):
        lines += [""] + _table(EVIDENCE_HEADER, ([_cell(v) for v in row] for row in evidence_rows(c)))
    figures = " ".join(f"![{_alt(figure['caption'])}]({figure['path']})" for figure in c["figures"])
    lines += ["", figures] if figures else []
    if not details:
        return lines
    how = reading_parts(c)
    if how:
        lines += ["", "### How the suite reads it"] + [line for parts in how for line in ("", md(parts))]
    lines += ["", "### Details", ""] + [f"- {reason}" for reason in c["why"] + power_lines(c)]
    if setting_rows(c):
        lines += [""] + _table(SETTING_HEADER, ([_cell(v) for v in row] for row in setting_rows(c)))
    for failure in c["violations"]:
        lines += ["", md(violation_parts(failure))]
        if failure["falsifying_example"]:
            lines += ["", "```", failure["falsifying_example"], "```"]
    for ce in c["counterexamples"]:
        lines += ["", md(counterexample_parts(ce))]
    lines += [""] + _table(TEST_HEADER, (test_cells(t, MARKDOWN) for t in c["evidence"]))
    rules, notes, finding_notes = claim_notes(c)
    for name, f in c["findings"].items():
        lines += ["", md(finding_parts(name, f))]
        lines += [f"- {note}" for note in finding_notes[name]]
    if notes:
        lines += [""] + [f"- {note}" for note in notes]
    if rules:
        lines += [""] + [f"- {line}" for line in rule_lines(rules)]
    lines.append("")
    return lines
