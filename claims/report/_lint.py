"""Checks on a written report, read as a reader reads it: claims.md's and claims.html's summary tables
parsed back into rows, and the JSON's numbers.

``report_problems`` lists what would mislead a reader: a stand-in number (``SENTINELS``: 1e300 for an
unbounded ratio, 1e-300 for its margin) among the JSON's judged numbers or in the renderings' tables and
findings; a negative slack in a table that
is not marked as rounding at an equality case ("within rounding"); an invariance claim whose headline is
not its drift orders' slopes (a drift-order score in its place). The plugin runs it on every report it
writes (a problem fails the session); the unit and plugin tests run it on recorded and synthetic reports.
"""

from __future__ import annotations

import html as html_module
import re
from typing import Any, Iterator, Mapping

from claims.report._errata import refuted_without_errata
from claims.report._scope import counted, summaries

SENTINELS = (1e300, 1e-300)
"""Numbers that stood in for an unbounded score and its margin in reports before the kinds' headlines."""

_SENTINEL_TEXT = re.compile(r"(?<![\d.])1(?:\.0*)?e(?:\+?300|-300)\b")
_NEGATIVE_SLACK = re.compile(r"slack\s+(-\d[\d.e+-]*)")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


SCORED = ("max_error", "tolerance", "margin", "error", "min_slack", "relative_drift", "reference_disagreement")
"""The keys under which a stand-in was written (a case's error and tolerance, a margin, a score's parts). Drawn
data (a Hypothesis example may well be 1e-300) sits under other keys and is not a stand-in."""


def _scores(value: Any) -> Iterator[float]:
    """Every number under a ``SCORED`` key, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SCORED and isinstance(item, float):
                yield item
            else:
                yield from _scores(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scores(item)


def _judged_text(markdown: str, page: str) -> tuple[str, str]:
    """The parts of each rendering that show judged numbers: table rows and findings' lines (notes and a
    counterexample's details may quote drawn data, which is not a stand-in)."""
    lines = "\n".join(line for line in markdown.splitlines() if line.startswith(("|", "Finding ")))
    parts = re.findall(r"<table>.*?</table>|<p>Finding .*?</p>", page, flags=re.S)
    return lines, "\n".join(parts)


def markdown_summary_rows(markdown: str) -> list[dict[str, str]]:
    """The summary tables of claims.md (the papers' claims, then the questions beyond the papers: every table
    that starts with "| ID |") as {column: cell text} rows."""
    lines = markdown.splitlines()
    rows = []
    for start in (i for i, line in enumerate(lines) if line.startswith("| ID |")):
        header = [cell.strip() for cell in _CELL_SPLIT.split(lines[start].strip().strip("|"))]
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            cells = [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(line.strip()[1:-1])]
            rows.append(dict(zip(header, cells)))
    return rows


def _text(fragment: str) -> str:
    return html_module.unescape(re.sub(r"<br>", "; ", re.sub(r"<(?!br>)[^>]+>", "", fragment))).strip()


def html_summary_rows(page: str) -> list[dict[str, str]]:
    """The summary tables of claims.html (every table whose header starts with ID) as rows."""
    rows = []
    for table in re.findall(r"<table>(.*?)</table>", page, flags=re.S):
        header = [_text(h) for h in re.findall(r"<th>(.*?)</th>", table, flags=re.S)]
        if header[:1] != ["ID"]:
            continue
        body = table.split("</thead>", 1)[-1]
        rows += [dict(zip(header, (_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S))))
                 for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    return rows


def _has_drift_orders(claim: Mapping[str, Any]) -> bool:
    """Whether the claim's evidence tests judged drift orders."""
    return "drift order" in claim["by_kind"]


def _table_problems(rows: list[dict[str, str]], claims: Mapping[str, Mapping[str, Any]], where: str) -> list[str]:
    problems = []
    for row in rows:
        claim_id = row.get("ID", "?")
        for column, cell in row.items():
            negative = [m.group(1) for m in _NEGATIVE_SLACK.finditer(cell)
                        if "within rounding" not in cell[m.start(): m.start() + 200]]
            if "slack" in column.lower() and cell.startswith("-") and cell != "-":
                negative.append(cell)
            problems += [f"{where}: {claim_id}'s {column} shows a negative slack {value} not marked as rounding"
                         for value in negative]
        claim = claims.get(claim_id, {})
        invariance = "invariance" in str(claim.get("kind", "")).replace("noninvariance", "")
        if invariance and _has_drift_orders(claim) and not any("slope" in cell for cell in row.values()):
            problems.append(f"{where}: {claim_id} is an invariance whose row shows no drift-order slopes "
                            "(a drift-order score in their place)")
    return problems


def json_problems(report: Mapping[str, Any]) -> list[str]:
    """Stand-in numbers in the report's data (what claims.json holds)."""
    stand_ins = sorted({v for v in _scores(dict(report)) if v in SENTINELS})
    return [f"claims.json carries stand-in numbers {stand_ins}"] if stand_ins else []


def rendered_problems(report: Mapping[str, Any], markdown: str, page: str) -> list[str]:
    """What in claims.md and claims.html would mislead a reader (see the module docstring)."""
    problems = []
    for name, text in zip(("claims.md", "claims.html"), _judged_text(markdown, page)):
        found = _SENTINEL_TEXT.search(text)
        if found:
            problems.append(f"{name} shows a stand-in number {found.group(0)!r}: "
                            f"...{text[max(0, found.start() - 80):found.end()]}")
    claims = {c["id"]: c for c in report.get("claims", [])}
    problems += _table_problems(markdown_summary_rows(markdown), claims, "claims.md summary")
    problems += _table_problems(html_summary_rows(page), claims, "claims.html summary")
    return problems


def errata_problems(report: Mapping[str, Any]) -> list[str]:
    """A paper's claim that is ``refuted`` without an erratum: the errata sheet would hide the refutation."""
    return [f"{claim_id} is refuted but has no erratum: the errata sheet must carry every refutation "
            "(record_erratum with the printed statement and the counterexample)"
            for claim_id in refuted_without_errata(dict(report))]


def scope_problems(report: Mapping[str, Any]) -> list[str]:
    """A verdict that says more than its scope (``claims.report._scope``): an empirical claim refuted away from
    the paper's setting, or a question beyond the papers counted among the papers' verdicts."""
    problems = [f"{c['id']} is refuted at a scale other than the paper's: that is not-reproduced, not a refutation"
                for c in report["claims"]
                if c["verdict"] == "refuted" and c["setting"] and not c["at_paper_setting"]]
    papers_summary, _ = summaries(counted(report["claims"], report["run"]), tuple(report["summary"]))
    if report["summary"] != papers_summary:
        problems.append("the summary counts a question beyond the papers among the papers' verdicts")
    return problems


def report_problems(report: Mapping[str, Any], markdown: str, page: str) -> list[str]:
    """Everything ``json_problems``, ``errata_problems``, ``scope_problems`` and ``rendered_problems`` find;
    empty when nothing misleads."""
    return (json_problems(report) + errata_problems(report) + scope_problems(report)
            + rendered_problems(report, markdown, page))


# -- budgets of the renderings (issue 36): a reader finds a claim's verdict and deciding numbers in a minute --------

BUDGETS = {"markdown_lines": 700, "html_bytes": 500 * 1024, "significant_digits": 6}
"""claims.md at most 700 lines; claims.html at most 500 KB with its figures embedded; no number in prose printed
with more than 6 significant digits (unless exact, i.e. its further digits are zeros, or at rounding level)."""
ROUNDING_LEVEL = 1e-6
"""Below this magnitude a number is a rounding-level value (an error, a tolerance) and may print every digit."""

_REPR = re.compile(
    r"=None\b|\{'|\{\"|\['|\[\"|\w=[\[{(]"
    r"|\[\s*[-+]?\d[\d.e+-]*(?:\s*,\s*[-+]?\d[\d.e+-]*){2,}\s*\]"
)
"""A Python repr in prose: ``=None``, a dict's or a list's of strings opening, ``name=[...]``, or a list of three or
more numbers."""
_FLOAT = re.compile(r"(?<![\w.])[-+]?(\d+)\.(\d+)(?:e[-+]?\d+)?(?![\w.])")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", flags=re.S)
_HTML_CODE = re.compile(r"<pre>.*?</pre>|<code>.*?</code>|<style>.*?</style>|<img [^>]*>|<details>.*?</details>"
                        r'|<section id="errata">.*?</section>', flags=re.S)
"""What of claims.html is no prose of the main text: code, images, the folded details (notes and recorded data,
also in claims.json) and the errata section (the recorded counterexamples, as errata.md has them)."""


def significant_digits(text: str) -> int:
    """The significant digits of a decimal numeral ("0.000886": 3; "1.000000": 1; "10.29576": 7)."""
    digits = re.sub(r"e.*$", "", text.lstrip("+-").lower()).replace(".", "")
    return len(digits.lstrip("0").rstrip("0")) or 1


def prose_problems(text: str, where: str) -> list[str]:
    """Python reprs and over-long numbers in ``text`` (prose: code already removed), one line each."""
    problems = [f"{where}: a Python repr in prose: ...{text[max(0, m.start() - 40):m.end() + 20]!s}..."
                for m in _REPR.finditer(text)]
    for m in _FLOAT.finditer(text):
        numeral = m.group()
        if significant_digits(numeral) > BUDGETS["significant_digits"] and abs(float(numeral)) >= ROUNDING_LEVEL:
            problems.append(f"{where}: {numeral} printed with {significant_digits(numeral)} significant digits")
    return problems


def markdown_prose(markdown: str) -> str:
    """claims.md without its code (fenced blocks, code spans) and link targets."""
    return re.sub(r"\]\([^)]*\)", "]", _CODE.sub(" ", markdown))


def html_prose(page: str) -> str:
    """claims.html's main text: without code, preformatted blocks, images, style, folded details, the errata
    section and tags."""
    return html_module.unescape(re.sub(r"<[^>]+>", " ", _HTML_CODE.sub(" ", page)))


def budget_problems(markdown: str, page: str) -> list[str]:
    """What breaks ``BUDGETS`` in a rendered claims.md and claims.html (empty: within budget)."""
    problems = []
    lines = len(markdown.splitlines())
    if lines > BUDGETS["markdown_lines"]:
        problems.append(f"claims.md has {lines} lines, over its budget of {BUDGETS['markdown_lines']}")
    size = len(page.encode("utf-8"))
    if size > BUDGETS["html_bytes"]:
        problems.append(f"claims.html is {size / 1024:.0f} KB, over its budget of {BUDGETS['html_bytes'] // 1024} KB")
    return problems + prose_problems(markdown_prose(markdown), "claims.md") + prose_problems(
        html_prose(page), "claims.html")
