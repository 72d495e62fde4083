"""pytest plugin: the ``claim`` marker, Hypothesis profiles, and the claims report.

Loaded by this project's ``conftest.py`` (``pytest_plugins = ["claims.plugin"]``), never globally,
so another project in the same environment keeps its own Hypothesis settings and gets no report.

Where tests run (the process, or each xdist worker) the plugin marks claim tests, records their
evidence on ``report.user_properties`` as JSON strings (they reach the controller through pytest's
report serialization, and JUnit XML as readable properties), and notes what was collected and
selected (``claims.session._selection``). The controller aggregates and writes the report: a full run to
``reports/``; a partial or incomplete one to ``reports/partial/``, so that it never replaces the last
full report.
"""

from __future__ import annotations

import fnmatch
import html
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.errors import Flaky

from claims.evidence import _profiles
from claims.evidence._record import ClaimViolation, collecting
from claims.evidence._registry import CLAIMS, unknown_claim_message
from claims.report._compare import compare, parse_rules, regressions, render_header, render_table
from claims.report._history import BaselineError, entry_name, history_entries, load_report, resolve_baseline, save_run
from claims.report._json import dumps, loads
from claims.report._model import TestRecord, build_report
from claims.report._parts import summary_line
from claims.report._suite import CONTROL, EVIDENCE as EVIDENCE_ROLE, ClaimSuite
from claims.report._write import write_report
from claims.session._selection import Manifest, claim_suites, scan_suite, suite_roots, uncovered_roots

META = "claims"
EVIDENCE = "claims_evidence"
SEED = "claims_hypothesis_seed"
MANIFESTS = "claims_manifest_dir"
PARTIAL = "partial"
HISTORY = "history"
NIGHTLY_COMMAND = "pytest -n auto --hypothesis-profile nightly --claims-compare --claims-autosave"
"""The one nightly command (README.md, .github/workflows/nightly.yml): the deeper profile, compared with the
last saved full run, saved as the next one."""
VERSIONED = ("torch", "numpy", "scipy", "scikit-learn", "matplotlib", "sympy", "hypothesis", "pytest", "pytest-xdist", "lowrank-claims", "cffconvert")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "lowrank-claims report")
    group.addoption(
        "--claims-report-dir",
        default=None,
        help="directory for claims.json and claims.md (default: <rootdir>/reports; a partial run writes "
        "to its partial/ subdirectory); write it as --claims-report-dir=DIR: pytest finds its rootdir "
        "before plugin options are known, so a separate DIR would be taken for a test path",
    )
    group.addoption("--no-claims-report", action="store_true", help="do not write the claims report")
    group.addoption(
        "--claims",
        default=None,
        metavar="ID[,ID|GLOB]",
        help="run only the tests (evidence and negative controls) of these claims, e.g. --claims 'BSJ25.*' or "
        "--claims LJ22.L1,GP22.E8; the run is partial and its report goes to reports/partial/",
    )
    group.addoption(
        "--claims-save",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="save this run (if full and complete) to <report dir>/history/NNNN_<commit>_<profile>[_NAME].json.gz; "
        "write it as --claims-save=NAME (a separate word would be taken for a test path)",
    )
    group.addoption("--claims-autosave", action="store_true", help="save every full, complete run to the history (other runs are not saved, and the summary says why)")
    group.addoption(
        "--claims-compare",
        nargs="?",
        const="",
        default=None,
        metavar="NUM|PATH",
        help="compare this run with a saved run (default: the latest history entry; NUM: that entry) or a report "
        "file, print what changed, and fail the session on a regression (--claims-compare-fail); write it as "
        "--claims-compare=NUM",
    )
    group.addoption(
        "--claims-compare-fail",
        action="append",
        default=None,
        metavar="EXPR",
        help="a change that fails the session, repeatable: [CLAIM-GLOB:]RULE with RULE one of verdict, "
        "verdict:any, margin:F, slack:F, cases[:F], p, counterexample, gone, all (default with --claims-compare: "
        "verdict, counterexample, gone)",
    )


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def _git(root: Path) -> dict:
    """The commit, and whether the code differs from it (reports/ is ignored by git)."""

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain") if commit else None
    if status is None:
        return {"commit": commit, "dirty": None}
    # a tracked file changed, or an untracked Python file (a new test module) that the run may have used;
    # other untracked files (logs, a virtualenv) do not change what ran
    changed = [line for line in status.splitlines() if not line.startswith("??") or line.rstrip().endswith(".py")]
    return {"commit": commit, "dirty": bool(changed)}


def _report_directory(config: pytest.Config) -> Path:
    option = config.getoption("claims_report_dir")
    return Path(option).resolve() if option else config.rootpath / "reports"


def _check_directory(directory: Path, option: str) -> None:
    """A report directory that cannot be written is a usage error now, not a traceback after the run."""
    try:
        if directory.exists() and not directory.is_dir():
            raise pytest.UsageError(f"{option}={directory}: exists and is not a directory")
        for path in (directory, directory / PARTIAL):
            if path.exists() and not path.is_dir():
                raise pytest.UsageError(f"{option}={directory}: {path} exists and is not a directory")
            path.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=path):
                pass
    except OSError as error:
        raise pytest.UsageError(f"{option}={directory}: cannot write reports there ({error.strerror or error})") from None


def _limit_threads() -> None:
    """One torch (OpenMP / MKL) thread per xdist worker: workers already fill the cores, and more
    threads than cores slow every worker down."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")  # read by torch when it is first imported
    threads = os.environ["OMP_NUM_THREADS"]
    if "torch" in sys.modules and threads.isdigit() and int(threads) > 0:
        sys.modules["torch"].set_num_threads(int(threads))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Check the options, load the profile and fix one Hypothesis seed for the session (before
    Hypothesis's own ``pytest_configure`` reads ``--hypothesis-seed``), so a randomized run can be
    replayed; then start the selection tracker and, on the controller, the reporter."""
    config.addinivalue_line(
        "markers",
        "claim(id, negative_control=False): the test evidences claim `id` of the registry; "
        "negative_control=True marks a check that must reject a case violating a hypothesis.",
    )
    runs_nothing = any(getattr(config.option, mode, False) for mode in ("collectonly", "setuponly", "setupplan", "showfixtures"))
    report = not config.getoption("no_claims_report") and not runs_nothing
    worker = hasattr(config, "workerinput")
    # every option is checked before anything changes (a directory, Hypothesis's profile, a test run)
    profile = config.getoption("hypothesis_profile", None) or _profiles.default_profile()
    if profile not in _profiles.PROFILES:
        raise pytest.UsageError(
            f"--hypothesis-profile={profile}: not a profile of this suite; one of {', '.join(_profiles.PROFILES)}"
        )
    selected = _claims_option(config)
    baseline, rules = None, []
    if not worker:
        if report:
            _check_save_name(config)
            baseline, rules = _baseline(config), _fail_rules(config)
            _check_directory(_report_directory(config), "--claims-report-dir")
        elif config.getoption("claims_compare") is not None or config.getoption("claims_compare_fail"):
            raise pytest.UsageError(
                "--claims-compare needs the claims report (not with --no-claims-report or --collect-only)"
            )
        elif config.getoption("no_claims_report") and (
            config.getoption("claims_save") is not None or config.getoption("claims_autosave")
        ):
            raise pytest.UsageError("--claims-save/--claims-autosave: nothing to save with --no-claims-report")
    settings.load_profile(profile)
    _profiles.activate(profile)
    if selected is not None:
        config.pluginmanager.register(ClaimFilter(selected, config.getoption("claims")), "claims-filter")
    if worker:
        config.option.hypothesis_seed = config.workerinput[SEED]
        _limit_threads()
        directory = config.workerinput.get(MANIFESTS)
        if directory:
            config.pluginmanager.register(SelectionTracker(config, Path(directory)), "claims-selection")
        return
    if getattr(config.option, "hypothesis_seed", None) is None and not settings.get_profile(profile).derandomize:
        config.option.hypothesis_seed = random.SystemRandom().getrandbits(32)
    if config.pluginmanager.hasplugin("html"):
        config.pluginmanager.register(HtmlRows(), "claims-html-rows")
    if report:
        tracker = SelectionTracker(config, None)
        config.pluginmanager.register(tracker, "claims-selection")
        reporter = ClaimsReporter(config, profile, tracker, baseline, rules)
        config.pluginmanager.register(reporter, "claims-reporter")
        git = reporter.git
        commit = f"commit {git['commit'][:12]}{' (dirty)' if git['dirty'] else ''}" if git["commit"] else "commit unknown"
        # read by claims.record_figure in this process and in xdist workers (started later, they inherit it)
        os.environ["CLAIMS_RUN_LABEL"] = f"{commit}, profile {profile}"


class HtmlRows:
    """pytest-html, when installed and active (never required): a Claims column in its results table with
    each claim test's IDs and a short evidence line."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list) -> None:
        cells.insert(2, "<th>Claims</th>")

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list) -> None:
        cells.insert(2, f"<td>{html.escape(evidence_line(report))}</td>")


def evidence_line(report: pytest.TestReport) -> str:
    """"LJ22.L1 · 100 cases · worst 2.1e-16 vs 4.7e-15", "LJ22.L1 · control: rejected · 100 cases · worst
    0.5 vs 1e-15" (its cases violate a hypothesis, and the check rejected them), or "" for a test of no claim."""
    meta, evidence = _property(report, META), _property(report, EVIDENCE)
    if meta is None:
        return ""
    parts = [", ".join(meta["ids"])]
    if meta["role"] == CONTROL:
        rejected = report.passed and evidence and evidence.get("cases")
        parts.append("control: rejected" if rejected else f"control: {report.outcome}")
    if evidence:
        parts.append(f"{evidence.get('cases', 0)} cases")
        if evidence.get("max_error") is not None:
            parts.append(f"worst {evidence['max_error']:.2g} vs {evidence['tolerance']:.2g}")
        if evidence.get("verdict"):
            parts.append(f"declared {evidence['verdict']}")
    return " · ".join(parts)


def _claims_option(config: pytest.Config) -> set[str] | None:
    """The claim IDs --claims names (IDs and globs over the registry); an ID or glob matching none is a
    usage error naming the nearest valid IDs, as for an unknown ID in a marker."""
    option = config.getoption("claims", None)
    if option is None:
        return None
    selected: set[str] = set()
    for pattern in filter(None, (p.strip() for p in option.split(","))):
        matched = {i for i in CLAIMS if fnmatch.fnmatchcase(i, pattern)}
        if not matched:
            raise pytest.UsageError(f"--claims {option}: {unknown_claim_message(pattern)}")
        selected |= matched
    if not selected:
        raise pytest.UsageError(f"--claims {option!r}: names no claim")
    return selected


def _baseline(config: pytest.Config) -> tuple[Path, dict] | None:
    """The report --claims-compare names, read and checked before any test runs: a bad baseline is a
    one-line usage error naming the file, and nothing is written. On the first night (the latest entry
    asked for, none saved yet) there is nothing to compare: a warning, not an error."""
    spec = config.getoption("claims_compare")
    if spec is None:
        return None
    history = _report_directory(config) / HISTORY
    try:
        path = resolve_baseline(spec, history)
        return path, load_report(path)
    except BaselineError as error:
        if not spec.strip() and not history_entries(history):
            config.issue_config_time_warning(
                pytest.PytestConfigWarning(f"--claims-compare: {error}; this run is compared with nothing"), 2
            )
            return None
        raise pytest.UsageError(f"--claims-compare: {error}") from None


def _check_save_name(config: pytest.Config) -> None:
    """--claims-save=NAME: a name that cannot be part of a file name is a usage error now, not after the run."""
    name = config.getoption("claims_save")
    if name:
        try:
            entry_name({"run": {}}, 1, name)
        except ValueError as error:
            raise pytest.UsageError(f"--claims-save={name}: {error}") from None


def _fail_rules(config: pytest.Config) -> list:
    expressions = config.getoption("claims_compare_fail")
    try:
        return parse_rules(expressions)  # None: the defaults
    except ValueError as error:
        raise pytest.UsageError(f"--claims-compare-fail: {error}") from None


class ClaimFilter:
    """--claims: deselects every test that evidences none of the selected claims (library unit tests
    too), through pytest_deselected, so the run is partial and its report says why."""

    def __init__(self, selected: set[str], option: str):
        self.selected, self.option = selected, option

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept, dropped = [], []
        for item in items:
            meta = claim_meta(item)
            (kept if meta and self.selected & set(meta["ids"]) else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """xdist: every worker uses the controller's seed and writes its selection manifest."""
    node.workerinput[SEED] = getattr(node.config.option, "hypothesis_seed", None)
    reporter = node.config.pluginmanager.get_plugin("claims-reporter")
    if reporter is not None:
        node.workerinput[MANIFESTS] = str(reporter.manifests)


def claim_meta(item: pytest.Item) -> dict | None:
    """{"ids": [...], "role": "evidence" | "control"} of a claim test, None for any other test."""
    markers = list(item.iter_markers("claim"))
    if not markers:
        return None
    ids = list(dict.fromkeys(marker.args[0] if marker.args else "" for marker in markers))
    control = any(marker.kwargs.get("negative_control", False) for marker in markers)
    return {"ids": ids, "role": CONTROL if control else EVIDENCE_ROLE}


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """An unknown claim ID is a collection error naming it and the nearest valid IDs."""
    report = yield
    if report.outcome != "passed":
        return report
    problems = []
    for item in report.result:
        meta = claim_meta(item) if isinstance(item, pytest.Item) else None
        if meta is None:
            continue
        problems += [f"{item.nodeid}: {unknown_claim_message(i)}" for i in meta["ids"] if i not in CLAIMS]
        item.user_properties.append((META, dumps(meta)))
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
    return report


def _is_violation(exc: BaseException) -> bool:
    """A refutation: a ClaimViolation, or a group of them only. A group mixing in any other error is
    an error, and a failure Hypothesis could not reproduce (Flaky) is not evidence either way."""
    if isinstance(exc, Flaky):
        return False
    if isinstance(exc, ClaimViolation):
        return True
    return isinstance(exc, BaseExceptionGroup) and all(map(_is_violation, exc.exceptions))


def _notes(exc: BaseException) -> list[str]:
    notes = list(getattr(exc, "__notes__", []))
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            notes += _notes(inner)
    return notes


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if claim_meta(item) is None:
        return (yield)
    with collecting(claim_ids=claim_meta(item)["ids"]) as evidence:
        try:
            return (yield)
        except BaseException as exc:
            if _is_violation(exc):
                evidence.violation = str(exc).splitlines()[0][:500] if str(exc) else type(exc).__name__
                # Hypothesis attaches the shrunk example (and how to reproduce it) as notes
                evidence.falsifying_example = "\n".join(_notes(exc))[:4000] or None
            raise
        finally:
            item.user_properties.append((EVIDENCE, dumps(evidence.to_builtin())))


class SelectionTracker:
    """Where tests are collected: which claim tests were collected, and which remain selected after
    ``-k``, ``-m``, ``--deselect``, ``--lf`` and the like. A worker writes its manifest to the
    controller's directory; in a run without xdist the reporter reads ``self.manifest``."""

    def __init__(self, config: pytest.Config, directory: Path | None):
        self.config = config
        self.directory = directory
        self.manifest = Manifest()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.manifest.collection_errors += 1

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]):
        self.manifest.collected = {item.nodeid: meta for item in items if (meta := claim_meta(item))}
        self.manifest.collected_tests = len(items)
        result = yield
        self.manifest.collected_ok = True  # collection ran to its end (not aborted by a usage error)
        return result

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """-k, -m, --deselect, --lf, --sw: every plugin that drops tests reports them here."""
        self.manifest.deselected += len(items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The final selection, after every plugin's modifications (--lf's run after ours)."""
        self.manifest.selected_tests = len(session.items)
        self.manifest.selected = [item.nodeid for item in session.items if item.nodeid in self.manifest.collected]
        self.manifest.deselected = max(self.manifest.deselected, self.manifest.collected_tests - len(session.items))
        if self.directory is not None:
            self.manifest.write(self.directory, os.environ.get("PYTEST_XDIST_WORKER", "worker"))


def _property(report: pytest.TestReport, name: str):
    value = next((value for key, value in reversed(report.user_properties) if key == name), None)
    return loads(value) if isinstance(value, str) else value


def _message(report: pytest.TestReport) -> str:
    if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    text = str(report.longreprtext or "").strip().splitlines()
    return text[-1][:300] if text else ""


class ClaimsReporter:
    """Controller only: aggregates test reports per claim and writes the report at the end."""

    def __init__(
        self, config: pytest.Config, profile: str, tracker: SelectionTracker,
        baseline: tuple[Path, dict] | None = None, rules: list | None = None,
    ):
        self.baseline, self.rules = baseline, rules or []  # baseline: (its file, the report read at configure)
        self.comparison = None
        self.regressions: list = []
        self.saved: str | None = None
        self.config = config
        self.tracker = tracker
        self.tests: dict[str, TestRecord] = {}
        self.finished: set[str] = set()
        self.report: dict | None = None
        self.directory: Path | None = None
        self.manifests = Path(tempfile.mkdtemp(prefix="claims-manifests-"))
        self.profile = profile
        self.started = _now()
        self.git = _git(config.rootpath)  # the code as it was when the run started

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.finished.add(report.nodeid)
        meta = _property(report, META)
        if meta is None:
            record = self.tests.get(report.nodeid)  # a crash report of xdist carries no properties
            if record is None:
                return
        else:
            record = self.tests.setdefault(
                report.nodeid, TestRecord(report.nodeid, list(meta["ids"]), meta["role"] == CONTROL)
            )
        evidence = _property(report, EVIDENCE) if report.when == "call" else None
        record.update(report.when, report.outcome, evidence, report.duration, _message(report))

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
            shown = ", ".join(str(p.relative_to(config.rootpath)) if p.is_relative_to(config.rootpath) else str(p) for p in missing)
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
        seed = None if derandomized else _as_seed(getattr(config.option, "hypothesis_seed", None))
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
            "finished": _now(),
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
            "versions": {name: _version(name) for name in VERSIONED},
            "git": self.git,
            "command": shlex.join(["pytest", *args]),
            "addopts": {"ini": list(config.getini("addopts")), "PYTEST_ADDOPTS": os.environ.get("PYTEST_ADDOPTS")},
            "replay": _replay_command(args, self.profile, seed),
        }

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        manifest = self._manifest()
        shutil.rmtree(self.manifests, ignore_errors=True)
        if manifest is not None:  # selected tests that never reported are not-run
            for nodeid in manifest.selected:
                meta = manifest.collected[nodeid]
                self.tests.setdefault(nodeid, TestRecord(nodeid, list(meta["ids"]), meta["role"] == CONTROL))
        roots = suite_roots(self.config.rootpath, self.config.getini("testpaths"))
        suites = claim_suites(manifest, scan_suite(roots), self.config.rootpath)
        reasons = self._selection(manifest, roots, suites)
        self.report = build_report(self._run(manifest, reasons, exitstatus), self.tests, suites)
        # Only a full, complete run replaces the full report: an interrupted run of the whole suite
        # would otherwise overwrite the last good report with not-run entries.
        full = not reasons and self.report["run"]["complete"]
        self.directory = _report_directory(self.config) / ("" if full else PARTIAL)
        write_report(self.report, self.directory)
        if self.baseline is not None:
            self._compare(session)
        if self.config.getoption("claims_save") is not None or self.config.getoption("claims_autosave"):
            self._save(full)

    def _compare(self, session: pytest.Session) -> None:
        """This run against the baseline; a partial run only for the claims it selected (the others
        would read as gone). A regression fails the session."""
        path, old = self.baseline
        new = self.report
        if new["run"]["selection"] == "partial":
            chosen = set(new["run"]["selected_claims"])
            old = {**old, "claims": [c for c in old["claims"] if c["id"] in chosen]}
            new = {**new, "claims": [c for c in new["claims"] if c["id"] in chosen]}
        self.comparison = compare(old, new, old_label=_shown_path(path, self.config), new_label="this run")
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
            path = save_run(self.report, _report_directory(self.config) / HISTORY, name)
        except ValueError as error:
            self.saved = str(error)
            return
        self.saved = f"saved to the history as {path}"

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.report is None:
            return
        where = f"report in {self.directory}"
        if self.directory.name == PARTIAL:
            where += f" (not a full, complete run: the full report in {self.directory.parent} is unchanged)"
        terminalreporter.write_line(f"{summary_line(self.report)}; {where}")
        if self.comparison is not None:
            terminalreporter.write_sep("-", "claims compare")
            terminalreporter.write_line(render_header(self.comparison))
            if self.report["run"]["selection"] == "partial":
                chosen = self.report["run"]["selected_claims"]
                terminalreporter.write_line(
                    f"  partial run: only the claims it selected are compared ({', '.join(chosen) or 'none'})"
                )
            terminalreporter.write_line(render_table(self.comparison, rules=self.rules))
            if self.regressions:
                terminalreporter.write_line(
                    f"claims compare: {len(self.regressions)} regression(s) against {self.comparison.old_label}",
                    red=True,
                )
        if self.saved:
            terminalreporter.write_line(f"claims: {self.saved}")


def _shown_path(path: Path, config: pytest.Config) -> str:
    """``path`` relative to the rootdir when it is under it (reports/history/0003_...json.gz)."""
    path = Path(path).resolve()
    return str(path.relative_to(config.rootpath)) if path.is_relative_to(config.rootpath) else str(path)


def _replay_command(args: list[str], profile: str, seed) -> str:
    """The command that draws the same examples: this one, with the profile and seed spelled out."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--hypothesis-seed", "--hypothesis-profile"):
            skip = True
        elif not arg.startswith(("--hypothesis-seed=", "--hypothesis-profile=")):
            kept.append(arg)
    extra = [f"--hypothesis-profile={profile}"] + ([f"--hypothesis-seed={seed}"] if seed is not None else [])
    return shlex.join(["pytest", *kept, *extra])


def _as_seed(value):
    """``--hypothesis-seed`` arrives as a string; Hypothesis uses it as an int when it is one."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
