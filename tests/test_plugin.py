"""The claims report plugin, tested with pytester in subprocesses (as a user runs pytest)."""

from __future__ import annotations

import json

import pytest

from claims import CLAIMS

EVIDENCE_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected, record_note

@pytest.mark.claim("LJ22.L1")
@given(st.floats(-1, 1))
def test_identity(x):
    check_close(x * 2, x + x, tolerance=1e-15)
    record_note("doubling is adding")

@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(st.floats(0.5, 1))
def test_control(x):
    check_rejected(x * 3, x + x, tolerance=1e-15)

def test_unmarked():
    pass
"""


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester) -> None:
    """A project that loads the claims plugin, as this suite's own conftest.py does."""
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    report = json.loads((pytester.path / "reports" / "claims.json").read_text())
    return result, report


def entry(report: dict, claim_id: str) -> dict:
    return next(c for c in report["claims"] if c["id"] == claim_id)


@pytest.fixture
def ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")


def test_report_lists_every_claim_and_verifies_with_control(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    result, report = run(pytester)
    result.assert_outcomes(passed=3)
    assert report["schema"] == "lowrank-claims/report/1"
    assert [c["id"] for c in report["claims"]] == list(CLAIMS)
    l1 = entry(report, "LJ22.L1")
    assert l1["verdict"] == "verified"
    assert l1["negative_control"] == "rejected"
    assert l1["cases"] == 100 and l1["tests"] == 2
    assert l1["max_error"] == 0 and l1["margin"] is None
    assert l1["notes"] == ["doubling is adding"]
    assert report["summary"]["verified"] == 1 and report["summary"]["untested"] == len(CLAIMS) - 1
    assert report["run"]["complete"] is True and report["run"]["profile"] == "ci"
    assert {"started", "finished", "workers", "python", "torch", "hypothesis", "git_commit", "command"} <= set(
        report["run"]
    )
    result.stdout.fnmatch_lines(["claims: 1 verified, 39 untested; report in *"])
    markdown = (pytester.path / "reports" / "claims.md").read_text()
    assert "| LJ22.L1 | Lemma 1 | verified | 100 | 0 | 1e-15 | exact | - | rejected |" in markdown
    assert "| LJ22.L2a | Lemma 2, Eq. (4) | untested |" in markdown


def without_timings(report: dict) -> dict:
    for claim in report["claims"]:
        for test in claim["evidence"]:
            test.pop("duration")
    return report["claims"], report["summary"]


def test_same_report_with_and_without_xdist(pytester, ci):
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE)
    serial_result, serial = run(pytester, "-n", "0")
    parallel_result, parallel = run(pytester, "-n", "2")
    serial_result.assert_outcomes(passed=3)
    parallel_result.assert_outcomes(passed=3)
    assert parallel["run"]["workers"] == 2 and serial["run"]["workers"] == 0
    assert without_timings(serial) == without_timings(parallel)


FAILING_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close

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


@pytest.mark.parametrize("workers", ["0", "2"])
def test_failing_run_still_writes_an_incomplete_report(pytester, ci, workers):
    pytester.makepyfile(test_failing=FAILING_MODULE)
    result, report = run(pytester, "-n", workers)
    result.assert_outcomes(failed=3)
    assert report["run"]["complete"] is False
    assert entry(report, "GP22.L1")["verdict"] == "refuted"
    assert entry(report, "GP22.L1")["evidence"][0]["violation"].startswith("error 1 exceeds tolerance")
    assert entry(report, "GP22.L2")["verdict"] == "error"
    assert entry(report, "GP22.T1")["verdict"] == "refuted"
    result.stdout.fnmatch_lines(["claims: *1 error*(incomplete run)*"])


def test_unknown_claim_id_is_a_collection_error_naming_nearest_ids(pytester):
    pytester.makepyfile(
        test_typo="""
        import pytest

        @pytest.mark.claim("LJ22.L9")
        def test_typo():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_typo.py*", "*unknown claim ID 'LJ22.L9'; nearest valid: *"])


def test_declared_verdicts_and_missing_controls(pytester, ci):
    pytester.makepyfile(
        test_verdicts="""
        import pytest
        from claims import check_inequality, check_inequality_rejected, check_property, declare_verdict

        @pytest.mark.claim("LJ22.L10")
        def test_corrected():
            check_inequality_rejected(1.5, 1.0, tolerance=1e-15, statement="printed, constant 1")
            check_inequality(1.5, 2.0, tolerance=1e-15, statement="corrected, constant 2")
            declare_verdict("verified-with-correction", correction="constant 2 instead of 1")

        @pytest.mark.claim("LJ22.L10", negative_control=True)
        def test_control():
            check_property(True, "control")

        @pytest.mark.claim("LJ22.R1")
        def test_without_control():
            check_property(True, "holds")
        """
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=3)
    corrected = entry(report, "LJ22.L10")
    assert corrected["verdict"] == "verified-with-correction"
    assert corrected["correction"] == "constant 2 instead of 1"
    assert (corrected["max_error"], corrected["min_slack"]) == (0.0, 0.5 / 3.5)
    assert corrected["counterexample"]["error"] == 0.5
    assert corrected["counterexample"]["details"]["statement"] == "printed, constant 1"
    assert "The printed statement fails: error 0.5 > tolerance 1e-15" in (pytester.path / "reports" / "claims.md").read_text()
    without_control = entry(report, "LJ22.R1")
    assert without_control["verdict"] == "inconclusive" and without_control["negative_control"] == "absent"


def test_control_that_accepts_makes_the_claim_inconclusive(pytester, ci):
    pytester.makepyfile(
        test_accepting="""
        import pytest
        from claims import check_close, check_rejected

        @pytest.mark.claim("LJ22.R1")
        def test_claim():
            check_close(1.0, 1.0, tolerance=0.0)

        @pytest.mark.claim("LJ22.R1", negative_control=True)
        def test_control_cannot_fail():
            check_rejected(1.0, 1.0, tolerance=0.0)
        """
    )
    result, report = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    r1 = entry(report, "LJ22.R1")
    assert r1["negative_control"] == "accepted" and r1["verdict"] == "inconclusive"


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


def test_evidence_outside_a_claim_test_is_an_error():
    from claims import record_note

    with pytest.raises(RuntimeError, match="only inside a test marked"):
        record_note("nowhere to go")


ROUNDING_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected

@pytest.mark.claim("LJ22.L1")
@given(st.floats(-1, 1))
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
    first_result, first = run(pytester)
    seed = first["run"]["hypothesis_seed"]
    assert first["run"]["profile"] == "dev" and isinstance(seed, int)
    replay_result, replay = run(pytester, "-n", "2", f"--hypothesis-seed={seed}")
    first_result.assert_outcomes(passed=2)
    replay_result.assert_outcomes(passed=2)
    assert replay["run"]["hypothesis_seed"] == seed
    assert without_timings(first) == without_timings(replay)
    assert entry(first, "LJ22.L1")["max_error"] > 0


def test_claim_entry_does_not_depend_on_completion_order():
    from claims._registry import CLAIMS as registry
    from claims._report import TestRecord, claim_entry

    def record(name: str) -> TestRecord:
        evidence = {"cases": 1, "notes": [f"note from {name}"], "holding": {"error": 0.0, "tolerance": 0.0, "details": {}}}
        return TestRecord(f"test_x.py::{name}", ["LJ22.L1"], False, evidence=evidence)

    first, second = record("test_a"), record("test_b")
    claim = registry["LJ22.L1"]
    assert claim_entry(claim, [first, second]) == claim_entry(claim, [second, first])


def test_interrupted_run_still_writes_an_incomplete_report(pytester, ci):
    pytester.makepyfile(
        test_interrupt="""
        import pytest
        from claims import check_property

        @pytest.mark.claim("LJ22.L1")
        def test_first():
            check_property(True, "ran before the interrupt")

        def test_interrupt():
            raise KeyboardInterrupt
        """
    )
    result, report = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert report["run"]["complete"] is False
    assert entry(report, "LJ22.L1")["cases"] == 1
