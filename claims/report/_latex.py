"""A report as LaTeX for a write-up (``python -m claims latex [--standalone] [REPORT]``): the verdict of every
claim, the questions beyond the papers and the errata of the papers (printed, corrected, counterexample), with the
report's provenance (suite version, commit, content digest) in the captions, so that the numbers in a paper can be
traced to the run they came from.

The tables are longtables (they break across pages) whose ``p`` columns add up to the text width, with
``booktabs`` rules; a column's text is ragged right and may break after ``_ / = , ;`` (``breakable``), so that no
line of a cell runs past its column. Without ``--standalone`` the output is the tables, to ``\\input`` into a
document that loads the packages its first lines name (``PACKAGES``); with it, a complete ``article`` that loads
them and compiles with pdflatex.

Every text from the report is escaped (``latex_escape``): LaTeX's special characters (``\\ & % $ # _ {
} ~ ^``) and the characters the default OT1 encoding prints as something else (``< > |``).
"""

from __future__ import annotations

import re
from typing import Any

from claims.report._citation import DIGEST_OF
from claims.report._errata import counterexample_text, paper_errors
from claims.report._citation import not_citable_because
from claims.report._model import report_digest
from claims.report._parts import beyond_paper_claims, informative_count, paper_claims

PACKAGES = ("booktabs", "longtable", "array", "tabularx")
"""The packages the tables need: ``booktabs`` (rules), ``longtable`` (tables that break across pages), ``array``
(ragged-right ``p`` columns); ``tabularx`` sets the provenance box of the standalone document."""

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))


def latex_escape(text: Any) -> str:
    """``text`` as LaTeX that prints it verbatim (one pass: an escape's own backslash is not escaped again);
    line breaks become spaces."""
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group()], " ".join(str(text).split("\n")))


def _provenance(report: dict[str, Any]) -> tuple[str, str]:
    """(plain description of the run, its content digest)."""
    run = report["run"]
    git = run.get("git") or {}
    commit = (git.get("commit") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    version = (run.get("versions") or {}).get("lowrank-claims", "?")
    why_not = not_citable_because(report)
    scope = "" if why_not is None else f" (NOT CITABLE: {why_not})"
    return (
        f"lowrank-claims {version}, commit {commit}, Hypothesis profile {run['profile']}{scope}",
        report_digest(report),
    )


_BREAK = re.compile(r"(\\_|/|=|,|;)")


def breakable(escaped: str) -> str:
    """Escaped text that may break after an underscore, a slash, "=", "," or ";" (a long identifier or list in
    a narrow column would otherwise run past it)."""
    return _BREAK.sub(lambda m: m.group() + r"\allowbreak{}", escaped)


def _digest(digest: str) -> str:
    """A content digest in typewriter type, breakable every 16 characters."""
    return r"\texttt{sha256:" + r"\allowbreak{}".join(digest[i:i + 16] for i in range(0, len(digest), 16)) + "}"


def _columns(shares: list[float]) -> str:
    r"""``p`` columns, ragged right, whose widths with their separations add up to the text width: each takes its
    share of ``\linewidth`` less the separations (``2 \tabcolsep`` per column; none outside the first and last)."""
    n = len(shares)
    cell = r">{\raggedright\arraybackslash}p{\dimexpr %.3f\linewidth - %.3f\tabcolsep\relax}"
    return "@{}" + "".join(cell % (share, 2 * (n - 1) / n) for share in shares) + "@{}"


def _longtable(
    caption: str, label: str, shares: list[float], header: list[str], rows: list[list[str]], digest: str
) -> list[str]:
    """A table that breaks across pages, its header repeated on each page, at the text width."""
    head = " & ".join(rf"\textbf{{{latex_escape(h)}}}" for h in header) + r" \\"
    lines = [
        r"{\small", rf"\begin{{longtable}}{{{_columns(shares)}}}",
        rf"\caption{{{caption} Content digest {_digest(digest)}.}}\label{{{label}}} \\",
        r"\toprule", head, r"\midrule", r"\endfirsthead",
        r"\toprule", head, r"\midrule", r"\endhead",
        r"\bottomrule", r"\endlastfoot",
    ]
    lines += [" & ".join(row) + r" \\" for row in rows]
    return lines + [r"\end{longtable}", "}"]


VERDICT_HEADER = ["Claim", "Reference", "Verdict", "Informative / cases", "Errata"]
VERDICT_SHARES = [0.15, 0.31, 0.2, 0.16, 0.18]
ERRATA_HEADER = ["Erratum", "Printed", "Corrected", "Counterexample"]
ERRATA_SHARES = [0.19, 0.27, 0.27, 0.27]


def _verdict_rows(claims: list[dict[str, Any]]) -> list[list[str]]:
    return [[rf"\texttt{{{latex_escape(c['id'])}}}", breakable(latex_escape(c["ref"])), latex_escape(c["verdict"]),
             breakable(latex_escape(informative_count(c))),
             breakable(latex_escape(", ".join(e["id"] for e in c["errata"]) or "--"))] for c in claims]


def _erratum_row(e: dict[str, Any]) -> list[str]:
    """An erratum's row: its ID, severity and location; the printed and corrected texts; the counterexample."""
    where = latex_escape(f"{e['severity']}; {e['location_kind']}: {e['location']}")
    return [rf"\texttt{{{latex_escape(e['id'])}}}\newline{{\footnotesize {breakable(where)}}}",
            breakable(latex_escape(e["printed"])), breakable(latex_escape(e["corrected"])),
            breakable(latex_escape(counterexample_text(e)))]


def render_latex(report: dict[str, Any], standalone: bool = False) -> str:
    r"""The verdict tables and the errata table (if any), with the report's provenance and digest: to ``\input``
    (the packages named in its first lines), or, ``standalone``, a complete ``article``."""
    run, digest = _provenance(report)
    papers = ", ".join(report.get("papers") or {})
    lines = [
        f"% Claims report of {latex_escape(run)}",
        f"% content digest sha256:{digest} ({DIGEST_OF})",
        "% generated by: python -m claims latex --standalone" if standalone else
        "% generated by: python -m claims latex; to \\input, with " + ", ".join(
            rf"\usepackage{{{name}}}" for name in PACKAGES),
        "",
    ]
    if standalone:
        lines += [r"\documentclass[10pt]{article}", rf"\usepackage{{{','.join(PACKAGES)}}}",
                  r"\usepackage[margin=2.5cm]{geometry}", r"\setlength{\emergencystretch}{3em}",
                  r"\setlength{\LTcapwidth}{\linewidth}",
                  r"\begin{document}", r"\section*{Claims report}", r"\noindent\begin{tabularx}{\linewidth}{@{}lX@{}}",
                  rf"Run & {breakable(latex_escape(run))} \\", rf"Papers & {latex_escape(papers)} \\",
                  rf"Digest & {_digest(digest)} \\", r"\end{tabularx}", ""]
    lines += _longtable(f"Verdicts of the claims of {latex_escape(papers)} ({latex_escape(run)}).",
                        "tab:claims-verdicts", VERDICT_SHARES, VERDICT_HEADER, _verdict_rows(paper_claims(report)),
                        digest)
    if beyond_paper_claims(report):
        lines += [""] + _longtable(
            "Questions beyond the papers: the suite's own questions, which no paper states (findings, not "
            f"refutations of a paper) ({latex_escape(run)}).", "tab:claims-beyond-papers", VERDICT_SHARES,
            VERDICT_HEADER, _verdict_rows(beyond_paper_claims(report)), digest)
    errata = paper_errors(report)  # the entries that are no error (a hypothesis not needed) stay on the sheet
    if errata:
        lines += [""] + _longtable(
            f"Errata of {latex_escape(papers)} found by the claim tests ({latex_escape(run)}); a counterexample's "
            "matrices are written out in errata.md.", "tab:claims-errata", ERRATA_SHARES, ERRATA_HEADER,
            [_erratum_row(e) for e in errata], digest)
    if standalone:
        lines += ["", r"\end{document}"]
    return "\n".join(lines) + "\n"
