"""The claims report of a session: ``ClaimsReporter``, a plugin of the controller only, folds every
claim test's reports into a ``TestRecord``, and at the end of the session works out what the run
selected (full or partial, and why), builds and writes the report (a full, complete run to the report
directory, any other to its partial/ subdirectory), compares it with a baseline, saves it to the
history, and prints its summary. With a baseline, a run whose only failures are claims the baseline
already refuted exits 0 (``claims.session._exit_status``)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from claims.report._compare import compare, regressions, render_header, render_table
from claims.report._history import save_run
from claims.report._model import TestRecord, build_report
from claims.report._suite import ClaimSuite
from claims.report._write import write_report
from claims.session._claim_tests import EVIDENCE_PROPERTY, recorded_meta, recorded_property
from claims.session._collection import SelectionTracker
from claims.session._exit_status import expected_failures
from claims.session._phases import fold_phase
from claims.session._options import HISTORY, PARTIAL, report_directory
from claims.session._provenance import VERSIONED, as_seed, git_state, installed_version, replay_command, utc_now
from claims.session._selection import Manifest, claim_suites, scan_suite, suite_roots, uncovered_roots
from claims.session._summary import terminal_lines


class ClaimsReporter:
    """Controller only: aggregates test reports per claim and writes the report at the end."""

    def __init__(
        self, config: pytest.Config, profile: str, tracker: SelectionTracker,
        baseline: tuple[Path, dict] | None = None, rules: list | None = None, baseline_notes: list[str] | None = None,
    ):
        self.baseline, self.rules = baseline, rules or []  # baseline: (its file, the report read at configure)
        self.baseline_notes = baseline_notes or []  # what the terminal says about it (skipped entries, none yet)
        self.comparison = None
        self.regressions: list = []
        self.saved: str | None = None
        self.problems: list[str] = []
        self.failures: list[tuple[str, str]] = []  # (nodeid, phase) of each failed test report, any test
        self.collection_failures = 0
        self.expected: list[str] | None = None  # the failures that a baseline made expected verdicts (exit 0)
        self.config = config
        self.tracker = tracker
        self.tests: dict[str, TestRecord] = {}
        self.finished: set[str] = set()
        self.report: dict | None = None
        self.no_claims: str | None = None
        self.directory: Path | None = None
        self.manifests = Path(tempfile.mkdtemp(prefix="claims-manifests-"))
        self.profile = profile
        self.started = utc_now()
        self.git = git_state(config.rootpath)  # the code as it was when the run started

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_failures += 1

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failures.append((report.nodeid, report.when))
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.finished.add(report.nodeid)
        meta = recorded_meta(report)
        if meta is None:
            record = self.tests.get(report.nodeid)  # a crash report of xdist carries no properties
            if record is None:
                return
        else:
            record = self.tests.setdefault(
                report.nodeid,
                TestRecord(report.nodeid, list(meta["ids"]), meta["role"], line=meta.get("line")),
            )
        evidence = recorded_property(report, EVIDENCE_PROPERTY) if report.when == "call" else None
        fold_phase(record, report.when, report.outcome, evidence, report.duration, _message(report))

    def _manifest(self) -> Manifest | None:
        """The selection as collected: the workers' manifests under xdist, else this process's own;
        None when collection did not finish."""
        if self.config.pluginmanager.get_plugin("dsession") is not None:
            return Manifest.merged(Manifest.read_all(self.manifests))
        return self.tracker.manifest if self.tracker.manifest.collected_ok else None

    def _selection(self, manifest: Manifest | None, roots: list[Path], suites: dict[str, ClaimSuite]) -> list[str]:
        """Why this run is not the full suite; empty when it is."""
        config = self.config
        reasons = []
        missing = uncovered_roots(list(config.args), config.invocation_params.dir, roots)
        if missing:
            shown = ", ".join(
                str(p.relative_to(config.rootpath)) if p.is_relative_to(config.rootpath) else str(p) for p in missing
            )
            reasons.append(f"the command-line paths {list(config.args)} do not cover the suite ({shown})")
        if manifest is None:
            reasons.append("collection did not finish")
        else:
            if manifest.deselected:
                reasons.append(f"{manifest.deselected} tests deselected (--claims, -k, -m, --deselect, --lf, --sw ...)")
        if config.getoption("claims", None):
            reasons.append(f"--claims {config.getoption('claims')}")
        # under xdist the controller sees the failed collection reports that workers forward
        errors = max(self.tracker.manifest.collection_errors, manifest.collection_errors if manifest else 0)
        if errors:
            reasons.append(f"{errors} collection error(s)")
        for option, flag in (("ignore", "--ignore"), ("ignore_glob", "--ignore-glob")):
            if getattr(config.option, option, None):
                reasons.append(f"{flag} {getattr(config.option, option)}")
        unselected = sorted(i for i, suite in suites.items() if suite.unselected_evidence or suite.unselected_controls)
        if unselected:  # also files never collected: a module-level skip, collect_ignore, --lf's skipped files
            reasons.append(f"claim tests of the suite not selected, for {', '.join(unselected)}")
        cache = getattr(config, "cache", None)
        if getattr(config.option, "lf", False) and cache is not None and cache.get("cache/lastfailed", {}):
            reasons.append("--lf runs only the last failures")
        if getattr(config.option, "stepwise", False):
            reasons.append("--stepwise skips what passed before")
        return reasons

    def _run(self, manifest: Manifest | None, reasons: list[str], exitstatus: int) -> dict:
        config = self.config
        # under a derandomized profile Hypothesis ignores any seed: the examples follow from the code
        derandomized = settings.get_profile(self.profile).derandomize
        seed = None if derandomized else as_seed(getattr(config.option, "hypothesis_seed", None))
        args = list(config.invocation_params.args)
        selected_claims = sorted({i for record in self.tests.values() for i in record.claim_ids} | {
            i for nodeid in (manifest.selected if manifest else []) for i in manifest.collected[nodeid]["ids"]
        })
        expected = manifest.selected_tests if manifest else None
        complete = (
            expected is not None
            and len(self.finished) >= expected
            and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        )
        return {
            "started": self.started,
            "finished": utc_now(),
            "complete": complete,
            "selection": "partial" if reasons else "full",
            "selection_reasons": reasons,
            "selected_claims": selected_claims,
            "selected_tests": expected,
            "finished_tests": len(self.finished),
            "pytest_args": args,
            "profile": self.profile,
            "hypothesis_seed": seed,
            "workers": getattr(config.option, "numprocesses", None) or 0,
            "python": sys.version.split()[0],
            "versions": {name: installed_version(name) for name in VERSIONED},
            "git": self.git,
            "command": shlex.join(["pytest", *args]),
            "addopts": {"ini": list(config.getini("addopts")), "PYTEST_ADDOPTS": os.environ.get("PYTEST_ADDOPTS")},
            "replay": replay_command(args, self.profile, seed),
        }

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        manifest = self._manifest()
        shutil.rmtree(self.manifests, ignore_errors=True)
        if manifest is not None:  # selected tests that never reported are not-run
            for nodeid in manifest.selected:
                meta = manifest.collected[nodeid]
                self.tests.setdefault(nodeid, TestRecord(nodeid, list(meta["ids"]), meta["role"],
                                                         line=meta.get("line")))
        roots = suite_roots(self.config.rootpath, self.config.getini("testpaths"))
        collected = frozenset(manifest.files if manifest else ())
        suites = claim_suites(manifest, scan_suite(roots, collected), self.config.rootpath)
        reasons = self._selection(manifest, roots, suites)
        report = build_report(self._run(manifest, reasons, exitstatus), self.tests, suites)
        errors = max(self.collection_failures, manifest.collection_errors if manifest else 0)
        if reasons and not report["run"]["selected_claims"] and not errors:
            # a run of no claim test (say tests/unit) says nothing about a claim: it writes no claims report,
            # and the last partial report, which did, stays
            where = _shown_path(report_directory(self.config), self.config)
            self.no_claims = f"claims: no claim test selected, no claims report written ({where} is unchanged)"
            return
        self.report = report
        # Only a full, complete run replaces the full report: an interrupted run of the whole suite
        # would otherwise overwrite the last good report with not-run entries.
        full = not reasons and self.report["run"]["complete"]
        self.directory = report_directory(self.config) / ("" if full else PARTIAL)
        # the report as a reader reads it (checked on the rendered strings): a stand-in number, an unexplained
        # negative slack or an invariance headlined by a score is a broken report, and fails the session
        self.problems = write_report(self.report, self.directory)
        if self.problems and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.baseline is not None:
            self._compare(session)
        if self.config.getoption("claims_save") is not None or self.config.getoption("claims_autosave"):
            self._save(full)
        self._expected_verdicts(session, manifest)

    def _expected_verdicts(self, session: pytest.Session, manifest: Manifest | None) -> None:
        """With a baseline, a run whose every failure is a claim the baseline already refuted, and that is
        otherwise clean, exits 0 (``claims.session._exit_status``)."""
        if self.baseline is None or session.exitstatus != pytest.ExitCode.TESTS_FAILED:
            return
        collection_errors = max(self.collection_failures, self.tracker.manifest.collection_errors,
                                manifest.collection_errors if manifest else 0)
        if collection_errors or self.problems or self.regressions or not self.report["run"]["complete"]:
            return
        self.expected = expected_failures(self.failures, self.tests, self.baseline[1], self.report)
        if self.expected:
            session.exitstatus = pytest.ExitCode.OK

    def _compare(self, session: pytest.Session) -> None:
        """This run against the baseline; a partial run only for the claims it selected (the others
        would read as gone). A regression fails the session."""
        path, old = self.baseline
        self.comparison = compare(old, self.report, old_label=_shown_path(path, self.config), new_label="this run")
        self.regressions = regressions(self.comparison, self.rules)
        if self.regressions and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _save(self, full: bool) -> None:
        """A full, complete run becomes the next history entry; any other run is not saved, and the
        summary says why (not an error: --claims-autosave may be in everyone's addopts)."""
        run = self.report["run"]
        if not full:
            if run["selection"] == "partial":  # one reason, --claims's when given; all of them are in the report
                reasons = run["selection_reasons"]
                why = next((r for r in reasons if r.startswith("--claims ")), reasons[0])
                why = why if len(why) <= 100 else why[:97] + "..."
                if len(reasons) > 1:
                    why += f"; {len(reasons) - 1} more reason(s) in the report"
            else:
                why = f"{run['finished_tests']} of {run['selected_tests']} selected tests finished"
            kind = "partial" if run["selection"] == "partial" else "incomplete"
            self.saved = f"not saved to the history: a {kind} run is never a baseline ({why})"
            return
        name = self.config.getoption("claims_save") or None
        try:
            path = save_run(self.report, report_directory(self.config) / HISTORY, name)
        except ValueError as error:
            self.saved = str(error)
            return
        self.saved = f"saved to the history as {path}"

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter):
        """After pytest's own summary (failures, short test summary, warnings): the comparison, the
        history, then the claims' summary as the last lines before pytest's count: the summary line with
        the path of claims.html, and a line per verdict other than verified naming its claims."""
        result = yield
        if self.report is not None:
            self._write_summary(terminalreporter)
        elif self.no_claims:
            terminalreporter.write_line(self.no_claims)
        return result

    def _write_summary(self, terminalreporter) -> None:
        if self.comparison is not None or self.baseline_notes:
            terminalreporter.write_sep("-", "claims compare")
            for note in self.baseline_notes:
                terminalreporter.write_line(note, yellow=True)
        if self.comparison is not None:
            terminalreporter.write_line(render_header(self.comparison))
            terminalreporter.write_line(render_table(self.comparison, rules=self.rules))
            if self.regressions:
                terminalreporter.write_line(
                    f"claims compare: {len(self.regressions)} regression(s) against {self.comparison.old_label}",
                    red=True,
                )
        if self.saved:
            terminalreporter.write_line(f"claims: {self.saved}")
        full_report = self.directory.parent if self.directory.name == PARTIAL else None
        for line in terminal_lines(self.report, self.directory, full_report):
            terminalreporter.write_line(line)
        for problem in self.problems:
            terminalreporter.write_line(f"claims report misleads: {problem}", red=True)
        if self.expected:
            terminalreporter.write_line(
                f"claims: exit status 0: every failure is a claim already refuted in the baseline "
                f"({self.comparison.old_label}): {', '.join(self.expected)}"
            )


def _shown_path(path: Path, config: pytest.Config) -> str:
    """``path`` relative to the rootdir when it is under it (reports/history/0003_...json.gz)."""
    path = Path(path).resolve()
    return str(path.relative_to(config.rootpath)) if path.is_relative_to(config.rootpath) else str(path)


def _message(report: pytest.TestReport) -> str:
    if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = str(report.longreprtext or "").strip().splitlines()
    return text[-1][:300] if text else ""
