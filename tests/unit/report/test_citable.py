"""Issue 33: a run with a failed or errored test is not citable, and a report edited after its run wrote it
is refused (``claims.report._citation``: ``not_citable_because``, ``failed_tests``, ``digest_mismatch``; the
report's banner; the terminal's line; ``python -m claims cite`` and ``compare``). Reports are built by the
report's own ``build_report``, from hand-written test records."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from claims.evidence._role import Role
import claims
from claims.session._phases import fold_phase
from claims.__main__ import main
from claims.report._citation import (
    ENTRY_DIGEST,
    citation_block,
    citation_text,
    content_digest,
    digest_mismatch,
    failed_tests,
    not_citable_because,
)
from claims.report._history import BaselineError, load_report, save_run
from claims.report._html import render_html
from claims.report._json import dumps
from claims.report._markdown import render_markdown
from claims.report._model import TestRecord, build_report
from claims.session._summary import SHOWN_IDS, failure_line, terminal_lines

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
REFERENCE = ROOT / "tests" / "data" / "report-v2_1b3f822b8825_ci.json.gz"
"""A committed full ``ci`` report (tests/data/README.md): an entry saved before entries had a digest."""

RUN = {
    "started": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T03:05:00+00:00", "complete": True,
    "selection": "full", "selection_reasons": [], "selected_claims": ["GP22.L1", "GP22.L2", "LJ22.L1"],
    "profile": "ci", "hypothesis_seed": None, "workers": 0,
    "versions": {"lowrank-claims": claims.__version__},
    "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False}, "command": "pytest",
    "replay": "pytest --hypothesis-profile=ci",
}
HOLDING = {"error": 0.25, "tolerance": 0.5, "details": {}}
REFUTING = "tests/t.py::test_refuted"
BROKEN = "tests/t.py::test_broken"


def passed(nodeid: str, claim_ids: list[str]) -> TestRecord:
    record = TestRecord(nodeid, claim_ids, Role.EVIDENCE)
    evidence = {"cases": 2, "checks": 2, "holding": HOLDING, "series": [{"t": 1.0}]}
    fold_phase(record, "call", "passed", evidence, 0.1)
    return record


def refuting() -> TestRecord:
    """A check raised ClaimViolation: the test's outcome is ``failed``."""
    record = TestRecord(REFUTING, ["GP22.L1"], Role.EVIDENCE)
    fold_phase(record, "call", "failed", {"cases": 1, "violation": "absolute error 1 exceeds tolerance"}, 0.1)
    assert record.outcome == "failed"
    return record


def broken() -> TestRecord:
    """A bug, not a verdict: the test's outcome is ``error``; it evidences two claims."""
    record = TestRecord(BROKEN, ["GP22.L2", "LJ22.L1"], Role.EVIDENCE)
    fold_phase(record, "call", "failed", {}, 0.1, "ValueError: a bug")
    assert record.outcome == "error"
    return record


def built(*records: TestRecord, run: dict | None = None) -> dict:
    return build_report(run or RUN, {r.nodeid: r for r in records})


def clean() -> dict:
    return built(passed("tests/t.py::test_a", ["LJ22.L1"]), passed("tests/t.py::test_b", ["GP22.L1"]))


def with_failures() -> dict:
    return built(passed("tests/t.py::test_a", ["LJ22.L1"]), refuting(), broken())


# ------------------------------------------------------------------------------ rule 1: not citable


def test_a_run_with_a_failed_or_errored_test_is_not_citable_and_names_the_tests_and_their_claims():
    assert clean()["citation"]["citable"] is True and not_citable_because(clean()) is None
    report = with_failures()
    # in the report's order (its claims' order: LJ22 before GP22), each test once with every claim it touches
    assert failed_tests(report) == [(BROKEN, "error", ["LJ22.L1", "GP22.L2"]),
                                    (REFUTING, "failed", ["GP22.L1"])]
    why = report["citation"]["not_citable_because"]
    assert report["citation"]["citable"] is False
    assert why == (f"2 tests of the run failed or ended in an error ({BROKEN} (error; LJ22.L1, GP22.L2); "
                   f"{REFUTING} (failed; GP22.L1))")
    assert not_citable_because(json.loads(dumps(report))) == why  # as read back from claims.json
    # one failed test alone is enough; a partial run's reason comes first and the failures are still named
    assert built(refuting())["citation"]["not_citable_because"] == (
        f"1 test of the run failed or ended in an error ({REFUTING} (failed; GP22.L1))")
    partial = built(refuting(), run={**RUN, "selection": "partial"})["citation"]["not_citable_because"]
    assert partial.startswith("it is the report of a partial run") and REFUTING in partial


def test_a_long_list_of_failed_tests_is_cut_in_the_sentence():
    records = []
    for i in range(12):
        record = TestRecord(f"tests/t.py::test_{i:02d}", ["GP22.L1"], Role.EVIDENCE)
        fold_phase(record, "call", "failed", {"violation": "v"}, 0.0)
        records.append(record)
    why = built(*records)["citation"]["not_citable_because"]
    assert why.startswith("12 tests of the run") and "test_09 (failed; GP22.L1)" in why
    assert "test_10" not in why and why.endswith("; and 2 more)")


def test_the_report_says_so_at_its_top_lists_the_failed_tests_and_offers_no_bibtex():
    report = with_failures()
    markdown, page = render_markdown(report), render_html(report)
    top = markdown.index("> **Not citable.** This report must not be cited: 2 tests of the run failed")
    assert top < markdown.index("| Claim |") and top < markdown.index("Hypothesis profile")
    assert (f"> Failed or errored tests, and the claims they touch:\n>\n"
            f"> - `{BROKEN}`: error (LJ22.L1, GP22.L2)\n> - `{REFUTING}`: failed (GP22.L1)\n") in markdown
    banner = page.index('<section id="not-citable"')
    assert banner < page.index("<table>") and banner < page.index('<section id="LJ22.L1"')
    assert (f"<li><code>{BROKEN}</code>: error (LJ22.L1, GP22.L2)</li><li><code>{REFUTING}</code>: failed "
            "(GP22.L1)</li>") in page
    for text in (markdown, page, *citation_block(report).values()):
        assert "How to cite" not in text and "how-to-cite" not in text
        assert "BibTeX" not in text and "@misc{" not in text
    assert "How to cite this report" in render_markdown(clean())
    assert 'id="how-to-cite"' in render_html(clean())
    with pytest.raises(ValueError, match=f"not citable: 2 tests of the run failed .*{BROKEN}"):
        citation_text(report)


# ---------------------------------------------------------------------------- rule 2: the terminal


def test_the_terminal_names_the_failed_tests_and_their_claims_in_a_line_of_their_own(tmp_path):
    lines = terminal_lines(with_failures(), tmp_path)
    assert lines[-1] == (f"  failed or errored tests (2), not citable: {BROKEN} (error; LJ22.L1, GP22.L2), "
                         f"{REFUTING} (failed; GP22.L1)")
    assert lines[0].startswith("claims: ") and sum("failed or errored" in line for line in lines) == 1
    assert failure_line(clean()) is None
    assert not any("failed or errored" in line for line in terminal_lines(clean(), tmp_path))
    many = []
    for i in range(SHOWN_IDS + 3):
        record = TestRecord(f"tests/t.py::test_{i:02d}", ["GP22.L1"], Role.EVIDENCE)
        fold_phase(record, "call", "failed", {"violation": "v"}, 0.0)
        many.append(record)
    line = failure_line(built(*many))
    assert line.startswith(f"  failed or errored tests ({SHOWN_IDS + 3}), not citable: ")
    assert line.endswith(", and 3 more")


# ---------------------------------------------------------------------------------- rule 3: cite


def test_cite_refuses_a_report_with_a_failed_test_and_says_why(tmp_path, capsys):
    path = tmp_path / "claims.json"
    path.write_text(dumps(with_failures(), indent=2))
    assert main(["cite", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: {path}: not citable: 2 tests of the run failed")
    assert f"{REFUTING} (failed; GP22.L1)" in captured.err and captured.err.count("\n") == 1
    path.write_text(dumps(clean(), indent=2))
    assert main(["cite", str(path)]) == 0
    assert f"sha256:{clean()['citation']['digest']}" in capsys.readouterr().out


# --------------------------------------------------------------------- rule 4: the digest is checked


def tampered_copy(report: dict, path: Path) -> Path:
    """A copy of ``report`` with one verdict edited, as a hand could edit claims.json."""
    edited = copy.deepcopy(report)
    claim = next(c for c in edited["claims"] if c["id"] == "LJ22.L1")
    assert claim["verdict"] != "refuted"
    claim["verdict"] = "refuted"
    path.write_text(dumps(edited, indent=2))
    return path


def test_cite_and_compare_refuse_a_report_edited_after_its_run_naming_both_digests(tmp_path, capsys):
    report = clean()
    original = tmp_path / "claims.json"
    original.write_text(dumps(report, indent=2))
    copied = tampered_copy(report, tmp_path / "copy.json")
    stored, edited = report["citation"]["digest"], content_digest(json.loads(copied.read_text()))
    assert stored != edited
    message = (f"its content does not match its stored digest: stored sha256:{stored}, computed from its "
               f"content sha256:{edited}")
    assert digest_mismatch(json.loads(copied.read_text())).startswith(message)
    assert digest_mismatch(json.loads(original.read_text())) is None
    assert main(["cite", str(copied)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"error: {copied}: {message}")
    for old, new in ((original, copied), (copied, original)):
        assert main(["compare", str(old), str(new)]) == 2
        captured = capsys.readouterr()
        why = digest_mismatch(json.loads(copied.read_text()))
        assert captured.out == "" and captured.err == f"error: {copied}: {why}\n"
    assert main(["compare", str(original), str(original)]) == 0 and main(["cite", str(original)]) == 0
    for command in ("errata", "latex"):  # every reader of a report: the LaTeX captions print its digest
        assert main([command, str(copied)]) == 2
    capsys.readouterr()


def test_a_history_entry_is_checked_against_its_own_digest(tmp_path, capsys):
    """An entry drops its tests' series, which the report's digest hashes: it stores the digest of what it
    holds, and an edit of it is refused; the report's digest is the one cited."""
    report = clean()
    entry = save_run(report, tmp_path / "history")
    data = json.loads(gzip.decompress(entry.read_bytes()))
    assert data["citation"]["digest"] == report["citation"]["digest"] != data["citation"][ENTRY_DIGEST]
    assert data["citation"][ENTRY_DIGEST] == content_digest(data) and load_report(entry) == data
    assert main(["cite", str(entry)]) == 0
    assert f"sha256:{report['citation']['digest']}" in capsys.readouterr().out
    edited = tampered_copy(data, tmp_path / "entry.json")
    with pytest.raises(BaselineError, match="its content does not match its stored entry digest: stored sha"):
        load_report(edited)
    assert main(["compare", str(entry), str(edited)]) == 2 and "entry digest" in capsys.readouterr().err


def test_the_committed_reference_still_loads_and_compares_but_is_not_cited_unchecked(capsys):
    """The reference was saved before entries had their own digest: nothing to check it against, so it is
    read as before (compare), but its digest, of series it no longer holds, is not cited."""
    assert main(["compare", str(REFERENCE), str(REFERENCE)]) == 0
    assert "no regression" in capsys.readouterr().out
    assert main(["cite", str(REFERENCE)]) == 2
    assert "its digest cannot be checked against its content" in capsys.readouterr().err
