"""The plugin's history, comparison and selection options on a synthetic claim suite (no torch):
--claims-save / --claims-autosave, --claims-compare[=NUM|PATH] with --claims-compare-fail, --claims
ID[,GLOB], and the optional pytest-html column.

Most runs are in-process (cheap); the ``isolated`` fixture (tests/plugin/conftest.py) undoes what a run
changes in this process (Hypothesis's profile and forced seed, the active profile, the figures' run label).
A subprocess only where it matters: the process's exit code, and xdist."""

from __future__ import annotations

import gzip
import json

import pytest
from synthetic_claims import EVIDENCE_MODULE, OTHER_MODULE  # tests/plugin/synthetic_claims.py


@pytest.fixture(autouse=True)
def claims_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, isolated) -> None:
    """A project with two claims (LJ22.L1 and LJ22.R1, each with a control), 5 tests."""
    monkeypatch.delenv("CI", raising=False)  # the profile is given where it matters
    pytester.makeconftest('pytest_plugins = ["claims.plugin"]')
    pytester.makepyfile(test_evidence=EVIDENCE_MODULE, test_other=OTHER_MODULE)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "--hypothesis-profile=ci", *args)


def run_subprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--hypothesis-profile=ci", *args)


def history(pytester: pytest.Pytester) -> list[str]:
    directory = pytester.path / "reports" / "history"
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def snapshot(pytester: pytest.Pytester) -> dict[str, int]:
    """Every path under reports/ (directories too) with its mtime."""
    return {str(p): p.stat().st_mtime_ns for p in (pytester.path / "reports").rglob("*")}


def test_full_runs_are_saved_numbered_and_a_ci_rerun_shows_no_change(pytester):
    first = run(pytester, "--claims-save")
    assert first.ret == 0
    first.stdout.fnmatch_lines(["claims: saved to the history as *0001_nogit_ci.json.gz"])
    second = run(pytester, "--claims-compare", "--claims-save=again")
    assert second.ret == 0, second.stdout.str()
    second.stdout.fnmatch_lines([
        "*- claims compare -*", "old: reports/history/0001_nogit_ci.json.gz (*profile ci*", "new: this run (*",
        "no change against reports/history/0001_nogit_ci.json.gz",
        "claims: saved to the history as *0002_nogit_ci_again.json.gz",
    ])
    assert history(pytester) == ["0001_nogit_ci.json.gz", "0002_nogit_ci_again.json.gz"]
    partial = run(pytester, "-k", "identity", "--claims-save")
    assert partial.ret == 0
    partial.stdout.fnmatch_lines(
        ["claims: not saved to the history: a partial run is never a baseline (4 tests deselected *)"]
    )
    assert len(history(pytester)) == 2


def test_an_edited_baseline_verdict_fails_the_session(pytester, capsys):
    """The baseline's LJ22.L1 edited from verified to refuted, its entry digest made anew (a baseline made by
    hand): verdict:any makes the change a regression (the process exits 1, the table names the claim); under
    the defaults, which flag only a verdict that gets worse, it is shown and not flagged. The same edit in the
    newer report fails `python -m claims compare` under the defaults. Without the new digest the edited file
    is refused, before any test runs, naming both digests."""
    from claims.__main__ import main
    from claims.report._citation import ENTRY_DIGEST, content_digest

    assert run(pytester, "--claims-save").ret == 0
    entry = pytester.path / "reports" / "history" / history(pytester)[0]
    report = json.loads(gzip.decompress(entry.read_bytes()))
    claim = next(c for c in report["claims"] if c["id"] == "LJ22.L1")
    assert claim["verdict"] == "verified"
    claim["verdict"] = "refuted"
    edited = pytester.path / "edited.json"
    edited.write_text(json.dumps(report))
    stored = report["citation"][ENTRY_DIGEST]
    tampered = run(pytester, f"--claims-compare={edited}")
    assert tampered.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "reports" / "partial").exists()  # refused before any test ran
    report["citation"][ENTRY_DIGEST] = content_digest(report)
    named = f"stored sha256:{stored}, computed from its content sha256:{content_digest(report)}"
    assert named in tampered.stderr.str()
    edited.write_text(json.dumps(report))
    result = run_subprocess(pytester, f"--claims-compare={edited}", "--claims-compare-fail=verdict:any")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*5 passed*",  # every test passed: the comparison alone fails the session
    ])
    result.stdout.fnmatch_lines(
        ["LJ22.L1*verdict*refuted*verified*FAIL*", "claims compare: 1 regression(s) against *edited.json"]
    )
    lenient = run(pytester, f"--claims-compare={edited}")
    assert lenient.ret == 0
    lenient.stdout.fnmatch_lines(["LJ22.L1*verdict*refuted*verified"])
    assert "FAIL" not in lenient.stdout.str() and "regression" not in lenient.stdout.str()
    assert main(["compare", str(entry), str(edited)]) == 1  # verified -> refuted
    assert "LJ22.L1" in capsys.readouterr().out


def test_bad_baselines_are_one_line_usage_errors_and_write_nothing(pytester):
    assert run(pytester, "--claims-save").ret == 0
    entry = pytester.path / "reports" / "history" / history(pytester)[0]
    cases = {
        "missing.json": (None, "missing"),
        "truncated.json.gz": (entry.read_bytes()[:40], "truncated"),  # a cut-off gzip stream
        "cut.json": (b'{"schema": "lowrank-claims/report/2", "run": {', "truncated or not JSON"),
        "older.json": (
            b'{"schema": "lowrank-claims/report/1", "run": {}, "claims": [], "summary": {}}', "is older than"
        ),
        "noschema.json": (b'{"run": {}, "claims": []}', 'no "schema" key'),
        "other.json": (b'{"schema": "someone-else/1", "run": {}, "claims": []}', "schema"),
    }
    for name, (content, _) in cases.items():
        if content is not None:
            (pytester.path / name).write_bytes(content)
    before = snapshot(pytester)
    for name, (_, message) in cases.items():
        result = run(pytester, f"--claims-compare={name}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, name
        errors = [line for line in result.stderr.lines if line.strip()]
        assert len(errors) == 1 and errors[0].startswith(f"ERROR: --claims-compare: {name}: "), (name, errors)
        assert message in errors[0], (name, errors)
        assert result.stdout.str().count("passed") == 0
    result = run(pytester, "--claims-compare=7")
    result.stderr.fnmatch_lines(["ERROR: --claims-compare: history entry 7: no such entry in *history (entry 1)"])
    assert snapshot(pytester) == before


def test_bad_option_values_are_usage_errors(pytester):
    for args, error in [
        (["--claims-compare-fail=margin:half"], "ERROR: --claims-compare-fail: bad fail rule 'margin:half': *"),
        (["--claims-compare-fail=verdict", "--claims-compare-fail=worse"], "ERROR: --claims-compare-fail: *'worse'*"),
        (["--claims=LJ22.L7"], "ERROR: --claims LJ22.L7: unknown claim ID 'LJ22.L7'; nearest valid: *LJ22.L8*"),
        (["--claims=LJ22.L1,XX9.*"], "ERROR: --claims LJ22.L1,XX9.*: unknown claim ID 'XX9.*'*"),
        (["--claims-save=/../"], "ERROR: --claims-save=/../: *no character*"),
        (["--claims-compare=3"], "ERROR: --claims-compare: history entry 3: no such entry in * (the history is empty)"),
        (["--no-claims-report", "--claims-compare"], "ERROR: --claims-compare needs the claims report*"),
        (["--no-claims-report", "--claims-autosave"], "ERROR: --claims-save/--claims-autosave: nothing to save*"),
    ]:
        result = run(pytester, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        result.stderr.fnmatch_lines([error])
    assert not (pytester.path / "reports").exists()  # a usage error comes before anything is written


def test_claims_selects_their_tests_and_compares_only_them(pytester):
    assert run(pytester, "--claims-save").ret == 0
    result = run(pytester, "--claims=LJ22.R*", "--claims-autosave", "--claims-compare")
    result.assert_outcomes(passed=2, deselected=3)  # test_unmarked, a library test, is deselected too
    result.stdout.fnmatch_lines([
        "  partial run: only the claims it selected are compared (LJ22.R1)",
        "no change against reports/history/0001_*",  # LJ22.L1, not selected, is not "gone"
        "claims: not saved to the history: a partial run is never a baseline (*--claims LJ22.R**",
    ])
    report = json.loads((pytester.path / "reports" / "partial" / "claims.json").read_text())
    assert report["run"]["selection"] == "partial" and report["run"]["selected_claims"] == ["LJ22.R1"]
    assert "--claims LJ22.R*" in report["run"]["selection_reasons"]
    assert len(history(pytester)) == 1
    both = run(pytester, "--claims", "LJ22.L1,LJ22.R1")  # every claim of this suite, still partial
    both.assert_outcomes(passed=4, deselected=1)


def test_compare_and_save_under_xdist_happen_on_the_controller(pytester):
    pytest.importorskip("xdist")
    assert run(pytester, "--claims-save").ret == 0
    result = run_subprocess(pytester, "-p", "xdist", "-n", "2", "--claims-compare=1", "--claims-autosave")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["no change against reports/history/0001_*", "claims: saved to the history as *0002_*"])
    assert result.stdout.str().count("claims compare") == 1
    assert history(pytester) == ["0001_nogit_ci.json.gz", "0002_nogit_ci.json.gz"]


WARNINGS_ARE_ERRORS = "[pytest]\nfilterwarnings = error\n"
"""This project's own setting (pyproject.toml): a warning at configure time would stop the session."""


def test_the_first_night_has_no_baseline_and_runs(pytester):
    """With no saved run, --claims-compare (the latest entry) says so and the run goes on; a number
    or a path that names nothing stays an error (test_bad_option_values_are_usage_errors). It was a
    configure-time warning: where warnings are errors (this project) the first night stopped with an
    INTERNALERROR."""
    pytester.makefile(".ini", pytest=WARNINGS_ARE_ERRORS)
    result = run(pytester, "--claims-compare", "--claims-autosave")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([
        "*- claims compare -*",
        "--claims-compare: *history: no saved run to compare with*; this run is compared with nothing",
        "claims: saved to the history as *0001_nogit_ci.json.gz",
    ])
    assert "old: " not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert len(history(pytester)) == 1


def test_a_corrupted_latest_entry_is_skipped_and_named(pytester):
    """A truncated newest entry once stopped every later --claims-compare (the nightly command) with a usage
    error and no way out named: the latest readable entry is the baseline, the unreadable one is named with
    what is wrong and where to move it; asked for by its number, it is an error naming the way out."""
    pytester.makefile(".ini", pytest=WARNINGS_ARE_ERRORS)
    assert run(pytester, "--claims-save").ret == 0
    assert run(pytester, "--claims-save").ret == 0
    directory = pytester.path / "reports" / "history"
    corrupted = directory / "0002_nogit_ci.json.gz"
    corrupted.write_bytes(corrupted.read_bytes()[:40])
    nightly = run(pytester, "--claims-compare", "--claims-autosave")  # the nightly command's options
    assert nightly.ret == 0, nightly.stdout.str() + nightly.stderr.str()
    nightly.stdout.fnmatch_lines([
        "*- claims compare -*",
        f"--claims-compare: skipped an unreadable history entry: {corrupted}: truncated or not a report file (*); "
        f"move it out of {directory}",
        "--claims-compare: compared with the newest readable entry, 0001_nogit_ci.json.gz",
        "old: reports/history/0001_nogit_ci.json.gz (*",
        "no change against reports/history/0001_nogit_ci.json.gz",
        "claims: saved to the history as *0003_nogit_ci.json.gz",
    ])
    named = run(pytester, "--claims-compare=2")
    assert named.ret == pytest.ExitCode.USAGE_ERROR
    named.stderr.fnmatch_lines([
        f"ERROR: --claims-compare: {corrupted}: truncated or not a report file (*); it is history entry 2: name "
        f"another entry (entries 1-3) or move the file out of {directory}"
    ])
    for number in (1, 3):
        corrupted.with_name(f"000{number}_nogit_ci.json.gz").write_text("{")
    none = run(pytester, "--claims-compare")
    assert none.ret == pytest.ExitCode.USAGE_ERROR
    none.stderr.fnmatch_lines([f"ERROR: --claims-compare: {directory}: no entry can be read (*0003_nogit_ci.json.gz: "
                               f"truncated*); move the unreadable entries out of {directory} "
                               "(the next full run saved *"])


def test_a_baseline_with_an_unknown_verdict_is_a_usage_error(pytester):
    """A baseline whose claim reads "verdict": "bogus" was accepted (and ranked below error)."""
    assert run(pytester, "--claims-save").ret == 0
    entry = pytester.path / "reports" / "history" / history(pytester)[0]
    report = json.loads(gzip.decompress(entry.read_bytes()))
    report["claims"][0]["verdict"] = "bogus"
    (pytester.path / "bogus.json").write_text(json.dumps(report))
    result = run(pytester, "--claims-compare=bogus.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        'ERROR: --claims-compare: bogus.json: wrong schema: claims[0] (LJ22.L1) has verdict "bogus", not one of '
        "verified, verified-with-correction, refuted, not-reproduced, inconclusive, not-run, untested, error")


@pytest.mark.parametrize("args", [
    ["--claims-save", "test_other.py"], ["--claims-save", "test_other.py::test_other_claim"],
    ["--claims-save", "tests/test_lj22_static.py"], ["--claims-save", "sub"], ["--claims-save", "sub/"],
    ["--claims-save=test_other.py"], ["--claims-compare", "test_other.py"], ["--claims-compare", "sub"],
])
def test_a_test_path_taken_as_an_options_value_is_a_usage_error(pytester, args):
    """`pytest --claims-save tests/test_lj22_static.py` took the path as the entry's name and ran the whole
    suite: a value that is a test path, a Python file, or (a separate word) an existing path is refused,
    saying how to write the option."""
    pytester.mkdir("sub")
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    option, _, value = args[0].partition("=")
    metavar = "NAME" if option == "--claims-save" else "NUM|PATH"
    if value:
        assert result.stderr.lines[0] == (
            f"ERROR: {option}={value}: a test path, not the option's {metavar}; write {option}={metavar}")
    else:
        assert result.stderr.lines[0] == (
            f"ERROR: {option} {args[1]}: looks like a test path, not the option's value (pytest gave the option the "
            f"next word); write {option}={metavar}, or put {option} after the test paths")
    assert not (pytester.path / "reports").exists()
    assert run(pytester, "--claims-save=sub").ret == 0  # a name written with "=" is a name
    assert history(pytester) == ["0001_nogit_ci_sub.json.gz"]


def test_claim_ids_are_matched_ignoring_case(pytester):
    """`--claims lj22.l1` was an unknown ID whose first suggestion was LJ22.R1."""
    result = run(pytester, "--claims=lj22.r1")
    result.assert_outcomes(passed=2, deselected=3)
    report = json.loads((pytester.path / "reports" / "partial" / "claims.json").read_text())
    assert report["run"]["selected_claims"] == ["LJ22.R1"]
    typo = run(pytester, "--claims=lj22.l1x")
    typo.stderr.fnmatch_lines(["ERROR: --claims lj22.l1x: unknown claim ID 'lj22.l1x'; nearest valid: LJ22.L1, *"])


def test_the_cli_compares_a_partial_report_on_its_selection(pytester, capsys):
    """`python -m claims compare FULL PARTIAL` reported every claim the partial run did not select as a
    regression (verified -> not-run); the plugin compared it on its selection only. Now both do."""
    from claims.__main__ import main

    assert run(pytester, "--claims-save").ret == 0
    assert run(pytester, "--claims=LJ22.R1").ret == 0
    entry = pytester.path / "reports" / "history" / history(pytester)[0]
    partial = pytester.path / "reports" / "partial" / "claims.json"
    capsys.readouterr()  # the runs' own output
    assert main(["compare", str(entry), str(partial)]) == 0
    out = capsys.readouterr().out
    assert "  partial run: only the claims it selected are compared (LJ22.R1)" in out
    assert "not-run" not in out and "no regression under --fail verdict, counterexample, gone" in out
    assert main(["compare", str(partial), str(entry)]) == 0
    assert "  the old run is partial: only the claims it selected are compared (LJ22.R1)" in capsys.readouterr().out


def test_pytest_html_rows_show_the_claims(pytester):
    pytest.importorskip("pytest_html")
    result = run(pytester, "-p", "html", "--html=report.html", "--self-contained-html")
    assert result.ret == 0
    page = (pytester.path / "report.html").read_text()
    assert "<th>Claims</th>" in page
    # the cells reach the page as JSON strings inside an attribute
    assert r"LJ22.L1 \u00b7 100 cases \u00b7 identity: error 0 (tolerance 1e-15)" in page
    assert r"LJ22.L1 \u00b7 control: rejected \u00b7 100 cases" in page and "LJ22.R1" in page
