"""The errata sheet: every error of the papers that the claim tests recorded (``claims.record_erratum``),
gathered from a report's claim entries, grouped by paper and sorted by ID, each with its severity, where
it is, what is printed, what is correct, the numbers of its smallest counterexample, and a link to its
claim's section of claims.html.

Written as ``errata.md`` beside claims.md (``claims.report._write``), as the "Errata" section of
claims.html, and printed by ``python -m claims errata [REPORT]``. A report from before errata has none (its
claims get an empty ``errata`` where it is loaded: ``claims.report._schema.upgrade``).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any

from claims.evidence._erratum import SEVERITIES, see_also
from claims.report._headline import format_number
from claims.report._model import report_digest
from claims.report._scope import SUITE

ERRATA_FILE = "errata.md"
HTML_ANCHOR = "errata"
"""The errata section's id in claims.html (``claims.html#errata``)."""

_NUMBER = re.compile(r"(\d+)")


def id_order(erratum_id: str) -> list[Any]:
    """Natural order of IDs: ``LJ22.L2b-E1`` < ``LJ22.L3-E1`` < ``LJ22.L11-E1``, ``-E2`` < ``-E10``."""
    return [int(part) if part.isdigit() else part for part in _NUMBER.split(erratum_id)]


def report_errata(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every erratum of the report, by paper (the report's order of papers), then by ID; a question beyond the
    papers (``origin`` "suite") has none: it is no paper's error."""
    papers = list(report.get("papers") or {})
    errata = [e for c in report["claims"] if c["origin"] != SUITE for e in c["errata"]]
    return sorted(errata, key=lambda e: (papers.index(e["paper"]) if e["paper"] in papers else len(papers),
                                         id_order(e["id"])))


NOT_ERRORS = ("hypothesis not needed, statement holds",)
"""Severities of entries that are no error of the paper (the statement holds; it asks more than it needs): listed
on the sheet apart from the errors and never counted among them."""


def is_error(erratum: dict[str, Any]) -> bool:
    """Whether an entry is an error of its paper (its severity is not one of ``NOT_ERRORS``)."""
    return erratum["severity"] not in NOT_ERRORS


def paper_errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's errata that are errors of a paper (``report_errata`` without ``NOT_ERRORS``)."""
    return [e for e in report_errata(report) if is_error(e)]


def not_errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries that are no error: a hypothesis not needed, the statement holds."""
    return [e for e in report_errata(report) if not is_error(e)]


def sheet_groups(report: dict[str, Any], errata: list[dict[str, Any]]) -> list[tuple[str | None, list[dict]]]:
    """The sheet's entries as the renderings list them: each paper's errors (paper key, entries), then the
    entries that are no error (None, entries)."""
    papers = report.get("papers") or {}
    groups: list[tuple[str | None, list[dict]]] = [
        (paper, [e for e in errata if e["paper"] == paper and is_error(e)]) for paper in papers]
    return groups + [(None, [e for e in errata if not is_error(e)])]


def refuted_without_errata(report: dict[str, Any]) -> list[str]:
    """The papers' claims that a passing test declared ``refuted`` yet that have no erratum: a refutation is an
    error of the paper, and the sheet must carry it (the report lint fails the session on one). A refutation by
    a failing test is no declared finding: its run is red and not citable, and its report names the test."""
    return [c["id"] for c in report["claims"] if c["verdict"] == "refuted" and c["origin"] != SUITE
            and not c["errata"] and not c["violations"]]


def findings_list(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(claim ID, finding name) of every finding beyond a statement that the report's claims recorded."""
    return [(c["id"], name) for c in report["claims"] for name in c["findings"]]


def corrections_without_errata(report: dict[str, Any]) -> list[str]:
    """The claims whose entry states a correction but lists no erratum (the errata sheet must hold every
    correction; the plugin makes a test that declares one without an erratum an error)."""
    return [c["id"] for c in report["claims"] if c["correction"] and not c["errata"]]


COUNTEREXAMPLE_DIGITS = 6
"""A counterexample's numbers keep 6 significant digits (the report's other numbers 4): an author rebuilds the
instance from them and checks the printed value against them (its matrices are written out in full by
``counterexample_matrices``; claims.json has every digit)."""


def format_value(value: Any) -> str:
    """A counterexample's value as the sheet shows it: floats at ``COUNTEREXAMPLE_DIGITS`` significant digits,
    integers and texts (a rational, "pi") as recorded, lists in brackets."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return format_number(value, digits=COUNTEREXAMPLE_DIGITS)
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def is_matrix(value: Any) -> bool:
    """A list of equally long lists of numbers (a counterexample's data, e.g. X, G, W_l)."""
    return (isinstance(value, list) and bool(value) and all(isinstance(row, list) and row for row in value)
            and len({len(row) for row in value}) == 1
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for row in value for v in row))


def counterexample_text(erratum: dict[str, Any]) -> str:
    """The counterexample's numbers as one line ("name = value; ..."; a matrix as its shape, written out by
    ``counterexample_matrices``), or why there are none."""
    numbers = erratum["counterexample"]
    if numbers is None:
        return "none: the printed texts are the evidence (a text inconsistency)"
    if isinstance(numbers, dict):
        matrices = [f"{name} ({len(value)} x {len(value[0])})" for name, value in numbers.items() if is_matrix(value)]
        return "; ".join([f"{name} = {format_value(value)}" for name, value in numbers.items() if not is_matrix(value)]
                         + ([f"matrices written out below: {', '.join(matrices)}"] if matrices else []))
    return format_value(numbers)


def counterexample_matrices(erratum: dict[str, Any]) -> str:
    """The counterexample's matrices written out to rebuild it (float64 in full: ``repr``), one row per line,
    "name =" before each; "" when it has none."""
    numbers = erratum["counterexample"]
    if not isinstance(numbers, dict):
        return ""
    blocks = [f"{name} =\n" + "\n".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in value)
              for name, value in numbers.items() if is_matrix(value)]
    return "\n".join(blocks)


def severity_counts(errata: list[dict[str, Any]]) -> str:
    """"3 statement false as printed, 2 sign or typo", worst first."""
    counts = Counter(e["severity"] for e in errata)
    order = list(SEVERITIES) + sorted(set(counts) - set(SEVERITIES))
    return ", ".join(f"{counts[s]} {s}" for s in order if counts[s])


def _claims_by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in report["claims"]}


def _source(report: dict[str, Any]) -> str:
    run = report["run"]
    git = run.get("git") or {}
    commit = (git.get("commit") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    return (f"the {run.get('selection', 'full')} run of {run['started']} (lowrank-claims "
            f"{(run.get('versions') or {}).get('lowrank-claims', '?')}, commit {commit}, Hypothesis profile "
            f"{run['profile']}; content digest sha256:{report_digest(report)})")


def _intro(report: dict[str, Any], errata: list[dict[str, Any]]) -> str:
    papers = ", ".join(report.get("papers") or {})
    errors = [e for e in errata if is_error(e)]
    if errors:
        text = (f"{len(errors)} errata ({severity_counts(errors)}): the errors of {papers} that the claim tests "
                f"found, from {_source(report)}. Each entry links to its claim's section of claims.html, where the "
                "evidence is.")
    else:
        text = f"No error of {papers} is recorded in {_source(report)}."
    if len(errors) < len(errata):
        text += (f" {len(errata) - len(errors)} further entries are no error (a hypothesis not needed: the "
                 "statement holds without it); they are listed apart, under Not errors.")
    if report["run"].get("selection") == "partial" or not report["run"].get("complete", True):
        text += (" This is a partial or incomplete run: claims whose tests did not run contribute no errata, so "
                 "the sheet is not the papers' full list.")
    return text


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_link(erratum_id: str, errata: list[dict[str, Any]]) -> str:
    """A link to another erratum's entry in claims.html, where this report has it (else its ID, plain)."""
    shown = any(e["id"] == erratum_id for e in errata)
    return f"[{erratum_id}](claims.html#{erratum_id})" if shown else f"{erratum_id} (not recorded in this run)"


def _html_link(erratum_id: str, errata: list[dict[str, Any]]) -> str:
    if any(e["id"] == erratum_id for e in errata):
        return f'<a href="#{html.escape(erratum_id)}">{html.escape(erratum_id)}</a>'
    return f"{html.escape(erratum_id)} (not recorded in this run)"


def render_errata_markdown(report: dict[str, Any]) -> str:
    """errata.md: an index table, then the entries by paper."""
    errata = report_errata(report)
    claims = _claims_by_id(report)
    lines = ["# Errata", "", _intro(report, errata), ""]
    missing = corrections_without_errata(report)
    if missing:
        lines += [f"Claims whose correction has no erratum in this report (a report from before errata were recorded): "
                  f"{', '.join(missing)}.", ""]
    if not errata:
        return "\n".join(lines)
    lines += ["| ID | Claim | Severity | Location |", "|---|---|---|---|"]
    lines += [f"| {e['id']} | [{e['claim']}](claims.html#{e['claim']}) | {e['severity']} | "
              f"{_md(e['location_kind'])}: {_md(e['location'])} |" for e in errata]
    references = report.get("papers") or {}
    not_errors_intro = ("Entries where the statement holds and a hypothesis it states is not needed: no error of the "
                        "paper, not counted among the errata.")
    for paper, entries in sheet_groups(report, errata):
        heading, intro = (f"## {paper}", f"{references[paper]}.") if paper else ("## Not errors", not_errors_intro)
        if not entries:
            continue
        lines += ["", heading, "", intro, ""]
        for e in entries:
            claim = claims.get(e["claim"], {})
            lines += [
                f"### {e['id']}: {e['severity']}", "",
                f"- Claim: [{e['claim']}](claims.html#{e['claim']}) "
                f"({claim.get('ref', '?')}: {claim.get('title', '?')}); verdict {claim.get('verdict', '?')}",
                f"- Location ({e['location_kind']}): {e['location']}",
                f"- Printed: {e['printed']}",
                f"- Corrected: {e['corrected']}",
                f"- Counterexample: {counterexample_text(e)}",
                *(["- Its data in full (float64, rows of each matrix):", "", "```text",
                   counterexample_matrices(e), "```", ""] if counterexample_matrices(e) else []),
                *(f"- See also: {_md_link(other, errata)} (same cause: {cause})" for other, cause in see_also(e["id"])),
                f"- Recorded by: {', '.join(f'`{n}`' for n in e['nodeids'])}",
                "",
            ]
    findings = findings_list(report)
    if findings:
        lines += ["", "## Findings beyond the statements", "",
                  "Results the tests found beside the statements (no verdict on them, and no errata): a hypothesis "
                  "that can be dropped, a wider form that holds, a property of a construction.", ""]
        lines += [f"- [{claim_id}](claims.html#{claim_id}): {_md(name)}" for claim_id, name in findings]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip("\n") + "\n"


def errata_html(report: dict[str, Any]) -> str:
    """The "Errata" section of claims.html (``id="errata"``): the index, then each entry (``id`` = its ID)
    with a link to its claim's section."""
    esc = html.escape
    errata = report_errata(report)
    claims = _claims_by_id(report)
    out = [
        f'<section id="{HTML_ANCHOR}"><h2><a href="#{HTML_ANCHOR}">Errata</a></h2>',
        f"<p>{esc(_intro(report, errata))}</p>",
    ]
    errors = [e for e in errata if is_error(e)]  # the index counts errors; the no-error entries are listed apart
    if errors:
        rows = "".join(
            f'<tr><td><a href="#{esc(e["id"])}">{esc(e["id"])}</a></td><td><a href="#{esc(e["claim"])}">'
            f'{esc(e["claim"])}</a></td><td>{esc(e["severity"])}</td><td>{esc(e["location_kind"])}: '
            f'{esc(e["location"])}</td></tr>' for e in errors)
        out.append("<table><thead><tr><th>ID</th><th>Claim</th><th>Severity</th><th>Location</th></tr></thead>"
                   f"<tbody>{rows}</tbody></table>")
    if len(errors) < len(errata):
        out.append("<p>Not errors (not counted): " + ", ".join(
            f'<a href="#{esc(e["id"])}">{esc(e["id"])}</a>' for e in errata if not is_error(e)) + ".</p>")
    not_errors_heading = "Not errors (the statement holds; a hypothesis it states is not needed; not counted)"
    for paper, entries in sheet_groups(report, errata):
        heading = esc(paper) if paper else not_errors_heading
        if entries:
            out.append(f"<h3>{heading}</h3>")
        for e in entries:
            claim = claims.get(e["claim"], {})
            items = [
                ("Claim", f'<a href="#{esc(e["claim"])}">{esc(e["claim"])}</a> ({esc(claim.get("ref", "?"))}: '
                          f'{esc(claim.get("title", "?"))}); verdict {esc(claim.get("verdict", "?"))}'),
                (f"Location ({esc(e['location_kind'])})", esc(e["location"])),
                ("Printed", esc(e["printed"])),
                ("Corrected", esc(e["corrected"])),
                ("Counterexample", esc(counterexample_text(e)) + (
                    f"<pre>{esc(counterexample_matrices(e))}</pre>" if counterexample_matrices(e) else "")),
                *(("See also", f"{_html_link(other, errata)} (same cause: {esc(cause)})")
                  for other, cause in see_also(e["id"])),
                ("Recorded by", ", ".join(f"<code>{esc(n)}</code>" for n in e["nodeids"])),
            ]
            body = "".join(f"<li>{label}: {value}</li>" for label, value in items)
            out.append(f'<div class="erratum" id="{esc(e["id"])}"><h4>{esc(e["id"])}: {esc(e["severity"])}</h4>'
                       f"<ul>{body}</ul></div>")
    findings = findings_list(report)
    if findings:
        out.append("<h3>Findings beyond the statements</h3><ul>" + "".join(
            f'<li><a href="#{esc(claim_id)}">{esc(claim_id)}</a>: {esc(name)}</li>' for claim_id, name in findings)
            + "</ul>")
    out.append("</section>")
    return "\n".join(out)


def claim_errata_line(c: dict[str, Any]) -> str | None:
    """"Errata: BSJ25.P22-E1 (constant or factor wrong)." for a claim's section; None without errata."""
    errata = c["errata"]
    if not errata:
        return None
    return "Errata: " + "; ".join(f"{e['id']} ({e['severity']}, {e['location']})" for e in errata) + "."
