"""The plugin's history, comparison and selection options, with pytester in subprocesses (as a user runs
pytest): --claims-save / --claims-autosave, --claims-compare[=NUM|PATH] with --claims-compare-fail,
--claims ID[,GLOB], and the optional pytest-html column."""

from __future__ import annotations

import gzip
import json
import os

import pytest

EVIDENCE_MODULE = """
import pytest
from hypothesis import given, strategies as st
from claims import check_close, check_rejected

@pytest.mark.claim("LJ22.L1")
@given(st.floats(0.25, 1))
def test_identity(x):
    check_close(x * 2, x + x, tolerance=1e-15)

@pytest.mark.claim("LJ22.L1", negative_control=True)
@given(st.floats(0.5, 1))
def test_control(x):
    check_rejected(x * 3, x + x, tolerance=1e-15)

def test_unmarked():
    pass
"""

OTHER_MODULE = """
import pytest
from claims import check_property, check_inequality_rejected

@pytest.mark.claim("LJ22.R1")
def test_other_claim():
    check_property(True, "holds")

@pytest.mark.claim("LJ22.R1", negative_control=True)
def test_other_control():
    check_inequality_rejected(2.0, 1.0, tolerance=0.0)
"""


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project with two claims (LJ22.L1 and LJ22.R1, each with a control) under the derandomized ci profile."""
    monkeypatch.setenv("CI", "true")
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_other=OTHER_MODULE)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def history(pytester: pytest.Pytester) -> list[str]:
    directory = pytester.path / "reports" / "history"
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def snapshot(pytester: pytest.Pytester) -> dict[str, float]:
    root = pytester.path / "reports"
    return {str(p): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def test_saved_run_compared_with_a_rerun_reports_no_change(pytester):
    first = run(pytester, "--claims-save")
    assert first.ret == 0
    first.stdout.fnmatch_lines(["claims: saved to the history as *0001_*_ci.json.gz"])
    second = run(pytester, "--claims-compare", "--claims-save=again")
    assert second.ret == 0, second.stdout.str()
    second.stdout.fnmatch_lines(["*no change against*"])
    assert [name.split("_", 1)[0] for name in history(pytester)] == ["0001", "0002"]
    assert history(pytester)[1].endswith("_ci_again.json.gz")


def test_an_edited_verdict_fails_the_comparison(pytester, capsys):
    """Edited in the baseline, a verdict change fails the session under verdict:any; edited in the newer
    report (verified -> refuted), it fails `python -m claims compare` under the default rules."""
    from claims.__main__ import main

    assert run(pytester, "--claims-save").ret == 0
    entry = pytester.path / "reports" / "history" / history(pytester)[0]
    report = json.loads(gzip.decompress(entry.read_bytes()))
    claim = next(c for c in report["claims"] if c["id"] == "LJ22.L1")
    claim["verdict"] = "verified-with-correction"
    edited = pytester.path / "edited.json"
    edited.write_text(json.dumps(report))
    result = run(pytester, f"--claims-compare={edited}", "--claims-compare-fail=verdict:any")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["*LJ22.L1*verdict*verified-with-correction*verified*FAIL*", "*1 regression(s)*"])
    claim["verdict"] = "refuted"
    edited.write_text(json.dumps(report))
    assert main(["compare", str(entry), str(edited)]) == 1
    assert "LJ22.L1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "missing"),
        ('{"schema": "lowrank-claims/report/2", "run": {', "truncated or not JSON"),
        ('{"schema": "lowrank-claims/report/1", "run": {}, "claims": [], "summary": {}}', "is older than"),
        ('{"run": {}, "claims": []}', 'no "schema" key'),
    ],
)
def test_a_bad_baseline_is_a_one_line_error_and_writes_nothing(pytester, content, message):
    # a report and a history entry already there (stand-ins: the run must stop before touching them)
    (pytester.path / "reports" / "history").mkdir(parents=True)
    (pytester.path / "reports" / "claims.json").write_text("{}")
    (pytester.path / "reports" / "history" / "0001_abc_ci.json.gz").write_bytes(b"")
    before = snapshot(pytester)
    baseline = pytester.path / "baseline.json"
    if content is not None:
        baseline.write_text(content)
    result = run(pytester, f"--claims-compare={baseline}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --claims-compare: *baseline.json: *{message}*"])
    assert snapshot(pytester) == before


def test_bad_option_values_are_usage_errors(pytester):
    result = run(pytester, "--claims-compare-fail=margin:half", "--claims=LJ22.L1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --claims-compare-fail: *margin:half*"])
    result = run(pytester, "--claims=LJ22.L9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --claims LJ22.L9: unknown claim ID 'LJ22.L9'; nearest valid: *"])
    result = run(pytester, "--claims-compare=7")
    result.stderr.fnmatch_lines(["ERROR: --claims-compare: history entry 7: no such entry in *history (the history is empty)"])


def test_claims_selects_the_tests_of_those_claims_and_is_never_saved(pytester):
    result = run(pytester, "--claims=LJ22.R*", "--claims-autosave")
    result.assert_outcomes(passed=2, deselected=3)
    result.stdout.fnmatch_lines(["claims: not saved to the history: a partial or incomplete run is never a baseline"])
    report = json.loads((pytester.path / "reports" / "partial" / "claims.json").read_text())
    assert report["run"]["selected_claims"] == ["LJ22.R1"]
    assert "--claims LJ22.R*" in report["run"]["selection_reasons"]
    assert history(pytester) == []


def test_compare_and_save_under_xdist_run_on_the_controller(pytester):
    pytest.importorskip("xdist")
    assert run(pytester, "--claims-save").ret == 0
    result = run(pytester, "-p", "xdist", "-n", "2", "--claims-compare=1", "--claims-autosave")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*no change against*", "claims: saved to the history as *0002_*"])


def test_first_night_without_a_baseline_warns_and_runs(pytester):
    result = run(pytester, "--claims-compare", "--claims-autosave", "-W", "default")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*no saved run to compare with*"])
    assert len(history(pytester)) == 1


def test_pytest_html_rows_show_the_claims(pytester):
    pytest.importorskip("pytest_html")
    result = run(pytester, "-p", "html", "--html=report.html", "--self-contained-html")
    assert result.ret == 0
    page = (pytester.path / "report.html").read_text()
    assert "Claims" in page and "LJ22.L1" in page and "cases" in page


def test_the_nightly_workflow_runs_the_documented_command():
    """The workflow parses, runs on a schedule, and calls the one nightly command README.md documents."""
    from ruamel.yaml import YAML

    from claims.plugin import NIGHTLY_COMMAND

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, ".github", "workflows", "nightly.yml")) as handle:
        workflow = YAML(typ="safe").load(handle)
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true
    assert "schedule" in triggers and triggers["schedule"][0]["cron"]
    runs = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(NIGHTLY_COMMAND in r for r in runs)
    with open(os.path.join(root, "README.md")) as handle:
        assert NIGHTLY_COMMAND in handle.read()
