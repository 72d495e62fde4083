"""The claims report plugin, tested with pytester: full and partial runs, interrupted and crashed tests, bad
options, an unrelated project; and the report's verdict rules, directly on test records.

Runs are in-process (``run``; the ``isolated`` fixture undoes what a run changes in this process), and in a
subprocess (``run_subprocess``, as a user runs pytest) where the process itself is part of what is checked:
the command and environment a run records, xdist and its workers, a crash, an interrupt, a fresh process's
imports and Hypothesis settings."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import pytest

from claims.evidence._role import Role
from claims.session._phases import fold_phase
from claims import CLAIMS
from synthetic_claims import EVIDENCE_MODULE, OTHER_MODULE  # tests/plugin/synthetic_claims.py


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester, isolated) -> None:
    """A project that loads the claims plugin, as this suite's own conftest.py does."""
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')


def run(pytester: pytest.Pytester, *args: str, partial: bool = False) -> tuple[pytest.RunResult, dict]:
    return written(pytester, pytester.runpytest_inprocess("-p", "no:cacheprovider", *args), partial)


def run_subprocess(pytester: pytest.Pytester, *args: str, partial: bool = False) -> tuple[pytest.RunResult, dict]:
    return written(pytester, pytester.runpytest_subprocess("-p", "no:cacheprovider", *args), partial)


def written(pytester: pytest.Pytester, result: pytest.RunResult, partial: bool) -> tuple[pytest.RunResult, dict]:
    directory = pytester.path / "reports" / ("partial" if partial else "")
    return result, json.loads((directory / "claims.json").read_text())


def entry(report: dict, claim_id: str) -> dict:
    return next(c for c in report["claims"] if c["id"] == claim_id)


@pytest.fixture
def ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")


def test_full_run_report_lists_every_claim_and_records_the_run(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    result, report = run_subprocess(pytester)
    result.assert_outcomes(passed=3)
    assert report["schema"] == "lowrank-claims/report/3"
    assert [c["id"] for c in report["claims"]] == list(CLAIMS)
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "verified" and l1["control_state"] == "rejected"
    assert l1["cases"] == 100 and l1["tests"] == 2 and l1["degenerate"] == 0
    assert l1["max_error"] == 0 and l1["margin"] is None and l1["error_scale"] == "absolute"
    assert l1["notes"] == ["doubling is adding"]
    beyond = sum(c.origin == "suite" for c in CLAIMS.values())  # the suite's own questions, counted apart
    assert report["summary"]["verified"] == 1 and report["summary"]["untested"] == len(CLAIMS) - 1 - beyond
    assert report["summary_beyond_papers"]["untested"] == beyond
    run_info = report["run"]
    assert run_info["complete"] is True and run_info["selection"] == "full" and run_info["profile"] == "ci"
    assert run_info["selected_claims"] == ["LJ22.L1"] and run_info["selection_reasons"] == []
    assert {"numpy", "scipy", "sympy", "torch", "hypothesis", "pytest", "lowrank-claims"} <= set(run_info["versions"])
    assert set(run_info["git"]) == {"commit", "dirty"}
    assert run_info["command"].startswith("pytest --basetemp=") and run_info["command"].endswith(" -p no:cacheprovider")
    assert "Thien Le and Stefanie Jegelka" in report["papers"]["LJ22"]
    result.stdout.fnmatch_lines([
        f"claims: 1 verified, {len(CLAIMS) - 1 - beyond} untested; questions beyond the papers: {beyond} untested; "
        f"report: {pytester.path / 'reports' / 'claims.html'}",
        f"  untested ({len(CLAIMS) - 1 - beyond}): LJ22.CL1, LJ22.CL2, *, and {len(CLAIMS) - 21 - beyond} more",
        "  questions beyond the papers (1): LJ22.X1 untested",
    ])
    assert not (pytester.path / "reports" / "partial").exists()  # made only by a run that writes there
    assert report["citation"]["citable"] is True and report["citation"]["not_citable_because"] is None
    markdown = (pytester.path / "reports" / "claims.md").read_text()
    assert ("| LJ22.L1 | Path decomposition nu = mu o h (Lemma 1) | verified | Holds as printed: every evidence test "
            "passed with informative cases, and the negative control shows the checks can fail. | 100/100 | identity: "
            "error 0 (tolerance 1e-15) | rejected |") in markdown
    assert ("| LJ22.L2a | Per-vertex balance of incoming vs outgoing squared weights (Lemma 2, Eq. (4)) | untested |"
            in markdown)
    assert "--hypothesis-seed" not in markdown and "derandomized" in markdown
    assert "-p no:cacheprovider --hypothesis-profile=ci`" in markdown


def details(report: dict) -> str:
    """Every claim's section with its details (``python -m claims show``), which claims.md leaves out."""
    from claims.report._markdown import claim_section

    return "\n".join(line for c in report["claims"] for line in claim_section(c))


def without_timings(report: dict) -> dict:
    for claim in report["claims"]:
        for test in claim["evidence"]:
            test.pop("duration")
    return report["claims"], report["summary"]


def test_same_report_with_and_without_xdist(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_other=OTHER_MODULE)
    serial_result, serial = run_subprocess(pytester, "-n", "0")
    parallel_result, parallel = run_subprocess(pytester, "-n", "2")
    serial_result.assert_outcomes(passed=5)
    parallel_result.assert_outcomes(passed=5)
    assert parallel["run"]["workers"] == 2 and serial["run"]["workers"] == 0
    assert parallel["run"]["selection"] == serial["run"]["selection"] == "full"
    assert parallel["run"]["complete"] and serial["run"]["complete"]
    assert without_timings(serial) == without_timings(parallel)


FAILING_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_property

@pytest.mark.claim("GP22.L1")
@given(st.floats(0.5, 1))
def test_refuted(x):
    check_close(x, x + 1, tolerance=1e-15)

@pytest.mark.claim("GP22.L2")
def test_broken():
    raise ValueError("a bug, not a verdict")

@pytest.mark.claim("GP22.T1")
def test_nan_never_passes():
    check_close(float("nan"), 0.0, tolerance=1.0)
"""


@pytest.mark.parametrize("workers", ["0", "1"])
def test_a_finished_run_with_failures_is_complete_and_says_what_failed(pytester, ci, workers):
    pytester.makepyfile(test_failing=FAILING_MODULE)
    result, report = (run if workers == "0" else run_subprocess)(pytester, "-n", workers)
    result.assert_outcomes(failed=3)
    assert report["run"]["complete"] is True  # every selected test finished
    refuted = entry(report, "GP22.L1")
    assert refuted["verdict"] == "refuted"
    assert refuted["violations"][0]["violation"].startswith("absolute error 1 exceeds tolerance")
    assert "test_refuted(\n    x=" in refuted["violations"][0]["falsifying_example"]
    assert entry(report, "GP22.L2")["verdict"] == "error"
    assert entry(report, "GP22.T1")["verdict"] == "error"  # NaN: neither a pass nor a counterexample
    result.stdout.fnmatch_lines([
        "claims: 1 refuted, * 2 error; questions beyond the papers: 1 untested; report: *reports/claims.html",
        "  error (2): GP22.L2, GP22.T1", "  refuted (1): GP22.L1", f"  untested ({len(CLAIMS) - 4}): LJ22.L1, *",
        "  questions beyond the papers (1): LJ22.X1 untested",
        ("  failed or errored tests (3), not citable: test_failing.py::test_refuted (failed; GP22.L1), "
         "test_failing.py::test_broken (error; GP22.L2), "
         "test_failing.py::test_nan_never_passes (error; GP22.T1)"),
        "=* 3 failed in *",
    ], consecutive=True)
    assert "incomplete" not in result.stdout.str()
    assert report["citation"]["citable"] is False
    assert "test_failing.py::test_broken (error; GP22.L2)" in report["citation"]["not_citable_because"]
    markdown = details(report)  # a claim's details: claims.html (folded) and `python -m claims show`, not claims.md
    assert "Refuting test `test_failing.py::test_refuted`: absolute error 1 exceeds tolerance" in markdown
    assert "test_refuted(\n    x=" in markdown


def test_partial_runs_never_replace_the_full_report(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_other=OTHER_MODULE)
    _, full = run(pytester)
    full_text = (pytester.path / "reports" / "claims.json").read_text()
    assert full["run"]["selection"] == "full" and entry(full, "LJ22.R1")["verdict"] == "verified"

    result, partial = run(pytester, "-k", "test_identity", partial=True)
    assert (pytester.path / "reports" / "claims.json").read_text() == full_text
    assert partial["run"]["selection"] == "partial"
    assert partial["run"]["selected_claims"] == ["LJ22.L1"]
    assert partial["run"]["pytest_args"][-4:] == ["-p", "no:cacheprovider", "-k", "test_identity"]
    l1 = entry(partial, "LJ22.L1")
    assert l1["verdict"] == "inconclusive" and l1["control_state"] == "control not run in this selection"
    assert entry(partial, "LJ22.R1")["verdict"] == "not-run"
    assert entry(partial, "LJ22.L2a")["verdict"] == "untested"
    result.stdout.fnmatch_lines([  # the claims it selected that are not verified, not the ones it did not select
        "claims (partial run, 1 claims selected): *; report: *partial/claims.html (not a full, complete run*",
        "  inconclusive (1): LJ22.L1", "=* 1 passed, 4 deselected in *",
    ], consecutive=True)
    assert partial["citation"]["citable"] is False and "partial run" in partial["citation"]["not_citable_because"]
    markdown = (pytester.path / "reports" / "partial" / "claims.md").read_text()
    html = (pytester.path / "reports" / "partial" / "claims.html").read_text()
    assert "**Not citable.**" in markdown and 'id="not-citable"' in html and "Not citable." in html
    for text in (markdown, html):
        assert "How to cite this report" not in text and "@misc{" not in text and "@inproceedings{" not in text

    _, by_path = run(pytester, "test_other.py", partial=True)  # the other module is not even collected
    assert entry(by_path, "LJ22.L1")["verdict"] == "not-run"
    assert entry(by_path, "LJ22.R1")["verdict"] == "verified"
    assert (pytester.path / "reports" / "claims.json").read_text() == full_text


FACTORY_MODULE = """
import pytest
from claims import check_close


def instantaneous_test(claim_id):
    @pytest.mark.claim(claim_id)
    def test():
        check_close(1.0, 1.0, tolerance=1e-15)
    return test


def control(claim_id):
    @pytest.mark.claim(claim_id, negative_control=True)
    def test():
        pass
    return test


test_case_1_rate = instantaneous_test("LJ22.T1.1")
test_case_1_control = control("LJ22.T1.1")
"""

PLAIN_MODULE = """
def test_plain():
    assert 1 + 1 == 2
"""


def test_a_partial_run_counts_only_its_claims_and_knows_tests_made_by_factories(pytester, ci):
    """A partial run's summary counts the claims it selected, not the others (neither not-run nor untested);
    a claim whose tests a factory makes (``instantaneous_test("LJ22.T1.1")``) in a file the run did not
    collect has tests: not-run, never untested; with no full report yet the terminal says so."""
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_factories=FACTORY_MODULE)
    result, partial = run(pytester, "test_evidence.py", partial=True)
    selected = partial["run"]["selected_claims"]
    assert sum(partial["summary"].values()) + sum(partial["summary_beyond_papers"].values()) == len(selected)
    assert entry(partial, "LJ22.T1.1")["verdict"] == "not-run"
    result.stdout.fnmatch_lines([f"claims (partial run, {len(selected)} claims selected): *; report: *partial/"
                                 "claims.html (not a full, complete run: there is no full report yet; *"])
    assert "untested" not in result.stdout.str().split("claims (partial run")[1]


def test_a_run_that_selects_no_claim_test_writes_no_claims_report(pytester, ci):
    """``pytest tests/unit`` says nothing about a claim: no claims report, and the last partial one stays."""
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_plain=PLAIN_MODULE)
    _, before = run(pytester, "test_evidence.py", partial=True)
    kept = (pytester.path / "reports" / "partial" / "claims.json").read_text()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "test_plain.py")
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "reports" / "partial" / "claims.json").read_text() == kept
    result.stdout.fnmatch_lines(["claims: no claim test selected, no claims report written (reports is unchanged)"])


@pytest.mark.parametrize("mode", ["--collect-only", "--setup-only", "--setup-plan", "--fixtures"])
def test_modes_that_run_no_test_write_no_report(pytester, ci, mode):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", mode)
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "reports").exists()


def test_an_aborted_collection_never_replaces_the_full_report(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    run(pytester)
    full_text = (pytester.path / "reports" / "claims.json").read_text()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", ".", "no_such_file.py")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (pytester.path / "reports" / "claims.json").read_text() == full_text


def test_last_failed_runs_are_partial_and_count_what_they_run(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_failing=FAILING_MODULE)
    pytester.runpytest_inprocess()  # with the cache: it records the last failures
    result = pytester.runpytest_inprocess("--lf")
    result.assert_outcomes(failed=3)  # only the three that failed, not the evidence module's tests
    report = json.loads((pytester.path / "reports" / "partial" / "claims.json").read_text())
    assert report["run"]["selection"] == "partial" and report["run"]["complete"] is True
    assert report["run"]["selected_tests"] == 3 and report["run"]["finished_tests"] == 3
    assert entry(report, "LJ22.L1")["verdict"] == "not-run"


def test_a_collection_error_is_partial_and_names_the_nearest_ids(pytester, ci):
    pytester.makepyfile(
        test_typo="""
        import pytest

        @pytest.mark.claim("LJ22.L7")
        def test_typo():
            pass
        """
    )
    result, report = run(pytester, partial=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_typo.py*", "*unknown claim ID 'LJ22.L7'; nearest valid: *"])
    assert report["run"]["selection"] == "partial" and report["run"]["complete"] is False
    assert not (pytester.path / "reports" / "claims.json").exists()


INTERRUPTED_CONTROL = """
import pytest
from claims import check_close, check_rejected

@pytest.mark.claim("BSJ25.EX1")
def test_a_claim():
    check_close(1.0, 1.0, tolerance=0.0)

@pytest.mark.claim("BSJ25.EX1", negative_control=True)
def test_b_control():
    check_rejected(2.0, 1.0, tolerance=0.0)
    raise KeyboardInterrupt
"""


def test_an_interrupted_control_is_never_rejected(pytester, ci):
    pytester.makepyfile(test_interrupted=INTERRUPTED_CONTROL)
    result, report = run_subprocess(pytester, "-n", "0", partial=True)  # an incomplete run is not the full report
    assert result.ret == pytest.ExitCode.INTERRUPTED
    ex1 = entry(report, "BSJ25.EX1")
    control = next(t for t in ex1["evidence"] if t["role"] == "control")
    assert control["outcome"] == "not-run" and control["cases"] == 0
    assert ex1["control_state"] == "did not finish" and ex1["verdict"] == "inconclusive"
    assert report["run"]["complete"] is False and not (pytester.path / "reports" / "claims.json").exists()
    result.stdout.fnmatch_lines(["claims: 1 inconclusive, * (incomplete run: not every selected test finished)*"])


CRASHING_CONTROL = """
import os
import pytest
from claims import check_close, check_rejected

@pytest.mark.claim("BSJ25.EX1")
def test_claim():
    check_close(1.0, 1.0, tolerance=0.0)

@pytest.mark.claim("BSJ25.EX1", negative_control=True)
def test_control_crashes():
    check_rejected(2.0, 1.0, tolerance=0.0)
    os._exit(1)
"""


def test_a_crashed_worker_leaves_its_test_not_run(pytester, ci):
    pytester.makepyfile(test_crash=CRASHING_CONTROL)
    result, report = run_subprocess(pytester, "-n", "1", partial=True)
    ex1 = entry(report, "BSJ25.EX1")
    control = next(t for t in ex1["evidence"] if t["role"] == "control")
    assert control["outcome"] == "not-run" and "crashed" in control["reason"]
    assert ex1["control_state"] == "did not finish" and ex1["verdict"] == "inconclusive"
    assert report["run"]["complete"] is False


SKIPS_AND_EMPTY_CONTROLS = """
import pytest
from claims import check_close, check_rejected

@pytest.fixture
def unavailable():
    pytest.skip("no data here")

@pytest.mark.claim("LJ22.R1")
def test_claim_skipped_in_setup(unavailable):
    check_close(1.0, 1.0, tolerance=0.0)

@pytest.mark.claim("LJ22.L10")
def test_claim():
    check_close(1.0, 1.0, tolerance=0.0)

@pytest.mark.claim("LJ22.L10", negative_control=True)
def test_control_without_cases():
    pass
"""


def test_a_setup_skip_is_not_run_and_an_empty_control_is_not_rejected(pytester, ci):
    pytester.makepyfile(test_skips=SKIPS_AND_EMPTY_CONTROLS)
    result, report = run(pytester)
    result.assert_outcomes(passed=2, skipped=1)
    r1 = entry(report, "LJ22.R1")
    assert r1["verdict"] == "not-run" and r1["evidence"][0]["outcome"] == "not-run"
    assert r1["evidence"][0]["reason"].startswith("skipped in setup")
    # the skip's own reason is the claim's why and headline, so a deliberate skip reads as one
    assert r1["why"] == ["No evidence test of this claim finished in this run.", "Skipped: no data here."]
    row = next(line for line in (pytester.path / "reports" / "claims.md").read_text().splitlines()
               if line.startswith("| LJ22.R1 |"))
    assert "| not-run | Not run: no data here. |" in row
    l10 = entry(report, "LJ22.L10")
    assert l10["control_state"] == "no cases" and l10["verdict"] == "inconclusive"
    assert report["run"]["complete"] is True


def test_declared_verdicts_need_a_rejected_control(pytester, ci):
    pytester.makepyfile(
        test_verdicts="""
        import pytest
        from claims import check_inequality, check_inequality_rejected, declare_verdict, record_erratum

        def corrected(claim):
            check_inequality_rejected(1.5, 1.0, tolerance=1e-15, statement="printed, constant 1")
            check_inequality(1.5, 2.0, tolerance=1e-15, statement="corrected, constant 2")
            declare_verdict("verified-with-correction", correction="constant 2 instead of 1")
            record_erratum(f"{claim}-E1", severity="constant or factor wrong", location_kind="constant",
                           location="the bound", printed="1", corrected="2", counterexample={"lhs": 1.5, "bound": 1.0})

        @pytest.mark.claim("LJ22.L10")
        def test_corrected():
            corrected("LJ22.L10")

        @pytest.mark.claim("LJ22.L10", negative_control=True)
        def test_control():
            check_inequality_rejected(2.5, 2.0, tolerance=1e-15, statement="constant 2, lhs pushed up")

        @pytest.mark.claim("LJ22.R1")
        def test_corrected_without_control():
            corrected("LJ22.R1")
        """
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=3)
    l10 = entry(report, "LJ22.L10")
    assert l10["verdict"] == "verified-with-correction" and l10["control_state"] == "rejected"
    assert l10["correction"] == "constant 2 instead of 1"
    assert (l10["max_error"], l10["min_slack"]) == (0.0, 0.5 / 3.5)
    assert l10["counterexample"]["error"] == 0.5
    assert l10["counterexample"]["details"]["statement"] == "printed, constant 1"
    assert ("The printed statement fails in `test_verdicts.py::test_corrected` (the case nearest to acceptance): "
            "lhs 1.5 > rhs 1 by 0.5 (tolerance 1e-15, absolute)") in details(report)
    r1 = entry(report, "LJ22.R1")
    assert r1["verdict"] == "inconclusive" and r1["control_state"] == "absent"


def test_control_that_accepts_makes_the_claim_inconclusive(pytester, ci):
    pytester.makepyfile(
        test_accepting="""
        import pytest
        from claims import check_close, check_rejected

        @pytest.mark.claim("LJ22.R1")
        def test_claim():
            check_close(1.0, 1.0, tolerance=0.0)

        @pytest.mark.claim("LJ22.R1", negative_control=True)
        def test_control_that_rejects():
            check_rejected(2.0, 1.0, tolerance=0.0)

        @pytest.mark.claim("LJ22.R1", negative_control=True)
        def test_control_cannot_fail():
            check_rejected(1.0, 1.0, tolerance=0.0)
        """
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=2, failed=1)
    r1 = entry(report, "LJ22.R1")
    assert r1["control_state"] == "accepted" and r1["verdict"] == "inconclusive"


def test_findings_degenerate_cases_and_repeated_labels(pytester, ci):
    pytester.makepyfile(
        test_findings="""
        import pytest
        from hypothesis import given, strategies as st
        from claims import check_close, check_inequality, check_rejected, finding

        @pytest.mark.claim("LJ22.L1")
        @given(st.integers(0, 3))
        def test_claim(n):
            check_close(float(n), float(n), tolerance=0.0)
            check_inequality(n, n + 1, tolerance=0.0)
            check_inequality(n, n + 2, tolerance=0.0)
            with finding("beyond the lemma"):
                check_close(2.0 * n, n + n, tolerance=1e-300)

        @pytest.mark.claim("LJ22.L1", negative_control=True)
        def test_control():
            check_rejected(1.0, 0.0, tolerance=0.0)
        """
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=2)
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "verified"
    assert l1["cases"] >= 1 and l1["findings"]["beyond the lemma"]["checks"] >= 4
    assert l1["cases"] + l1["degenerate"] == l1["findings"]["beyond the lemma"]["checks"]


def test_a_failing_finding_is_an_error_not_a_refutation(pytester, ci):
    pytester.makepyfile(
        test_finding_fails="""
        import pytest
        from claims import check_close, finding

        @pytest.mark.claim("LJ22.L1")
        def test_claim():
            check_close(1.0, 1.0, tolerance=0.0)
            with finding("a guess of ours"):
                check_close(1.0, 2.0, tolerance=0.0)
        """
    )
    result, report = run(pytester)
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "error" and "a guess of ours" in l1["evidence"][0]["reason"]


def test_junit_xml_properties_are_json(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    result, _ = run(pytester, "--junitxml=junit.xml")
    properties = {
        (case.get("name"), prop.get("name")): prop.get("value")
        for case in ElementTree.parse(pytester.path / "junit.xml").iter("testcase")
        for prop in case.iter("property")
    }
    assert json.loads(properties[("test_identity", "claims")]) == {"ids": ["LJ22.L1"], "role": "evidence", "line": 4}
    assert json.loads(properties[("test_control", "claims")]) == {"ids": ["LJ22.L1"], "role": "control", "line": 10}
    assert json.loads(properties[("test_identity", "claims_evidence")])["cases"] == 100


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_an_unusable_report_dir_is_a_usage_error_before_any_test(pytester, ci, where):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    pytester.path.joinpath("taken").write_text("a file")
    target = "taken" if where == "file" else "taken/reports"
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"--claims-report-dir={target}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--claims-report-dir={pytester.path / target}" in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert "passed" not in result.stdout.str()


def test_report_dir_option_and_no_report(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "--claims-report-dir=out").assert_outcomes(passed=3)
    assert (pytester.path / "out" / "claims.json").exists() and not (pytester.path / "reports").exists()
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "--no-claims-report").assert_outcomes(passed=3)
    assert not (pytester.path / "reports").exists()


def test_an_unrelated_project_gets_no_report_and_default_hypothesis_settings(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)  # with CI set, Hypothesis itself picks its own "ci" profile
    (pytester.path / "conftest.py").unlink()  # a project that does not load the claims plugin
    pytester.makepyfile(
        test_elsewhere="""
        import datetime
        from hypothesis import settings
        import claims  # installed in the same environment

        def test_defaults():
            assert settings.default.deadline == datetime.timedelta(milliseconds=200)
            assert settings.default.database is not None and not settings.default.derandomize
            assert settings._current_profile == "default"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "1")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "reports").exists()
    assert "claims" not in result.stdout.str().replace("import claims", "")


def test_plugin_and_check_core_do_not_import_torch(pytester):
    pytester.makepyfile(
        test_light="""
        import sys
        import claims.plugin, claims.checks

        def test_no_torch():
            assert "torch" not in sys.modules
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--no-claims-report").assert_outcomes(passed=1)


def test_checks_outside_a_claim_test_say_so():
    from claims import OutsideClaimTest, check_close, record_note

    with pytest.raises(OutsideClaimTest, match="outside a claim test.*@pytest.mark.claim"):
        record_note("nowhere to go")
    with pytest.raises(OutsideClaimTest, match="record_case was called outside a claim test"):
        check_close(1.0, 1.0, tolerance=0.0)


ROUNDING_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected

@pytest.mark.claim("LJ22.L1")
@given(st.floats(0.25, 1))
def test_rounding(x):
    check_close(x * 3 / 10, x * 0.3, tolerance=1e-15)

@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(st.floats(0.5, 1))
def test_control(x):
    check_rejected(x * 0.4, x * 0.3, tolerance=1e-15)
"""


def test_a_randomized_run_records_a_seed_that_replays_under_xdist(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pytester.makepyfile(test_rounding=ROUNDING_MODULE)
    first_result, first = run_subprocess(pytester)
    seed = first["run"]["hypothesis_seed"]
    assert first["run"]["profile"] == "dev" and isinstance(seed, int)
    assert first["run"]["replay"].endswith(f" -p no:cacheprovider --hypothesis-profile=dev --hypothesis-seed={seed}")
    replay_result, replay = run_subprocess(pytester, "-n", "2", f"--hypothesis-seed={seed}")
    first_result.assert_outcomes(passed=2)
    replay_result.assert_outcomes(passed=2)
    assert replay["run"]["hypothesis_seed"] == seed
    assert without_timings(first) == without_timings(replay)
    assert entry(first, "LJ22.L1")["max_error"] > 0


# ------------------------------------------------------------------ verdict rules, on test records


def record(name: str, *, control: bool = False, outcome: str = "passed", cases: int = 1, **evidence):
    from claims.report._model import TestRecord

    case = {"error": evidence.pop("error", 0.0), "tolerance": evidence.pop("tolerance", 1.0), "details": {}}
    shown = {"counterexample": {**case, "error": 2.0}} if control else {"holding": case}
    full = {"cases": cases, "notes": [], **(shown if cases else {}), **evidence}
    return TestRecord(f"test_x.py::{name}", ["LJ22.L1"], Role.of_marker(control), outcome=outcome, reason=None,
                      evidence=full)


def verdict_of(*records) -> dict:
    from claims.evidence._registry import CLAIMS as registry
    from claims.report._model import claim_entry

    return claim_entry(registry["LJ22.L1"], list(records))


def test_claim_entry_does_not_depend_on_completion_order():
    first, second = record("test_a", notes=["note a"]), record("test_b", notes=["note b"])
    assert verdict_of(first, second) == verdict_of(second, first)


def test_a_correction_never_hides_a_refutation_and_nothing_hides_an_error():
    shown = {"error": 0.5, "tolerance": 0.0, "details": {"statement": "as printed"}}
    corrected = record("test_corrected", verdict="verified-with-correction", correction="c", counterexample=shown)
    refuted = record("test_refuted", outcome="failed", violation="fails")
    control = record("test_control", control=True)
    assert verdict_of(corrected, refuted, control)["verdict"] == "refuted"
    assert verdict_of(corrected, refuted, control, record("test_e", outcome="error"))["verdict"] == "error"
    assert verdict_of(corrected, control)["verdict"] == "verified-with-correction"
    assert verdict_of(corrected)["verdict"] == "inconclusive"  # a correction needs a rejected control too


def test_an_inconclusive_trend_is_never_averaged_into_a_verified_claim():
    control = record("test_control", control=True)
    undecided = record("test_trend", verdict="inconclusive")
    entry_ = verdict_of(record("test_a"), undecided, control)
    assert entry_["verdict"] == "inconclusive" and "test fixed before the data" in " ".join(entry_["why"])
    accepting = record("test_c2", control=True, outcome="failed")
    assert "negative control: accepted" in " ".join(verdict_of(undecided, accepting)["why"])
    shown = {"error": 3.0, "tolerance": 1.0, "details": {}}
    refuting = record("test_refuting", verdict="refuted", counterexample=shown)
    assert verdict_of(undecided, refuting, control)["verdict"] == "refuted"


def test_a_holding_case_beyond_its_tolerance_without_a_verdict_is_not_verified():
    control = record("test_control", control=True)
    undeclared = record("test_trend", error=3.0, tolerance=1.0)
    entry_ = verdict_of(record("test_a"), undeclared, control)
    assert entry_["verdict"] == "inconclusive" and "beyond its tolerance" in " ".join(entry_["why"])


def test_every_control_must_reject():
    claim = record("test_claim")
    rejecting, accepting = record("test_c1", control=True), record("test_c2", control=True, outcome="failed")
    assert verdict_of(claim, rejecting)["control_state"] == "rejected"
    assert verdict_of(claim, rejecting, accepting)["control_state"] == "accepted"
    assert verdict_of(claim, rejecting, accepting)["verdict"] == "inconclusive"
    unfinished = record("test_c3", control=True, outcome="not-run", cases=0)
    assert verdict_of(claim, rejecting, unfinished)["control_state"] == "did not finish"
    empty = record("test_c4", control=True, cases=0)
    assert verdict_of(claim, rejecting, empty)["control_state"] == "no cases"


def test_a_verdict_must_show_its_counterexample_and_a_counterexample_needs_a_verdict():
    control = record("test_control", control=True)
    shown = {"error": 0.5, "tolerance": 0.0, "details": {}}
    unshown = record("test_declared", verdict="verified-with-correction", correction="c")
    assert verdict_of(unshown, control)["verdict"] == "inconclusive"
    assert verdict_of(record("test_refuting", verdict="refuted", counterexample=shown), control)["verdict"] == "refuted"
    assert verdict_of(record("test_declares_nothing", counterexample=shown), control)["verdict"] == "inconclusive"


def test_a_claim_whose_evidence_tests_were_not_all_selected_is_not_verified():
    from claims.report._suite import ClaimSuite
    from claims.evidence._registry import CLAIMS as registry
    from claims.report._model import claim_entry

    suite = ClaimSuite(has_evidence_tests=True, has_controls=True, unselected_evidence=1)
    entry_ = claim_entry(registry["LJ22.L1"], [record("test_a"), record("test_control", control=True)], suite)
    assert entry_["verdict"] == "inconclusive" and "not selected" in " ".join(entry_["why"])


def test_unfinished_evidence_and_zero_cases_are_not_verified():
    control = record("test_control", control=True)
    finished, unfinished = record("test_a"), record("test_b", outcome="not-run", cases=0)
    assert verdict_of(finished, unfinished, control)["verdict"] == "inconclusive"
    assert verdict_of(unfinished, control)["verdict"] == "not-run"
    assert verdict_of(record("test_degenerate_only", cases=0, degenerate=5), control)["verdict"] == "inconclusive"


def test_the_worst_case_is_the_one_nearest_to_violating():
    control = record("test_control", control=True)
    loose = record("test_loose", error=1e-18, tolerance=1e-15)
    tight = record("test_tight", error=1e-16, tolerance=1e-15)
    entry_ = verdict_of(loose, tight, control)
    assert (entry_["max_error"], entry_["margin"]) == (1e-16, pytest.approx(10.0))


def test_a_record_without_a_call_phase_is_not_run():
    from claims.report._model import TestRecord

    interrupted = TestRecord("test_x.py::test_y", ["LJ22.L1"], Role.CONTROL)
    fold_phase(interrupted, "setup", "passed", None, 0.1)
    assert interrupted.outcome == "not-run"
    fold_phase(interrupted, "call", "passed", {"cases": 1}, 0.1)
    assert interrupted.outcome == "passed"
    crashed = TestRecord("test_x.py::test_z", ["LJ22.L1"], Role.CONTROL)
    fold_phase(crashed, "???", "failed", None, 0.0, "worker 'gw0' crashed while running 'test_x.py::test_z'")
    assert crashed.outcome == "not-run" and "crashed" in crashed.reason


def test_an_unknown_profile_is_a_usage_error(pytester):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--hypothesis-profile=nightlly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--hypothesis-profile=nightlly: not a profile of this suite; one of dev, ci, nightly*"]
    )
    assert not (pytester.path / "reports" / "claims.json").exists()


def test_the_dirty_flag_counts_code_not_logs_or_virtualenvs(tmp_path):
    import subprocess

    from claims.session._provenance import git_state

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    git("init", "-q")
    (tmp_path / "module.py").write_text("x = 1\n")
    git("add", "module.py")
    git("commit", "-qm", "one")
    assert git_state(tmp_path)["dirty"] is False and len(git_state(tmp_path)["commit"]) == 40
    (tmp_path / "run.log").write_text("log")
    (tmp_path / ".venv").mkdir()
    assert git_state(tmp_path)["dirty"] is False
    (tmp_path / "test_new.py").write_text("")
    assert git_state(tmp_path)["dirty"] is True
    (tmp_path / "test_new.py").unlink()
    (tmp_path / "module.py").write_text("x = 2\n")
    assert git_state(tmp_path)["dirty"] is True
