"""The session's exit status under a baseline (``claims.session._exit_status``): a failure on a claim the
baseline already refuted is an expected verdict, and a run whose every failure is one exits 0; anything else
(no baseline, a new refutation, an error, a failed control, a plain pytest failure, a regression) stays red.

The rule on hand-made records first, then end to end: in-process pytester runs of a small project (the
``isolated`` fixture of tests/plugin/conftest.py undoes what a run changes in this process), its breakage
chosen by ``BREAK``."""

from __future__ import annotations

import json

import pytest

from claims.evidence._role import Role
from claims.report._model import TestRecord
from claims.session._exit_status import expected_failure, expected_failures


def record(nodeid: str, claim_ids: list[str], outcome: str = "failed", control: bool = False) -> TestRecord:
    return TestRecord(nodeid, claim_ids, Role.of_marker(control), outcome=outcome, reason=None)


def report(**verdicts: str) -> dict:
    return {"claims": [{"id": claim_id.replace("_", "."), "verdict": v} for claim_id, v in verdicts.items()]}


REFUTED = report(GP22_L1="refuted", LJ22_L1="verified")


def test_a_counterexample_to_a_claim_the_baseline_refuted_is_an_expected_verdict():
    failed = record("t.py::test_a", ["GP22.L1"])
    assert expected_failure("t.py::test_a", "call", failed, REFUTED, REFUTED)
    assert expected_failures([("t.py::test_a", "call")], {"t.py::test_a": failed}, REFUTED, REFUTED) == [
        "t.py::test_a (GP22.L1)"]


def test_a_failure_on_an_empirical_claim_not_reproduced_in_the_baseline_too_is_an_expected_verdict():
    """GP22.F1 under nightly: its failing check makes it not-reproduced (away from the memo's setting)."""
    failed = record("t.py::test_a", ["GP22.F1"])
    before = report(GP22_F1="not-reproduced")
    assert expected_failure("t.py::test_a", "call", failed, before, before)
    # a baseline from before the scope rule called it refuted: the same counterexample, not a new one
    assert expected_failure("t.py::test_a", "call", failed, report(GP22_F1="refuted"), before)
    assert not expected_failure("t.py::test_a", "call", failed, report(GP22_F1="verified"), before)


@pytest.mark.parametrize("when, rec, baseline, now", [
    ("call", record("t.py::a", ["LJ22.L1"]), REFUTED, report(LJ22_L1="refuted")),  # a new refutation
    ("call", record("t.py::a", ["GP22.L1", "LJ22.L1"]), REFUTED,  # one of its claims newly refuted
     report(GP22_L1="refuted", LJ22_L1="refuted")),
    ("call", record("t.py::a", ["GP22.L1"]), REFUTED, report(GP22_L1="error")),  # refuted then, an error now
    ("call", record("t.py::a", ["GP22.L1"], outcome="error"), REFUTED, REFUTED),  # a broken test
    ("call", record("t.py::a", ["GP22.L1"], control=True), REFUTED, REFUTED),  # a control that accepted
    ("teardown", record("t.py::a", ["GP22.L1"]), REFUTED, REFUTED),  # an error after the counterexample
    ("setup", record("t.py::a", ["GP22.L1"]), REFUTED, REFUTED),
    ("call", None, REFUTED, REFUTED),  # no claim test: a plain pytest failure
    ("call", record("t.py::a", []), REFUTED, REFUTED),
])
def test_anything_else_is_not(when, rec, baseline, now):
    assert not expected_failure("t.py::a", when, rec, baseline, now)
    records = {"t.py::a": rec} if rec is not None else {}
    assert expected_failures([("t.py::a", when)], records, baseline, now) is None


def test_one_unexpected_failure_among_expected_ones_keeps_the_run_red():
    expected, plain = record("t.py::a", ["GP22.L1"]), None
    records = {"t.py::a": expected, "t.py::b": plain}
    assert expected_failures([("t.py::a", "call"), ("t.py::b", "call")], records, REFUTED, REFUTED) is None
    assert expected_failures([], {}, REFUTED, REFUTED) is None  # nothing failed: nothing to forgive


# ------------------------------------------------------------------------------------- end to end

MODULE = """
import os
import pytest
from claims import check_close, check_rejected

@pytest.fixture
def teardown():
    yield
    if os.environ.get("BREAK") == "teardown":
        raise RuntimeError("teardown broke")

@pytest.mark.claim("GP22.L1")
def test_refuted(teardown):
    if os.environ.get("BREAK") == "broken":
        raise ValueError("a bug, not a verdict")
    check_close(1.0, 2.0, tolerance=1e-15)

@pytest.mark.claim("GP22.L1", negative_control=True)
def test_control():
    check_rejected(3.0, 3.0 if os.environ.get("BREAK") == "control" else 1.0, tolerance=1e-15)

@pytest.mark.claim("LJ22.L1")
def test_holds():
    check_close(2.0, 1.0 if os.environ.get("BREAK") == "new" else 2.0, tolerance=1e-15)

@pytest.mark.claim("LJ22.L1", negative_control=True)
def test_holds_control():
    check_rejected(3.0, 1.0, tolerance=1e-15)

def test_plain():
    assert os.environ.get("BREAK") != "plain"
"""


@pytest.fixture(autouse=True)
def environment(isolated, monkeypatch: pytest.MonkeyPatch):
    """No CI and no BREAK unless a test sets them; the in-process runs' changes are undone by ``isolated``."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BREAK", raising=False)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project whose GP22.L1 test finds a counterexample (the claim is refuted); the run saved as the
    baseline exits 1, as every run without a baseline does when a test fails."""
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    pytester.makepyfile(test_claims=MODULE)
    first = run(pytester, "--claims-save")
    assert first.ret == pytest.ExitCode.TESTS_FAILED, first.stdout.str()
    first.stdout.fnmatch_lines(["claims: saved to the history as *0001_nogit_ci.json.gz"])
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "--hypothesis-profile=ci", *args)


def written(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "reports" / "claims.json").read_text())


def test_without_a_baseline_a_failure_is_red(project):
    again = run(project)
    assert again.ret == pytest.ExitCode.TESTS_FAILED
    assert "exit status 0" not in again.stdout.str()


def test_a_failure_on_a_claim_the_baseline_refuted_exits_0_and_is_still_not_citable(project):
    result = run(project, "--claims-compare")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([
        "no change against reports/history/0001_nogit_ci.json.gz",
        "  failed or errored tests (1), not citable: test_claims.py::test_refuted (failed; GP22.L1)",
        ("claims: exit status 0: every failure is a claim already refuted in the baseline "
         "(reports/history/0001_nogit_ci.json.gz): test_claims.py::test_refuted (GP22.L1)"),
    ])
    citation = written(project)["citation"]
    assert citation["citable"] is False and "test_claims.py::test_refuted (failed; GP22.L1)" in citation[
        "not_citable_because"]


@pytest.mark.parametrize("breakage, outcomes", [
    ("new", {"passed": 3, "failed": 2}),  # a new refutation: LJ22.L1 was verified in the baseline
    ("teardown", {"passed": 4, "failed": 1, "errors": 1}),  # an error after the expected counterexample
    ("broken", {"passed": 4, "failed": 1}),  # the refuting test broke: an error, not a counterexample
    ("control", {"passed": 3, "failed": 2}),  # GP22.L1's control accepted its case
    ("plain", {"passed": 3, "failed": 2}),  # a test of no claim failed
])
def test_anything_else_stays_red_where_the_comparison_flags_nothing(project, monkeypatch, breakage, outcomes):
    """``--claims-compare-fail=gone``: the comparison flags no verdict or counterexample, so only the
    exit-status rule keeps these runs red."""
    monkeypatch.setenv("BREAK", breakage)
    result = run(project, "--claims-compare", "--claims-compare-fail=gone")
    result.assert_outcomes(**outcomes)
    assert "regression" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert "exit status 0" not in result.stdout.str()


def test_under_xdist_too(project):
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--hypothesis-profile=ci", "-p", "xdist",
                                          "-n", "2", "--claims-compare")
    result.assert_outcomes(passed=4, failed=1)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["claims: exit status 0: every failure is a claim already refuted in the *"])


def test_a_regression_the_comparison_flags_stays_red(project, monkeypatch):
    monkeypatch.setenv("BREAK", "new")
    result = run(project, "--claims-compare")
    result.stdout.fnmatch_lines(["LJ22.L1*verdict*FAIL*", "claims compare: * regression(s) against *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
