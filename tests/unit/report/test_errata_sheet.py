"""The errata sheet and the write-ups: errata.md (grouped by paper, sorted by ID, each entry with its severity
and a link to its claim's section of claims.html), the "Errata" section of claims.html, ``python -m claims
errata`` and ``python -m claims latex`` (every text escaped, the content digest given), on a report built
from test records and on the committed reference report from before errata."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims.__main__ import main
from claims.evidence._registry import CLAIMS
from claims.report._errata import (
    corrections_without_errata,
    errata_html,
    id_order,
    render_errata_markdown,
    report_errata,
)
from claims.report._history import load_report
from claims.report._latex import breakable, latex_escape, render_latex
from claims.report._model import TestRecord, build_report, report_digest
from claims.report._write import write_report

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
REFERENCE = ROOT / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"

RUN = {
    "started": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T03:05:00+00:00", "complete": True,
    "selection": "full", "selection_reasons": [], "selected_claims": [], "profile": "ci", "hypothesis_seed": None,
    "workers": 0, "versions": {"lowrank-claims": "0.2.0"}, "git": {"commit": "0123456789abcdef", "dirty": False},
    "command": "pytest", "replay": "pytest --hypothesis-profile=ci",
}


def erratum(erratum_id: str, paper: str, severity: str = "sign or typo", **changes) -> dict:
    return {"id": erratum_id, "claim": erratum_id.rsplit("-E", 1)[0], "paper": paper, "severity": severity,
            "location_kind": "equation", "location": f"where {erratum_id} is", "printed": "a_1 & 50% #x ~y^2 \\z",
            "corrected": "b", "counterexample": {"L": 3, "error": 0.123456789}, **changes}


def test_record(nodeid, claim_id, *errata, correction=None) -> TestRecord:
    evidence = {"cases": 1, "informative": 1, "informative_holding": 1, "errata": list(errata),
                "holding": {"error": 0.0, "tolerance": 1.0, "details": {}},
                "counterexample": {"error": 2.0, "tolerance": 1.0, "details": {}}}
    if correction:
        evidence |= {"verdict": "verified-with-correction", "correction": correction}
    record = TestRecord(nodeid, [claim_id], Role.EVIDENCE)
    fold_phase(record, "call", "passed", evidence, 0.1)
    return record


test_record.__test__ = False


@pytest.fixture(scope="module")
def report():
    tests = [
        test_record("t.py::p22", "BSJ25.P22", erratum("BSJ25.P22-E10", "BSJ25"), erratum("BSJ25.P22-E2", "BSJ25"),
                    correction="s L^{-L/2}"),
        test_record("t.py::l11", "LJ22.L11", erratum("LJ22.L11-E1", "LJ22", "proof step wrong, statement holds")),
        test_record("t.py::l2b", "LJ22.L2b", erratum("LJ22.L2b-E1", "LJ22", "hypothesis missing")),
        test_record("t.py::e8", "GP22.E8", erratum("GP22.E8-E1", "GP22", "text inconsistency", counterexample=None)),
        test_record("t.py::l3", "LJ22.L3", correction="a correction without an erratum (a report from before)"),
    ]
    return build_report(RUN, {t.nodeid: t for t in tests})


def test_errata_are_grouped_by_paper_and_sorted_by_id(report):
    assert [e["id"] for e in report_errata(report)] == [
        "LJ22.L2b-E1", "LJ22.L11-E1", "GP22.E8-E1", "BSJ25.P22-E2", "BSJ25.P22-E10"]
    assert id_order("LJ22.L2b-E1") < id_order("LJ22.L3-E1") < id_order("LJ22.L11-E1")
    assert corrections_without_errata(report) == ["LJ22.L3"]


def test_errata_md_lists_each_entry_with_its_link_severity_and_numbers(report):
    text = render_errata_markdown(report)
    assert text.startswith("# Errata\n")
    assert ("5 errata (1 hypothesis missing, 2 sign or typo, 1 text inconsistency, 1 proof step wrong, statement holds)"
            in text)
    assert f"sha256:{report_digest(report)}" in text and "commit 0123456789ab" in text
    headings = re.findall(r"^## (\S+)$", text, flags=re.M)
    assert headings == ["LJ22", "GP22", "BSJ25"]
    entries = re.findall(r"^### (\S+): (.+)$", text, flags=re.M)
    assert entries == [("LJ22.L2b-E1", "hypothesis missing"), ("LJ22.L11-E1", "proof step wrong, statement holds"),
                       ("GP22.E8-E1", "text inconsistency"), ("BSJ25.P22-E2", "sign or typo"),
                       ("BSJ25.P22-E10", "sign or typo")]
    assert ("| BSJ25.P22-E10 | [BSJ25.P22](claims.html#BSJ25.P22) | sign or typo | equation: where BSJ25.P22-E10 is |"
            in text)
    assert f"- Claim: [LJ22.L11](claims.html#LJ22.L11) ({CLAIMS['LJ22.L11'].ref}: " in text
    assert "- Counterexample: L = 3; error = 0.123457" in text  # 6 digits: COUNTEREXAMPLE_DIGITS
    assert "- Counterexample: none: the printed texts are the evidence (a text inconsistency)" in text
    assert "- Recorded by: `t.py::p22`" in text
    assert "Claims whose correction has no erratum in this report" in text and "LJ22.L3." in text


class Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.links.append(attrs["href"][1:])


def test_claims_html_has_an_errata_section_whose_links_resolve(report, tmp_path):
    write_report(report, tmp_path)
    page = (tmp_path / "claims.html").read_text()
    parser = Ids()
    parser.feed(page)
    assert "errata" in parser.ids and {"BSJ25.P22-E2", "LJ22.L11-E1", "BSJ25.P22"} <= set(parser.ids)
    assert set(parser.links) <= set(parser.ids)  # every in-page link (index, claims, errata) has its target
    assert page.index('id="errata"') > page.index('id="BSJ25.P22"')  # after the claims
    section = errata_html(report)
    assert "a_1 &amp; 50% #x ~y^2 \\z" in section and "<h3>LJ22</h3>" in section
    assert (tmp_path / "errata.md").read_text() == render_errata_markdown(report)
    markdown = (tmp_path / "claims.md").read_text()
    assert "Errata: 5 errors of the papers, listed in [errata.md](errata.md)." in markdown
    assert "Errata: BSJ25.P22-E2 (sign or typo, where BSJ25.P22-E2 is); BSJ25.P22-E10" in markdown


def test_the_reference_report_from_before_errata_loads_and_has_none(capsys):
    old = load_report(REFERENCE)
    assert report_errata(old) == [] and len(corrections_without_errata(old)) == 15
    assert main(["errata", str(REFERENCE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Errata") and "No error of LJ22, GP22, BSJ25 is recorded" in out
    assert main(["latex", str(REFERENCE)]) == 0
    assert r"\texttt{LJ22.L11} & Lemma 11 & verified-with-correction" in capsys.readouterr().out


def test_the_errata_command_prints_the_sheet_and_reads_reports_by_default(report, tmp_path, monkeypatch, capsys):
    write_report(report, tmp_path / "reports")
    monkeypatch.chdir(tmp_path)
    assert main(["errata"]) == 0
    assert capsys.readouterr().out == render_errata_markdown(report)
    assert main(["errata", "missing.json"]) == 2
    assert capsys.readouterr().err.startswith("error: missing.json: missing")


@pytest.mark.parametrize("text, escaped", [
    ("a_b", r"a\_b"), ("50%", r"50\%"), ("x & y", r"x \& y"), ("#1", r"\#1"), ("x^2", r"x\textasciicircum{}2"),
    ("a~b", r"a\textasciitilde{}b"), ("C:\\dir", r"C:\textbackslash{}dir"), ("{a}", r"\{a\}"), ("$5", r"\$5"),
    ("||x||", r"\textbar{}\textbar{}x\textbar{}\textbar{}"), ("a < b > c", r"a \textless{} b \textgreater{} c"),
    ("two\nlines", "two lines"),
])
def test_latex_escapes_every_special_character(text, escaped):
    assert latex_escape(text) == escaped


def test_latex_tables_hold_verdicts_errata_and_the_digest(report, capsys, tmp_path):
    text = render_latex(report)
    beyond = any(c.get("origin") == "suite" for c in report["claims"])  # a table of their own
    # every table breaks across pages (longtable), its header repeated on each page
    assert text.count(r"\begin{tabular}") == 0 and text.count(r"\begin{longtable}") == 2 + beyond
    assert text.count(r"\toprule") == 2 * (2 + beyond) and text.count(r"\bottomrule") == 2 + beyond
    assert r"\usepackage{booktabs}" in text and r"\usepackage{longtable}" in text
    assert f"sha256:{report_digest(report)}" in text and r"\documentclass" not in text  # tables to \input
    ref = breakable(latex_escape(CLAIMS["BSJ25.P22"].ref))
    assert (rf"\texttt{{BSJ25.P22}} & {ref} & inconclusive & 1/\allowbreak{{}}1 & "
            r"BSJ25.P22-E2,\allowbreak{} BSJ25.P22-E10 \\") in text
    # an erratum's row: ID with severity and location; printed, corrected, counterexample
    assert (r"\texttt{LJ22.L11-E1}\newline{\footnotesize proof step wrong,\allowbreak{} statement holds;\allowbreak{} "
            r"equation: where LJ22.L11-E1 is} & a\_\allowbreak{}1 \& 50\% \#x \textasciitilde{}y\textasciicircum{}2 "
            r"\textbackslash{}z & b & L =\allowbreak{} 3;\allowbreak{} error =\allowbreak{} 0.123457 \\") in text
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    # nothing unescaped: every special character of the data is escaped (the markup's own are balanced)
    for raw in ("a_1", "50%", " & 50", "~y", "^2", "\\z"):
        assert raw not in body
    assert re.search(r"(?<!\\)#x", body) is None  # "\#x" is the escaped one
    assert body.count("{") == body.count("}")
    write_report(report, tmp_path)
    assert main(["latex", str(tmp_path / "claims.json")]) == 0
    assert capsys.readouterr().out == text


@pytest.mark.parametrize("run, why", [({"selection": "partial", "complete": True}, "partial run"),
                                      ({"selection": "full", "complete": False}, "incomplete run")])
def test_latex_of_a_report_that_must_not_be_cited_says_so_in_every_caption(report, run, why):
    text = render_latex({**report, "run": {**report["run"], **run}})
    assert text.count(f"NOT CITABLE: it is the report of a{'n' if why[0] == 'i' else ''} {why}") >= 3
    assert "NOT CITABLE" not in render_latex(report)


# --- refutations, not-errors and findings (the sheet an author acts on) ------------------------------------


def test_a_refuted_claim_without_an_erratum_is_a_report_problem_and_a_questions_refutation_is_not():
    from claims.report._lint import errata_problems

    report = {"claims": [{"id": "GP22.L1", "verdict": "refuted", "origin": "paper", "errata": [], "violations": []},
                         {"id": "LJ22.X1", "verdict": "refuted", "origin": "suite", "errata": [], "violations": []},
                         {"id": "GP22.L2", "verdict": "refuted", "origin": "paper", "errata": [{"id": "GP22.L2-E1"}],
                          "violations": []},
                         {"id": "GP22.F2", "verdict": "not-reproduced", "origin": "paper", "errata": [],
                          "violations": []},
                         {"id": "GP22.T1", "verdict": "refuted", "origin": "paper", "errata": [],
                          "violations": [{"nodeid": "t.py::b"}]}]}  # a failing test: a red, uncitable run
    problems = errata_problems(report)
    assert len(problems) == 1 and problems[0].startswith("GP22.L1 is refuted but has no erratum")


def test_entries_that_are_no_error_are_listed_apart_and_not_counted():
    from claims.report._errata import NOT_ERRORS, not_errors, paper_errors

    run = {"started": "s", "profile": "ci", "selection": "full", "complete": True}
    base = {"paper": "GP22", "claim": "GP22.P2", "location_kind": "hypothesis", "location": "Prop. 2",
            "printed": "p", "corrected": "c", "counterexample": "x = 1", "nodeids": ["t.py::a"]}
    error = {**base, "id": "GP22.P2-E2", "severity": "hypothesis missing"}
    fine = {**base, "id": "GP22.P2-E1", "severity": NOT_ERRORS[0]}
    report = {"run": run, "citation": {"digest": "0" * 64}, "papers": {"GP22": "Galanti and Poggio"}, "claims": [
        {"id": "GP22.P2", "ref": "Prop. 2", "title": "t", "verdict": "verified", "origin": "paper",
         "correction": None, "violations": [], "errata": [fine, error], "findings": {"convexity is not needed": {}}}]}
    assert paper_errors(report) == [error] and not_errors(report) == [fine]
    text = render_errata_markdown(report)
    assert "1 errata (1 hypothesis missing)" in text and "1 further entries are no error" in text
    assert text.index("## GP22") < text.index("### GP22.P2-E2") < text.index("## Not errors") < text.index(
        "### GP22.P2-E1")
    assert "## Findings beyond the statements" in text and "convexity is not needed" in text
    from claims.report._errata import errata_html

    index = errata_html(report).split("</table>")[0]
    assert "GP22.P2-E2" in index and "GP22.P2-E1" not in index  # the HTML index counts errors only
    assert 'Not errors (not counted): <a href="#GP22.P2-E1">' in errata_html(report)


def test_errata_that_share_a_cause_link_each_other_both_ways():
    from claims.evidence._erratum import SHARED_CAUSES, erratum_claim, see_also

    for ids, cause in SHARED_CAUSES:
        assert len(ids) >= 2 and cause
        for erratum_id in ids:
            erratum_claim(erratum_id)  # names a registered claim
            assert {other for other, _ in see_also(erratum_id)} == set(ids) - {erratum_id}
    assert [other for other, _ in see_also("BSJ25.P22-E1")] == ["BSJ25.ESC-E1"]
    assert see_also("GP22.P2-E1") == []
    run = {"started": "s", "profile": "ci", "selection": "full", "complete": True}
    entry = {"id": "BSJ25.P22-E1", "paper": "BSJ25", "claim": "BSJ25.P22", "severity": "constant or factor wrong",
             "location_kind": "statement", "location": "Prop. 2.2", "printed": "p", "corrected": "c",
             "counterexample": "L = 2", "nodeids": ["t.py::a"]}
    report = {"run": run, "citation": {"digest": "0" * 64}, "papers": {"BSJ25": "Bantzis et al."}, "claims": [
        {"id": "BSJ25.P22", "ref": "Prop. 2.2", "title": "t", "verdict": "verified-with-correction",
         "origin": "paper", "correction": "c", "violations": [], "findings": {}, "errata": [entry]}]}
    text = render_errata_markdown(report)
    assert "- See also: BSJ25.ESC-E1 (not recorded in this run) (same cause: the radial rate" in text
    report["claims"][0]["errata"].append({**entry, "id": "BSJ25.ESC-E1", "claim": "BSJ25.ESC"})
    assert "- See also: [BSJ25.ESC-E1](claims.html#BSJ25.ESC-E1) (same cause:" in render_errata_markdown(report)


def test_a_counterexamples_matrices_are_written_out_in_full_to_rebuild_it():
    """A counterexample's data (X, G, an optimum's W_l) are matrices: the entry's line names their shape, and
    the sheet writes them out below it in full float64 precision (``repr``), in Markdown and in HTML; the
    matrices are rebuilt from an instance by ``claims.bsj25.rebuild_numbers``."""
    from claims.bsj25 import near_rank_one_instance, rebuild_numbers
    from claims.report._errata import counterexample_matrices, counterexample_text, is_matrix

    instance, _, _ = near_rank_one_instance(3300, 3, 8, 2, 1e-4, 0.1, cut=2)
    numbers = rebuild_numbers(instance, layer=3)
    assert numbers["X"] == instance.x.tolist() and numbers["G"] == instance.g.tolist() and numbers["layer"] == 3
    assert "seed = 3300" in numbers["data"] and "eps = 0.0001" in numbers["data"]
    assert is_matrix(numbers["X"]) and not is_matrix([1.0, 2.0]) and not is_matrix([[1.0], [True]])
    entry = erratum("BSJ25.P33-E1", "BSJ25", counterexample=numbers)
    assert counterexample_text(entry).endswith("; layer = 3; matrices written out below: X (3 x 8), G (2 x 8)")
    written = counterexample_matrices(entry)
    assert written.startswith("X =\n[") and repr(instance.x[0, 3].item()) in written
    rows = [line for line in written.splitlines() if line.startswith("[")]
    assert [[float(v) for v in row.strip("[]").split(", ")] for row in rows] == numbers["X"] + numbers["G"]
    report = build_report(RUN, {"t.py::p33": test_record("t.py::p33", "BSJ25.P33", entry)})
    assert f"```text\n{written}\n```" in render_errata_markdown(report)
    assert f"<pre>{written}</pre>" in errata_html(report)


def test_data_too_large_to_print_are_described_instead():
    from claims.bsj25 import digits_instance, rebuild_numbers

    numbers = rebuild_numbers(digits_instance(per_class=20))
    assert numbers["X"].startswith("(64, 200) (too large") and "load_digits" in numbers["data"] + str(numbers)
